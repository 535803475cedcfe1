"""Dependencies point inward, floor by floor, with no cycle between packages.

Every module of boardlab belongs to a *unit* (a subpackage, or a top-level module) and
every unit to a *floor* (:data:`FLOORS`, lowest first). A module may import its own
unit and units of lower floors only: every import counts, those inside functions
(lazy imports) included. A few rules say more than the order: the games are reached
through the registry (above ``games`` only the compiled-kernel interface
``games/kernels.py`` is imported by name), ``checks`` are imported only by the CLI,
nothing imports the CLI, and a ``clients`` module (a program that talks to a server) never
imports ``server``.
"""
import ast
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent / "boardlab"

#: The floors, lowest first. ``boardlab`` is the package's own ``__init__.py`` (make,
#: replay, ...), which imports ``core`` and ``games``.
FLOORS = (
    ("core",),
    ("games",),
    ("boardlab",),
    ("nn",),           # features, the view encoding, network inference (numpy only)
    ("agents",),
    ("vector",),       # many games stepped in one compiled call (the compiled loop of agents)
    ("arena", "interop", "warmup"),
    ("learn",),        # training: self-play through agents, gating duels through arena
    ("server",),
    ("clients",),      # programs that talk to a server (``boardlab connect``)
    ("checks",),       # soaks, load and secrets checks, benchmarks, reliability probes
    ("cli",),          # the ``boardlab`` command, with its terminal UI and report
)
#: Top-level modules that are part of a unit of another name (the others are units of
#: their own name): the CLI's ``__main__``, terminal UI and ``boardlab report``; and the
#: speed benchmark, which stays at the top because ``boardlab report`` reads it too.
MODULE_UNITS = {"__init__": "boardlab", "__main__": "cli", "terminal": "cli", "report": "cli",
                "bench": "checks"}
#: The one module of ``games`` that units above it import by name: the compiled-kernel
#: interface (random numbers and flood fills the compiled search inlines).
GAMES_INTERFACE = {"boardlab.games", "boardlab.games.kernels"}
GAME_NAMES = ("carteso", "rumbo", "cartagena", "ctor")


def floor_of(unit):
    for level, units in enumerate(FLOORS):
        if unit in units:
            return level
    return None


def unit_of(path, root=ROOT):
    """The unit of the module file ``path`` under the package folder ``root``."""
    parts = path.relative_to(root).parts
    if len(parts) == 1:
        return MODULE_UNITS.get(path.stem, path.stem)
    return parts[0]


def unit_of_module(module, root=ROOT):
    """The unit of the boardlab module named ``module`` (None outside boardlab)."""
    parts = module.split(".")
    if parts[0] != root.name:
        return None
    if len(parts) == 1:
        return "boardlab"
    if (root / parts[1]).is_dir():
        return parts[1]
    return MODULE_UNITS.get(parts[1], parts[1])


def imported_modules(path, root=ROOT):
    """Every module ``path`` imports, anywhere in it (function bodies included), by its
    full name; ``from package import name`` gives ``package.name`` where that is a
    module or package of boardlab, else ``package``."""
    tree = ast.parse(path.read_text())
    package = path.relative_to(root.parent).parts[:-1]     # an __init__.py's: its own
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else ()
            module = ".".join(base + ((node.module,) if node.module else ()))
            for alias in node.names:
                inner = root.parent.joinpath(*module.split("."), alias.name)
                sub = inner.with_suffix(".py").is_file() or (inner / "__init__.py").is_file()
                yield f"{module}.{alias.name}" if sub else module


def module_files(root=ROOT):
    return sorted(root.rglob("*.py"))


def layer_files(*units, root=ROOT):
    """The module files of those of ``units`` that exist (``cli``: ``cli.py`` or the
    ``cli/`` package, with the modules that :data:`MODULE_UNITS` gives it)."""
    return [path for path in module_files(root) if unit_of(path, root) in units]


def imports_by_unit(root=ROOT):
    """Each import between units: (importing file, its unit, module, the module's unit)."""
    for path in module_files(root):
        unit = unit_of(path, root)
        for module in imported_modules(path, root):
            target = unit_of_module(module, root)
            if target is not None and target != unit:
                yield path, unit, module, target


def floor_violations(root=ROOT):
    """Imports of a unit on the same floor or above (texts naming file and module)."""
    found = {}
    for path, unit, module, target in imports_by_unit(root):
        if floor_of(unit) is None or floor_of(target) is None:
            continue                     # reported by test_every_unit_is_on_a_floor
        if floor_of(target) >= floor_of(unit):
            found[f"{path.relative_to(root)} ({unit}) imports {module} ({target})"] = None
    return list(found)


def unit_graph(root=ROOT):
    graph = {}
    for _, unit, _, target in imports_by_unit(root):
        graph.setdefault(unit, set()).add(target)
    return graph


def cycles(graph):
    """The import cycles of ``graph`` (unit -> units it imports): each strongly connected
    set of two or more units, sorted (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


# The floors ----------------------------------------------------------------------------
def test_every_unit_is_on_a_floor():
    unplaced = sorted({unit_of(path) for path in module_files()} - set().union(*FLOORS))
    assert not unplaced, f"place {unplaced} on a floor of FLOORS (or in MODULE_UNITS)"


def test_every_import_goes_to_a_lower_floor():
    assert floor_violations() == []


def test_no_import_cycle_between_packages():
    assert cycles(unit_graph()) == []


def test_above_games_only_the_kernel_interface_is_imported_by_name():
    """Games are found through the registry; the compiled search inlines the shared
    kernel helpers of ``games/kernels.py``, the one module of ``games`` named above it."""
    for path, unit, module, target in imports_by_unit():
        if target == "games" and unit != "boardlab":
            assert module in GAMES_INTERFACE, f"{path.relative_to(ROOT)} imports {module}"


def test_checks_are_imported_by_the_cli_only():
    for path, unit, module, target in imports_by_unit():
        if target == "checks":
            assert unit == "cli", f"{path.relative_to(ROOT)} imports {module}"


def test_nothing_imports_the_cli():
    for path, _, module, target in imports_by_unit():
        assert target != "cli", f"{path.relative_to(ROOT)} imports {module}"


def test_a_client_does_not_import_the_server():
    for path, unit, module, target in imports_by_unit():
        if unit == "clients":
            assert target != "server", f"{path.relative_to(ROOT)} imports {module}"


def test_the_search_finds_the_network_through_the_evaluator_registry():
    """No module of agents imports learn (training); the network evaluator is
    ``nn``'s, registered under ``net`` in ``agents/evaluators.py``."""
    from boardlab.agents.evaluators import evaluator_names
    assert "net" in evaluator_names()
    for path in layer_files("agents"):
        assert not [m for m in imported_modules(path) if m.startswith("boardlab.learn")], \
            path.name


@pytest.mark.parametrize("path", layer_files("games"), ids=lambda p: p.name)
def test_games_import_nothing_above_them(path):
    for module in imported_modules(path):
        parts = module.split(".")
        if parts[0] == "boardlab":
            assert len(parts) > 1 and parts[1] in ("core", "games"), f"{path.name} imports {module}"


@pytest.mark.parametrize("path", layer_files("core"), ids=lambda p: p.name)
def test_core_imports_only_core_and_the_standard_library(path):
    for module in imported_modules(path):
        parts = module.split(".")
        assert parts[0] != "numba", f"{path.name} imports numba"
        if parts[0] == "boardlab":
            assert parts[1] == "core", f"{path.name} imports {module}"


# The checker checks --------------------------------------------------------------------
def _tree(tmp_path, files):
    """A package ``boardlab`` under ``tmp_path`` holding ``files`` (path: source)."""
    root = tmp_path / "boardlab"
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
    for folder in [root, *[p for p in root.rglob("*") if p.is_dir()]]:
        (folder / "__init__.py").touch()
    return root


def test_the_check_itself_catches_a_bad_import(tmp_path):
    root = _tree(tmp_path, {"games/probe.py": "from ..agents import base\n",
                            "agents/base.py": ""})
    assert "boardlab.agents.base" in list(imported_modules(root / "games" / "probe.py", root))


def test_the_check_itself_catches_a_lazy_upward_import(tmp_path):
    root = _tree(tmp_path, {"agents/probe.py": "def evaluator():\n"
                                                "    from ..learn.train import run\n"
                                                "    return run\n",
                            "learn/train.py": "run = None\n"})
    assert floor_violations(root) == ["agents/probe.py (agents) imports boardlab.learn.train "
                                      "(learn)"]


def test_the_check_itself_catches_a_cycle(tmp_path):
    root = _tree(tmp_path, {"arena/a.py": "from ..interop import b\n",
                            "interop/b.py": "def later():\n    from ..arena import a\n",
                            "core/c.py": ""})
    graph = unit_graph(root)
    assert graph == {"arena": {"interop"}, "interop": {"arena"}}
    assert cycles(graph) == [["arena", "interop"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_check_itself_sees_the_cli_as_a_module_or_a_package(tmp_path):
    root = _tree(tmp_path, {"cli.py": "from .checks import soak\n", "checks/soak.py": "",
                            "server/app.py": "from ..cli import main\n"})
    assert {unit_of(p, root) for p in layer_files("cli", root=root)} == {"cli"}
    assert floor_violations(root) == ["server/app.py (server) imports boardlab.cli (cli)"]
    package = _tree(tmp_path / "other", {"cli/play.py": "from ..checks import soak\n",
                                         "cli/__init__.py": "from ..server import app\n",
                                         "checks/soak.py": "", "server/app.py": ""})
    assert [p.name for p in layer_files("cli", root=package)] == ["__init__.py", "play.py"]
    assert list(imported_modules(package / "cli" / "__init__.py", package)) == \
        ["boardlab.server.app"]
    assert floor_violations(package) == []


# No game names or probes outside the games ---------------------------------------------
#: the units whose code must not name a game or probe a game for features
OUTER_UNITS = ("nn", "agents", "arena", "interop", "learn", "warmup", "server", "clients",
               "checks", "cli")


def _code_lines(path):
    text = path.read_text().lower()
    return [line for line in text.splitlines()
            if not line.strip().startswith(("#", '"', "'", ">>>")) and "example" not in line
            and "help=" not in line and "epilog" not in line and "description" not in line]


@pytest.mark.parametrize("path", layer_files(*OUTER_UNITS), ids=lambda p: str(p.relative_to(ROOT)))
def test_outer_layers_do_not_branch_on_game_names(path):
    code = _code_lines(path)
    for name in GAME_NAMES:
        assert not any(f'"{name}"' in line or f"'{name}'" in line for line in code), \
            f"{path.name} mentions {name}"


@pytest.mark.parametrize("path", layer_files(*OUTER_UNITS, "core"),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_front_ends_do_not_probe_for_game_features(path):
    """Declared facts, not probes: no hasattr/getattr on games or states outside games/."""
    probe = re.compile(r"\b(hasattr|getattr)\(\s*(game|state|game_obj|cls|base|self\.state|"
                       r"self\.game|self\.base)\b")
    for number, line in enumerate(path.read_text().splitlines(), 1):
        assert not probe.search(line), f"{path.name}:{number} probes a game: {line.strip()}"


@pytest.mark.parametrize("path", layer_files(*OUTER_UNITS, "core"),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_layer_outside_games_compares_a_game_name(path):
    """No string constant outside games/ (docstrings aside) is a game's name."""
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef,
                                       ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                id(node) not in docstrings:
            assert node.value.strip().lower() not in GAME_NAMES, \
                f"{path.name}:{node.lineno} names the game {node.value!r}"


def test_the_outer_checks_cover_the_cli_and_the_new_floors():
    covered = {unit_of(path) for path in layer_files(*OUTER_UNITS)}
    assert {"nn", "agents", "arena", "interop", "learn", "server", "cli"} <= covered
    assert any(path.stem == "terminal" for path in layer_files(*OUTER_UNITS))


def test_nothing_outside_a_kernel_calls_its_private_functions():
    """Each compiled kernel is used through its public names only."""
    for path in layer_files("games"):
        if path.name.endswith("_kernel.py") or path.name == "kernels.py":
            continue
        tree = ast.parse(path.read_text())
        kernels = {alias.asname or alias.name for node in ast.walk(tree)
                   if isinstance(node, ast.ImportFrom) for alias in node.names
                   if alias.name.endswith("_kernel") or alias.name == "kernels"}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                    node.value.id in kernels | {"kernel"} and node.attr.startswith("_"):
                raise AssertionError(f"{path.name}:{node.lineno} calls {node.value.id}."
                                     f"{node.attr}")
