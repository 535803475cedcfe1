import warnings

import pytest

import boardlab


def conformance_specs():
    """Every registered game, in the configurations the conformance suite covers."""
    specs = []
    for cls in boardlab.games():
        specs.extend(getattr(cls, "conformance_specs", (cls.name,)))
    return specs


@pytest.fixture(autouse=True)
def _quiet_parity_warnings():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*parity.*")
        yield
