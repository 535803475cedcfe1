"""The server's modules stay small (issue: the game room split into collaborators): no
module under boardlab/server/ is over 400 lines, so a feature lands in a room of its own."""
from pathlib import Path

SERVER = Path(__file__).resolve().parent.parent / "boardlab" / "server"
LIMIT = 400


def test_no_server_module_is_over_400_lines():
    sizes = {str(path.relative_to(SERVER)): len(path.read_text().splitlines())
             for path in SERVER.rglob("*.py")}
    assert len(sizes) > 30                              # the walk found the modules
    assert {name: lines for name, lines in sizes.items() if lines > LIMIT} == {}
