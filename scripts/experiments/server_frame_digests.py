"""The sha256 of every seat's and a spectator's view and status lines (their JSON, as the
server encodes it) at every move of random games of each game, a third of them resigned:
run on two trees, equal digests say their views are the same bytes.

    .venv/bin/python scripts/experiments/server_frame_digests.py [GAMES]
"""
import hashlib
import random
import sys

import boardlab
from boardlab.core.driver import GameDriver
from boardlab.server.wire import encode
SPECS = ["carteso(size=9)", "carteso(size=5)", "carteso(size=7,komi_protocol=bid)",
         "rumbo(size=9)", "rumbo(size=6,komi_protocol=bid)", "cartagena", "ctor"]
for spec in SPECS:
    game = boardlab.make(spec)
    h = hashlib.sha256()
    rng = random.Random(5)
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    for g in range(games):
        d = GameDriver(game, seed=g)
        steps = 0
        while not d.over and steps < 400:
            seats = list(range(game.num_seats)) + [None]
            views = d.views(seats)
            for seat in seats:
                h.update(encode({"v": views[seat],
                                 "l": d.status_lines(seat, views[seat])}).encode())
            seat = d.acting()[0]
            legal = d.state.legal_actions_for(seat)
            if g % 3 == 2 and steps == 25:
                d.submit(seat, "resign")
            else:
                d.submit(seat, rng.choice(legal))
            steps += 1
        views = d.views(list(range(game.num_seats)) + [None])
        for seat, v in views.items():
            h.update(encode({"v": v, "l": d.status_lines(seat, v)}).encode())
    print(spec, h.hexdigest()[:16])
