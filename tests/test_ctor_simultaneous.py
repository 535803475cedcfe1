"""CTOR team play with ``team_protocol=simultaneous`` (RULES.md §4.4 "Team play", T-A12).

In a regular turn of a team with two or more members, every member commits
one operation per sub-round (``put N``, ``move N>M``, a Landing as ``lift``,
``lift``, ``land``, or ``end`` to skip). When all have committed, the
operations are revealed. A Replace is team-level (RULES 4.4): any member makes
it at once, between sub-rounds (before anybody has committed in the new one),
and it uses no sub-round slot. One whose squares (Put: the target; Move:
source and destination; Landing: both sources and the target) meet an earlier
seat's *accepted* operation is lost, except that
in an unequal game a member of the larger team whose Put collided re-chooses
once (a follow-up sub-round in which only such members act, Puts or ``end``).
Accepted operations run in seat order against the team's quotas; one that has
become illegal is lost. Each member may use at most ceil(team quota / members)
of each type, capped by what the team has left. A sub-round in which every
member commits ``end`` ends the team turn. Openings, secret picks and the
turns of one-member teams are played as usual by the team's first seat.

The random games check every step against :class:`RefTeamPlay`, a reading of
those rules written over the single-agent reference :class:`RefCtor` of
tests/test_ctor.py. Every test body runs in a forked child with a time limit.
"""
from __future__ import annotations

import copy
import json
import random

import pytest

import boardlab
from isolation import isolated, progress
from test_ctor import RefCtor, ctor, quotas, squares_of

SIM = dict(team_protocol="simultaneous")
LANDING_TABLE = "2,2,1/2,2,1/3,3,1"  # a quota table that gives two-member teams a Landing


def sim(black=(), white=(), *, teams="2v2", **options):
    """A simultaneous-play CTOR set-up: a regular turn (full quotas) of team ``turn``."""
    return ctor(black=black, white=white, teams=teams, **SIM, **options)


def seat(state, name):
    return state.game.seat_names.index(name)


def moves_for(state, name):
    """The legal actions of seat ``name`` now, in notation (a Landing's target as 'land N')."""
    who = seat(state, name)
    texts = [state.action_to_string(a) for a in state.legal_actions_for(who)]
    pending = state.pending_of(who)  # after a member's two lifts, its Puts are Landing targets
    if len(pending) == 2 and all(p.startswith("lift") for p in pending):
        texts = ["land" + t[3:] if t.startswith("put") else t for t in texts]
    return texts


def kinds_for(state, name):
    return {m.split()[0] for m in moves_for(state, name)}


def commit(state, *moves):
    """Play ``seat-name:move`` texts."""
    for move in moves:
        state.play(move)


def acting(state):
    return [state.game.seat_names[s] for s in state.acting_seats()]


def to_move_colour(state):
    return state.view(None)["to_move"]


# 1. The protocol ---------------------------------------------------------------------------

@isolated()
def test_a_regular_turn_of_a_two_member_team_is_simultaneous():
    s = sim(black=[1, 2, 10], white=[50, 51])
    assert s.current_player() == boardlab.SIMULTANEOUS
    assert not s.is_terminal() and not s.is_chance()
    assert s.acting_seats() == [0, 1]
    assert s.legal_actions() == [] and s.legal_moves() == []
    assert s.legal_actions_for(0) and s.legal_actions_for(1)
    assert s.legal_actions_for(2) == [] and s.legal_actions_for(3) == []
    assert s.view(None)["acting"] == ["black-1", "black-2"]
    history = list(s.history)
    with pytest.raises(boardlab.IllegalMoveError) as info:
        s.apply(s.string_to_action("put 20"))
    assert "black-1" in str(info.value) and "black-2" in str(info.value)
    assert "black-1" in info.value.reason and "black-2" in info.value.reason
    with pytest.raises(boardlab.IllegalMoveError):
        s.play("put 20")
    for other in ("white-1", "white-2"):
        with pytest.raises(boardlab.IllegalMoveError, match=other):
            s.play(f"{other}:put 20")
        with pytest.raises(boardlab.IllegalMoveError):
            s.apply(s.string_to_action("put 20"), seat=seat(s, other))
    assert s.history == history and s.counts() == (3, 2)
    assert s.play("black-2:put 20") == 19
    assert [(m.seat, m.action) for m in s.history] == [(1, 19)]
    assert s.acting_seats() == [0] and acting(s) == ["black-1"]
    assert s.legal_actions_for(1) == []  # black-2 has committed
    assert s.board[19] == 0 and s.counts() == (3, 2)  # nothing happens before the reveal
    with pytest.raises(boardlab.IllegalMoveError, match="black-2"):
        s.play("black-2:put 21")  # one operation per sub-round
    s.apply(s.string_to_action("put 30"), seat=0)
    assert s.acting_seats() == [0, 1] and squares_of(s, 1) == {1, 2, 10, 20, 30}
    assert s.history_text() == ["black-2:put 20", "black-1:put 30"]


@isolated()
def test_simultaneous_play_is_imperfect_information():
    assert not boardlab.make("ctor", size=8, teams="2v2", **SIM).perfect_information
    assert boardlab.make("ctor", size=8, teams="2v2").perfect_information


@isolated()
def test_a_clone_in_the_middle_of_a_sub_round_is_independent():
    s = sim(black=[1, 2, 10], white=[50, 51])
    s.play("black-1:put 20")
    twin = s.clone()
    twin.play("black-2:put 21")
    assert squares_of(twin, 1) == {1, 2, 10, 20, 21} and twin.acting_seats() == [0, 1]
    assert squares_of(s, 1) == {1, 2, 10} and s.acting_seats() == [1]
    assert s.pending_of(0) == ["put 20"] and twin.pending_of(0) == []
    s.play("black-2:put 22")
    assert squares_of(s, 1) == {1, 2, 10, 20, 22} and squares_of(twin, 1) == {1, 2, 10, 20, 21}


@isolated()
def test_a_member_resigns_for_the_team():
    s = sim(black=[1, 2, 10], white=[50, 51])
    s.play("black-1:put 20")
    s.play("black-2:resign")
    assert s.is_terminal() and s.acting_seats() == []
    assert s.returns() == [-1.0, -1.0, 1.0, 1.0]
    record, loaded = boardlab.loads(boardlab.dumps(s))
    assert loaded.returns() == s.returns() and loaded.is_terminal()


@isolated()
def test_illegal_commits_raise_and_change_nothing():
    s = sim(black=[1, 2, 10], white=[50, 51])
    for move in ("black-1:put 1", "black-1:move 50>42", "black-1:replace 50",
                 "black-1:secret 3", "black-1:move 1>2"):
        history, buf = list(s.history), s.buf.copy()
        with pytest.raises(boardlab.IllegalMoveError) as info:
            s.play(move)
        assert info.value.reason
        assert s.history == history and (s.buf == buf).all() and s.acting_seats() == [0, 1]
        assert s.pending_of(0) == []


@isolated()
def test_openings_and_secret_picks_are_played_by_the_first_seat():
    game = boardlab.make("ctor", size=8, teams="2v2", secret_squares=True, secret_count=1, **SIM)
    s = game.new_initial_state()
    assert s.current_player() == 0 and s.acting_seats() == [0]
    with pytest.raises(boardlab.IllegalMoveError):
        s.play("black-2:secret 5")
    s.play("black-1:secret 5")
    assert s.current_player() == 2
    s.play("secret 6")
    assert s.current_player() == 0 and s.legal_actions()  # opening: Put 1, sequential
    s.play("put 1")
    assert s.current_player() == 2
    s.play("white-1:put 2")
    assert s.current_player() == 2 and s.legal_actions_for(3) == []
    s.play("put 3")
    assert s.current_player() == boardlab.SIMULTANEOUS and s.acting_seats() == [0, 1]
    assert quotas(s) == (2, 2, 0)


@isolated()
def test_a_one_member_team_plays_sequentially():
    s = sim(black=[1, 2, 10], white=[50, 51], teams="1v2")
    assert s.game.seat_names == ("black", "white-1", "white-2")
    assert s.current_player() == 0 and s.acting_seats() == [0]
    assert "put 20" in s.legal_moves() and s.legal_actions_for(0) == s.legal_actions()
    commit(s, "put 20", "put 21")
    assert s.current_player() == 0  # the whole quota, in sequence, then end
    s.play("end")
    assert s.current_player() == boardlab.SIMULTANEOUS and acting(s) == ["white-1", "white-2"]
    commit(s, "white-1:end", "white-2:end")
    assert s.current_player() == 0


# 2. Collisions in an equal game --------------------------------------------------------------

@isolated()
def test_two_puts_on_one_square_only_the_first_seat_puts():
    s = sim(black=[1, 2, 10], white=[50, 51])
    commit(s, "black-2:put 20", "black-1:put 20")  # commit order does not matter
    assert s.board[19] == 1 and s.counts() == (4, 2)
    assert quotas(s) == (1, 2, 0)
    assert s.acting_seats() == [0, 1]  # equal game: no re-choose, a new sub-round
    assert s.history_text() == ["black-2:put 20", "black-1:put 20"]
    assert "put" not in kinds_for(s, "black-1")  # its share (1 of 2) is used
    assert "put" in kinds_for(s, "black-2")      # a lost Put does not use the share
    commit(s, "black-1:end", "black-2:put 21")
    assert s.counts() == (5, 2) and quotas(s) == (0, 2, 0)


@pytest.mark.parametrize("first,second,black_after", [
    # the same destination: black-1's step happens, black-2's is lost
    ("move 19>20", "move 21>20", {19: 0, 20: 1, 21: 1}),
    ("move 21>20", "move 19>20", {19: 1, 20: 1, 21: 0}),
    # the same source: black-2 moves the same chip another way
    ("move 19>20", "move 19>27", {19: 0, 20: 1, 27: 0}),
    # a Put on a Move's destination, and a Move onto a Put's target
    ("move 19>20", "put 20", {19: 0, 20: 1}),
    ("put 20", "move 19>20", {19: 1, 20: 1}),
])
@isolated()
def test_move_collisions(first, second, black_after):
    s = sim(black=[18, 19, 21], white=[50, 51])
    commit(s, f"black-2:{second}", f"black-1:{first}")
    for square, value in black_after.items():
        assert s.board[square - 1] == value, (square, s.field_rows())
    expected = (1, 2, 0) if first.startswith("put") else (2, 1, 0)
    assert quotas(s) == expected  # only black-1's operation counts
    assert s.counts() == (3 + first.startswith("put"), 2)
    assert s.acting_seats() == [0, 1]


@isolated()
def test_operations_that_do_not_collide_both_happen_in_seat_order():
    s = sim(black=[18, 19, 21], white=[50, 51])
    commit(s, "black-2:put 30", "black-1:move 19>20")
    assert squares_of(s, 1) == {18, 20, 21, 30} and quotas(s) == (1, 1, 0)
    commit(s, "black-1:put 40", "black-2:move 21>22")
    assert squares_of(s, 1) == {18, 20, 22, 30, 40} and quotas(s) == (0, 0, 0)
    # moves next to each other touch different squares: 20>12 and 18>17 do not collide
    s = sim(black=[18, 20], white=[50, 51])
    commit(s, "black-1:move 20>12", "black-2:move 18>17")
    assert squares_of(s, 1) == {12, 17}


@isolated()
def test_a_replace_is_team_level_between_sub_rounds():
    """RULES 4.4: "Replace is team-level: any member may do it between sub-rounds". It is
    made at once, uses no member's slot in the sub-round, and is not offered once a
    member has committed in the open sub-round (nor while a Put is re-chosen)."""
    # T5's cascade set-up: 19 is replaceable (5 black neighbours), 20 is not yet
    s = sim(black=[10, 11, 13, 18, 21, 26, 27], white=[19, 20, 50])
    assert "replace 19" in moves_for(s, "black-1") and "replace 19" in moves_for(s, "black-2")
    assert "replace 20" not in moves_for(s, "black-2")
    s.play("black-2:replace 19")
    assert s.board[18] == 1 and s.counts() == (8, 2) and quotas(s) == (2, 2, 0)
    assert acting(s) == ["black-1", "black-2"]  # no slot used: both still choose
    assert s.view(3)["history"] == ["black-2:replace 19"]  # made at once, seen by all
    assert "replace 20" in moves_for(s, "black-1")  # the cascade goes on, by anybody
    s.play("black-1:replace 20")
    assert s.board[19] == 1 and s.counts() == (9, 1) and acting(s) == ["black-1", "black-2"]
    assert s.pending_of(0) == [] and s.pending_of(1) == []
    # once a member has committed, no Replace until the sub-round is revealed
    t = sim(black=[10, 11, 13, 18, 21, 26, 27], white=[19, 20, 50])
    t.play("black-1:put 40")
    assert "replace 19" not in moves_for(t, "black-2")
    with pytest.raises(boardlab.IllegalMoveError):
        t.play("black-2:replace 19")
    t.play("black-2:put 41")
    assert squares_of(t, 1) >= {40, 41} and t.board[18] == 2
    assert "replace 19" in moves_for(t, "black-1")  # between sub-rounds again
    commit(t, "black-1:replace 19", "black-1:end", "black-2:end")
    assert to_move_colour(t) == "white" and t.board[18] == 1
    # a turn of Replaces only is not a null turn
    u = sim(black=[10, 11, 13, 18, 21, 26, 27], white=[19, 20, 50], turn=2)
    commit(u, "white-1:end", "white-2:end", "black-1:replace 19", "black-1:end",
           "black-2:end", "white-1:end", "white-2:end")
    assert not u.is_terminal()
    commit(u, "black-1:end", "black-2:end")
    assert u.is_terminal() and u.end_reason() == "two null turns"
    # with replace_only_after_op, a Replace follows a revealed operation
    v = sim(black=[10, 11, 13, 18, 21, 26, 27], white=[19, 20, 50], replace_only_after_op=True)
    assert "replace" not in kinds_for(v, "black-1")
    commit(v, "black-1:put 40", "black-2:end")
    assert "replace 19" in moves_for(v, "black-2")


@isolated()
def test_only_accepted_operations_block_later_seats():
    """3v3: black-2 loses against black-1; black-3 touches only black-2's squares and plays."""
    s = sim(black=[19, 40], white=[50, 51], teams="3v3")
    commit(s, "black-1:put 20", "black-2:move 19>20", "black-3:move 19>27")
    assert squares_of(s, 1) == {20, 27, 40}
    assert quotas(s) == (2, 2, 0) and s.acting_seats() == [0, 1, 2]


@isolated()
def test_an_operation_made_illegal_by_an_earlier_one_is_lost():
    """2v3: Black (2 members, quota 3) has a share of 2 Puts each; the third Put is the last."""
    s = sim(black=[1, 2], white=[50, 51], teams="2v3")
    assert quotas(s) == (3, 3, 0)
    commit(s, "black-1:put 20", "black-2:put 21")
    assert quotas(s) == (1, 3, 0)
    assert "put" in kinds_for(s, "black-1") and "put" in kinds_for(s, "black-2")
    commit(s, "black-2:put 23", "black-1:put 22")
    assert squares_of(s, 1) == {1, 2, 20, 21, 22} and quotas(s) == (0, 3, 0)
    assert s.acting_seats() == [0, 1]  # Black is the smaller team: no re-choose
    assert "put" not in kinds_for(s, "black-2")


# 3. Re-choosing in an unequal game -------------------------------------------------------------

@pytest.mark.parametrize("teams", ["2v3", "1v2"])
@isolated()
def test_the_larger_team_re_chooses_a_collided_put(teams):
    s = sim(black=[1, 2, 10], white=[50, 51], teams=teams, turn=2)
    names = [n for n in s.game.seat_names if n.startswith("white")]
    first, second = names[0], names[1]
    commit(s, f"{second}:put 20", f"{first}:put 20", *[f"{n}:end" for n in names[2:]])
    assert s.board[19] == 2 and s.counts()[1] == 3
    assert s.current_player() == boardlab.SIMULTANEOUS
    assert acting(s) == [second]  # only the member whose Put was lost acts
    assert kinds_for(s, second) == {"put", "end"}  # Puts (or end) only
    assert "put 20" not in moves_for(s, second)
    assert all(s.legal_actions_for(seat(s, n)) == [] for n in s.game.seat_names if n != second)
    with pytest.raises(boardlab.IllegalMoveError):
        s.play(f"{second}:move 50>42")
    with pytest.raises(boardlab.IllegalMoveError):
        s.play(f"{first}:put 30")
    s.play(f"{second}:put 30")
    assert s.board[29] == 2 and s.counts()[1] == 4
    assert acting(s) == names  # back to a normal sub-round
    assert s.history_text()[-1] == f"{second}:put 30"


@isolated()
def test_a_re_choice_is_made_once():
    s = sim(black=[1, 2, 10], white=[50, 51], teams="2v3", turn=2)
    commit(s, "white-1:put 20", "white-2:put 20", "white-3:put 20")
    assert acting(s) == ["white-2", "white-3"]
    commit(s, "white-3:put 30", "white-2:put 30")  # they collide again: white-3's is lost
    assert s.board[29] == 2 and squares_of(s, 2) == {20, 30, 50, 51}
    assert acting(s) == ["white-1", "white-2", "white-3"]
    assert quotas(s) == (1, 3, 0)
    assert "put" in kinds_for(s, "white-3") and "put" not in kinds_for(s, "white-2")


@isolated()
def test_a_re_chooser_may_skip_without_ending_the_turn():
    s = sim(black=[1, 2, 10], white=[50, 51], teams="2v3", turn=2)
    commit(s, "white-1:end", "white-2:put 20", "white-3:put 20")
    assert acting(s) == ["white-3"]
    s.play("white-3:end")
    assert to_move_colour(s) == "white" and acting(s) == ["white-1", "white-2", "white-3"]
    assert squares_of(s, 2) == {20, 50, 51}


@pytest.mark.parametrize("teams,turn", [("2v3", 2), ("3v3", 1), ("2v2", 1), ("2v3", 1)])
@isolated()
def test_no_re_choice_for_moves_equal_games_or_the_smaller_team(teams, turn):
    s = sim(black=[19, 21, 40], white=[11, 13, 50], teams=teams, turn=turn)
    colour = "black" if turn == 1 else "white"
    names = [n for n in s.game.seat_names if n.startswith(colour)]
    rest = [f"{n}:end" for n in names[2:]]
    commit(s, f"{names[0]}:put 30", f"{names[1]}:put 30", *rest)  # a lost Put
    if teams == "2v3" and turn == 2:
        assert acting(s) == [names[1]]  # (the larger team re-chooses it)
        s.play(f"{names[1]}:end")
    assert acting(s) == names
    a = 19 if turn == 1 else 11
    commit(s, f"{names[0]}:move {a}>{a + 1}", f"{names[1]}:move {a + 2}>{a + 1}", *rest)
    assert acting(s) == names  # a lost Move is never re-chosen
    assert s.board[a] == turn and s.board[a + 1] == turn and s.board[a - 1] == 0


# 4. Shares of the quota ------------------------------------------------------------------------

@isolated()
def test_shares_in_3v3_one_of_each_per_member():
    s = sim(black=[1, 19, 40], white=[50, 51], teams="3v3")
    assert quotas(s) == (3, 3, 0)
    commit(s, "black-1:put 20", "black-2:move 19>27", "black-3:end")
    assert quotas(s) == (2, 2, 0)
    assert kinds_for(s, "black-1") == {"move", "end"}
    assert kinds_for(s, "black-2") == {"put", "end"}
    assert kinds_for(s, "black-3") == {"put", "move", "end"}
    commit(s, "black-1:move 20>21", "black-2:put 30", "black-3:put 31")
    assert quotas(s) == (0, 1, 0)
    assert kinds_for(s, "black-1") == {"end"} and kinds_for(s, "black-2") == {"end"}
    assert kinds_for(s, "black-3") == {"move", "end"}  # any team chip: 27 is black-2's
    commit(s, "black-1:end", "black-2:end", "black-3:move 27>28")
    assert quotas(s) == (0, 0, 0) and all(kinds_for(s, n) == {"end"}
                                          for n in ("black-1", "black-2", "black-3"))
    assert squares_of(s, 1) == {1, 21, 28, 30, 31, 40}


@isolated()
def test_shares_in_2v2_one_put_and_one_step_each():
    s = sim(black=[1, 19], white=[50, 51])
    commit(s, "black-1:put 20", "black-2:end")
    assert kinds_for(s, "black-1") == {"move", "end"}
    assert kinds_for(s, "black-2") == {"put", "move", "end"}
    commit(s, "black-1:move 1>2", "black-2:move 19>27")
    assert kinds_for(s, "black-1") == {"end"} and kinds_for(s, "black-2") == {"put", "end"}
    assert quotas(s) == (1, 0, 0)


@isolated()
def test_shares_of_the_smaller_team_in_2v3():
    """Quota 3 for 2 members: up to 2 each, capped by what the team has left."""
    s = sim(black=[1, 19], white=[50, 51], teams="2v3")
    commit(s, "black-1:put 20", "black-2:end")
    commit(s, "black-1:put 21", "black-2:end")
    assert quotas(s) == (1, 3, 0) and "put" not in kinds_for(s, "black-1")
    assert "put" in kinds_for(s, "black-2")
    commit(s, "black-1:end", "black-2:put 22")
    assert quotas(s) == (0, 3, 0) and "put" not in kinds_for(s, "black-2")


@isolated()
def test_shares_use_the_acting_teams_own_quota():
    """quota_by=own in 3v2: White (2 members) uses row 2 (2 Puts): one Put per member."""
    s = sim(black=[1, 2, 10], white=[50, 51], teams="3v2", quota_by="own", turn=2)
    assert quotas(s) == (2, 2, 0)
    commit(s, "white-1:put 20", "white-2:end")
    assert "put" not in kinds_for(s, "white-1"), \
        "white-1 may Put twice: its share is ceil(3/2) of Black's quota, not ceil(2/2)"
    # and Black (3 members, row 3): one Put each
    s = sim(black=[1, 2, 10], white=[50, 51], teams="3v2", quota_by="own", turn=1)
    assert quotas(s) == (3, 3, 0)
    commit(s, "black-1:put 20", "black-2:end", "black-3:end")
    assert "put" not in kinds_for(s, "black-1")


# 5. Hidden choices ---------------------------------------------------------------------------

def views(state, seats):
    return {s: json.dumps(state.view(s), sort_keys=True) for s in seats}


@isolated()
def test_a_pending_commit_is_hidden_from_everybody_else():
    base = sim(black=[1, 2, 10], white=[50, 51])
    commit(base, "black-1:end", "black-2:put 30")  # one revealed sub-round first
    a, b = base.clone(), base.clone()
    a.play("black-1:put 20")
    b.play("black-1:put 21")
    others = [1, 2, 3, None]
    assert views(a, others) == views(b, others)
    assert a.view(0)["my_pending"] == ["put 20"] and b.view(0)["my_pending"] == ["put 21"]
    assert a.view(1)["my_pending"] == [] and a.view(None)["my_pending"] == []
    assert a.pending_of(0) == ["put 20"] and a.pending_of(1) == []
    for other in others:
        assert a.view(other)["history"] == ["black-1:end", "black-2:put 30", "black-1:?"]
        assert a.view(other)["acting"] == ["black-2"]
    assert a.view(0)["history"][-1] == "black-1:put 20"
    # a skip is hidden too
    c = base.clone()
    c.play("black-1:end")
    assert views(c, others) == views(a, others)
    # the reveal
    for state, square in ((a, 20), (b, 21)):
        state.play("black-2:move 10>18")
        for viewer in [0] + others:
            assert state.view(viewer)["history"][-2:] == [f"black-1:put {square}",
                                                          "black-2:move 10>18"]
            assert state.view(viewer)["my_pending"] == []


@isolated()
def test_a_pending_landing_is_hidden_from_the_team_mate():
    base = sim(black=[1, 2, 10], white=[50, 51], quota_table=LANDING_TABLE)
    a, b = base.clone(), base.clone()
    commit(a, "black-1:lift 1", "black-1:lift 2")
    commit(b, "black-1:lift 2", "black-1:lift 10")
    others = [1, 2, 3, None]
    assert views(a, others) == views(b, others)
    assert a.view(1)["history"] == ["black-1:?", "black-1:?"]
    assert a.view(0)["my_pending"] == ["lift 1", "lift 2"]
    # black-2's choices do not depend on black-1's lifts
    assert a.legal_actions_for(1) == b.legal_actions_for(1) == base.legal_actions_for(1)


@isolated()
def test_a_re_choice_is_hidden_too():
    base = sim(black=[1, 2, 10], white=[50, 51], teams="2v3", turn=2)
    commit(base, "white-1:put 20", "white-2:put 20", "white-3:put 20")
    a, b = base.clone(), base.clone()
    a.play("white-2:put 30")
    b.play("white-2:end")
    others = [0, 1, 2, 4, None]
    assert views(a, others) == views(b, others)
    assert a.view(4)["history"][-1] == "white-2:?" and acting(a) == ["white-3"]
    for state in (a, b):
        state.play("white-3:put 31")
    assert a.view(4)["history"][-2:] == ["white-2:put 30", "white-3:put 31"]
    assert b.view(0)["history"][-2:] == ["white-2:end", "white-3:put 31"]


# 6. A Landing as three actions -------------------------------------------------------------------

def landing_state():
    return sim(black=[1, 2, 10], white=[50, 51], quota_table=LANDING_TABLE)


@isolated()
def test_a_landing_while_the_team_mate_puts():
    s = landing_state()
    assert quotas(s) == (2, 2, 1)
    assert "lift" in kinds_for(s, "black-1")
    s.play("black-1:lift 1")
    assert acting(s) == ["black-1", "black-2"]  # the Landing is not complete
    assert set(moves_for(s, "black-1")) == {"lift 2", "lift 10"}  # only the second lift
    assert s.board[0] == 1 and quotas(s) == (2, 2, 1)  # nothing happens yet
    assert "lift" in kinds_for(s, "black-2")  # black-2 does not see black-1's Landing
    s.play("black-2:put 30")
    assert acting(s) == ["black-1"] and s.board[29] == 0
    s.play("black-1:lift 2")
    landing = moves_for(s, "black-1")
    assert {m.split()[0] for m in landing} == {"land"}  # only the target
    assert {"land 1", "land 2", "land 40"} <= set(landing) and "land 10" not in landing
    assert all(a < s.game.P for a in s.legal_actions_for(0))
    assert s.pending_of(0) == ["lift 1", "lift 2"]
    s.play("black-1:land 40")
    assert squares_of(s, 1) == {10, 30, 40} and s.counts() == (3, 2)
    assert quotas(s) == (1, 2, 0)
    assert acting(s) == ["black-1", "black-2"]
    assert "lift" not in kinds_for(s, "black-1") | kinds_for(s, "black-2")
    loaded = boardlab.replay_moves(s.game.spec, s.history_text())
    assert loaded.summary() == s.summary()
    record, again = boardlab.loads(boardlab.dumps(s))
    assert again.summary() == s.summary()


@isolated()
def test_the_history_shows_a_landings_target_as_land():
    s = landing_state()
    commit(s, "black-1:lift 1", "black-2:put 30", "black-1:lift 2", "black-1:land 40")
    assert s.view(0)["history"] == s.history_text()
    assert s.history_text() == ["black-1:lift 1", "black-2:put 30", "black-1:lift 2",
                                "black-1:land 40"], "the Landing's target is written 'put 40'"


@isolated()
def test_landing_collisions():
    # black-2 Puts on black-1's Landing target: lost
    s = landing_state()
    commit(s, "black-2:put 40", "black-1:lift 1", "black-1:lift 2", "black-1:land 40")
    assert squares_of(s, 1) == {10, 40} and quotas(s) == (2, 2, 0)
    # black-2 lands, lifting the chip black-1 moves: black-2's Landing is lost
    s = landing_state()
    commit(s, "black-1:move 1>9", "black-2:lift 1", "black-2:lift 2", "black-2:land 40")
    assert squares_of(s, 1) == {2, 9, 10} and quotas(s) == (2, 1, 1)
    # a Landing onto a square vacated by its own lift, next to a Put: both happen
    s = landing_state()
    commit(s, "black-2:put 30", "black-1:lift 1", "black-1:lift 2", "black-1:land 2")
    assert squares_of(s, 1) == {2, 10, 30} and quotas(s) == (1, 2, 0)
    # both members land: the team has one Landing (share 1 each, capped by the team's 1)
    s = sim(black=[1, 2, 10, 11], white=[50, 51], quota_table=LANDING_TABLE)
    commit(s, "black-1:lift 1", "black-1:lift 2", "black-1:land 40",
           "black-2:lift 10", "black-2:lift 11", "black-2:land 41")
    assert squares_of(s, 1) == {10, 11, 40} and quotas(s) == (2, 2, 0)


# 7. The end of a turn, whole games ---------------------------------------------------------------

@isolated()
def test_everybody_ending_ends_the_team_turn():
    s = sim(black=[1, 2, 10], white=[50, 51])
    commit(s, "black-1:put 20", "black-2:end")
    assert to_move_colour(s) == "black"  # one skip is not the end
    commit(s, "black-2:end", "black-1:end")
    assert to_move_colour(s) == "white" and acting(s) == ["white-1", "white-2"]
    assert quotas(s) == (2, 2, 0) and s.view(None)["turn"] == 2
    commit(s, "white-1:end", "white-2:end")  # a null turn
    commit(s, "black-1:end", "black-2:end")  # another: the game ends
    assert s.is_terminal() and s.end_reason() == "two null turns"
    assert s.acting_seats() == [] and s.legal_actions_for(0) == []
    assert s.returns() == [1.0, 1.0, -1.0, -1.0]  # 4 against 2


@isolated()
def test_the_field_filled_in_a_sub_round():
    rows = ["BBBBBBBB"] * 3 + ["WWWWWWWW"] * 4 + ["WWWWW..B"]
    s = sim(position="/".join(rows))
    commit(s, "black-1:put 62", "black-2:put 63")
    assert s.is_terminal() and s.end_reason() == "field full"
    assert s.counts() == (27, 37)
    record, loaded = boardlab.loads(boardlab.dumps(s))
    assert loaded.summary() == s.summary()


def clone_ref(ref):
    """A copy of a RefCtor in a regular turn (faster than deepcopy)."""
    other = copy.copy(ref)
    other.board, other.pending, other.left = list(ref.board), set(ref.pending), dict(ref.left)
    other.secret = [dict(s) for s in ref.secret]
    return other


class RefTeamPlay:
    """The sub-rounds of RULES 4.4 team play (as described at the top), over RefCtor."""

    def __init__(self, game):
        self.game = game
        self.ref = RefCtor(game)
        self.sizes = tuple(int(v) for v in game.options["teams"].split("v"))
        self.key = None
        self.stats = {"lost": 0, "re-chosen": 0, "illegal": 0, "performed": 0}

    def members(self, team):
        first = 0 if team == 0 else self.sizes[0]
        return list(range(first, first + self.sizes[team]))

    def simultaneous(self):
        r = self.ref
        return not r.over and r.phase == "regular" and self.sizes[r.team] >= 2

    def _round(self):
        key = (self.ref.team, self.ref.turns)
        if key != self.key:
            self.key = key
            members = self.members(self.ref.team)
            self.pending = {s: [] for s in members}
            self.used = {s: {"put": 0, "move": 0, "land": 0} for s in members}
            self.rechoose, self.acting = set(), members

    @staticmethod
    def complete(ops):
        lifts = sum(op.startswith("lift") for op in ops)
        return bool(ops) and (lifts == 0 or len(ops) == 3)

    def waiting(self):
        if not self.simultaneous():
            return []
        self._round()
        return [s for s in self.acting if not self.complete(self.pending[s])]

    def legal(self, seat):
        """The legal moves of a seat that acts (a Landing's target as 'land N')."""
        if not self.simultaneous():
            return self.ref.legal()
        self._round()
        if self.complete(self.pending[seat]):
            return set()
        team = self.ref.team
        work = clone_ref(self.ref)
        size = len(self.members(team))
        for i, kind in enumerate(("put", "move", "land")):
            share = -(-self.ref.quotas[team][i] // size)
            work.left[kind] = max(0, min(share - self.used[seat][kind], self.ref.left[kind]))
        for op in self.pending[seat]:
            work.apply(op)
        out = work.legal()
        between = not self.rechoose and not any(self.pending.values())
        if not between:  # a Replace is team-level, made between sub-rounds
            out = {m for m in out if not m.startswith("replace")}
        if seat in self.rechoose:
            out = {m for m in out if m.startswith("put") or m == "end"}
        return out

    def squares(self, ops):
        result = set()
        for op in ops:
            if op.startswith("move"):
                result |= {int(v) for v in op.split()[1].split(">")}
            elif op != "end":
                result.add(int(op.split()[1]))
        return result

    def nearby(self, moves):
        """Those of ``moves`` that touch the squares team mates have committed to."""
        if not self.simultaneous():
            return []
        self._round()
        busy = self.squares([op for ops in self.pending.values() for op in ops])
        return sorted(m for m in moves if self.squares([m]) & busy)

    def apply(self, seat, move):
        if not self.simultaneous():
            self.ref.apply(move)
            return
        self._round()
        if move.startswith("replace"):  # at once, no slot used
            self.ref.apply(move)
            return
        self.pending[seat].append(move)
        if not self.waiting():
            self.resolve()

    def resolve(self):
        team = self.ref.team
        taken, lost, skipped = set(), [], 0
        larger = self.sizes[team] > self.sizes[1 - team]
        for s in self.acting:
            ops = self.pending[s]
            if ops == ["end"]:
                skipped += 1
                continue
            kind = {"put": "put", "move": "move", "lift": "land"}.get(ops[0].split()[0])
            if self.squares(ops) & taken:
                self.stats["lost"] += 1
                if kind == "put" and larger and s not in self.rechoose:
                    lost.append(s)
                    self.stats["re-chosen"] += 1
                continue
            taken |= self.squares(ops)
            trial = clone_ref(self.ref)
            for op in ops:
                if op not in trial.legal():
                    self.stats["illegal"] += 1
                    break
                trial.apply(op)
            else:
                self.ref = trial
                self.stats["performed"] += 1
                if kind:
                    self.used[s][kind] += 1
            if self.ref.over or (self.ref.team, self.ref.turns) != self.key:
                return
        was_rechoice = bool(self.rechoose)
        self.pending = {s: [] for s in self.pending}
        self.rechoose, self.acting = set(lost), lost or self.members(team)
        if not lost and not was_rechoice and skipped == len(self.members(team)):
            self.ref.apply("end")


def check_hidden_commit(state, rnd):
    """Swap one member's complete pending (one-action) commit for another choice in a twin
    built from the same history: nobody else's view may change."""
    game = state.game
    shown = state.view(None)["history"]
    hidden = len(shown) - max([i + 1 for i, h in enumerate(shown) if not h.endswith(":?")],
                              default=0)
    done = [s for s in range(game.num_seats) if len(state.pending_of(s)) == 1]
    if not hidden or not done:
        return False
    who = rnd.choice(done)
    start = len(state.history) - hidden
    twin = game.new_initial_state()
    for entry in state.history[:start]:
        if twin.current_player() == boardlab.SIMULTANEOUS:
            twin.apply(entry.action, seat=entry.seat)
        else:
            twin.apply(entry.action)
    original = state.string_to_action(state.pending_of(who)[0])
    options = [a for a in twin.legal_actions_for(who) if a != original and
               not 5 * game.P <= a < 6 * game.P]
    if not options:
        return False
    other = rnd.choice(options)
    for s, action in state.history[start:]:
        twin.apply(other if s == who else action, seat=s)
    viewers = [s for s in range(game.num_seats) if s != who] + [None]
    for viewer in viewers:
        assert json.dumps(state.view(viewer), sort_keys=True) == \
            json.dumps(twin.view(viewer), sort_keys=True), \
            f"{game.seat_names[viewer] if viewer is not None else 'a spectator'} sees " \
            f"{game.seat_names[who]}'s pending {state.action_to_string(original)!r}"
    assert twin.pending_of(who) != state.pending_of(who)
    return True


def play_simultaneous(options, rnd, lazy=4, hidden_checks=0):
    """One random game in simultaneous mode, every step checked against RefTeamPlay."""
    game = boardlab.make("ctor", **options, **SIM)
    s = game.new_initial_state()
    ref = RefTeamPlay(game)
    names = game.seat_names
    moves, checked = [], 0
    while True:
        r = ref.ref
        assert s.counts() == (int((s.board == 1).sum()), int((s.board == 2).sum()))
        assert s.board.tolist() == r.board, f"field differs from the reference after {moves[-6:]}"
        assert s.is_terminal() == (r.over is not None)
        if s.is_terminal():
            break
        if len(moves) % 16 == 0:  # (a view replays the game: not at every step)
            view = s.view(None)
            assert view["to_move"] == game.colours[r.team]
            if r.phase != "secret":
                assert quotas(s) == (r.left["put"], r.left["move"], r.left["land"])
        if ref.simultaneous():
            assert s.current_player() == boardlab.SIMULTANEOUS and s.legal_actions() == []
            waiting = ref.waiting()
            assert s.acting_seats() == waiting
            for member in ref.members(r.team):
                expected = ref.legal(member) if member in waiting else set()
                got = set(moves_for(s, game.seat_names[member]))
                assert got == expected, (
                    f"{names[member]}: engine-only {sorted(got - expected)[:6]}, "
                    f"reference-only {sorted(expected - got)[:6]}; moves {moves[-8:]}")
            who = rnd.choice(waiting)
            if checked < hidden_checks and rnd.randrange(12) == 0:
                checked += check_hidden_commit(s, rnd)
        else:
            who = game.captain(r.team)
            assert s.current_player() == who and s.acting_seats() == [who]
            assert set(s.legal_moves()) == r.legal()
        legal = sorted(ref.legal(who))
        near = ref.nearby(legal)
        if "end" in legal and rnd.randrange(lazy) == 0:
            move = "end"
        elif near and rnd.randrange(3) == 0:  # aim at a team mate's squares: collisions
            move = rnd.choice(near)
        else:
            move = rnd.choice(legal)
        text = f"{names[who]}:{move}"
        moves.append(text)
        progress(f"ctor {options} simultaneous, moves: {moves}")
        s.play(text)
        ref.apply(who, move)
        assert len(moves) <= game.max_game_length
    assert s.end_reason() == r.over
    assert s.acting_seats() == [] and s.legal_actions() == []
    a, b = s.counts()
    sign = (a > b) - (a < b)
    assert s.returns() == [float(sign if game.team_of(x) == 0 else -sign)
                           for x in range(game.num_seats)]
    summary = s.summary()
    record, loaded = boardlab.loads(boardlab.dumps(s))
    assert loaded.summary() == summary
    assert boardlab.replay_moves(game.spec, s.history_text()).summary() == summary
    assert boardlab.replay_moves(game.spec, record["moves"]).summary() == summary
    return s, moves, checked, ref.stats


@pytest.mark.parametrize("secret", [False, True])
@pytest.mark.parametrize("size", [8, 10])
@pytest.mark.parametrize("teams", ["2v2", "3v3", "2v3"])
@isolated(timeout=120)
def test_random_simultaneous_games(teams, size, secret):
    rnd = random.Random(f"sim{teams}{size}{secret}")
    for lazy in (4, 12):
        s, moves, checked, stats = play_simultaneous(
            dict(size=size, teams=teams, secret_squares=secret), rnd, lazy=lazy, hidden_checks=3)
        assert checked > 0 and stats["lost"] > 0 and stats["performed"] > 0
        if teams == "2v3":
            assert stats["re-chosen"] > 0


@pytest.mark.parametrize("options", [
    dict(size=8, teams="1v2"),
    dict(size=8, teams="3v2", first_team=2),
    dict(size=8, teams="2v2", quota_table=LANDING_TABLE),
    dict(size=8, teams="3v3", quota_table=LANDING_TABLE, end_check="end_of_turn"),
    dict(size=8, teams="2v3", auto_replace_closure=True, replace_only_after_op=True),
    dict(size=8, teams="2v2", end_check="immediate", max_turns=30),
])
@isolated(timeout=120)
def test_random_simultaneous_games_with_other_options(options):
    rnd = random.Random(json.dumps(options, sort_keys=True))
    for lazy in (3, 9):
        play_simultaneous(options, rnd, lazy=lazy)


# 8. Facts, announcements, undo, the kernel's random play ----------------------------------------

@isolated()
def test_simultaneous_is_declared_where_a_team_has_several_members():
    for teams, expected in (("2v2", True), ("1v2", True), ("3v1", True), ("1v1", False)):
        game = boardlab.make("ctor", size=8, teams=teams, **SIM)
        assert game.simultaneous == expected and game.perfect_information == (not expected)
        assert game.facts()["simultaneous"] == expected
    assert not boardlab.make("ctor", size=8, teams="2v2").simultaneous
    assert "white-2:put 36" in boardlab.make("ctor", size=8, teams="2v2", **SIM).notation_guide


@isolated()
def test_collisions_are_announced():
    s = sim(black=[1, 2, 10, 19, 21], white=[50, 51])
    s.play("black-2:put 20")
    assert s.announcements(0) == []  # nothing is revealed yet
    s.play("black-1:put 20")
    assert s.announcements(0) == s.announcements(1) == ["black-2's put 20 lost to black-1's"]
    assert s.announcements(2) == []
    commit(s, "black-1:move 19>27", "black-2:move 21>22")  # no collision: nothing to say
    assert s.announcements(2) == []
    # a lost Put that the larger team re-chooses
    t = sim(black=[1, 2, 10], white=[50, 51], teams="2v3", turn=2)
    commit(t, "white-1:put 20", "white-2:put 20", "white-3:put 21")
    assert t.announcements(0) == ["white-2's put 20 lost to white-1's; white-2 chooses "
                                  "another square"]
    # an operation that is no longer legal when its turn comes
    u = sim(black=[1, 2], white=[50, 51], teams="2v3")
    commit(u, "black-1:put 20", "black-2:put 21", "black-2:put 23", "black-1:put 22")
    assert u.announcements(2) == ["black-2's put 23 was lost: no longer legal after the "
                                  "operations before it"]
    # a Landing
    v = sim(black=[1, 2, 10], white=[50, 51], quota_table=LANDING_TABLE)
    commit(v, "black-1:move 1>9", "black-2:lift 1", "black-2:lift 2", "black-2:land 40")
    assert v.announcements(0) == ["black-2's lift 1, lift 2, land 40 lost to black-1's"]


@isolated()
def test_undo_never_goes_back_before_a_reveal():
    s = sim(black=[10, 11, 13, 18, 21, 26, 27], white=[19, 20, 50])
    assert s.undo_floor() == 0
    s.play("black-1:put 40")
    assert s.undo_floor() == 0  # a hidden commit may be taken back
    s.play("black-2:put 41")  # the reveal
    assert s.undo_floor() == 2
    s.play("black-1:replace 19")  # made at once, in the open: nothing hidden is shown
    s.play("black-2:end")
    assert s.undo_floor() == 2
    s.play("black-1:end")  # the reveal: both skip, the turn ends
    assert s.undo_floor() == 5 and to_move_colour(s) == "white"
    one = boardlab.make("ctor", size=8, **SIM).new_initial_state()  # nothing is hidden
    for move in ("put 1", "put 2", "put 3", "put 4", "end"):
        one.play(move)
    assert one.undo_floor() == 0


@isolated()
def test_a_pending_put_that_fills_the_field_flips_nothing_in_its_own_view():
    """The member's own view plays its pending Put; if that fills the field (and so would
    end the turn), the other team's secret squares must not flip in that view."""
    black = [q for q in range(1, 64) if ((q - 1) // 8 + (q - 1) % 8) % 2 == 0]
    white = [q for q in range(1, 64) if q not in black]
    views = []
    for secrets in ("1,3,5,7,9/64,2,4,6,8", "1,3,5,7,9/10,2,4,6,8"):
        s = sim(black=black, white=white, secret_squares=True, secrets=secrets)
        s.play("black-1:put 64")
        views.append(json.dumps(s.view(0), sort_keys=True))
        assert s.view(0)["board"]["cells"][63] == "B"
        assert s.heuristic(0) == pytest.approx((32 - 32) / 64)
    assert views[0] == views[1]
    s.play("black-2:put 64")  # the reveal: black-1's Put fills the field, the turn ends
    assert s.is_terminal() and s.board[63] == 1  # (64 is not white's in this twin)
    t = sim(black=black, white=white, secret_squares=True, secrets="1,3,5,7,9/64,2,4,6,8")
    commit(t, "black-1:put 64", "black-2:put 64")
    assert t.is_terminal() and t.board[63] == 2 and t.scores() == {"black": 31, "white": 33}
    assert t.announcements(0) == ["black-2's put 64 lost to black-1's",
                                  "white's secret square 64: black's chip turns white"]


@isolated(timeout=120)
def test_kernel_playouts_play_the_simultaneous_sub_rounds():
    """Random play in the kernel (rollouts, benchmarks) is the real simultaneous game: its
    game lengths match random play through the Python protocol, which commits as well."""
    import statistics
    from boardlab.games import ctor_kernel as K
    for teams in ("2v2", "2v3"):
        game = boardlab.make("ctor", size=8, teams=teams, **SIM)
        cfg, nbr, diag = game.cfg, game.topology.nbr, game.topology.diag
        python = [len(game.new_initial_state().played_out(i).history) for i in range(150)]
        kernel = []
        for i in range(150):
            state = game.new_initial_state()
            kernel.append(K.playout(state.buf, cfg, nbr, diag, 1000 + i))
            assert state.buf[K.M_PHASE] == K.PH_OVER and state.buf[K.M_ROUNDS] > 0
        assert abs(statistics.mean(python) - statistics.mean(kernel)) < 5, (python, kernel)
        assert game.bench_playouts(3, seed=1) > 0
    # a rollout starts from the pending choices of the state
    s = sim(black=[1, 2, 10], white=[50, 51])
    s.play("black-1:put 20")
    returns = s.rollout(seed=3)
    assert len(returns) == 4 and returns[0] == returns[1] == -returns[2]
    assert s.pending_of(0) == ["put 20"]  # the state itself is unchanged
