"""Our agents against OpenSpiel's Python MCTS, through the interop adapters.

    .venv/bin/python scripts/interop_bench.py --games 200 --time 1 --jobs 16 --out bench.jsonl
    .venv/bin/python scripts/interop_bench.py --specs "carteso(size=5)" --games 4 --time 0.1

Each game spec is played ``--games`` times with the sides alternated: ``--ours``
(default ``mcts(time=T)``, ``ismcts(time=T)`` with hidden information) against
``openspiel(bot=mcts|ismcts,time=T)`` at the same seconds per move (OpenSpiel's
Python searchers count simulations, so that agent sizes each move's simulations to
the time from its own rate on the move before). Both sides see only their views;
OpenSpiel's ISMCTS samples worlds through the game's own sampler.
Prints, per spec, our score rate (a draw counts half) with a 95% Wilson interval.
With ``--out``, each game is one JSON line: its number, our side, the score, the
seconds, and its moves in notation with the seed of its chance (``game_seed``), so
``boardlab.core.record.replay_moves(spec, moves, game_seed)`` plays it again.
The full benchmark (200 games per spec at 1 s a move) takes about 20 core-hours:
run it on a machine of its own, ``--jobs`` games at once (one idle core each), with
``--out`` so that an interrupted run resumes.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import sys
import time

import boardlab
from boardlab.agents import make_agent
from boardlab.arena.match import wilson_interval
from boardlab.interop import agents as _bridge  # noqa: F401  (registers openspiel(...))

SPECS = ("carteso(size=9)", "rumbo(size=9)", "ctor(size=8)", "cartagena")


def play(game, specs: list[str], seed: int):
    """One game between agents given by spec, seat by seat; its final state."""
    agents = [make_agent(spec, game, seat, seed=seed * 31 + seat)
              for seat, spec in enumerate(specs)]
    state = game.new_initial_state(seed=seed)
    while not state.is_terminal():
        seat = state.acting_seats()[0]
        state.apply(agents[seat].act(state.view(seat)), seat=seat)
    for agent in agents:
        agent.close(state.returns())
    return state


def one_game(task: tuple) -> dict:
    """Game ``number`` of a spec's series (our side alternates), as a record."""
    spec, number, ours, theirs, seed = task
    game = boardlab.make(spec)
    sides = game.teams
    mine = number % 2                     # which side we play this game
    specs = [ours if game.team_of(seat) == mine else theirs for seat in range(game.num_seats)]
    started = time.perf_counter()
    state = play(game, specs, seed + number)
    returns = state.returns()
    ours_back, theirs_back = returns[sides[mine][0]], returns[sides[1 - mine][0]]
    score = 1.0 if ours_back > theirs_back else 0.5 if ours_back == theirs_back else 0.0
    return {"spec": spec, "game": number, "ours": ours, "theirs": theirs, "seed": seed,
            "our_side": mine, "score": score, "seconds": round(time.perf_counter() - started, 1),
            "game_seed": seed + number, "returns": returns, "moves": state.history_text()}


def bench(spec: str, games: int, ours: str, theirs: str, seed: int, jobs: int = 1,
          out: str | None = None) -> tuple[float, int]:
    """Our score over ``games`` games (seats alternated by side) and the count; ``jobs``
    games at once (one core each); with ``out``, each game is appended to that JSON-lines
    file as it ends and games already there (same spec, agents and seed) are not played
    again, so an interrupted run goes on where it stopped."""
    game = boardlab.make(spec)
    if len(game.teams) != 2:
        raise SystemExit(f"{spec}: the benchmark needs two sides, not {len(game.teams)}")
    key = (spec, ours, theirs, seed)
    done: dict[int, float] = {}
    if out and os.path.exists(out):
        with open(out) as lines:
            for line in lines:
                record = json.loads(line)
                if (record["spec"], record["ours"], record["theirs"], record["seed"]) == key:
                    done[record["game"]] = record["score"]
    tasks = [(spec, n, ours, theirs, seed) for n in range(games) if n not in done]
    if done:
        print(f"{spec}: {len(done)} games already in {out}, {len(tasks)} to play", flush=True)
    pool = multiprocessing.get_context("fork").Pool(jobs) if jobs > 1 else None
    with pool or contextlib.nullcontext():
        for record in pool.imap_unordered(one_game, tasks) if pool else map(one_game, tasks):
            done[record["game"]] = record["score"]
            if out:
                with open(out, "a") as lines:
                    lines.write(json.dumps(record) + "\n")
            played = sum(1 for n in range(games) if n in done)
            score = sum(done[n] for n in range(games) if n in done)
            print(f"{spec}: game {record['game']} {record['score']:g} ({record['seconds']} s); "
                  f"{played}/{games} played, ours {score / played:.1%}", flush=True)
    return sum(done[n] for n in range(games)), games


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--specs", nargs="+", default=list(SPECS), help="game specs")
    parser.add_argument("--games", type=int, default=200, help="games per spec")
    parser.add_argument("--time", type=float, default=1.0, help="seconds per move, each side")
    parser.add_argument("--ours", default=None, help="our agent (default mcts(time=T))")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1,
                        help="games at once, one core each (default 1)")
    parser.add_argument("--out", default=None,
                        help="append each game to this JSON-lines file; resume from it")
    args = parser.parse_args(argv)
    print(f"{args.games} games a spec at {args.time} s a move, seats alternated")
    for spec in args.specs:
        search = "mcts" if boardlab.make(spec).perfect_information else "ismcts"
        ours = args.ours or f"{search}(time={args.time})"
        theirs = f"openspiel(bot={search},time={args.time},simulations=50)"
        started = time.perf_counter()
        score, n = bench(spec, args.games, ours, theirs, args.seed, args.jobs, args.out)
        low, high = wilson_interval(score, n)
        print(f"{spec:24s} {ours} against {theirs}: ours {score / n:6.1%}  "
              f"95% [{low:.1%}, {high:.1%}]  ({n} games, {time.perf_counter() - started:.0f} s)",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
