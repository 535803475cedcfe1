"""Every boardlab game as an OpenSpiel Python game (``pip install boardlab[openspiel]``).

Importing this module registers each game with ``pyspiel`` as ``boardlab_<name>``,
every declared option a parameter::

    import pyspiel
    import boardlab.interop.openspiel   # noqa: F401  (registers the games)
    game = pyspiel.load_game("boardlab_carteso", {"size": 9})

Facts come from the game's declared facts, per configuration (so
``boardlab_ctor`` with ``team_protocol=simultaneous`` has simultaneous dynamics
and imperfect information, the 1v1 default has neither):

- dynamics: ``SIMULTANEOUS`` when the game declares simultaneous rounds (the nodes
  where one seat acts stay ordinary player nodes), else ``SEQUENTIAL``. At a
  simultaneous node each acting seat commits one action and a seat that does not act
  has no legal action; the joint action commits in seat order, and an action that an
  earlier commit of the same node made illegal is dropped (that seat acts again).
- chance: a game whose chance is **seeded** (Cartagena's shuffle: the whole deal
  follows from the state's seed) gets **explicit chance**: one chance node at the
  start draws the deal uniformly among ``deals`` seeds (a parameter, 2**16 by
  default). We chose that over sampled stochastic because it keeps a state exactly
  its action history: OpenSpiel's own serialization, ``clone`` and replays work
  unchanged, search bots see a real chance node instead of a state that already
  knows the deck order, and the deal stays out of every player's information state
  (it is hidden in every view). The price is a game over ``deals`` possible deals
  rather than every seed, which is immaterial for ``deals`` in the thousands.
  Games with CHANCE nodes of their own map one to one; games without chance are
  deterministic.
- information: perfect or imperfect as declared; utility: zero-sum with exactly
  two sides of equal size and symmetric bounds, else general-sum; terminal rewards.

Observations and information states are built only from ``state.view(player)``:
the information-state string is the whole view (its history as that seat may see
it, so it has perfect recall), the observation string is the view without the
history, and the observation tensor is :class:`~boardlab.nn.encoding.ViewEncoder`'s
vector. No information-state tensor is offered: a perfect-recall tensor would have
to encode histories tens of thousands of moves long. ``resample_from_infostate``
samples through the game's own sampler (``game.determinize``), for OpenSpiel's
Python ISMCTS.
"""
from __future__ import annotations

import functools

import numpy as np
import pyspiel

from ..core.errors import OptionError
from ..core.game import CHANCE, SIMULTANEOUS, TERMINAL, Game
from ..core.registry import game_class, games
from ..nn.encoding import ViewEncoder, view_key

PREFIX = "boardlab_"
#: how many deals the start chance node of a seeded game chooses from (default)
DEALS = 2 ** 16
_PY_TYPES = (bool, int, float, str)


def short_name(game_cls: type[Game]) -> str:
    """The OpenSpiel name of a boardlab game class (``boardlab_carteso``)."""
    return PREFIX + game_cls.name


def to_parameter(value):
    """An option value as an OpenSpiel parameter: text with ``;`` for ``,`` (OpenSpiel
    game strings split parameters at commas)."""
    return value.replace(",", ";") if isinstance(value, str) else value


def from_parameter(value):
    """The option value of an OpenSpiel parameter (``;`` back to ``,``)."""
    return value.replace(";", ",") if isinstance(value, str) else value


def _unset(option) -> object:
    """The parameter default of an option whose default depends on other options (a
    profile's token count, a size's komi): a value of the option's type that the
    option itself rejects (``-1``, ``0.25``; ``""`` for text), meaning "the game's
    own default"."""
    for candidate in ("",) if option.type is str else (-1, 0.25):
        try:
            option.convert(option.type(candidate))
        except (OptionError, ValueError, TypeError):
            return option.type(candidate)
    raise ValueError(f"option {option.name!r} has a computed default and no unset value")


def parameter_specification(game_cls: type[Game]) -> dict:
    """One parameter per declared option, of its type, with its default (see
    :func:`_unset` for computed defaults). In text values ``;`` stands for ``,``.
    Seeded games add ``deals``."""
    return dict(_parameters(game_cls))


@functools.cache
def _parameters(game_cls: type[Game]) -> dict:
    spec = {}
    for option in game_cls.declared_options:
        plain = not callable(option.default) and option.type in _PY_TYPES
        spec[option.name] = to_parameter(option.type(option.default)) if plain else \
            _unset(option)
    if game_cls().chance == "seeded":
        spec["deals"] = DEALS
    return spec


def boardlab_game(game_cls: type[Game], params: dict) -> tuple[Game, int]:
    """The boardlab game that OpenSpiel ``params`` configure, and the number of deals."""
    defaults = parameter_specification(game_cls)
    unknown = set(params) - set(defaults)
    if unknown:
        raise pyspiel.SpielError(f"{short_name(game_cls)} has no parameter "
                                 f"{sorted(unknown)[0]!r} (it has {', '.join(defaults)})")
    options = {name: from_parameter(value) for name, value in params.items()
               if name != "deals" and value != defaults[name]}
    deals = int(params.get("deals", defaults.get("deals", 0)))
    if "deals" in defaults and deals < 1:
        raise pyspiel.SpielError(f"{short_name(game_cls)}: deals must be at least 1, not {deals}")
    return game_cls(**options), deals


def _two_even_sides(game: Game) -> bool:
    low, high = game.utility_bounds
    return len(game.teams) == 2 and len({len(t) for t in game.teams}) == 1 and low == -high


def game_type(game: Game, params: dict) -> pyspiel.GameType:
    """The OpenSpiel facts of one configured game (see the module doc)."""
    kind = pyspiel.GameType
    return kind(
        short_name=PREFIX + game.name, long_name=f"boardlab {game.title or game.name}",
        dynamics=kind.Dynamics.SIMULTANEOUS if game.simultaneous else kind.Dynamics.SEQUENTIAL,
        chance_mode=kind.ChanceMode.DETERMINISTIC if game.chance == "none"
        else kind.ChanceMode.EXPLICIT_STOCHASTIC,
        information=kind.Information.PERFECT_INFORMATION if game.perfect_information
        else kind.Information.IMPERFECT_INFORMATION,
        utility=kind.Utility.ZERO_SUM if _two_even_sides(game) else kind.Utility.GENERAL_SUM,
        reward_model=kind.RewardModel.TERMINAL,
        max_num_players=game.num_seats, min_num_players=game.num_seats,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=params)


def game_info(game: Game, deals: int) -> pyspiel.GameInfo:
    low, high = game.utility_bounds
    chance_outcomes = deals if game.chance == "seeded" else \
        game.num_actions if game.chance == "explicit" else 0
    return pyspiel.GameInfo(
        num_distinct_actions=game.num_actions, max_chance_outcomes=chance_outcomes,
        num_players=game.num_seats, min_utility=float(low), max_utility=float(high),
        utility_sum=0.0 if _two_even_sides(game) else None,
        max_game_length=game.max_game_length + (game.chance == "seeded"))


@functools.lru_cache(maxsize=64)
def encoder_of(game: Game) -> ViewEncoder:
    """One encoder per configuration (OpenSpiel makes games again when it deserializes)."""
    return ViewEncoder(game)


class BoardlabOpenSpielGame(pyspiel.Game):
    """One configured boardlab game as an OpenSpiel game."""

    game_cls: type[Game]          # set on the per-game subclass made by register()

    def __init__(self, params=None):
        params = dict(params or {})
        self.boardlab, self.deals = boardlab_game(self.game_cls, params)
        spec = parameter_specification(self.game_cls)
        super().__init__(game_type(self.boardlab, spec), game_info(self.boardlab, self.deals),
                         {**spec, **params})
        self.encoder = encoder_of(self.boardlab)

    def new_initial_state(self):
        return BoardlabOpenSpielState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return ViewObserver(self.encoder, perfect_recall)


class _Shared:
    """Holds what clones share (the immutable boardlab game): copying keeps it."""

    def __init__(self, value):
        self.value = value

    def __deepcopy__(self, memo):
        return self


class _Native:
    """Holds the boardlab state: copying clones it the game's own way, pickling
    (OpenSpiel's serialization of Python states) keeps its game, seed and history."""

    def __init__(self, state):
        self.state = state
        self.views: dict = {}     # seat -> view of the position after `views_at` entries
        self.views_at = -1

    def view(self, seat: int) -> dict:
        """``state.view(seat)``, kept until the next move (OpenSpiel asks twice a node)."""
        if self.views_at != len(self.state.history):
            self.views, self.views_at = {}, len(self.state.history)
        if seat not in self.views:
            self.views[seat] = self.state.view(seat)
        return self.views[seat]

    def __deepcopy__(self, memo):
        return _Native(None if self.state is None else self.state.clone())

    def __reduce__(self):
        if self.state is None:
            return _Native, (None,)
        return _replayed, (self.state.game, self.state.seed, list(self.state.history))


def _replayed(game: Game, seed, history) -> _Native:
    state = game.new_initial_state(seed=seed)
    for entry in history:
        state.replay_entry(entry)
    return _Native(state)


class BoardlabOpenSpielState(pyspiel.State):
    """A boardlab State behind OpenSpiel's State API. ``native`` is the boardlab
    state (None before the deal of a seeded game)."""

    def __init__(self, game: BoardlabOpenSpielGame):
        super().__init__(game)
        self._game = _Shared(game.boardlab)
        self.deals = game.deals
        self._native = _Native(None if self.bgame.chance == "seeded" else
                               self.bgame.new_initial_state(seed=None))

    @property
    def bgame(self) -> Game:
        return self._game.value

    @property
    def native(self):
        return self._native.state

    @native.setter
    def native(self, state):
        self._native.state = state

    def current_player(self):
        if self.native is None:
            return pyspiel.PlayerId.CHANCE
        player = self.native.current_player()
        if player == TERMINAL:
            return pyspiel.PlayerId.TERMINAL
        if player == CHANCE:
            return pyspiel.PlayerId.CHANCE
        if player == SIMULTANEOUS:
            return pyspiel.PlayerId.SIMULTANEOUS
        return player

    def _legal_actions(self, player):
        return sorted(self.native.legal_actions_for(player))

    def chance_outcomes(self):
        if self.native is None:
            return [(deal, 1.0 / self.deals) for deal in range(self.deals)]
        return list(self.native.chance_outcomes())

    def _apply_action(self, action):
        if self.native is None:
            self.native = self.bgame.new_initial_state(seed=int(action))
        elif self.native.is_chance():
            self.native.apply(int(action))
        else:
            self.native.apply(int(action), seat=self.native.current_player())

    def _apply_actions(self, actions):
        """Commit each acting seat's action, in seat order. A commit can change what a
        later seat of the same joint action may do (the sub-round's own rules); an
        action no longer legal then is dropped: that seat still acts at the next node."""
        for seat in self.native.acting_seats():
            if int(actions[seat]) in self.native.legal_actions_for(seat):
                self.native.apply(int(actions[seat]), seat=seat)

    def _action_to_string(self, player, action):
        if self.native is None:
            return f"deal {action}"
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance {self.native.action_to_string(action)}"
        return self.native.action_to_string(action)

    def is_terminal(self):
        return self.native is not None and self.native.is_terminal()

    def returns(self):
        if self.native is None:
            return [0.0] * self.bgame.num_seats
        return [float(r) for r in self.native.returns()]

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state ``player_id`` cannot tell from this one, sampled from its view with
        the game's own sampler (games that declare ``can_sample``); for ISMCTS."""
        if self.native is None or not (self.bgame.can_sample or self.bgame.perfect_information):
            raise pyspiel.SpielError(f"{self.bgame.spec}: cannot sample a state from a view")
        seed = int(probability_sampler() * 2 ** 31)
        state = BoardlabOpenSpielState(self.get_game())
        state.native = self.bgame.determinize(self.view(player_id), seed)
        return state

    def view(self, player: int) -> dict | None:
        """``view(player)`` of the boardlab state (None before the deal)."""
        return None if self.native is None else self._native.view(player)

    def __str__(self):
        return "(the deal is still to be drawn)" if self.native is None else \
            self.native.render(seat=None)


class ViewObserver:
    """OpenSpiel's observer interface over views: ``tensor``/``dict`` and strings."""

    def __init__(self, encoder: ViewEncoder, perfect_recall: bool):
        self.encoder = encoder
        self.perfect_recall = perfect_recall
        size = 0 if perfect_recall else encoder.size
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: BoardlabOpenSpielState, player: int) -> None:
        view = state.view(player)
        if self.perfect_recall:
            return
        self.tensor[:] = 0.0 if view is None else self.encoder.encode(view)

    def string_from(self, state: BoardlabOpenSpielState, player: int) -> str:
        view = state.view(player)
        if view is None:
            return "deal pending"
        return view_key(view, keep_history=self.perfect_recall)


def register() -> list[str]:
    """Register every boardlab game with pyspiel (once); return their OpenSpiel names."""
    names = []
    known = set(pyspiel.registered_names())
    for cls in games():
        name = short_name(cls)
        names.append(name)
        if name in known:
            continue
        game_class = type(f"OpenSpiel_{cls.__name__}", (BoardlabOpenSpielGame,),
                          {"game_cls": cls})
        default = cls()
        spec = parameter_specification(cls)
        registered = game_type(default, spec)
        pyspiel.register_game(registered, game_class)
    return names


NAMES = register()


def load(spec: str, deals: int | None = None, **options) -> pyspiel.Game:
    """The OpenSpiel game of a boardlab spec (``load("carteso(size=5)")``); ``deals``
    sets how many deals a seeded game's start chance node draws from."""
    from ..core.options import parse_spec
    name, raw = parse_spec(spec)
    cls = game_class(name)
    game = cls(**raw, **options)
    defaults = parameter_specification(cls)
    params = {k: to_parameter(type(defaults[k])(v)) for k, v in game.options.items()
              if k in game.given}
    if deals is not None:
        params["deals"] = deals
    return pyspiel.load_game(short_name(cls), params)
