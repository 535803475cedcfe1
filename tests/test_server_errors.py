"""One catalogue of error codes: every code the server raises is in it, with its HTTP
status when the REST lobby answers with it, and docs/server-protocol.md lists exactly it."""
import ast
import pathlib
import re

from boardlab.server.messages import CODES, HTTP_STATUS

ROOT = pathlib.Path(__file__).resolve().parent.parent
SERVER = ROOT / "boardlab" / "server"
ERRORS = {"ProtocolError", "ApiError"}


def raised_codes():
    """(file, line, error class, code) of every ProtocolError(...) and ApiError(...) built in
    boardlab/server (its subpackages too); code is None where it is not a string literal."""
    found = []
    for path in sorted(SERVER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                    node.func.id in ERRORS:
                code = node.args[0] if node.args else None
                literal = code.value if isinstance(code, ast.Constant) else None
                forwarded = isinstance(code, ast.Attribute) and code.attr == "code"
                found.append((path.name, node.lineno, node.func.id, literal, forwarded))
    return found


def test_every_raised_error_code_is_in_the_catalogue():
    found = raised_codes()
    assert len(found) > 40                      # the scan sees the server's errors
    for name, line, kind, code, forwarded in found:
        assert code is not None or forwarded, \
            f"{name}:{line}: {kind} with a code that is not a literal (nor a caught error's)"
        if code is not None:
            assert code in CODES, f"{name}:{line}: {kind}({code!r}) is not in messages.CODES"
        if kind == "ApiError" and code is not None:
            assert code in HTTP_STATUS, f"{name}:{line}: {code!r} has no HTTP status"


def test_the_catalogue_holds_no_code_nobody_raises():
    raised = {code for *_, code, _ in raised_codes() if code is not None}
    assert set(CODES) == raised
    assert set(HTTP_STATUS) <= set(CODES)


def test_the_protocol_document_lists_exactly_the_catalogue():
    text = (ROOT / "docs" / "server-protocol.md").read_text()
    section = text[text.index("### Errors"):text.index("### A session")]
    rows = re.findall(r"^\| `([a-z_]+)` \| (\d{3}|—) \|", section, re.M)
    assert [code for code, _ in rows] == list(CODES)
    assert {code: int(status) for code, status in rows if status != "—"} == HTTP_STATUS
