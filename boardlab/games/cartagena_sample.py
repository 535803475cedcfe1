"""Cartagena's hidden cards sampled: full states consistent with one seat's view.

:func:`determinize` builds a state from a view: every public fact (track,
tokens, discards, the turn's counters, the history with the seat of each
entry) is copied, and the cards the viewer cannot see are dealt at random.
With the viewer's card knowledge (``view["card_knowledge"]``, see
``cartagena_knowledge``) they are dealt group by group, so no sample gives a
seat a hand the viewer has ruled out; without it (a spectator, open hands)
they are dealt uniformly. Both deals are the kernel's (``deal_groups``,
``redeal``): :func:`redeal` deals a sample's unseen cards again in place,
which is how searchers draw many worlds cheaply.

The view's card counts are checked against the game's deck before anything
is written (:func:`check_cards`): the kernel's buffers hold exactly the
game's cards, and a view that holds more (another game's, or a forged one)
raises BoardlabError instead of writing past them.

The seats of past moves are not in a view's history; they follow from the
turn structure (:func:`movers`), starting from the public first player.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import BoardlabError
from ..core.game import RESIGN, Move
from . import cartagena_kernel as K
from .cartagena_knowledge import CardKnowledge


def determinize(game, view: dict, seed: int):
    """A full state consistent with ``view``; the unseen cards and the chance seed are new."""
    seat, data = view["seat"], view.get("card_knowledge")
    face_up = check_cards(game, view)
    knowledge = None
    if data is not None and seat is not None:
        try:
            knowledge = CardKnowledge.from_data(data, seat, game.alphabet, game.seat_names)
        except (AttributeError, KeyError, TypeError, ValueError):
            raise BoardlabError(f"{game.spec}: the view's card knowledge is malformed") \
                from None
        _check_knowledge(game, view, knowledge, len(face_up))
    state = game.new_initial_state(seed)
    state.knowledge = None                  # a sample for search: nothing is tracked
    public_from_view(state, view)
    if knowledge is not None:                           # dealt from what the seat knows
        state.hand(seat)[:] = [view["hand"][a] for a in game.alphabet]
        _set_pile(state, face_up + [0] * sum(g[2] for g in knowledge.groups), len(face_up))
        set_sampled_for(state, knowledge)
        deal_known(state, knowledge, seed)
        return state
    hidden = _place_unseen(state, view, face_up)
    K.redeal(state.buf, game.cfg, hidden, seed)         # ... and dealt uniformly
    return state


def check_cards(game, view: dict) -> list[int]:
    """The face-up cards of ``view`` (symbols), once its card counts are those of a game
    of ``game``: whole numbers >= 0 that add up to the deck, a face-up row of at most
    the game's row and the pile; raise BoardlabError otherwise."""
    alphabet, names = game.alphabet, game.seat_names

    def counts(value, what: str, keys) -> list[int]:
        if not isinstance(value, dict) or set(value) != set(keys) or not all(
                type(n) is int and 0 <= n <= game.deck_size for n in value.values()):
            raise BoardlabError(f"{game.spec}: the view's {what} must give a count of 0-"
                                f"{game.deck_size} for each of {', '.join(keys)}")
        return [value[k] for k in keys]

    sizes = counts(view.get("hand_sizes"), "hand sizes", names)
    discard = counts(view.get("discard"), "discard", alphabet)
    pile = view.get("pile_size")
    face_up = view.get("face_up")
    if type(pile) is not int or not isinstance(face_up, list) or \
            not all(isinstance(c, str) and len(c) == 1 and c in alphabet for c in face_up):
        raise BoardlabError(f"{game.spec}: the view's pile size and face-up cards are "
                            f"malformed")
    if sum(sizes) + sum(discard) + pile != game.deck_size or pile < 0 or \
            len(face_up) > min(pile, game.cfg[K.C_ROW]):
        raise BoardlabError(f"{game.spec}: the view's cards do not add up to the game's "
                            f"{game.deck_size} (hands {sum(sizes)}, discard {sum(discard)}, "
                            f"pile {pile} with {len(face_up)} face up)")
    hands = dict(view.get("hands") or {})
    if view.get("hand") is not None and view.get("seat") is not None:
        hands[names[view["seat"]]] = view["hand"]
    for name, hand in hands.items():
        if name not in names or sum(counts(hand, f"hand of {name}", alphabet)) != \
                sizes[names.index(name)]:
            raise BoardlabError(f"{game.spec}: the view's hand of {name} is not a hand of "
                                f"its size")
    _check_board(game, view)
    return [alphabet.index(c) for c in face_up]


def _check_board(game, view: dict) -> None:
    """The view's track and tokens fit the game: no index past its arrays (a negative
    one would wrap around in numpy)."""
    track, tokens = view.get("track"), view.get("tokens")
    if not isinstance(track, str) or len(track) != game.L or \
            not all(c in game.alphabet for c in track):
        raise BoardlabError(f"{game.spec}: the view's track must be {game.L} symbols of "
                            f"{game.alphabet}")
    if not isinstance(tokens, dict) or set(tokens) != set(game.seat_names) or not all(
            isinstance(t, list) and len(t) == game.options["tokens"] and
            all(type(x) is int and 0 <= x <= game.L + 1 for x in t) for t in tokens.values()):
        raise BoardlabError(f"{game.spec}: the view's tokens must be {game.options['tokens']} "
                            f"positions 0-{game.L + 1} for each seat")


def _check_knowledge(game, view: dict, knowledge: CardKnowledge, face_up: int) -> None:
    """The viewer's card knowledge places exactly the cards the view does not show."""
    names, sizes = game.seat_names, view["hand_sizes"]
    held = [list(k) for k in knowledge.known]
    pile = face_up
    for cards, hands, in_pile in knowledge.groups:
        if min(cards + hands + [in_pile], default=0) < 0 or \
                sum(cards) != sum(hands) + in_pile:
            raise BoardlabError(f"{game.spec}: the view's card knowledge has a malformed "
                                f"group")
        for p, n in enumerate(hands):
            held[p].append(n)
        pile += in_pile
    viewer = knowledge.viewer
    if pile != view["pile_size"] or any(
            min(held[p]) < 0 or sum(held[p]) != sizes[names[p]]
            for p in range(game.num_seats) if p != viewer):
        raise BoardlabError(f"{game.spec}: the view's card knowledge does not place the "
                            f"cards the view shows")


def redeal(state, viewer: int | None, seed: int) -> None:
    """Deal again, in place, every card ``viewer`` cannot see (searchers' fast resample).

    Only for a state that is itself a determinization for ``viewer``: the
    result is as likely as a new :func:`determinize` of the same view, only
    much cheaper.
    """
    knowledge = state.sampled_for
    if knowledge is not None and knowledge.viewer == viewer and state._deal_arrays[3]:
        deal_known(state, knowledge, seed)         # not trivial: dealt group by group
        return
    K.redeal(state.buf, state.game.cfg, _hidden_seats(state.game, viewer), seed)


def set_sampled_for(state, knowledge: CardKnowledge) -> None:
    """Mark ``state`` as a sample dealt from ``knowledge`` (kept, as arrays too, for
    :func:`redeal` of its copies, with whether it is more than the plain deal: a sample's
    ``knowledge`` never changes, a sample that is played on drops it)."""
    game = state.game
    state.sampled_for = knowledge
    state._deal_arrays = (np.array(knowledge.known, dtype=np.int32),
                          np.array([g[0] for g in knowledge.groups], dtype=np.int32)
                          .reshape(-1, len(game.alphabet)),
                          np.array([g[1] for g in knowledge.groups], dtype=np.int32)
                          .reshape(-1, game.num_seats), not knowledge.trivial())


def deal_known(state, knowledge: CardKnowledge, seed: int) -> None:
    """Deal the cards ``knowledge``'s viewer cannot see, group by group (the kernel's
    ``deal_groups``); only the newest group has cards in the pile."""
    known, cards, hands, _ = state._deal_arrays
    K.deal_groups(state.buf, state.game.cfg, knowledge.viewer, known, cards, hands, seed)


def _hidden_seats(game, viewer: int | None) -> np.ndarray:
    """1 for each seat whose hand ``viewer`` cannot see (made once per game and viewer,
    kept in ``game.hidden_masks``; read only)."""
    mask = game.hidden_masks.get(viewer)
    if mask is None:
        mask = game.hidden_masks[viewer] = np.array(
            [game.hidden_hands and p != viewer for p in range(game.num_seats)], dtype=np.int32)
    return mask


def _place_unseen(state, view: dict, face_up: list[int]) -> np.ndarray:
    """Put the cards ``view`` does not show, in any order, into the hidden hands (at their
    sizes) and the pile below the face-up row; return the hidden seats (for a deal)."""
    game, seat = state.game, view["seat"]
    names, alphabet = game.seat_names, game.alphabet
    known = {names.index(n): h for n, h in (view.get("hands") or {}).items()}
    if seat is not None and view.get("hand") is not None:
        known[seat] = view["hand"]
    seen = [view["discard"][a] + view["face_up"].count(a) +
            sum(h[a] for h in known.values()) for a in alphabet]
    pool = [s for s, n in enumerate(game.card_totals()) for _ in range(n - seen[s])]
    hidden = [p for p in range(game.num_seats) if p not in known]
    wanted = sum(view["hand_sizes"][names[p]] for p in hidden) + \
        view["pile_size"] - len(face_up)
    if min(n - s for n, s in zip(game.card_totals(), seen)) < 0 or len(pool) != wanted:
        raise BoardlabError(f"{game.spec}: the view's cards do not add up to the deck")
    for p in range(game.num_seats):
        hand = state.hand(p)
        if p in known:
            hand[:] = [known[p][a] for a in alphabet]
            continue
        hand[:] = 0
        for _ in range(view["hand_sizes"][names[p]]):
            hand[pool.pop()] += 1
    _set_pile(state, face_up + pool, len(face_up))
    return np.array([p in hidden for p in range(game.num_seats)], dtype=np.int32)


def _set_pile(state, cards: list[int], face_up: int) -> None:
    """The pile is ``cards`` and nothing else (no trace of a set-up deck), ``face_up`` of
    them face up; more cards than the game has (its buffer's room) raise BoardlabError."""
    game = state.game
    if not 0 <= face_up <= len(cards) <= game.deck_size or \
            not all(0 <= c < len(game.alphabet) for c in cards):
        raise BoardlabError(f"{game.spec}: a pile of {len(cards)} cards ({face_up} face up) "
                            f"does not fit a deck of {game.deck_size}")
    K.set_pile(state.buf, state.game.cfg, np.array(cards, dtype=np.int32))
    state.buf[K.M_ROW_LEFT] = face_up


def public_from_view(state, view: dict) -> None:
    """Tokens, track, discards, the turn's counters and the history as the view shows them."""
    game, names, alphabet = state.game, state.game.seat_names, state.game.alphabet
    buf = state.buf
    state.occupancy[:] = 0
    for p, name in enumerate(names):
        mine = state.mine(p)
        mine[:] = 0
        for x in view["tokens"][name]:
            mine[x] += 1
            state.occupancy[x] += 1
    state.discard_counts[:] = [view["discard"][a] for a in alphabet]
    state.track[1:game.L + 1] = [alphabet.index(c) for c in view["track"]]
    result = view["result"] or {}
    reason = result.get("reason")
    ends: dict[str | None, int] = {"all tokens home": K.OVER_WIN,
                                   "deadlock": K.OVER_DEADLOCK, "turn cap": K.OVER_CAP}
    buf[K.M_OVER] = ends.get(reason, 0)
    if reason == "all tokens home":
        buf[K.M_WINNER] = names.index(result["winners"][0])
    resigner = result["returns"].index(-1.0) if reason in ("resignation", "time") else None
    actions = [RESIGN if t.rpartition(":")[2] in ("resign", "time")
               else state.string_to_action(t) for t in view["history"]]
    first = names.index(view["first_player"])
    seats, next_seat = movers(game, actions, first, resigner)
    state.history = [Move(seat, action) for seat, action in zip(seats, actions)]
    state.resigned = resigner
    state.lost_on_time = reason == "time"
    state.resign_named = resigner is not None and ":" in view["history"][-1]
    buf[K.M_FIRST] = first
    if view["to_move"]:
        buf[K.M_TO_MOVE] = names.index(view["to_move"])
    else:                           # over: a win and a deadlock end without passing the turn
        buf[K.M_TO_MOVE] = seats[-1] if reason in ("all tokens home", "deadlock") \
            else next_seat
    buf[K.M_DONE] = view["actions_done"]
    buf[K.M_TURNS] = view["turn"] - 1
    buf[K.M_DISCARDING] = view["discarding"]
    buf[K.M_PASSES] = trailing_passes(game, actions)
    # which step back drew a card is not in the view: every one counts (undo stays safe)
    state.drew_at = max([i + 1 for i, a in enumerate(actions)
                         if a != RESIGN and K.decode(game.cfg, a)[0] == K.BACK], default=0)
    last = (view.get("board") or {}).get("last")      # the last move's token, as shown
    state.moved = (len(actions) - 1, *last) if last else None


def movers(game, actions: list[int], first: int, resigner: int | None) -> tuple[list[int], int]:
    """The seat of each action (from the turn structure) and the seat whose turn follows.

    A turn ends with ``end``, ``pass`` or its last allowed action, unless the
    mover must then discard down to the hand limit: the discards close it. A
    resignation is the resigner's (who may resign out of turn).
    """
    cfg, apt = game.cfg, game.options["actions_per_turn"]
    seats: list[int] = []
    kinds = [-1 if a == RESIGN else int(K.decode(cfg, a)[0]) for a in actions]
    seat, done = first, 0
    for i, kind in enumerate(kinds):
        if kind == -1:
            assert resigner is not None, "a resignation among the actions has its resigner"
            seats.append(resigner)
            continue
        seats.append(seat)
        if kind in (K.PLAY, K.BACK):
            done += 1
            over = done >= apt
        else:
            over = True
        if over and not (i + 1 < len(kinds) and kinds[i + 1] == K.DISCARD):
            seat, done = (seat + 1) % game.num_seats, 0
    return seats, seat


def trailing_passes(game, actions: list[int]) -> int:
    """Passes since the last real action (hand-limit discards do not count as actions)."""
    count = 0
    for action in reversed(actions):
        if action == RESIGN:
            continue
        kind = K.decode(game.cfg, action)[0]
        if kind == K.DISCARD:
            continue
        if kind != K.PASS:
            break
        count += 1
    return count
