#!/usr/bin/env python3
"""A tiny boardlab engine (protocol 1, docs/engine-protocol.md): it plays a random legal move.

Standard library only, so it runs with any Python 3. The first argument seeds it:

    boardlab match "carteso(size=9)" \
        "engine(cmd=python3 examples/engines/random_engine.py 7)" greedy

Start from here to write your own engine: ``choose`` gets the legal moves (in the game's
notation) and the seat's view (plain JSON data: board, hand, scores, ...).
"""
import json
import random
import sys


def choose(legal, view, rng):
    """Pick a move; replace this with something clever."""
    return rng.choice(legal)


def main():
    rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else None)
    legal, view = [], {}
    for line in sys.stdin:
        command, _, rest = line.rstrip("\n").partition(" ")
        if command == "boardlab":
            print("id name random-py")
            print("id author boardlab examples")
            print("ok 1", flush=True)
        elif command == "view":
            view = json.loads(rest)
        elif command == "legal":
            legal = rest.split(" | ")
        elif command == "go":
            print(f"move {choose(legal, view, rng)}", flush=True)
        elif command == "quit":
            break
        # newgame, seats, seat, played and gameover need no answer; unknown lines are ignored


if __name__ == "__main__":
    main()
