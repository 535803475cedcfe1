import warnings

import pytest

from postgres_server import throwaway_postgres


@pytest.fixture(autouse=True)
def _quiet_parity_warnings():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*parity.*")
        yield


@pytest.fixture(scope="module")
def postgres():
    """A throw-away PostgreSQL server for the module's tests (skips where none is
    installed); a module may define its own."""
    with throwaway_postgres() as server:
        yield server


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, tmp_path):
    """The URL of an empty database: a SQLite file, then a throw-away PostgreSQL server's
    (skipped where none is installed): a test that takes it runs on both."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'test.db'}"
    else:
        with throwaway_postgres() as server:
            yield server.url
