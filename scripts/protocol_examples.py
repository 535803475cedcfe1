"""Print the view examples of docs/protocol.md (paste them there when views change)."""
import json

import boardlab


def show(spec, moves, seat, seed=0, note=""):
    s = boardlab.make(spec).new_initial_state(seed=seed)
    for m in moves:
        s.play(m)
    v = s.view(seat)
    who = "a spectator" if seat is None else s.game.seat_names[seat]
    print(f"**{spec}**, seed {seed}, after the moves `{json.dumps(moves)}`, "
          f"the view of {who}{note}:\n\n```json")
    print(json.dumps(v, separators=(", ", ": ")))
    print("```\n")


show("carteso(size=3)", ["Bb2", "Wa3"], 0)
show("rumbo(size=3)", ["Bb2"], None)
show("cartagena(players=2)", ["H@0"], 1, seed=3,
     note=" (the other hand is a count; no pile order, no seed)")
show("ctor(size=8,teams=2v2,team_protocol=simultaneous,secret_squares=true,secret_count=1)",
     ["secret 10", "secret 20", "black-1:put 30", "white-1:put 40", "white-1:put 41",
      "black-1:put 1"], 1,
     note=" (black-2, while its team mate black-1 has committed: the commit shows as "
          "`black-1:?`)", seed=0)
