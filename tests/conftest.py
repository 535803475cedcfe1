import warnings

import pytest


@pytest.fixture(autouse=True)
def _quiet_parity_warnings():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*parity.*")
        yield
