"""Who plays whom: participants, sides, pairings and the game schedule.

A *side* is what one participant fills: a seat, or a whole team in team
games (every seat of the team gets its own instance of the participant's
agent). Pairings are played in every rotation of the participants over the
sides. With *duplicate* deals all rotations of one pairing share a chance
seed, so that every participant meets the same deals and set-ups from every
side; with *fresh* deals (the default for games with hidden information, see
:func:`default_deals`) every game has a chance seed of its own.
"""
from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from itertools import combinations

from ..core.errors import BoardlabError
from ..core.game import Game
from ..core.options import parse_spec

_NAMED = re.compile(r"^([A-Za-z_][\w.-]*)=(.+)$")


def sides_of(game: Game) -> list[list[int]]:
    """The seats of each side (the game's declared teams; one seat each by default)."""
    return [list(members) for members in game.teams]


def parse_participants(texts: list[str]) -> dict[str, str]:
    """Agent specs, optionally ``name=spec``, to {name: spec}; repeated names get ``#2``...

    >>> parse_participants(["mcts(time=1)", "quick=mcts(time=0.1)", "random", "random"])
    {'mcts(time=1)': 'mcts(time=1)', 'quick': 'mcts(time=0.1)', 'random': 'random', \
'random#2': 'random'}
    """
    participants: dict[str, str] = {}
    for text in texts:
        match = _NAMED.match(text.strip())
        name, spec = match.groups() if match else (short_name(text.strip()), text.strip())
        if not spec:
            raise BoardlabError(f"empty agent in {text!r}")
        base, number = name, 1
        while name in participants:
            number += 1
            name = f"{base}#{number}"
        participants[name] = spec
    return participants


def short_name(spec: str) -> str:
    """A readable default name: an engine is named after its program file.

    >>> short_name("engine(cmd=python3 engines/my_bot.py --weights nets/big.onnx)")
    'engine:my_bot'
    >>> short_name("engine(cmd=./bot --level 0.5)")
    'engine:bot'
    >>> short_name("mcts(time=1)")
    'mcts(time=1)'
    """
    name, options = parse_spec(spec)
    command = options.get("cmd") if name == "engine" else None
    if not command:
        return spec
    try:
        words = shlex.split(command)
    except ValueError:
        return spec
    files = [w for w in words if not w.startswith("-") and ("/" in w or "." in w)
             and not _is_number(w)]
    return "engine:" + os.path.splitext(os.path.basename((files or words)[0]))[0]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def rotations(group: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every cyclic rotation: each participant takes each side once."""
    return [group[i:] + group[:i] for i in range(len(group))]


def round_robin(names: list[str], num_sides: int) -> list[tuple[str, ...]]:
    """Every group of ``num_sides`` different participants."""
    if len(names) < num_sides:
        raise BoardlabError(f"this game has {num_sides} sides: give at least {num_sides} "
                            f"participants, not {len(names)}")
    return list(combinations(names, num_sides))


def gauntlet(names: list[str], num_sides: int) -> list[tuple[str, ...]]:
    """The first participant against every group of the others."""
    if len(names) < num_sides:
        raise BoardlabError(f"this game has {num_sides} sides: a gauntlet needs at least "
                            f"{num_sides} participants, not {len(names)}")
    return [(names[0], *rest) for rest in combinations(names[1:], num_sides - 1)]


def match(names: list[str], num_sides: int) -> list[tuple[str, ...]]:
    """Exactly one participant per side (``boardlab match``)."""
    if len(names) != num_sides:
        raise BoardlabError(f"this game has {num_sides} sides: a match needs {num_sides} "
                            f"agents, not {len(names)}")
    return [tuple(names)]


PAIRINGS = {"round-robin": round_robin, "gauntlet": gauntlet, "match": match}
DEALS = ("fresh", "duplicate")


def default_deals(game: Game) -> str:
    """Fresh deals for a game with hidden information: a duplicate deal comes back
    with the seats rotated, and an agent that keeps notes between games would know
    an opponent's hand. Duplicate deals (less luck in the scores) otherwise."""
    return "duplicate" if game.perfect_information else "fresh"


@dataclass(frozen=True)
class ScheduledGame:
    """Game ``index``: ``sides[i]`` is the participant on side i; ``seed`` drives chance."""

    index: int
    sides: tuple[str, ...]
    seed: int


def schedule(names: list[str], num_sides: int, kind: str, rounds: int,
             seed: int, deals: str = "duplicate") -> list[ScheduledGame]:
    """The whole tournament, in a fixed order (the same arguments give the same list).

    ``deals``: "duplicate" gives the rotations of a pairing one chance seed (``seed``,
    then +1 per pairing), "fresh" gives game i the seed ``seed + i``.
    """
    if kind not in PAIRINGS:
        raise BoardlabError(f"unknown tournament format {kind!r} (known: "
                            f"{', '.join(PAIRINGS)})")
    if deals not in DEALS:
        raise BoardlabError(f"unknown deals {deals!r} (known: {', '.join(DEALS)})")
    if rounds < 1:
        raise BoardlabError(f"rounds must be at least 1, not {rounds}")
    games: list[ScheduledGame] = []
    group_seed = seed
    for _ in range(rounds):
        for group in PAIRINGS[kind](names, num_sides):
            for sides in rotations(group):
                games.append(ScheduledGame(len(games), sides, group_seed if
                                           deals == "duplicate" else seed + len(games)))
            group_seed += 1
    return games


def seat_players(game: Game, sides: tuple[str, ...], participants: dict[str, str]) -> list[str]:
    """The agent spec of every seat, from the participant on each side."""
    players = [""] * game.num_seats
    for seats, name in zip(sides_of(game), sides):
        for seat in seats:
            players[seat] = participants[name]
    return players


def side_scores(game: Game, returns: list[float]) -> list[float]:
    """Per side, the share of the other sides it beat (a draw counts half), in [0, 1].

    With two sides this is 1 for a win, 0.5 for a draw and 0 for a loss.
    """
    values = [returns[seats[0]] for seats in sides_of(game)]
    if len(values) < 2:
        return [0.5] * len(values)
    return [sum(1.0 if v > w else 0.5 if v == w else 0.0
                for j, w in enumerate(values) if j != i) / (len(values) - 1)
            for i, v in enumerate(values)]
