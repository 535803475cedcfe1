"""The JSON of one update frame: json.dumps against the server's encoder (wire.encode), for
a mid-game Carteso 9x9 position (40 random moves), in microseconds of CPU a frame.

    .venv/bin/python scripts/experiments/server_encode.py [ROUNDS]
"""
import json
import random
import sys
import time

import boardlab
from boardlab.server.wire import encode


def main(rounds: int) -> None:
    state = boardlab.make("carteso(size=9)").new_initial_state(seed=1)
    rng = random.Random(1)
    for _ in range(40):
        state.apply(rng.choice(state.legal_actions()))
    message = {"type": "update", "version": 40, "seat": 0, "view": state.view(0),
               "lines": state.status_lines(0), "announcements": [], "draw_offer": None,
               "rematch": None, "rematch_offer": None, "movers": [0, 1] * 20}
    print(f"{len(json.dumps(message))} bytes (json.dumps), {len(encode(message))} (encode)")
    for _ in range(rounds):
        for function in (json.dumps, encode):
            start = time.thread_time()
            for _ in range(5000):
                function(message)
            print(f"{function.__name__}: {(time.thread_time() - start) / 5000 * 1e6:.1f} us")


if __name__ == "__main__":
    main(int(sys.argv[1]) if sys.argv[1:] else 2)
