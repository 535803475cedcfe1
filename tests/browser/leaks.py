"""A checker of hidden information: what a page received or shows against what its viewer
may know, rebuilt with the core from the finished game's record (which has the seed).

A *hidden fact* of viewer T at version k is anything another seat (or nobody) knows that T
does not: the seed; each top-level view key in which another seat's view differs from the
spectators' (a hand, its own secret squares, its pending choice) and each history entry it
sees written out where the spectators see ``?``; plus facts a game gives no view of (the
draw pile's order: ``extra``). A fact that T's own view at k spells out anyway (two equal
hands, a move already public) is not hidden from T.
"""
from __future__ import annotations

import json

import boardlab


def canonical(value):
    """``value`` as it comes back from JSON (tuples as lists, keys as strings)."""
    return json.loads(json.dumps(value))


class Knowledge:
    """Every position of a finished game, by version (the record's moves, one per version)."""

    def __init__(self, record: dict, extra=None):
        self.seed = record["seed"]
        self.game = boardlab.make(record["spec"])
        state = self.game.new_initial_state(seed=self.seed)
        self.states = [state.clone()]
        for text in record["moves"]:
            state.play(text)
            self.states.append(state.clone())
        self.extra = extra or (lambda state: [])     # state -> [(json form, text form)]

    def view(self, version: int, seat: int | None) -> dict:
        return canonical(self.states[version].view(seat))

    def team(self, seat: int | None) -> set:
        if seat is None:
            return set()
        return set(self.game.teams[self.game.team_of(seat)])

    def hidden(self, version: int, viewer: int | None) -> list[tuple[str, str, str]]:
        """``(source, json form, text form)`` of each fact hidden from ``viewer`` at
        ``version``; ``source`` says where it comes from: ``seed``, ``extra``, ``history``
        or the view key (``hand``, ``my_pending``, ...)."""
        public, own = self.view(version, None), self.view(version, viewer)
        own_text = json.dumps(own)
        facts = [("seed", str(self.seed), str(self.seed))]
        facts += [("extra", *fact) for fact in self.extra(self.states[version])]
        for seat in range(self.game.num_seats):
            if seat == viewer:
                continue
            theirs = self.view(version, seat)
            for key, value in theirs.items():
                if key in ("seat", "legal", "legal_actions", "history") or \
                        value == public.get(key) or value == own.get(key):
                    continue
                facts.append((key, json.dumps(value), json.dumps(value)))
                if isinstance(value, list):
                    facts += [(key, json.dumps(item), item) for item in value
                              if isinstance(item, str)]
            facts += [("history", json.dumps(entry), entry) for entry, seen in
                      zip(theirs["history"], public["history"]) if entry != seen]
        return [(source, as_json, text) for source, as_json, text in facts
                if as_json not in own_text and len(text) >= 3]


def check_frames(knowledge: Knowledge, frames: list[str], viewer: int | None) -> None:
    """Every frame a page of ``viewer`` (a seat, None for a spectator) received: each view
    in it is the core's view of that viewer at that version, and no frame holds a fact
    hidden from the viewer at the version it came at."""
    version = 0
    for text in frames:
        message = json.loads(text)
        version = message.get("version", message.get("at", version))
        if "view" in message:
            assert message.get("seat") == viewer, f"a {viewer} page got seat " \
                                                  f"{message.get('seat')}'s view: {text[:300]}"
            assert message["view"] == knowledge.view(version, viewer), \
                f"the view at version {version} is not seat {viewer}'s: {text[:300]}"
        for _, as_json, _ in knowledge.hidden(version, viewer):
            assert as_json not in text, f"{as_json} is hidden from {viewer} at version " \
                                        f"{version} but a frame holds it: {text[:300]}"


def distinctive(text: str) -> bool:
    """Whether a fact's text form says something on a page: a word like ``end`` (a team
    mate's pending choice) is on every page anyway, ``put 33`` or a card row is not."""
    return any(char.isdigit() for char in text) or len(text) >= 6


def check_page(knowledge: Knowledge, content: str, view: dict, version: int,
               viewer: int | None) -> None:
    """A page of ``viewer`` at ``version``: its `window.boardlab.view` is the viewer's own
    and its DOM (``content``) spells out no (distinctive) fact hidden from the viewer."""
    assert view == knowledge.view(version, viewer), \
        f"window.boardlab.view at version {version} is not seat {viewer}'s view"
    for _, _, text in knowledge.hidden(version, viewer):
        if not distinctive(text):
            continue
        assert text not in content, f"{text!r} is hidden from {viewer} at version " \
                                    f"{version} but the page shows it"
