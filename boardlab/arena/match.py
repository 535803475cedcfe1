"""Play seeded games between agents and summarise a two-sided duel.

Each agent only ever gets its own seat's view. Seats alternate between the
two sides game by game; the seed of game i is ``seed + i`` for the game's
chance and for the agents, so a duel is reproducible.
"""
from __future__ import annotations

import math
from concurrent.futures import ProcessPoolExecutor

from ..agents import make_agent
from ..core.errors import BoardlabError
from ..core.registry import make


def play_game(spec: str, agent_specs: list[str], seed: int, max_actions: int | None = None):
    """Play one game; ``agent_specs[s]`` plays seat s. Returns (returns, actions)."""
    game = make(spec)
    state = game.new_initial_state(seed=seed)
    agents = [make_agent(a, game, s, seed=seed * 31 + s) for s, a in enumerate(agent_specs)]
    actions = 0
    while not state.is_terminal():
        seat = state.acting_seats()[0]
        state.apply(agents[seat].act(state.view(seat)), seat=seat)
        actions += 1
        if max_actions and actions >= max_actions:
            break
    return state.returns(), actions


def _sides(game, a_first: bool):
    """Seat -> side (0 = agent A) with the sides alternating over seats or teams."""
    team_of = getattr(game, "team_of", None)
    if team_of is None and game.num_seats != 2:
        raise BoardlabError(f"a duel needs two sides: {game.spec} has {game.num_seats} seats "
                            f"and no teams")
    groups = [team_of(s) if team_of else s for s in range(game.num_seats)]
    return [(g + (0 if a_first else 1)) % 2 for g in groups]


def _one(args):
    spec, a, b, seed, index = args
    game = make(spec)
    sides = _sides(game, index % 2 == 0)
    returns, actions = play_game(spec, [a if side == 0 else b for side in sides], seed)
    mine = [r for r, side in zip(returns, sides) if side == 0]
    theirs = [r for r, side in zip(returns, sides) if side == 1]
    score = 0.5 if max(mine) == max(theirs) else 1.0 if max(mine) > max(theirs) else 0.0
    return score, actions


def wilson_interval(points: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate (draws count half)."""
    if games == 0:
        return 0.0, 1.0
    p = points / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / \
        (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def duel(spec: str, a: str, b: str, games: int, seed: int = 1, jobs: int = 1, progress=None):
    """Agent A against agent B over ``games`` games, seats alternating.

    Returns a dict with A's points (win 1, draw 0.5), rate, interval and mean length.
    """
    _sides(make(spec), True)                     # two sides, or a clear error now
    tasks = [(spec, a, b, seed + i, i) for i in range(games)]
    results = []
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            for result in pool.map(_one, tasks):
                results.append(result)
                if progress:
                    progress(len(results), games, sum(r[0] for r in results))
    else:
        for task in tasks:
            results.append(_one(task))
            if progress:
                progress(len(results), games, sum(r[0] for r in results))
    points = sum(r[0] for r in results)
    low, high = wilson_interval(points, games)
    return {"spec": spec, "a": a, "b": b, "games": games, "points": points,
            "rate": points / games if games else 0.0, "interval": (low, high),
            "mean_actions": sum(r[1] for r in results) / max(1, games)}
