"""Every file of the package that is not Python ships in a wheel: pyproject.toml's
``[tool.setuptools.package-data]`` names it (setuptools leaves out, without a word, a data
file no rule names: the shipped networks and the web app once were)."""
import pathlib
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "boardlab"


def data_files():
    return sorted(path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*")
                  if path.is_file() and path.suffix not in (".py", ".pyc")
                  and "__pycache__" not in path.parts)


def _matches(name, pattern):
    """Whether setuptools's glob ``pattern`` takes ``name`` (a ``*`` stays in one folder)."""
    path, glob = pathlib.PurePosixPath(name), pathlib.PurePosixPath(pattern)
    return len(path.parts) == len(glob.parts) and path.match(pattern)


def test_every_data_file_of_the_package_is_named_in_package_data():
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["boardlab"]
    files = data_files()
    assert any(name.endswith(".npz") for name in files) and "server/static/game.html" in files
    missing = [name for name in files if not any(_matches(name, p) for p in patterns)]
    assert missing == [], f"add patterns for {missing} to [tool.setuptools.package-data]"


def test_no_virtualenv_or_link_out_of_the_tree_is_committed():
    """A worktree's ``.venv`` link to a shared virtualenv was once committed: merged, it
    replaced the main checkout's real (ignored) ``.venv`` with a link to itself."""
    import shutil
    import subprocess

    import pytest

    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(["git", "ls-files", "-s"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.splitlines()
    links = [line.split("\t", 1)[1] for line in listed if line.startswith("120000 ")]
    assert not [path for path in links if path.split("/")[0] == ".venv"]
    outside = [path for path in links
               if not (ROOT / path).resolve().is_relative_to(ROOT)]
    assert outside == [], f"committed links out of the tree: {outside}"
