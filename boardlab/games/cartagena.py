"""Cartagena (RULES.md §3): race your pirates along the track, with hidden hands.

Three profiles: ``basic`` (the blog: 16 spaces of 4 suits, hands of 3, one
action a turn), ``advanced`` (the blog's advanced play: 36 spaces of 6
symbols, up to 3 actions) and ``original`` (Colovini's game: 6-space
segments, retreat skips full spaces, 2-5 players). Every switchable ruling
is an option. Chance (track, deck, reshuffles) comes from the state's seed.

Notation: ``D@3`` plays a D card on your token at position 3 (0 = the
start), ``back@9`` moves your token at 9 back, ``end`` ends a turn of
several actions, ``pass`` passes, ``discard D`` discards down to a hand limit.

Where things live: the rules, the one action encoding and the card dealing
are the compiled kernel's (``cartagena_kernel``); what each seat knows of the
unseen cards is ``cartagena_knowledge``; the notation, the rules summary and
the terminal picture are ``cartagena_text``; sampling the hidden cards from a
view is ``cartagena_sample``. This module holds the options, the declared
facts, the views and the State protocol, delegating to those.

>>> import boardlab
>>> state = boardlab.make("cartagena(profile=basic,players=2)").new_initial_state(seed=1)
>>> state.view(0)["hand"] is not None and state.view(None)["hand"] is None
True
"""
from __future__ import annotations

import os
import random
from functools import cached_property
from typing import Any, cast

import numpy as np

from ..core.errors import OptionError
from ..core import board as boards
from ..core.game import RESIGN, TERMINAL, Game, Move
from ..core.options import Option, format_spec
from ..core.registry import register
from ..core.view import View
from .kernel_state import KernelState
from . import cartagena_kernel as K
from .direct_call import direct
from . import cartagena_sample as sample
from . import cartagena_seen as seen
from . import cartagena_vector
from . import cartagena_text as text
from .cartagena_knowledge import CardKnowledge, check

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
COLOURS = ("green", "purple", "red", "blue", "yellow")
ROW = 12                          # face-up cards in Tortuga / Hispaniola


def _profile(options) -> dict:
    return PROFILES[ALIASES.get(options["profile"], options["profile"])]


def _from_profile(key):
    return lambda options: _profile(options)[key]


OPTIONS = (
    Option("profile", str, "basic", "rule set: basic (blog), advanced (blog), original "
           "(Colovini)", choices=("basic", "advanced", "original", *ALIASES), common=True),
    Option("players", int, 2, "number of players", minimum=2, maximum=5, common=True),
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
    Option("cards", str, "", "set-up: the cards of each symbol in all (pile, hands and "
           "discards), e.g. 9,9,9,12; public, unlike the deck's order (default: "
           "cards_per_symbol of each)", analysis=True),
    Option("positions", str, "", "set-up: each seat's token positions, '/'-separated, e.g. "
           "0,3,9,11/0,9,13,15", analysis=True),
    Option("discard", str, "", "set-up: the discard pile's cards, e.g. HHDCS", analysis=True),
)


# the kernels of legal_actions and apply, replaced by their compiled entry points
# (direct_call: called without numba's dispatch) when the first state is made
_legal, _apply_if_legal, _act_if_legal = K.legal, K.apply_if_legal, seen.act_if_legal

_new_tuple = tuple.__new__      # a Move without NamedTuple's Python-level __new__ (search)

# the guided playout (State.rollout): how often in 1000 it takes the best-judged action,
# and how many spaces a card drawn is worth to it (docs/agents.md, "Playouts")
GUIDED_GREED, GUIDED_CARD = 900, 3
MAX_CARDS = 240         # the most cards in all: the largest deck the options allow (6 x 40)


def _counts_text(counts: list[int]) -> str:
    return ",".join(str(n) for n in counts)


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
    rating_options = ('profile',)
    rating_free_options = ('players',)
    title = "Cartagena"
    description = "race your pirates to the boat: play cards to jump ahead, step back to draw"
    perfect_information = False
    chance = "seeded"
    can_sample = True
    cheap_resample = True
    listed_search = True
    private_hands = True
    playouts = ("random", "guided")
    playout = "guided"
    # Past a few hundred simulations more gain little here (the cards decide much of the
    # rest): 4,000 beat 150 86% of the time, x2 steps 59-62% at the top; these steps
    # scored 69, 68, 72 and 86% (docs/agents.md, "Levels").
    level_budgets = (8, 20, 50, 150, 4000)
    # random play can wander for long (cards drawn back and forth): a rollout is ranked
    # after this many more turns, as the rules rank a capped game (K-A7)
    rollout_turns = 200
    declared_options = OPTIONS
    bench_specs = ("cartagena(profile=basic,players=2)", "cartagena(profile=basic,players=4)",
                   "cartagena(profile=advanced,players=4)")
    setup_examples = ("cartagena(positions=0,3,9,11/0,9,13,15,hands=DC/HH)",)
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
        # the kernel's own deal (used where no set-up replaces it: playouts) fills the deck
        # as card i // C_CARDS_PER: a set-up deck of any size keeps to the S symbols
        per_symbol = max(1, -(-self.deck_size // o["symbols"])) if self.setup_cards \
            else o["cards_per_symbol"]
        self.cfg[[K.C_DECK, K.C_ROW, K.C_PER_SYMBOL, K.C_CARDS_PER, K.C_HAND]] = (
            self.deck_size, 0 if o["visibility"] == "jamaica" else ROW,
            o["spaces_per_symbol"], per_symbol, o["hand_size"])
        self.cfg[[K.C_SEGMENTS, K.C_FIRST, K.C_DEADLOCK]] = (
            o["track_layout"] == "segments", o["first_player"], o["end_on_deadlock"])
        self.layout = K.layout(self.cfg)
        #: every seat's tokens per position, seat after seat, in a state's buffer
        self.mine_span = slice(self.layout["mine"], self.layout["hand"])
        self.knowledge_size = int(seen.size(self.cfg))   # one seat's (cartagena_seen)
        self._num_actions = int(K.num_actions(self.cfg))
        self.hidden_hands = o["visibility"] != "tortuga"   # hands only their holders see
        self.hidden_masks: dict = {}             # per viewer, for redeals (cartagena_sample)
        self._public_spec = None
        self._ranked: dict = {}                  # ranked_returns, per set of first seats
        self.turn_cap = o["max_turns"]

    def _setup_cards(self):
        """The set-up's cards (``deck``, ``hands``, ``discard``, ``cards``): refused unless
        they make one deck of at most MAX_CARDS cards (the kernel's buffers are sized by it)."""
        o, S = self.options, self.options["symbols"]
        self.deck = _letters(o["deck"], self.alphabet, "deck") if o["deck"] else None
        self.hands = None
        if o["hands"]:
            parts = o["hands"].split("/")
            if len(parts) != o["players"]:
                raise OptionError(f"option 'hands': give {o['players']} hands separated by '/'")
            self.hands = [_letters(p, self.alphabet, "hands") for p in parts]
        self.discard = _letters(o["discard"], self.alphabet, "discard")
        self.setup_cards = bool(o["deck"] or o["hands"] or o["discard"] or o["cards"])
        totals = self._declared_totals()
        placed = [c for h in (self.hands or []) for c in h] + self.discard
        if self.deck is None:
            counts = list(totals)
            for card in placed:
                counts[card] -= 1
                if counts[card] < 0:
                    raise OptionError(f"options 'hands'/'discard' use more "
                                      f"{self.alphabet[card]} cards than the deck has")
            self.rest = [s for s in range(S) for _ in range(counts[s])]
        else:
            cards = self.deck + placed
            given = [cards.count(s) for s in range(S)]
            if o["cards"] and given != totals:
                raise OptionError(f"option 'cards': the deck, hands and discards hold "
                                  f"{_counts_text(given)}, not {o['cards']}")
            totals = given
        self.totals = totals
        self.deck_size = sum(totals)
        if self.deck_size > MAX_CARDS:
            raise OptionError(f"options 'deck'/'hands'/'discard'/'cards': at most {MAX_CARDS} "
                              f"cards in all, not {self.deck_size}")

    def _declared_totals(self) -> list[int]:
        """The cards of each symbol that option ``cards`` (or ``cards_per_symbol``) declares."""
        o, S = self.options, self.options["symbols"]
        if not o["cards"]:
            return [o["cards_per_symbol"]] * S
        try:
            totals = [int(v) for v in o["cards"].split(",")]
        except ValueError:
            totals = []
        if len(totals) != S or min(totals) < 0 or sum(totals) > MAX_CARDS:
            raise OptionError(f"option 'cards': {S} whole numbers >= 0, one per symbol "
                              f"({' '.join(self.alphabet)}), at most {MAX_CARDS} in all, "
                              f"e.g. {','.join(['9'] * S)}")
        return totals

    def card_totals(self) -> list[int]:
        """How many cards of each symbol there are in all (pile, hands and discards)."""
        return list(self.totals)

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
        """The spec without the set-up's hidden cards (dealt hands, deck order); what is
        public stays: the cards of each symbol in all (``cards``, where not the default),
        so the public game holds the same cards as this one."""
        if self._public_spec is None:              # options never change once made
            default = [self.options["cards_per_symbol"]] * self.options["symbols"]
            hidden = {"hands": "", "deck": "",
                      "cards": "" if self.totals == default else
                      _counts_text(self.totals)}
            self._public_spec = format_spec(self.name, {**self.options, **hidden},
                                            self.declared_options)
        return self._public_spec

    @property
    def seat_names(self):
        return COLOURS[:self.options["players"]]

    @property
    def num_actions(self) -> int:
        return self._num_actions

    @cached_property
    def action_texts(self) -> tuple[str, ...]:
        """The notation of every action (it needs no context), made once per game."""
        return tuple(text.action_text(self, action) for action in range(self.num_actions))

    @property
    def max_game_length(self) -> int:
        apt = self.options["actions_per_turn"]
        return self.options["max_turns"] * (apt + 1 + 2 * apt + self.deck_size) + 1

    @property
    def rules_summary(self) -> str:  # type: ignore[override]  # Game: a plain attribute
        return text.rules_summary(self)

    @property
    def notation_guide(self) -> str:  # type: ignore[override]  # Game: a plain attribute
        return text.notation_guide(self)

    def board_description(self) -> dict:
        """A track of cells named by position: ``0`` the start, ``1``..``L`` the spaces,
        ``L+1`` the boat (the names are what the notation writes after ``@``).

        The symbols of the spaces are only given here when the ``track`` option
        fixes them; otherwise each seed deals its own track and the symbols are
        in every view's board block (``symbols``), with None here. The legend names
        each symbol the deal can use and gives it a glyph.
        """
        L = self.L
        cells = [str(x) for x in range(L + 2)]
        symbols: list[str | None] = [None] * (L + 2)
        if self.track is not None:
            symbols[1:L + 1] = [self.alphabet[s] for s in self.track]
        pieces = {name: {"label": f"{name} pirate", "owner": name} for name in self.seat_names}
        gestures = [boards.gesture("play", ["card", "token"], "{0}@{1}",
                                   "a card from your hand, then one of your pirates"),
                    boards.gesture("back", ["token"], "back@{0}",
                                   "one of your pirates, to move it back and draw")]
        if self.options["hand_limit"]:
            gestures.append(boards.gesture("discard", ["card"], "discard {0}",
                                           "a card to discard down to the hand limit"))
        buttons = (["end"] if self.options["actions_per_turn"] > 1 else []) + ["pass"]
        return boards.track(cells, symbols, pieces, gestures, buttons,
                            labels={"0": "start", str(L + 1): "boat"},
                            legend=text.legend(self))

    def ranked_returns(self, first: int) -> tuple[float, ...]:
        """The returns when the seats of the bits ``first`` are ranked first (1 << seat;
        all of them: a draw), made once per game and set of seats."""
        returns = self._ranked.get(first)
        if returns is None:
            seats = self.num_seats
            returns = (0.0,) * seats if first == (1 << seats) - 1 else \
                tuple(1.0 if first >> s & 1 else -1.0 for s in range(seats))
            self._ranked[first] = returns
        return returns

    def new_initial_state(self, seed=None) -> CartagenaState:
        return CartagenaState(self, seed)

    def vector_kernel(self):
        """Each seat's observation only (``cartagena_vector``): the rows are dealt by the
        kernel, so a set-up (cards or tokens placed, a fixed track) has none."""
        if self.setup_cards or self.positions is not None or self.track is not None:
            return None
        return cartagena_vector.declare(self)

    def bench_playouts(self, count: int, seed: int) -> int:
        buf = np.zeros(self.layout["size"], dtype=np.int32)
        return K.playouts(buf, self.cfg, count, seed)

    def determinize(self, view: View, seed: int) -> CartagenaState:
        """A full state consistent with ``view``: unseen cards dealt at random.

        The viewer's hand, every public fact and the face-up cards are kept;
        the other hands (at their known sizes) and the pile order are dealt from
        the cards the viewer cannot see, as its card knowledge allows (see
        ``cartagena_sample``). The chance seed is new.
        """
        return sample.determinize(self, cast(dict, view), seed)


class CartagenaState(KernelState):
    """A Cartagena position: the kernel buffer plus its seed and the seats' card knowledge."""

    game: Cartagena

    def __init__(self, game: Cartagena, seed=None):
        super().__init__(game, seed)
        self.seed = int.from_bytes(os.urandom(4), "little") if seed is None else int(seed)
        if not -2**63 <= self.seed < 2**63:
            raise OptionError(f"seed {self.seed} does not fit in 64 bits")
        self.buf = np.zeros(game.layout["size"], dtype=np.int32)
        K.new_game(self.buf, game.cfg, self.seed)
        self._apply_setup(random.Random(self.seed))
        self._out = np.empty(game.num_actions, dtype=np.int32)
        self._log = K.new_log()                        # scratch: the draws of one action
        self.knowledge = self._knowledge_at_deal()     # per seat; None with open hands
        self._direct_calls()
        self.sampled_for: CardKnowledge | None = None  # in a sample: its viewer's knowledge
        self._deal_arrays = None                       # sampled_for as arrays, for redeal
        self.drew_at = 0                               # history length after the last draw

    def _direct_calls(self) -> None:
        """The first state made: the kernels of legal_actions and apply replaced by
        their compiled entry points (direct_call: called without numba's dispatch)."""
        global _legal, _apply_if_legal, _act_if_legal
        buf, cfg, log, out = self.buf, self.game.cfg, self._log, self._out
        if _legal is K.legal:
            _legal = direct(K.legal, buf, cfg, out)
            _apply_if_legal = direct(K.apply_if_legal, buf, cfg, 0, log, out)
        if _act_if_legal is seen.act_if_legal and self.knowledge is not None:
            _act_if_legal = direct(seen.act_if_legal, buf, cfg, 0, log, self._know,
                                   self._seen_work, out)

    def _cloned(self, other) -> None:
        other._log = np.empty_like(self._log)
        if self.knowledge is not None:
            other._know = self._know.copy()
            other._seen_work = np.empty_like(self._seen_work)
            other.knowledge = self._seats_knowledge(other._know)

    def _knowledge_at_deal(self) -> list[CardKnowledge] | None:
        """What each seat knows of the unseen cards at the start (nothing hidden: None),
        kept in one array (``cartagena_seen``), viewer after viewer."""
        if not self.game.hidden_hands:
            return None
        game = self.game
        self._know = np.zeros(game.num_seats * game.knowledge_size, dtype=np.int32)
        self._seen_work = np.empty(len(game.alphabet), dtype=np.int64)
        seen.deal(self.buf, game.cfg, np.array(game.card_totals(), dtype=np.int64), self._know)
        return self._seats_knowledge(self._know)

    def _seats_knowledge(self, know: np.ndarray) -> list[CardKnowledge]:
        step = self.game.knowledge_size
        return [CardKnowledge.over(know[v * step:(v + 1) * step])
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
        """Tokens of ``seat`` per position (0 the start, L+1 the boat)."""
        width = self.game.L + 2
        start = self.game.layout["mine"] + seat * width
        return self.buf[start:start + width]

    def hand(self, seat):
        """Cards of ``seat`` per symbol."""
        S = self.game.options["symbols"]
        start = self.game.layout["hand"] + seat * S
        return self.buf[start:start + S]

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
        if game.setup_cards:
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
            K.set_pile(self.buf, game.cfg, np.array(pile, dtype=np.int32))
        if game.positions is not None:
            self.occupancy[:] = 0
            for seat, tokens in enumerate(game.positions):
                mine = self.mine(seat)
                mine[:] = 0
                for x in tokens:
                    mine[x] += 1
                    self.occupancy[x] += 1

    # Protocol ---------------------------------------------------------------------
    def _current_player(self) -> int:
        buf = self.buf
        return TERMINAL if buf.item(K.M_OVER) else buf.item(K.M_TO_MOVE)

    def is_terminal(self) -> bool:
        return self.buf.item(K.M_OVER) != 0 or self.resigned is not None or self.agreed_draw

    def legal_actions(self) -> list[int]:
        if self.resigned is not None:
            return []
        out = self._out
        return out[:_legal(self.buf, self.game.cfg, out)].tolist()

    def illegal_reason(self, action: int) -> str | None:
        if action in self.legal_actions():
            return None
        kind, symbol, x = K.decode(self.game.cfg, action)
        game, seat = self.game, int(self.buf[K.M_TO_MOVE])
        if self.buf[K.M_DISCARDING]:
            return f"you must discard down to {game.options['hand_limit']} cards (discard X)"
        if kind == K.PLAY:
            if self.hand(seat)[symbol] == 0:
                return f"you hold no {game.alphabet[symbol]} card"
            return f"you have no token at {x}"
        if kind == K.BACK:
            if self.mine(seat)[x] == 0:
                return f"you have no token at {x}"
            if x == game.L + 1:
                return "tokens in the boat stay there (retreat_from_end is off)"
            if x == 0:
                return "a pirate on the start cannot move back"
            return "no space behind it with 1 or 2 tokens can be reached"
        if kind == K.END:
            return "'end' only ends a turn after at least one action"
        if kind == K.PASS:
            return "you can only pass when you have no action (allow_voluntary_pass is off)" \
                if self.buf[K.M_DONE] == 0 else "your turn is under way: 'end' ends it"
        return "no hand limit to discard down to now"

    def _apply(self, action: int) -> None:
        game = self.game
        before = self.buf[game.mine_span].tobytes()     # every seat's tokens ("last")
        if self.knowledge is None:
            K.apply_logged(self.buf, game.cfg, action, self._log)
        else:                                    # and what each seat saw of it
            check(seen.act(self.buf, game.cfg, action, self._log, self._know,
                           self._seen_work))
        self._applied(before)

    def _apply_if_legal(self, action: int) -> bool:
        """:meth:`_apply` of a legal ``action`` with its check, in one kernel call."""
        game = self.game
        before = self.buf[game.mine_span].tobytes()     # every seat's tokens ("last")
        if self.knowledge is None:
            if not _apply_if_legal(self.buf, game.cfg, action, self._log, self._out):
                return False
        else:
            code = _act_if_legal(self.buf, game.cfg, action, self._log, self._know,
                                 self._seen_work, self._out)
            if code < 0:
                return False
            check(code)
        self._applied(before)
        return True

    def _applied(self, before: bytes) -> None:
        """After an action (every seat's tokens ``before`` it): a sample played on is no
        longer its viewer's; the history length after a draw (see undo_floor); the token
        it moved."""
        if self.knowledge is None and self.sampled_for is not None:
            self.sampled_for = self._deal_arrays = None
        if self._log.item(0):                    # a card was drawn
            self.drew_at = len(self.history) + 1
        # the last move's token: its seat's tokens before it, compared when a view asks
        # (the track block's "last"), not on every move of a search
        self._moved_from = (len(self.history), before)

    # A searcher's walk (MCTS._iterate_listed): the legal actions in an array, and a move
    # that gives the next ones in the same kernel call (the rules of apply and legal)
    def search_listed(self) -> tuple[int, int, np.ndarray]:
        """``current_player()``, the number of legal actions and the array that holds
        them first (this state's own: the next :meth:`search_step` rewrites it)."""
        player = self.current_player()
        count = K.legal(self.buf, self.game.cfg, self._out) if player >= 0 else 0
        return player, count, self._out

    def search_step(self, action: int, player: int) -> tuple[int, int]:
        """``apply_unchecked(action, None, player)`` for an action of the listed ones
        (``player``: the seat to act), then :meth:`search_listed`'s player and count."""
        if self.knowledge is not None:           # a real game's copy: its seats' knowledge
            self.apply_unchecked(action, None, player)
            return self.search_listed()[:2]
        listed = K.apply_listed(self.buf, self.game.cfg, action, self._log, self._out)
        if self.sampled_for is not None:         # a sample played on: no longer its view
            self.sampled_for = self._deal_arrays = None
        if listed & 1:                           # a card was drawn (see undo_floor)
            self.drew_at = len(self.history) + 1
        self.history.append(_new_tuple(Move, (player, action)))   # Move(player, action)
        if listed & 2:
            return TERMINAL, 0
        return listed >> 2 & 15, listed >> 6

    def _action_text(self, action: int) -> str:
        return self.game.action_texts[action]

    def string_to_action(self, text_: str) -> int:
        return text.parse_action(self.game, text_)

    def _history_text(self) -> list[str]:
        texts = self.game.action_texts
        return [texts[action] if action >= 0 else self.action_to_string(action)
                for _, action in self.history]

    # Results ----------------------------------------------------------------------
    def ranking_key(self, seat):
        """(tokens in the boat, sum of positions): the K-A7 ranking."""
        return self._ranking_keys(self.buf)[seat]

    def _ranking_keys(self, buf) -> list[tuple[int, int]]:
        """Every seat's :meth:`ranking_key` in the position ``buf`` (the kernel's)."""
        keys = np.empty((self.game.num_seats, 2), dtype=np.int64)
        K.ranking_keys(buf, self.game.cfg, keys)
        return [(first, second) for first, second in keys.tolist()]

    def _first(self, buf=None) -> list[int]:
        """The seats ranked first at the end (several on an exact tie; all when all tie),
        in this position or the finished one ``buf``."""
        bits = K.first_ranked(self.buf if buf is None else buf, self.game.cfg)
        return [s for s in range(self.game.num_seats) if bits >> s & 1]

    def winners(self) -> list[int]:
        """The seats ranked first at the end; none when every seat ties (a draw)."""
        if not self.is_terminal() or self.resigned is not None or self.agreed_draw:
            return super().winners()
        first = self._first()
        return [] if len(first) == self.game.num_seats else first

    def _returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.game.num_seats
        return self._ranked_returns(self.buf)

    def _ranked_returns(self, buf) -> list[float]:
        """The returns of the finished position ``buf`` (over by the rules, no resignation)."""
        return list(self.game.ranked_returns(K.first_ranked(buf, self.game.cfg)))

    def scores(self) -> dict:
        """Pirates in the boat per seat name (the first key of the K-A7 ranking; equal
        counts are ranked on the sum of positions, so winners() decides)."""
        L = self.game.L
        return {name: int(self.mine(p)[L + 1]) for p, name in enumerate(self.game.seat_names)}

    def end_reason(self) -> str | None:
        if self.resigned is not None or self.agreed_draw:
            return super().end_reason()
        return {0: None, K.OVER_WIN: "all tokens home", K.OVER_DEADLOCK: "deadlock",
                K.OVER_CAP: "turn cap"}[int(self.buf[K.M_OVER])]

    def undo_floor(self) -> int:
        """The history length after the last draw of cards (a draw also reshuffles and
        turns face-up cards over) and, where hands are hidden, after the last card
        played or discarded: that showed a card of a hidden hand, so taking it back
        would let the table watch that seat choose again knowing it."""
        floor = self.drew_at
        if self.game.hidden_hands:
            cfg = self.game.cfg
            for i in range(len(self.history) - 1, floor - 1, -1):
                action = self.history[i].action
                if action != RESIGN and K.decode(cfg, action)[0] in (K.PLAY, K.DISCARD):
                    return i + 1
        return floor

    def heuristic(self, seat: int) -> float:
        """Progress: own token positions (plus a little for cards held) against the best rival."""
        def progress(p):
            finished, positions = self.ranking_key(p)
            return positions + 0.5 * int(self.hand(p).sum())

        scale = self.game.options["tokens"] * (self.game.L + 1)
        best_rival = max(progress(p) for p in range(self.game.num_seats) if p != seat)
        return max(-1.0, min(1.0, (progress(seat) - best_rival) / scale))

    def rollout(self, seed: int, max_turns: int | None = None,
                policy: str = "random", until: int | None = None) -> list[float]:
        """Play to the end, or for ``max_turns`` more turns, then ranked (K-A7): random
        play, or with ``policy="guided"`` the action that gains most spaces at once
        (a card drawn counting as ``GUIDED_CARD`` spaces) nine times in ten. No horizon
        (``rollout_horizon`` is None), so never an ``until``."""
        del until
        if self.is_terminal():
            return self.returns()
        game = self.game
        cap = game.turn_cap if max_turns is None else \
            min(game.turn_cap, int(self.buf[K.M_TURNS]) + max_turns)
        # the playout runs on a copy of the buffer alone: the position is all it needs
        if policy == "guided":
            first = K.rollout(self.buf, game.cfg, seed, cap, GUIDED_GREED, GUIDED_CARD)
        else:
            game.check_playout(policy)
            first = K.rollout(self.buf, game.cfg, seed, cap)
        return list(game.ranked_returns(first))

    # Views ------------------------------------------------------------------------
    def _cards(self, counts) -> dict:
        return {self.game.alphabet[s]: int(c) for s, c in enumerate(counts)}

    def face_up(self) -> list[str]:
        """The upcoming cards lying face up (Tortuga, Hispaniola), next first."""
        left = int(self.buf[K.M_ROW_LEFT])
        return [self.game.alphabet[c] for c in self.pile[:left]]

    def _tokens(self) -> dict:
        """Each seat's token positions, lowest first, by seat name."""
        squares = np.arange(self.game.L + 2)
        return {name: np.repeat(squares, self.mine(p)).tolist()
                for p, name in enumerate(self.game.seat_names)}

    def _sees_hand(self, seat: int | None, p: int) -> bool:
        return p == seat or not self.game.hidden_hands

    def _view(self, seat: int | None) -> dict:
        """The game's own keys of the view: nothing ``seat`` may not know."""
        game, names = self.game, self.game.seat_names
        return {
            "profile": game.options["profile"],
            "track": "".join(game.alphabet[s] for s in self.track[1:game.L + 1]),
            "tokens": self._tokens(),
            "hand": self._cards(self.hand(seat)) if seat is not None else None,
            "hands": None if game.hidden_hands else
            {names[p]: self._cards(self.hand(p)) for p in range(game.num_seats)},
            "hand_sizes": {names[p]: int(self.hand(p).sum()) for p in range(game.num_seats)},
            "pile_size": len(self.pile), "face_up": self.face_up(),
            "discard": self._cards(self.discard_counts),
            "first_player": names[int(self.buf[K.M_FIRST])],
            "actions_done": int(self.buf[K.M_DONE]),
            "actions_per_turn": game.options["actions_per_turn"],
            "discarding": bool(self.buf[K.M_DISCARDING]),
            "turn": int(self.buf[K.M_TURNS]) + 1,
            "card_knowledge": self._knowledge_data(seat),
        }

    def board_view(self, seat: int | None) -> dict:
        """The track block: tokens by seat name (0 the start, L+1 the boat), the symbols
        of this deal's track, each hand as ``seat`` may see it (cards by symbol, or only
        a count), the pile size, the discards, the face-up row (Tortuga, Hispaniola)
        and the actions left this turn (0 while discarding and at the end); ``last``: the
        cells the last move took a token from and to (when it moved one)."""
        game, names = self.game, self.game.seat_names
        running = not self.is_terminal() and not self.buf[K.M_DISCARDING]
        block = {
            "kind": "track",
            "tokens": self._tokens(),
            "symbols": [None] + [game.alphabet[s] for s in self.track[1:game.L + 1]] + [None],
            "hand": {names[p]: self._cards(self.hand(p)) if self._sees_hand(seat, p)
                     else int(self.hand(p).sum()) for p in range(game.num_seats)},
            "pile": len(self.pile),
            "discard": self._cards(self.discard_counts),
            "actions_left": game.options["actions_per_turn"] - int(self.buf[K.M_DONE])
            if running else 0,
            "discarding": bool(self.buf[K.M_DISCARDING]) and not self.is_terminal(),
        }
        if game.cfg[K.C_ROW]:
            block["face_up"] = self.face_up()
        moved = self._last_moved()
        if moved is not None:
            block["last"] = list(moved)
        return block

    def _last_moved(self) -> tuple[int, int] | None:
        """The last move's token, from where to where (None: no token moved last)."""
        last = len(self.history) - 1
        moved = self.__dict__.get("moved")              # as a sample's view showed it
        if moved is not None and moved[0] == last:
            return moved[1], moved[2]
        raw = self.__dict__.get("_moved_from")
        if raw is None or raw[0] != last:
            return None
        # one token of one seat moved
        change = self.buf[self.game.mine_span] - np.frombuffer(raw[1], dtype=self.buf.dtype)
        if not change.any():
            return None
        width = self.game.L + 2
        return int(np.argmin(change)) % width, int(np.argmax(change)) % width

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
        game, names = self.game, self.game.seat_names
        over = self.is_terminal()
        winners = [names[s] for s in self.winners()]
        info: dict[str, Any] = {"game": game.name, "spec": game.public_spec,
                                "seats": list(names)}
        info.update(self._view(None))
        del info["hand"]
        info.update({
            "hands": {names[p]: self._cards(self.hand(p)) for p in range(game.num_seats)},
            "to_move": None if over else names[self.current_player()],
            "terminal": over, "winners": winners, "end_reason": self.end_reason(),
            "history": self.history_text(), "legal": self.legal_moves(),
            "winner": winners[0] if len(winners) == 1 else None,
            "returns": self.returns() if over else None, "seed": self.seed,
        })
        return info

    # Hidden information: the holder's key, samples (cartagena_sample) ---------------
    def private_key(self, seat: int) -> bytes:
        """What ``seat`` knows that others may not: its hand (for search trees)."""
        return self.hand(seat).tobytes()

    def redeal(self, viewer: int | None, seed: int) -> None:
        """Deal again, in place, every card ``viewer`` cannot see (see ``cartagena_sample``)."""
        sample.redeal(self, viewer, seed)

    # Presentation (cartagena_text) ----------------------------------------------------
    def render(self, colour: bool = False, seat: int | None = None) -> str:
        return text.render(self, colour, seat)

    def status_lines(self, seat: int | None = None, view: dict | None = None) -> list[str]:
        return text.status_lines(self, seat, view)
