"""Cartagena as text: the notation, the rules summary, the terminal picture.

Nothing here is a rule. The notation is written and read through the
kernel's one action encoding (:func:`cartagena_kernel.encode` / ``decode``);
the terminal picture and the status lines are drawn from ``state.view(seat)``
only, so they never show what that seat may not see.

Notation: ``D@3`` plays a D card on your token at position 3 (0 = the start),
``back@9`` moves your token at 9 back, ``end`` ends a turn of several
actions, ``pass`` passes, ``discard D`` discards down to a hand limit.

>>> import boardlab
>>> game = boardlab.make("cartagena")
>>> [action_text(game, parse_action(game, m)) for m in ("d@3", " BACK@9", "pass")]
['D@3', 'back@9', 'pass']
"""
from __future__ import annotations

from ..core.errors import NotationError
from . import cartagena_kernel as K

SYMBOL_NAMES = {"H": "hearts", "C": "clubs", "D": "diamonds", "S": "spades"}
PIRATE_NAMES = {"S": "skull", "D": "dagger", "K": "key", "B": "bottle", "P": "pistol",
                "H": "hat"}


# One character for each symbol, drawable with common fonts (no emoji needed).
SYMBOL_GLYPHS = {"H": "♥", "C": "♣", "D": "♦", "S": "♠"}
PIRATE_GLYPHS = {"S": "☠", "D": "†", "K": "⚷", "B": "⚱", "P": "⌐", "H": "◠"}


def symbol_names(game) -> dict[str, str]:
    """Each letter of ``game.alphabet`` with what it stands for."""
    names = SYMBOL_NAMES if game.alphabet[0] == "H" else PIRATE_NAMES
    return {letter: names[letter] for letter in game.alphabet}


def legend(game) -> dict[str, dict]:
    """The board description's legend: each letter of ``game.alphabet`` with its
    name and a glyph to draw it with."""
    glyphs = SYMBOL_GLYPHS if game.alphabet[0] == "H" else PIRATE_GLYPHS
    return {letter: {"label": name, "glyph": glyphs[letter]}
            for letter, name in symbol_names(game).items()}


# The notation ---------------------------------------------------------------------------------

def action_text(game, action: int) -> str:
    """The notation of an action in range."""
    kind, symbol, x = K.decode(game.cfg, action)
    if kind == K.PLAY:
        return f"{game.alphabet[symbol]}@{x}"
    if kind == K.BACK:
        return f"back@{x}"
    if kind == K.DISCARD:
        return f"discard {game.alphabet[symbol]}"
    return "end" if kind == K.END else "pass"


def parse_action(game, text: str) -> int:
    """The action written ``text``; NotationError if it is not well formed."""
    if not isinstance(text, str):
        raise NotationError(f"a move must be text, not {text!r}")
    word = text.strip().lower()
    cfg, alphabet, L = game.cfg, game.alphabet, game.L
    if word in ("end", "pass"):
        return int(K.encode(cfg, K.END if word == "end" else K.PASS, 0, 0))
    if word.startswith("discard"):
        symbol = word[7:].strip().upper()
        if len(symbol) != 1 or symbol not in alphabet:
            raise NotationError(f"{text!r}: discard one of {' '.join(alphabet)}")
        return int(K.encode(cfg, K.DISCARD, alphabet.index(symbol), 0))
    head, at, place = word.partition("@")
    if not at:
        raise NotationError(f"{text!r} is not a move (expected e.g. "
                            f"{alphabet[0]}@0, back@3, end, pass)")
    try:
        x = int(place)
    except ValueError:
        raise NotationError(f"{text!r}: the position after @ is a number 0-{L + 1}") from None
    if head == "back":
        if not 1 <= x <= L + 1:
            raise NotationError(f"{text!r}: tokens move back from positions 1-{L + 1}")
        return int(K.encode(cfg, K.BACK, 0, x))
    symbol = head.upper()
    if len(symbol) != 1 or symbol not in alphabet:
        raise NotationError(f"{text!r}: {head!r} is not a symbol (symbols: "
                            f"{' '.join(alphabet)})")
    if not 0 <= x <= L:
        raise NotationError(f"{text!r}: a card moves a token at 0-{L} (0 = start)")
    return int(K.encode(cfg, K.PLAY, alphabet.index(symbol), x))


# Declared facts: the rules summary and the notation guide -------------------------------------

def rules_summary(game) -> str:
    """The goal and the turn, for this configuration (profile and options)."""
    o = game.options
    tokens, apt = o["tokens"], o["actions_per_turn"]
    symbols = ", ".join(symbol_names(game).values())
    turn = "Each turn is one action" if apt == 1 else \
        f"Each turn is up to {apt} actions (a later one may use a card drawn earlier)"
    full = ("a space holding 3 pirates stops a step back" if o["retreat_over_full"] == "block"
            else "a space holding 3 pirates is skipped by a step back")
    hands = {"jamaica": "Hands are secret.",
             "tortuga": "Hands are open and the next 12 cards of the pile lie face up.",
             "hispaniola": "Hands are secret; the next 12 cards of the pile lie face up."}
    limit = f" At the end of a turn you discard down to {o['hand_limit']} cards." \
        if o["hand_limit"] else ""
    boat = " Pirates in the boat may step back too." if o["retreat_from_end"] else ""
    passing = "Pass when you can do nothing (or by choice, before acting)" \
        if o["allow_voluntary_pass"] else "You pass only when you can do nothing"
    ends = "a full round of passes or the turn cap" if o["end_on_deadlock"] else "the turn cap"
    return (f"Race your {tokens} pirate{'s' if tokens > 1 else ''} from the start along "
            f"{game.L} spaces of {len(game.alphabet)} symbols ({symbols}) into the boat: "
            f"the first player with every pirate in the boat wins at once. Play a card to "
            f"move a pirate forward to the next empty space of that symbol (the boat if "
            f"none is left), or move a pirate back to the nearest space behind it holding "
            f"1 or 2 pirates and draw that many cards; {full}, and the start is never a "
            f"landing place.{boat} {turn}.{limit} {passing}; {ends} ({o['max_turns']} turns) "
            f"ends the game, won by the most pirates in the boat, then the furthest along "
            f"(a tie of all is a draw). {hands[o['visibility']]}")


def notation_guide(game) -> str:
    """How to write every move of this configuration."""
    o, a, L = game.options, game.alphabet, game.L
    letters = ", ".join(f"{letter} {name}" for letter, name in symbol_names(game).items())
    back_top = L + 1 if o["retreat_from_end"] else L
    parts = [f"Positions are numbers: 0 is the start, 1 to {L} the spaces, {L + 1} the boat.",
             f"{a[0]}@3 plays a card {a[0]} on your pirate at 3 ({a[0]}@0: a pirate from the "
             f"start); the card letters are {letters}.",
             f"back@9 moves your pirate at 9 back and draws (positions 1 to {back_top}).",
             "pass passes the turn" + (" (also by choice, before your first action)."
                                       if o["allow_voluntary_pass"]
                                       else ", only when you can do nothing.")]
    if o["actions_per_turn"] > 1:
        parts.append(f"end ends your turn before its {o['actions_per_turn']} actions are used.")
    if o["hand_limit"]:
        parts.append(f"discard {a[0]} throws away a card {a[0]} while you hold more than "
                     f"{o['hand_limit']} at the end of your turn.")
    parts.append("Moves are not case-sensitive.")
    return " ".join(parts)


# The terminal -----------------------------------------------------------------------------------

def render(state, colour: bool = False, seat: int | None = None) -> str:
    """The track (symbols above, tokens below by colour initial), then start and boat."""
    view = state.view(seat)
    game, L = state.game, state.game.L
    initials = {name: name[0].upper() for name in game.seat_names}
    width = 4
    lines = ["".join(f"{x:>{width}}" for x in range(1, L + 1))]
    lines.append("".join(f"{c:>{width}}" for c in view["track"]))
    stacks: list[list[str]] = [[] for _ in range(L + 2)]
    for name, tokens in view["tokens"].items():
        for x in tokens:
            stacks[x].append(initials[name])
    for level in range(3):
        if level and not any(len(stacks[x]) > level for x in range(1, L + 1)):
            break
        row = [stacks[x][level] if len(stacks[x]) > level else "." if level == 0 else ""
               for x in range(1, L + 1)]
        lines.append("".join(f"{cell:>{width}}" for cell in row))
    lines.append("start: " + " ".join(f"{initials[n]}x{view['tokens'][n].count(0)}"
                                       for n in game.seat_names))
    lines.append("boat:  " + " ".join(f"{initials[n]}x{view['tokens'][n].count(L + 1)}"
                                       for n in game.seat_names))
    return "\n".join(lines)


def status_lines(state, seat: int | None = None, view: dict | None = None) -> list[str]:
    """Hands (as ``seat`` may see them), piles, the last move, whose turn or the result."""
    view = state.view(seat) if view is None else view
    game = state.game
    lines = []
    for name in game.seat_names:
        cards = view["hands"][name] if view["hands"] else \
            view["hand"] if seat is not None and name == game.seat_names[seat] else None
        text = " ".join(f"{a}x{n}" for a, n in cards.items() if n) if cards is not None \
            else _count(view["hand_sizes"][name], "card") + _known_text(view, name)
        lines.append(f"{name:<7} hand: {text or '-'}")
    lines.append(f"draw pile {view['pile_size']}, discards "
                 f"{sum(view['discard'].values())}"
                 + (f", face up: {' '.join(view['face_up'])}" if view["face_up"] else ""))
    if view["history"]:
        lines.append(f"last move: {view['history'][-1]}")
    result = view["result"]
    if result is not None:
        lines.append(f"game over ({result['reason']}): winner "
                     f"{', '.join(result['winners']) or 'none (a draw)'}")
    else:
        apt = view["actions_per_turn"]
        lines.append(f"turn {view['turn']}: {view['to_move']} to move"
                     + (f" (action {view['actions_done'] + 1} of up to {apt})" if apt > 1
                        else ""))
    return lines


def _count(n: int, noun: str) -> str:
    """"1 card", "3 cards"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _known_text(view: dict, name: str) -> str:
    """", you know of H D" for the cards the viewer knows ``name`` holds, else ""."""
    known = (view.get("card_knowledge") or {}).get("known", {}).get(name, {})
    cards = " ".join(a for a, n in known.items() for _ in range(n))
    return f", you know of {cards}" if cards else ""
