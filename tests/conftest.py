import warnings

import pytest

import boardlab


@pytest.fixture(autouse=True)
def _quiet_parity_warnings():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*parity.*")
        yield
