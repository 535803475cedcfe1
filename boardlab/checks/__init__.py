"""Checks and benchmarks of boardlab itself, not part of the product.

What lives here: the soaks of a real server (``soak.py``: durability under SIGKILL and
racing actions), the secrets check (``secrets_check.py``: every frame holds only what its
seat may know), the load benchmark (``loadbench.py``: latencies and CPU of many games at
once) and the reliability probes (``reliability.py``: fuzzed records, hidden views,
hostile engines, killed tournaments). ``boardlab soak ...`` runs them; see
docs/server-checks.md.

Only the command line (``boardlab.cli``) and the tests import this package; product code
(core, games, agents, arena, server, clients) never does.
"""
