"""The games with hidden information the browser tests play, and the one hidden fact no
view holds (the draw pile's order)."""
import json

SEED = 918_273_645                  # distinctive: the checkers look for it as text
CARTAGENA = "cartagena(players=2,tokens=2,symbols=3,spaces_per_symbol=2,max_turns=40)"
CTOR_SECRETS = ("ctor(size=8,teams=2v2,team_protocol=simultaneous,secret_squares=true,"
                "secret_count=1,max_turns=4)")


def pile_order(state) -> list[tuple[str, str]]:
    """The draw pile's order (its first 8 cards) as ``(json form, text form)`` facts (a
    JSON list's items; the letters in a row), for a game that has one (Cartagena)."""
    pile = getattr(state, "pile", None)
    if pile is None or len(pile) < 8:
        return []
    cards = [state.game.alphabet[card] for card in pile[:8]]
    listed, row = json.dumps(cards)[1:-1], "".join(cards)
    return [(listed, listed), (json.dumps(row), row)]
