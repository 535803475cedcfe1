"""The configurations the conformance suite covers (a module, not conftest.py: the browser
tests' conftest.py would shadow this folder's under the name ``conftest``)."""
import importlib.util
import pathlib

import boardlab
from boardlab.core import registry

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples" / "games"


def conformance_specs():
    """Every registered game, in the configurations the conformance suite covers."""
    specs = []
    for cls in boardlab.games():
        specs.extend(cls.conformance_specs or (cls.name,))
    return specs


def example_modules():
    """The modules of the example games in examples/games/ (docs/adding-a-game.md),
    imported by path: the product does not import or register them."""
    modules = []
    for path in sorted(EXAMPLES.glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"boardlab_example_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        modules.append(module)
    return modules


EXAMPLE_MODULES = example_modules()
EXAMPLE_GAMES = [value for module in EXAMPLE_MODULES for value in vars(module).values()
                 if isinstance(value, type) and issubclass(value, boardlab.Game)
                 and value.__module__ == module.__name__]


def example_specs():
    """The example games' configurations that the conformance suite covers."""
    return [spec for cls in EXAMPLE_GAMES for spec in cls.conformance_specs or (cls.name,)]


def register_examples(monkeypatch):
    """Register the example games until ``monkeypatch`` undoes it (the end of a test).

    The registry has no way to unregister a game, and every other test sees the product's
    games only, so the entries go straight into its table, where the monkeypatch restores
    them.
    """
    for cls in EXAMPLE_GAMES:
        monkeypatch.setitem(registry._GAMES, cls.name, cls)
