"""The examples in the docstrings run and give what they show."""
import doctest
import importlib
import pkgutil

import pytest

import boardlab

MODULES = sorted(m.name for m in pkgutil.walk_packages(boardlab.__path__, "boardlab."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as error:          # an adapter's optional library
        if name.startswith("boardlab.interop.") and error.name.split(".")[0] in \
                ("pyspiel", "open_spiel", "pettingzoo", "gymnasium"):
            pytest.skip(f"{name} needs {error.name} (an optional extra: boardlab[openspiel] "
                        f"or boardlab[pettingzoo])")
        raise
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_spec_values_may_hold_commas():
    game = boardlab.make("cartagena", positions="0,3,9,11/0,9,13,15")
    assert boardlab.make(game.spec) == game
    assert boardlab.parse_spec("cartagena(positions=0,3/1,2,players=2)")[1] == {
        "positions": "0,3/1,2", "players": "2"}
