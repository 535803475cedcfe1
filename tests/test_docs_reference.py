"""The docs are a reference: how things work and one current table each, never run logs.

Dated runs, commit hashes and per-session narratives live in a README.md beside their
records under results/ (docs link to them). So no page of docs/ (the rules included) and
not the README carries an ISO date or a commit hash. One exception, decided and kept
narrow: the two pages that show the server's wire format (docs/server-protocol.md,
docs/web-app.md) give example messages whose fields are timestamps (``"created":
"...T16:13:16"``); a date there is allowed only as part of such a timestamp.

Links are checked too, since the move put much of the text in other files: every relative
link of docs/, the README and results/**/README.md names a file that exists, and an
``#anchor`` into a Markdown file names one of its headings.
"""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
REFERENCE = sorted(ROOT.glob("docs/**/*.md")) + [ROOT / "README.md"]
LINKED = REFERENCE + sorted(ROOT.glob("results/**/README.md"))

DATE = re.compile(r"20\d\d-\d\d-\d\d")
#: 7 to 40 hex digits standing alone, with a digit and a letter among them (so that
#: numbers such as 1000000 and words such as "deadbeef" or "decade" are not taken)
COMMIT = re.compile(r"(?<![\w-])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![\w-])")
TIMESTAMP_PAGES = {"server-protocol.md", "web-app.md"}
TIMESTAMP = re.compile(r"20\d\d-\d\d-\d\dT\d\d:\d\d")


def _name(path):
    return str(path.relative_to(ROOT))


def dated_lines(path):
    """The lines of ``path`` with an ISO date or a commit hash (the exception above aside)."""
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if path.name in TIMESTAMP_PAGES:
            line = TIMESTAMP.sub("", line)
        if DATE.search(line) or COMMIT.search(line):
            found.append(f"{_name(path)}:{number}: {line.strip()[:100]}")
    return found


def test_the_patterns_find_what_they_are_for():
    assert COMMIT.search("played at commit 0a25bb6, seeds 46000+")
    assert COMMIT.search("(commit 3e2ab88, 05:48-06:31 UTC)")
    assert DATE.search("on 2026-11-21 on this machine")
    for clean in ("max_turns 1 … 1000000", "a decade", "deadbeef", "ctor-8.npz", "seed 26300",
                  "mcts(iterations=800)", "#ff8800"):
        assert not COMMIT.search(clean) and not DATE.search(clean), clean


@pytest.mark.parametrize("path", REFERENCE, ids=_name)
def test_no_dated_runs_or_commit_hashes_in_the_reference(path):
    found = dated_lines(path)
    assert not found, ("dated runs and commit hashes belong in a results/**/README.md "
                       "beside their records:\n" + "\n".join(found))


def _prose(path):
    """The lines of a Markdown file outside fenced code blocks."""
    lines, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def _anchors(path):
    """The anchors of a Markdown file's headings, as GitHub makes them."""
    return {re.sub(r"[^\w\- ]", "", match.group(1).strip().lower()).replace(" ", "-")
            for line in _prose(path) for match in [re.match(r"#{1,6} (.*)", line)] if match}


@pytest.mark.parametrize("path", LINKED, ids=_name)
def test_relative_links_lead_somewhere(path):
    broken = []
    for line in _prose(path):
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            linked = (path.parent / file) if file else path
            if not linked.exists():
                broken.append(f"{target}: no such file")
            elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
                broken.append(f"{target}: no such heading")
    assert not broken, f"{_name(path)}: " + "; ".join(broken)
