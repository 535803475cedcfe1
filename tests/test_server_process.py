"""`boardlab serve` as a process: what it leaves behind when it is killed."""
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")


def children(pid: int) -> list[int]:
    """The live child processes of ``pid`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields[1] == str(pid) and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_killed_server_leaves_no_ai_worker_behind(tmp_path):
    """SIGKILL gives the server no time to shut its AI pool down: the workers must end
    with it all the same (they used to stay, orphans, for ever)."""
    process = subprocess.Popen([sys.executable, "-m", "boardlab.cli", "serve", "--port", "0",
                                "--db", str(tmp_path / "s.db")], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        assert process.stdout.readline().startswith("boardlab server: open http://")
        deadline = time.monotonic() + 300               # bounds a stuck start only
        workers = []
        while time.monotonic() < deadline:
            workers = [pid for pid in children(process.pid)
                       if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()]
            if workers:
                break
            time.sleep(0.1)
        assert workers, "the server started no AI worker"
        time.sleep(1)                                   # past the workers' initializer
    finally:
        process.kill()
        process.wait(timeout=60)
    deadline = time.monotonic() + 120
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(pid) for pid in workers)
