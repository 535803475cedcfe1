"""Dependencies point inward: core imports no other layer; games import only core."""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent / "boardlab"
OUTER = {"agents", "arena", "server", "web", "interop", "cli", "terminal", "bench"}


def imported_modules(path):
    tree = ast.parse(path.read_text())
    package = path.relative_to(ROOT.parent).with_suffix("").parts[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                yield ".".join(base + ((node.module,) if node.module else ()))
            else:
                yield node.module or ""


def layer_files(layer):
    return sorted((ROOT / layer).rglob("*.py"))


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


def test_the_check_itself_catches_a_bad_import(tmp_path):
    bad = ROOT / "games" / "_layer_probe.py"
    bad.write_text("from ..agents import base\n")
    try:
        modules = list(imported_modules(bad))
    finally:
        bad.unlink()
    assert "boardlab.agents" in modules


def test_outer_layers_do_not_branch_on_game_names():
    names = ("carteso", "rumbo", "cartagena", "ctor")
    for path in [ROOT / "cli.py", ROOT / "terminal.py", ROOT / "bench.py",
                 *layer_files("agents"), *layer_files("arena")]:
        text = path.read_text().lower()
        code = [line for line in text.splitlines()
                if not line.strip().startswith(("#", '"', "'")) and "example" not in line
                and "help=" not in line and "epilog" not in line and "description" not in line]
        for name in names:
            assert not any(f'"{name}"' in line or f"'{name}'" in line for line in code), \
                f"{path.name} mentions {name}"


def test_front_ends_do_not_probe_for_game_features():
    """Declared facts, not probes: no hasattr/getattr on games or states outside games/."""
    import re
    probe = re.compile(r"\b(hasattr|getattr)\(\s*(game|state|game_obj|cls|base|self\.state|"
                       r"self\.game|self\.base)\b")
    for path in [ROOT / "cli.py", ROOT / "terminal.py", ROOT / "bench.py",
                 *layer_files("agents"), *layer_files("arena"), *layer_files("core")]:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            assert not probe.search(line), f"{path.name}:{number} probes a game: {line.strip()}"


def test_no_layer_outside_games_compares_a_game_name():
    """No string constant outside games/ (docstrings aside) is a game's name."""
    names = {"carteso", "rumbo", "cartagena", "ctor"}
    for path in [ROOT / "cli.py", ROOT / "terminal.py", ROOT / "bench.py",
                 *layer_files("agents"), *layer_files("arena"), *layer_files("core")]:
        tree = ast.parse(path.read_text())
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef,
                                           ast.AsyncFunctionDef))
                      and node.body and isinstance(node.body[0], ast.Expr)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                    id(node) not in docstrings:
                assert node.value.strip().lower() not in names, \
                    f"{path.name}:{node.lineno} names the game {node.value!r}"


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
