"""Cartagena (RULES.md §3): race your pirates along the track, with hidden hands.

Three profiles: ``basic`` (the blog: 16 spaces of 4 suits, hands of 3, one
action a turn), ``advanced`` (the blog's advanced play: 36 spaces of 6
symbols, up to 3 actions) and ``original`` (Colovini's game: 6-space
segments, retreat skips full spaces, 2-5 players). Every switchable ruling
is an option. Chance (track, deck, reshuffles) comes from the state's seed.

Notation: ``D@3`` plays a D card on your token at position 3 (0 = the
start), ``back@9`` moves your token at 9 back, ``end`` ends a turn of
several actions, ``pass`` passes, ``discard D`` discards down to a hand limit.

>>> import boardlab
>>> state = boardlab.make("cartagena(profile=basic,players=2)").new_initial_state(seed=1)
>>> state.view(0)["hand"] is not None and state.view(None)["hand"] is None
True
"""
from __future__ import annotations

import os
import random

import numpy as np

from ..core.errors import NotationError, OptionError
from ..core import board as boards
from ..core.game import RESIGN, TERMINAL, Game, Move
from ..core.options import Option, format_spec
from ..core.registry import register
from .kernel_state import KernelState
from . import cartagena_kernel as K
from .cartagena_knowledge import CardKnowledge

PROFILES = {
    "basic": dict(tokens=4, symbols=4, spaces_per_symbol=4, track_layout="random",
                  cards_per_symbol=9, hand_size=3, actions_per_turn=1,
                  retreat_over_full="block", max_players=4),
    "advanced": dict(tokens=6, symbols=6, spaces_per_symbol=6, track_layout="random",
                     cards_per_symbol=17, hand_size=6, actions_per_turn=3,
                     retreat_over_full="block", max_players=4),
    "original": dict(tokens=6, symbols=6, spaces_per_symbol=6, track_layout="segments",
                     cards_per_symbol=17, hand_size=6, actions_per_turn=3,
                     retreat_over_full="skip", max_players=5),
}
ALIASES = {"blog-basic": "basic", "blog-advanced": "advanced", "colovini": "original"}
SUITS = "HCDS"                    # hearts, clubs, diamonds, spades (the blog's playing cards)
PIRATE_SYMBOLS = "SDKBPH"         # skull, dagger, key, bottle, pistol, hat
SYMBOL_NAMES = {"H": "heart", "C": "club", "D": "diamond", "S": "spade"}
PIRATE_NAMES = {"S": "skull", "D": "dagger", "K": "key", "B": "bottle", "P": "pistol",
                "H": "hat"}
COLOURS = ("green", "purple", "red", "blue", "yellow")
ROW = 12                          # face-up cards in Tortuga / Hispaniola


def _profile(options) -> dict:
    return PROFILES[ALIASES.get(options["profile"], options["profile"])]


def _from_profile(key):
    return lambda options: _profile(options)[key]


OPTIONS = (
    Option("profile", str, "basic", "rule set: basic (blog), advanced (blog), original "
           "(Colovini)", choices=("basic", "advanced", "original", *ALIASES)),
    Option("players", int, 2, "number of players", minimum=2, maximum=5),
    Option("tokens", int, _from_profile("tokens"), "tokens (pirates) per player",
           minimum=1, maximum=6),
    Option("symbols", int, _from_profile("symbols"), "number of symbols (suits)",
           minimum=2, maximum=6),
    Option("spaces_per_symbol", int, _from_profile("spaces_per_symbol"),
           "track spaces of each symbol", minimum=1, maximum=12),
    Option("track_layout", str, _from_profile("track_layout"), "random order, or segments "
           "(each run of `symbols` spaces holds every symbol once)",
           choices=("random", "segments")),
    Option("cards_per_symbol", int, _from_profile("cards_per_symbol"), "cards of each symbol",
           minimum=1, maximum=40),
    Option("hand_size", int, _from_profile("hand_size"), "cards dealt to each player",
           minimum=0, maximum=20),
    Option("actions_per_turn", int, _from_profile("actions_per_turn"), "most actions in a turn",
           minimum=1, maximum=3),
    Option("retreat_over_full", str, _from_profile("retreat_over_full"), "a space with 3 "
           "tokens blocks a retreat (blog) or is skipped (original)", choices=("block", "skip")),
    Option("retreat_from_end", bool, False, "tokens in the boat may move back (K-A3)"),
    Option("allow_voluntary_pass", bool, False, "pass even when an action is possible (K-A6)"),
    Option("hand_limit", int, 0, "most cards held at the end of a turn (0 = no limit)",
           minimum=0, maximum=40),
    Option("visibility", str, "jamaica", "jamaica: hands hidden; tortuga: hands open and 12 "
           "upcoming cards face up; hispaniola: hands hidden, 12 upcoming cards face up",
           choices=("jamaica", "tortuga", "hispaniola")),
    Option("end_on_deadlock", bool, True, "a full round of passes ends the game, ranked "
           "(K-A7)"),
    Option("max_turns", int, 1000, "turn cap: the game ends and is ranked (K-A7)",
           minimum=1, maximum=10**6),
    Option("first_player", int, -1, "seat that starts (-1: drawn by the seed)", minimum=-1,
           maximum=4),
    Option("track", str, "", "set-up: the track as symbol letters, e.g. HCDSCHSHCSCDHDSD",
           analysis=True),
    Option("deck", str, "", "set-up: the deck before the deal, top card first", analysis=True),
    Option("hands", str, "", "set-up: each seat's hand, '/'-separated, e.g. DC/HH", analysis=True),
    Option("positions", str, "", "set-up: each seat's token positions, '/'-separated, e.g. "
           "0,3,9,11/0,9,13,15", analysis=True),
    Option("discard", str, "", "set-up: the discard pile's cards, e.g. HHDCS", analysis=True),
)


def _letters(text: str, alphabet: str, option: str) -> list[int]:
    text = text.replace(" ", "").upper()
    bad = [c for c in text if c not in alphabet]
    if bad:
        raise OptionError(f"option {option!r}: {bad[0]!r} is not a symbol of this game "
                          f"(symbols: {' '.join(alphabet)})")
    return [alphabet.index(c) for c in text]


@register
class Cartagena(Game):
    name = "cartagena"
    title = "Cartagena"
    description = "race your pirates to the boat: play cards to jump ahead, step back to draw"
    perfect_information = False
    chance = "seeded"
    can_sample = True
    cheap_resample = True
    private_hands = True
    declared_options = OPTIONS
    bench_specs = ("cartagena(profile=basic,players=2)", "cartagena(profile=basic,players=4)",
                   "cartagena(profile=advanced,players=4)")
    conformance_specs = ("cartagena", "cartagena(players=4)", "cartagena(profile=advanced,"
                         "players=3)", "cartagena(profile=original,players=5)",
                         "cartagena(profile=original,visibility=tortuga,retreat_from_end=true)",
                         "cartagena(profile=advanced,hand_limit=7,allow_voluntary_pass=true,"
                         "visibility=hispaniola)")

    def validate(self):
        o = self.options
        o["profile"] = ALIASES.get(o["profile"], o["profile"])
        profile = PROFILES[o["profile"]]
        if o["players"] > profile["max_players"]:
            raise OptionError(f"option 'players': profile {o['profile']} is for 2-"
                              f"{profile['max_players']} players")
        if o["first_player"] >= o["players"]:
            raise OptionError(f"option 'first_player': must be -1 or a seat 0-{o['players'] - 1}")
        alphabet = (SUITS if o["symbols"] <= 4 and o["profile"] == "basic" else PIRATE_SYMBOLS)
        self.alphabet = alphabet[:o["symbols"]]
        self.track = _letters(o["track"], self.alphabet, "track") if o["track"] else None
        self.L = len(self.track) if self.track else o["symbols"] * o["spaces_per_symbol"]
        if self.track is not None and not 2 <= self.L <= 80:
            raise OptionError("option 'track': between 2 and 80 spaces")
        self._setup_cards()
        self._setup_positions()
        self.cfg = np.zeros(K.NCFG, dtype=np.int32)
        self.cfg[[K.C_L, K.C_S, K.C_NP, K.C_T, K.C_APT]] = (
            self.L, o["symbols"], o["players"], o["tokens"], o["actions_per_turn"])
        self.cfg[[K.C_SKIP, K.C_FROM_END, K.C_VOLUNTARY, K.C_LIMIT, K.C_MAX_TURNS]] = (
            o["retreat_over_full"] == "skip", o["retreat_from_end"], o["allow_voluntary_pass"],
            o["hand_limit"], o["max_turns"])
        self.cfg[[K.C_DECK, K.C_ROW, K.C_PER_SYMBOL, K.C_CARDS_PER, K.C_HAND]] = (
            self.deck_size, 0 if o["visibility"] == "jamaica" else ROW,
            o["spaces_per_symbol"], o["cards_per_symbol"], o["hand_size"])
        self.cfg[[K.C_SEGMENTS, K.C_FIRST, K.C_DEADLOCK]] = (
            o["track_layout"] == "segments", o["first_player"], o["end_on_deadlock"])
        self.layout = K.layout(self.cfg)

    def _setup_cards(self):
        o, S = self.options, self.options["symbols"]
        self.deck = _letters(o["deck"], self.alphabet, "deck") if o["deck"] else None
        self.hands = None
        if o["hands"]:
            parts = o["hands"].split("/")
            if len(parts) != o["players"]:
                raise OptionError(f"option 'hands': give {o['players']} hands separated by '/'")
            self.hands = [_letters(p, self.alphabet, "hands") for p in parts]
        self.discard = _letters(o["discard"], self.alphabet, "discard")
        explicit = self.deck is not None or self.hands is not None or self.discard
        if not explicit:
            self.deck_size = S * o["cards_per_symbol"]
            return
        if self.deck is None:
            counts = [o["cards_per_symbol"]] * S
            for card in [c for h in (self.hands or []) for c in h] + self.discard:
                counts[card] -= 1
                if counts[card] < 0:
                    raise OptionError(f"options 'hands'/'discard' use more "
                                      f"{self.alphabet[card]} cards than the deck has")
            self.rest = [s for s in range(S) for _ in range(counts[s])]
        held = sum(len(h) for h in self.hands) if self.hands else 0
        pile = len(self.deck) if self.deck is not None else len(self.rest)
        self.deck_size = pile + held + len(self.discard)

    def card_totals(self) -> list[int]:
        """How many cards of each symbol there are in all (pile, hands and discards)."""
        S = self.options["symbols"]
        if self.deck is None:
            return [self.options["cards_per_symbol"]] * S
        cards = self.deck + [c for h in (self.hands or []) for c in h] + self.discard
        return [cards.count(s) for s in range(S)]

    def _setup_positions(self):
        o = self.options
        self.positions = None
        if not o["positions"]:
            return
        parts = o["positions"].split("/")
        if len(parts) != o["players"]:
            raise OptionError(f"option 'positions': give {o['players']} seats separated by '/'")
        try:
            self.positions = [[int(x) for x in p.split(",") if x.strip()] for p in parts]
        except ValueError:
            raise OptionError("option 'positions': positions are whole numbers, e.g. 0,3,9") \
                from None
        occupancy = [0] * (self.L + 2)
        for seat, tokens in enumerate(self.positions):
            if len(tokens) != o["tokens"]:
                raise OptionError(f"option 'positions': seat {seat} needs {o['tokens']} tokens")
            if all(x == self.L + 1 for x in tokens):
                raise OptionError(f"option 'positions': seat {seat} has already finished")
            for x in tokens:
                if not 0 <= x <= self.L + 1:
                    raise OptionError(f"option 'positions': {x} is not 0..{self.L + 1}")
                occupancy[x] += 1
        full = [x for x in range(1, self.L + 1) if occupancy[x] > 3]
        if full:
            raise OptionError(f"option 'positions': space {full[0]} holds more than 3 tokens")

    # Facts ------------------------------------------------------------------
    @property
    def public_spec(self) -> str:
        """The spec without the set-up's hidden cards (dealt hands, deck order)."""
        hidden = {"hands": "", "deck": ""}
        return format_spec(self.name, {**self.options, **hidden}, self.declared_options)

    @property
    def seat_names(self):
        return COLOURS[:self.options["players"]]

    @property
    def num_actions(self) -> int:
        S, L = self.options["symbols"], self.L
        return S * (L + 1) + L + 2 + 2 + S

    @property
    def end_action(self) -> int:
        return self.options["symbols"] * (self.L + 1) + self.L + 2

    @property
    def max_game_length(self) -> int:
        apt = self.options["actions_per_turn"]
        return self.options["max_turns"] * (apt + 1 + 2 * apt + self.deck_size) + 1

    def board_description(self) -> dict:
        """A track: the start, spaces 1..L with their symbols, the boat."""
        L = self.L
        cells = ["start"] + [str(x) for x in range(1, L + 1)] + ["boat"]
        pieces = {name: {"label": f"{name} pirate", "owner": name} for name in self.seat_names}
        gestures = [boards.gesture("play", ["card", "token"], "{0}@{1}",
                                   "a card from your hand, then one of your pirates"),
                    boards.gesture("back", ["token"], "back@{0}",
                                   "one of your pirates, to move it back and draw")]
        return boards.track(cells, [None] + [None] * L + [None], pieces, gestures,
                            ["end", "pass"])

    def symbol_name(self, s: int) -> str:
        letter = self.alphabet[s]
        return (SYMBOL_NAMES if self.alphabet[0] == "H" else PIRATE_NAMES)[letter]

    def new_initial_state(self, seed=None) -> "CartagenaState":
        return CartagenaState(self, seed)

    def bench_playouts(self, count: int, seed: int) -> int:
        buf = np.zeros(self.layout["size"], dtype=np.int32)
        return K.playouts(buf, self.cfg, count, seed)

    def determinize(self, view: dict, seed: int) -> "CartagenaState":
        """A full state consistent with ``view``: unseen cards dealt at random.

        The viewer's hand, every public fact and the face-up cards are kept;
        the other hands (at their known sizes) and the pile order are drawn
        uniformly from the cards the viewer cannot see. The chance seed is new.
        """
        return CartagenaState.from_view(self, view, seed)


class CartagenaState(KernelState):
    """A Cartagena position: the kernel buffer plus its seed."""

    def __init__(self, game: Cartagena, seed=None):
        super().__init__(game, seed)
        self.seed = int.from_bytes(os.urandom(4), "little") if seed is None else int(seed)
        if not -2**63 <= self.seed < 2**63:
            raise OptionError(f"seed {self.seed} does not fit in 64 bits")
        self.buf = np.zeros(game.layout["size"], dtype=np.int32)
        K.new_game(self.buf, game.cfg, self.seed)
        self._apply_setup(random.Random(self.seed))
        self._out = np.empty(game.num_actions, dtype=np.int32)
        self.knowledge = self._knowledge_at_deal()     # per seat; None with open hands
        self.sampled_for: CardKnowledge | None = None  # in a sample: its viewer's knowledge
        self._deal_arrays = None                       # sampled_for as arrays, for redeal

    def _cloned(self, other) -> None:
        if self.knowledge is not None:
            other.knowledge = [k.copy() for k in self.knowledge]

    def _knowledge_at_deal(self) -> list[CardKnowledge] | None:
        """What each seat knows of the unseen cards at the start (nothing hidden: None)."""
        if self.game.options["visibility"] == "tortuga":
            return None
        face_up = self.pile[:int(self.buf[K.M_ROW_LEFT])]
        public = self.discard_counts + np.bincount(face_up, minlength=len(self.game.alphabet))
        totals = np.array(self.game.card_totals())
        sizes = [int(self.hand(q).sum()) for q in range(self.game.num_seats)]
        hidden_pile = len(self.pile) - len(face_up)
        return [CardKnowledge.at_deal(v, totals - public - self.hand(v), sizes, hidden_pile)
                for v in range(self.game.num_seats)]

    # Buffer access --------------------------------------------------------------
    def _part(self, name, length):
        start = self.game.layout[name]
        return self.buf[start:start + length]

    @property
    def track(self):
        return self._part("track", self.game.L + 2)

    @property
    def occupancy(self):
        return self._part("occ", self.game.L + 2)

    def mine(self, seat):
        L = self.game.L
        return self._part("mine", self.game.num_seats * (L + 2))[seat * (L + 2):(seat + 1) * (L + 2)]

    def hand(self, seat):
        S = self.game.options["symbols"]
        return self._part("hand", self.game.num_seats * S)[seat * S:(seat + 1) * S]

    @property
    def discard_counts(self):
        return self._part("discard", self.game.options["symbols"])

    @property
    def pile(self):
        """The draw pile in order, next card first."""
        start = self.game.layout["pile"]
        return self.buf[start + self.buf[K.M_TOP]:start + self.buf[K.M_END]]

    def _apply_setup(self, rng):
        game = self.game
        if game.track is not None:
            self.track[1:game.L + 1] = game.track
        if game.deck is not None or game.hands is not None or game.discard:
            pile = list(game.deck) if game.deck is not None else rng.sample(game.rest,
                                                                              len(game.rest))
            for seat in range(game.num_seats):
                hand = self.hand(seat)
                hand[:] = 0
                dealt = game.hands[seat] if game.hands is not None else \
                    pile[:game.options["hand_size"]]
                if game.hands is None:
                    del pile[:len(dealt)]
                for card in dealt:
                    hand[card] += 1
            self.discard_counts[:] = np.bincount(game.discard, minlength=len(game.alphabet))
            self._set_pile(pile)
        if game.positions is not None:
            self.occupancy[:] = 0
            for seat, tokens in enumerate(game.positions):
                mine = self.mine(seat)
                mine[:] = 0
                for x in tokens:
                    mine[x] += 1
                    self.occupancy[x] += 1

    def _set_pile(self, cards):
        start = self.game.layout["pile"]
        self.buf[start:start + len(cards)] = cards
        self.buf[K.M_TOP], self.buf[K.M_END] = 0, len(cards)
        self.buf[K.M_ROW_LEFT] = 0
        if self.game.cfg[K.C_ROW]:
            self.buf[K.M_ROW_LEFT] = min(ROW, len(cards))

    # Protocol ---------------------------------------------------------------------
    def _current_player(self) -> int:
        return TERMINAL if self.buf[K.M_OVER] else int(self.buf[K.M_TO_MOVE])

    def legal_actions(self) -> list[int]:
        if self.resigned is not None:
            return []
        count = K.legal(self.buf, self.game.cfg, self._out)
        return self._out[:count].tolist()

    def illegal_reason(self, action: int) -> str | None:
        if action in self.legal_actions():
            return None
        kind, symbol, x = self._decode(action)
        game, seat = self.game, int(self.buf[K.M_TO_MOVE])
        if self.buf[K.M_DISCARDING]:
            return f"you must discard down to {game.options['hand_limit']} cards (discard X)"
        if kind == "play":
            if self.hand(seat)[symbol] == 0:
                return f"you hold no {game.alphabet[symbol]} card"
            return f"you have no token at {x}"
        if kind == "back":
            if self.mine(seat)[x] == 0:
                return f"you have no token at {x}"
            if x == game.L + 1:
                return "tokens in the boat stay there (retreat_from_end is off)"
            return "no space behind it with 1 or 2 tokens can be reached"
        if kind == "end":
            return "'end' only ends a turn after at least one action"
        if kind == "pass":
            return "you can only pass when you have no action (allow_voluntary_pass is off)" \
                if self.buf[K.M_DONE] == 0 else "your turn is under way: 'end' ends it"
        return "no hand limit to discard down to now"

    def _apply(self, action: int) -> None:
        if self.knowledge is None:
            K.apply(self.buf, self.game.cfg, action)
            if self.sampled_for is not None:     # a sample played on: no longer its view
                self.sampled_for = self._deal_arrays = None
            return
        for event, *args in self._apply_seen(action):
            for knowledge in self.knowledge:
                getattr(knowledge, event)(*args)

    def _apply_seen(self, action: int) -> list[tuple]:
        """Apply ``action``; return the card events it made, for the seats' knowledge."""
        kind, symbol, _ = self._decode(action)
        seat = int(self.buf[K.M_TO_MOVE])
        if kind != "back":
            K.apply(self.buf, self.game.cfg, action)
            return [("played", seat, symbol)] if kind in ("play", "discard") else []
        row_left, pile = int(self.buf[K.M_ROW_LEFT]), self.pile.tolist()
        discard, held = self.discard_counts.tolist(), int(self.hand(seat).sum())
        K.apply(self.buf, self.game.cfg, action)
        drawn = int(self.hand(seat).sum()) - held
        return self._draw_events(seat, drawn, pile, row_left, discard)

    def _draw_events(self, seat, drawn, pile, row_left, discard) -> list[tuple]:
        """The kernel's draws replayed: ``pile`` and ``row_left`` as they were before."""
        row, events, top = int(self.game.cfg[K.C_ROW]), [], 0
        for _ in range(drawn):
            if top == len(pile):                       # the lazy reshuffle (K-A4)
                events.append(("reshuffled", discard))
                start = self.game.layout["pile"]        # the new pile: what was discarded
                pile, top = self.buf[start:start + sum(discard)].tolist(), 0
                discard = [0] * len(discard)
                row_left = min(row, len(pile))
                if row_left:
                    events.append(("revealed", pile[:row_left]))
            events.append(("drew", seat, pile[top], bool(row)))
            top += 1
            if row:
                row_left -= 1
                if row_left == 0:
                    row_left = min(row, len(pile) - top)
                    if row_left:
                        events.append(("revealed", pile[top:top + row_left]))
        return events

    def _decode(self, action: int):
        S, L = self.game.options["symbols"], self.game.L
        A = L + 1
        if action < S * A:
            return "play", action // A, action % A
        if action < S * A + L + 2:
            return "back", None, action - S * A
        kinds = {0: "end", 1: "pass"}
        rest = action - (S * A + L + 2)
        return (kinds[rest], None, None) if rest in kinds else ("discard", rest - 2, None)

    def _action_text(self, action: int) -> str:
        kind, symbol, x = self._decode(action)
        if kind == "play":
            return f"{self.game.alphabet[symbol]}@{x}"
        if kind == "back":
            return f"back@{x}"
        if kind == "discard":
            return f"discard {self.game.alphabet[symbol]}"
        return kind

    def string_to_action(self, text: str) -> int:
        game = self.game
        if not isinstance(text, str):
            raise NotationError(f"a move must be text, not {text!r}")
        word = text.strip().lower()
        S, L = game.options["symbols"], game.L
        if word in ("end", "pass"):
            return game.end_action + (word == "pass")
        if word.startswith("discard"):
            symbol = word[7:].strip().upper()
            if len(symbol) != 1 or symbol not in game.alphabet:
                raise NotationError(f"{text!r}: discard one of {' '.join(game.alphabet)}")
            return game.end_action + 2 + game.alphabet.index(symbol)
        head, at, place = word.partition("@")
        if not at:
            raise NotationError(f"{text!r} is not a move (expected e.g. "
                                f"{game.alphabet[0]}@0, back@3, end, pass)")
        try:
            x = int(place)
        except ValueError:
            raise NotationError(f"{text!r}: the position after @ is a number 0-{L + 1}") \
                from None
        if head == "back":
            if not 1 <= x <= L + 1:
                raise NotationError(f"{text!r}: tokens move back from positions 1-{L + 1}")
            return S * (L + 1) + x
        symbol = head.upper()
        if len(symbol) != 1 or symbol not in game.alphabet:
            raise NotationError(f"{text!r}: {head!r} is not a symbol (symbols: "
                                f"{' '.join(game.alphabet)})")
        if not 0 <= x <= L:
            raise NotationError(f"{text!r}: a card moves a token at 0-{L} (0 = start)")
        return game.alphabet.index(symbol) * (L + 1) + x

    def history_text(self) -> list[str]:
        return [self.action_to_string(action) for _, action in self.history]

    # Results ----------------------------------------------------------------------
    def ranking_key(self, seat):
        """(tokens in the boat, sum of positions): the K-A7 ranking."""
        mine, L = self.mine(seat), self.game.L
        return int(mine[L + 1]), int(sum(x * int(mine[x]) for x in range(L + 2)))

    def winners(self) -> list[int]:
        """The seats ranked first at the end (several on an exact tie)."""
        if not self.is_terminal():
            return []
        if self.resigned is not None:
            return [s for s in range(self.game.num_seats) if s != self.resigned]
        if self.buf[K.M_OVER] == K.OVER_WIN:
            return [int(self.buf[K.M_WINNER])]
        keys = [self.ranking_key(s) for s in range(self.game.num_seats)]
        return [s for s, key in enumerate(keys) if key == max(keys)]

    def _returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.game.num_seats
        top = self.winners()
        if len(top) == self.game.num_seats:
            return [0.0] * self.game.num_seats
        return [1.0 if s in top else -1.0 for s in range(self.game.num_seats)]

    def heuristic(self, seat: int) -> float:
        """Progress: own token positions (plus a little for cards held) against the best rival."""
        def progress(p):
            finished, positions = self.ranking_key(p)
            return positions + 0.5 * int(self.hand(p).sum())

        scale = self.game.options["tokens"] * (self.game.L + 1)
        best_rival = max(progress(p) for p in range(self.game.num_seats) if p != seat)
        return max(-1.0, min(1.0, (progress(seat) - best_rival) / scale))

    def rollout(self, seed: int, max_turns: int | None = None) -> list[float]:
        """Random play to the end, or for ``max_turns`` more turns, then ranked (K-A7)."""
        other = self.clone()
        cfg = self.game.cfg
        if max_turns is not None:
            cfg = cfg.copy()
            cfg[K.C_MAX_TURNS] = min(cfg[K.C_MAX_TURNS], int(self.buf[K.M_TURNS]) + max_turns)
        if not other.is_terminal():
            K.seed_rng(other.buf, seed)
            K.playout(other.buf, cfg, seed)
            if other.buf[K.M_OVER] == 0:
                other.buf[K.M_OVER] = K.OVER_CAP
        return other.returns()

    def end_reason(self) -> str | None:
        if self.resigned is not None:
            return "resignation"
        return {0: None, K.OVER_WIN: "all tokens home", K.OVER_DEADLOCK: "deadlock",
                K.OVER_CAP: "turn cap"}[int(self.buf[K.M_OVER])]

    # Copies, views ----------------------------------------------------------------

    def _cards(self, counts) -> dict:
        return {self.game.alphabet[s]: int(c) for s, c in enumerate(counts)}

    def face_up(self) -> list[str]:
        """The upcoming cards lying face up (Tortuga, Hispaniola), next first."""
        left = int(self.buf[K.M_ROW_LEFT])
        return [self.game.alphabet[c] for c in self.pile[:left]]

    def _view(self, seat: int | None) -> dict:
        """What ``seat`` may know; ``None`` is a spectator. Plain JSON data."""
        game, names = self.game, self.game.seat_names
        open_hands = game.options["visibility"] == "tortuga"
        over = self.is_terminal()
        mover = self.current_player()
        return {
            "game": game.name, "spec": game.public_spec, "profile": game.options["profile"],
            "seat": seat, "seats": list(names),
            "track": "".join(game.alphabet[s] for s in self.track[1:game.L + 1]),
            "tokens": {names[p]: [x for x in range(game.L + 2) for _ in range(self.mine(p)[x])]
                       for p in range(game.num_seats)},
            "hand": self._cards(self.hand(seat)) if seat is not None else None,
            "hands": {names[p]: self._cards(self.hand(p)) for p in range(game.num_seats)}
            if open_hands else None,
            "hand_sizes": {names[p]: int(self.hand(p).sum()) for p in range(game.num_seats)},
            "pile_size": len(self.pile), "face_up": self.face_up(),
            "discard": self._cards(self.discard_counts),
            "to_move": None if over else names[mover],
            "actions_done": int(self.buf[K.M_DONE]),
            "actions_per_turn": game.options["actions_per_turn"],
            "discarding": bool(self.buf[K.M_DISCARDING]),
            "turn": int(self.buf[K.M_TURNS]) + 1, "terminal": over,
            "winners": [names[s] for s in self.winners()], "end_reason": self.end_reason(),
            "history": self.history_text(),
            "legal_actions": self.legal_actions() if seat == mover and not over else [],
            "card_knowledge": self._knowledge_data(seat),
        }

    def _knowledge_data(self, seat: int | None) -> dict | None:
        """What ``seat`` knows of the cards it cannot see (see ``cartagena_knowledge``)."""
        knowledge = None
        if seat is not None and self.knowledge is not None:
            knowledge = self.knowledge[seat]
        elif seat is not None and self.sampled_for is not None and \
                self.sampled_for.viewer == seat:
            knowledge = self.sampled_for
        return knowledge.to_data(self.game.alphabet, self.game.seat_names) if knowledge \
            else None

    def summary(self) -> dict:
        """Everything, hands included (for analysis and replays), but not the pile order."""
        info = self._view(None)
        names = self.game.seat_names
        info["hands"] = {names[p]: self._cards(self.hand(p)) for p in range(self.game.num_seats)}
        info["legal"] = self.legal_moves()
        info["winner"] = info["winners"][0] if len(info["winners"]) == 1 else None
        info["returns"] = self.returns() if info["terminal"] else None
        info["seed"] = self.seed
        del info["seat"], info["legal_actions"], info["hand"]
        return info

    def private_key(self, seat: int) -> bytes:
        """What ``seat`` knows that others may not: its hand (for search trees)."""
        return self.hand(seat).tobytes()

    def redeal(self, viewer: int | None, seed: int) -> None:
        """Deal again, in place, every card ``viewer`` cannot see (searchers' fast resample).

        Only for a state that is itself a determinization for ``viewer``: the
        other hands (at their sizes) and the pile below the face-up row are
        shuffled together, so the result is as likely as a new
        :meth:`Cartagena.determinize` of the same view, only much cheaper.
        """
        knowledge = self.sampled_for
        if knowledge is not None and knowledge.viewer == viewer and not knowledge.trivial():
            self._redeal_known(knowledge, seed)
            return
        open_hands = self.game.options["visibility"] == "tortuga"
        hidden = np.array([not open_hands and p != viewer for p in range(self.game.num_seats)],
                          dtype=np.int32)
        K.redeal(self.buf, self.game.cfg, hidden, seed)

    def _set_sampled_for(self, knowledge: CardKnowledge) -> None:
        """Mark this state as a sample dealt from ``knowledge`` (kept, as arrays too, for
        :meth:`redeal` of its copies)."""
        self.sampled_for = knowledge
        self._deal_arrays = (np.array(knowledge.known, dtype=np.int32),
                             np.array([g[0] for g in knowledge.groups], dtype=np.int32)
                             .reshape(-1, len(self.game.alphabet)),
                             np.array([g[1] for g in knowledge.groups], dtype=np.int32)
                             .reshape(-1, self.game.num_seats))

    def _redeal_known(self, knowledge, seed: int) -> None:
        """Deal the cards ``knowledge``'s viewer cannot see, group by group (the kernel's
        ``deal_groups``); only the newest group has cards in the pile."""
        known, cards, hands = self._deal_arrays
        K.deal_groups(self.buf, self.game.cfg, knowledge.viewer, known, cards, hands, seed)

    @classmethod
    def from_view(cls, game: Cartagena, view: dict, seed: int) -> "CartagenaState":
        """See :meth:`Cartagena.determinize`."""
        state = cls(game, seed)
        state.knowledge = None                  # a sample for search: nothing is tracked
        state._public_from_view(view)
        face_up = [game.alphabet.index(c) for c in view["face_up"]]
        state._part("pile", game.deck_size)[:] = 0          # no trace of a set-up deck
        seat, data = view["seat"], view.get("card_knowledge")
        if data is not None and seat is not None:           # dealt from what the seat knows
            knowledge = CardKnowledge.from_data(data, seat, game.alphabet, game.seat_names)
            state.hand(seat)[:] = [view["hand"][a] for a in game.alphabet]
            state._set_pile(face_up + [0] * sum(g[2] for g in knowledge.groups))
            state.buf[K.M_ROW_LEFT] = len(face_up)
            state._set_sampled_for(knowledge)
            state._redeal_known(knowledge, seed)
            return state
        hands, hidden = state._uniform_cards(view, random.Random(seed))
        for p, counts in enumerate(hands):
            state.hand(p)[:] = counts
        state._set_pile(face_up + hidden)
        state.buf[K.M_ROW_LEFT] = len(face_up)
        return state

    def _uniform_cards(self, view, rng) -> tuple[list, list[int]]:
        """Every hand (counts) and the pile below the face-up cards, dealt uniformly from
        the cards ``view`` does not show (a view without card knowledge)."""
        game, seat = self.game, view["seat"]
        names, alphabet = game.seat_names, game.alphabet
        known = {names.index(n): h for n, h in (view.get("hands") or {}).items()}
        if seat is not None and view.get("hand") is not None:
            known[seat] = view["hand"]
        seen = [view["discard"][a] + view["face_up"].count(a) +
                sum(h[a] for h in known.values()) for a in alphabet]
        pool = [s for s, n in enumerate(game.card_totals()) for _ in range(max(0, n - seen[s]))]
        rng.shuffle(pool)
        hands = []
        for p, name in enumerate(names):
            if p in known:
                hands.append([known[p][a] for a in alphabet])
                continue
            hands.append([0] * len(alphabet))
            for _ in range(view["hand_sizes"][name]):
                hands[p][pool.pop()] += 1
        return hands, pool[:max(0, view["pile_size"] - len(view["face_up"]))]

    def _public_from_view(self, view) -> None:
        """Tokens, track, discards and the turn's counters as the view shows them."""
        game, names, alphabet = self.game, self.game.seat_names, self.game.alphabet
        self.occupancy[:] = 0
        for p, name in enumerate(names):
            mine = self.mine(p)
            mine[:] = 0
            for x in view["tokens"][name]:
                mine[x] += 1
                self.occupancy[x] += 1
        self.discard_counts[:] = [view["discard"][a] for a in alphabet]
        self.buf[K.M_TO_MOVE] = names.index(view["to_move"]) if view["to_move"] else 0
        self.buf[K.M_DONE] = view["actions_done"]
        self.buf[K.M_TURNS] = view["turn"] - 1
        self.buf[K.M_DISCARDING] = view["discarding"]
        self.buf[K.M_PASSES] = _trailing_passes(view["history"])
        self.track[1:game.L + 1] = [alphabet.index(c) for c in view["track"]]
        reasons = {"all tokens home": K.OVER_WIN, "deadlock": K.OVER_DEADLOCK,
                   "turn cap": K.OVER_CAP}
        self.buf[K.M_OVER] = reasons.get(view["end_reason"], 0)
        if view["end_reason"] == "all tokens home":
            self.buf[K.M_WINNER] = names.index(view["winners"][0])
        # the seats of past moves are not needed to search on (None: not tracked here)
        self.history = [Move(None, RESIGN if t == "resign" else self.string_to_action(t))
                        for t in view["history"]]
        if self.history and self.history[-1].action == RESIGN:
            losers = [p for p, name in enumerate(names) if name not in view["winners"]]
            self.resigned = losers[0] if losers else None

    # Terminal rendering -----------------------------------------------------------
    def board_view(self, seat: int | None) -> dict:
        """Token positions by seat (0 the start, L+1 the boat)."""
        names, L = self.game.seat_names, self.game.L
        return {"kind": "track",
                "tokens": {names[p]: [x for x in range(L + 2) for _ in range(self.mine(p)[x])]
                           for p in range(self.game.num_seats)}}

    def render(self, colour: bool = False, seat: int | None = None) -> str:
        """The track (symbols above, tokens below by colour initial), hands, piles."""
        view = self.view(seat)
        game, L = self.game, self.game.L
        initials = {name: name[0].upper() for name in game.seat_names}
        width = 4
        lines = ["".join(f"{x:>{width}}" for x in range(1, L + 1))]
        lines.append("".join(f"{c:>{width}}" for c in view["track"]))
        stacks = [[] for _ in range(L + 2)]
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

    def status_lines(self, seat: int | None = None) -> list[str]:
        view = self.view(seat)
        game = self.game
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
        if self.history:
            lines.append(f"last move: {self.action_to_string(self.history[-1].action)}")
        if view["terminal"]:
            lines.append(f"game over ({view['end_reason']}): winner "
                         f"{', '.join(view['winners']) or 'none'}")
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


def _trailing_passes(history: list[str]) -> int:
    """Passes since the last real action (hand-limit discards do not count as actions)."""
    count = 0
    for text in reversed(history):
        if text.startswith("discard"):
            continue
        if text != "pass":
            break
        count += 1
    return count
