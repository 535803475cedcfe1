"""The options of ``mcts`` and ``ismcts`` (their ``declared_options``)."""
from __future__ import annotations

from ..core.options import Option
from .evaluators import evaluator_names

MCTS_OPTIONS: tuple[Option, ...] = (
    Option("time", float, 0.0, "seconds per move (0: no time limit)", minimum=0),
    Option("iterations", int, 1000, "simulations per move (0: no cap if a time limit "
           "applies, from the spec or --move-time, else 1000; a time alone: no cap)",
           minimum=0),
    Option("c", float, 0.0, "exploration constant of UCB (0: the one measured for the "
           "game, listed per game by `boardlab agents`)", minimum=0),
    Option("urgency", float, 0.0, "first-play urgency of UCB: with U > 0 a node tries a "
           "new move only while no tried move scores U or more (0: every move is tried "
           "once before any is tried again)", minimum=0),
    Option("evaluator", str, "rollout", "how a new leaf is valued: rollout (random play "
           "through the game's kernel), heuristic (the game's quick estimate), net (a "
           "trained network's value, its priors guiding the search by PUCT), ntuple (an "
           "n-tuple network trained by TD learning, in the compiled search) or best (the "
           "one measured strongest at equal time for the game, rollout where none is: "
           "docs/learning.md)",
           choices=evaluator_names()),
    Option("net", str, "", "evaluator=net or ntuple: the weights file (default: the one "
           "shipped for the game's spec, see docs/learning.md)"),
    Option("c_puct", float, 1.5, "evaluator=net: exploration constant of PUCT",
           minimum=0),
    Option("priors", bool, True, "evaluator=net: its priors guide the search by PUCT "
           "(false: UCT, the network valuing the leaves only)"),
    Option("mix", float, 0.0, "evaluator=net or ntuple: a leaf is worth this share of a "
           "rollout's value and the rest of the network's (0.5: half each; 0: the network "
           "alone)",
           minimum=0, maximum=1),
    Option("net_at", str, "", "evaluator=net: where the network values a "
           "simulation: at its new leaf, or (horizon) where the leaf's rollout stops, "
           "in games whose rollouts stop at a horizon (the searching team's next "
           "turn), with no priors; empty: where the network was trained to be "
           "asked (horizon for one trained on the starts of turns, else leaf)",
           choices=("", "leaf", "horizon")),
    Option("fpu", float, 0.2, "evaluator=net: an untried move counts as the node's mean "
           "value less this (first-play urgency)", minimum=0),
    Option("playout", str, "", "how a rollout plays: random, or a policy the game offers "
           "(guided: nine times in ten the action its game judges best at a glance; "
           "tactical: judged from the pieces around the squares it touches); empty: the "
           "game's own choice (what each game offers and chooses: `boardlab agents`, "
           "per game)"),
    Option("rollout_turns", int, 0, "turns a rollout may play before the position is "
           "valued (0: the game's own, listed per game by `boardlab agents`)", minimum=0),
    Option("horizon", bool, True, "where the game offers it, every rollout of a move's "
           "search stops at the same turn, rollout_turns after the turn in play at "
           "the position searched (false: counted from each rollout's own start)"),
    Option("reuse", bool, True, "keep the subtree of the moves actually played"),
    Option("early_stop", bool, True, "stop when the choice can no longer change (the most "
           "visited move cannot be caught in the budget left, or every move won or lost "
           "every simulation)"),
    Option("level", int, 0, "1 (weak) .. 5 (strong): the game's simulations a move "
           "(listed per game by `boardlab agents`), instead of time/iterations (not with "
           "them); 0: no level",
           minimum=0, maximum=5),
    Option("determinizations", int, 1, "with hidden information: how many sampled states "
           "a move searches, each in its own tree, sharing the budget; the move with the "
           "most simulations over all trees is played (1 where nothing is hidden)",
           minimum=1),
    Option("solver", bool, True, "prove won and lost positions (games of two sides with "
           "nothing hidden): play a proven win at once, never a proven loss while another "
           "move is not one (e.g. a pass that the reply pass wins)"),
    Option("compiled", bool, True, "run whole simulations compiled where the game's "
           "kernel offers it (docs/agents.md, \"Compiled simulations\": in play, with the "
           "rollout evaluator and random playouts, about three times the simulations a "
           "second); false: the Python tree"),
    Option("compiled_net", bool, False, "evaluator=net: run whole PUCT simulations "
           "compiled, the network valued in compiled code, where the game's kernel can "
           "observe a leaf (docs/agents.md, \"Compiled simulations\"; no solver, no tree "
           "kept between moves)"),
    Option("workers", int, 1, "processes that search each move at once, each with its "
           "own tree and seed, their root statistics added up (root parallelism; one "
           "core each)", minimum=1, maximum=64),
)

ISMCTS_OPTIONS: tuple[Option, ...] = tuple(
    o for o in MCTS_OPTIONS if o.name != "determinizations") + (
    Option("opponents", str, "fused", "fused: one statistic per opponent decision over "
           "all samples; informed: opponents decide on their own private information "
           "(their hand), one statistic per hand they may hold", choices=("fused", "informed")),
    Option("own", str, "fused", "fused: one statistic per own decision below the root over "
           "all samples; split: one per hand the agent may hold there (its draws are "
           "unknown until made)", choices=("fused", "split")),
    Option("worlds", int, 0, "determinizations per move: 0, a new one every simulation "
           "(where the game can deal one cheaply, else 64); K, the first K simulations "
           "sample them and later ones cycle through them", minimum=0),)
