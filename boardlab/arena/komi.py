"""A fair-komi finder: self-play over a range of komi values, then a logistic fit.

Everything game-specific comes from the game's declared komi facts
(:class:`~boardlab.core.game.KomiFacts`, ``game.komi``): the option that sets
the komi, the seat it is credited to (the *receiver*), the largest margin a game
can end with (``points``, which sizes the default range) and the options that
fix the komi (no bidding). A game whose ``komi`` is None has no komi and is
refused. Below, **the first seat** is the seat that *gives* the komi: the other
of the two seats (it moves first in the games with komi so far). We model

    P(first seat wins | komi K) = 1 / (1 + exp(-(a - b*K)))

fitted by maximum likelihood (draws count half a win), so the fair komi, where
both seats win half the time, is ``k* = a / b``. Assumptions, stated once:

* Komi values are kept in **half points** (ints) inside this module.
* The allowed komi values are the game's default komi plus whole multiples of
  ``step`` (default 1). Games choose their defaults to avoid draws (a whole
  number where the other scores are whole, x.5 where a half point already
  decides), so with ``step=1`` the finder tests the komi form each edition uses.
* Both seats are played by the same agent; game i uses seed ``seed + i``, so a run
  is reproducible for iteration-budget agents (not for time budgets) and does
  not depend on ``jobs`` (the rounds are barriers).
* The design is adaptive: round 1 spreads its games evenly over the range, later
  rounds put theirs on the allowed values nearest the current estimate.
* The 95% interval of k* is a percentile bootstrap over games, resampled within
  each komi value (the design is held fixed), seeded by the run's seed.
* The board margin of a game (the first seat's lead without komi) is read from
  the final state's ``scores()``, where the receiver's score includes the komi.

Nothing here prints: progress goes through the ``progress(done, total, note)``
callback and the report is returned as text (:func:`format_report`).
"""
from __future__ import annotations

import math
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from ..agents.base import load_agents_from, loaded_agent_sources
from ..core.errors import BoardlabError
from ..core.game import Game, KomiFacts
from ..core.options import parse_spec
from ..core import registry
from ..core.record import check_record
from ..core.registry import game_class, make
from .game_runner import run_game
from .match import wilson_interval

DEFAULT_AGENT = "mcts(iterations=300)"
FIRST_ROUND_SHARE = 0.4      # share of the games spent spreading over the range
FIRST_ROUND_VALUES = 9       # at most this many komi values in round 1
FOCUS_VALUES = 4             # later rounds: the allowed values nearest the estimate


class DegenerateData(ValueError):
    """The results do not determine a logistic curve; ``kind`` says why.

    kind: 'all-first' (the first seat scored every point), 'all-second',
    'separated' (wins only below ``bounds[0]``, losses only above ``bounds[1]``),
    'rising' (separated the wrong way round), 'flat' (no slope at all).
    """

    def __init__(self, kind: str, message: str, bounds=(None, None)):
        super().__init__(message)
        self.kind = kind
        self.bounds = bounds


# Games, options and the komi grid ---------------------------------------------------

def _quiet_make(name: str, options: dict) -> Game:
    """make() without the warnings some komi values raise (e.g. a komi that allows draws)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make(name, **options)


def komi_games() -> list[str]:
    """Names of the registered games that declare komi facts (in their default set-up)."""
    return [cls.name for cls in registry.games() if _quiet_make(cls.name, {}).komi is not None]


def komi_facts(game_obj: Game) -> KomiFacts:
    """The game's komi facts; BoardlabError for a game without komi."""
    facts = game_obj.komi
    if facts is None:
        raise BoardlabError(f"{game_obj.name} has no komi option: it declares no komi facts "
                            f"(games with komi: {', '.join(komi_games()) or 'none'})")
    return facts


def _same_value(name: str, option: str, raw, value) -> bool:
    """Whether the raw text ``raw`` of ``option`` resolves to ``value`` in game ``name``."""
    return _quiet_make(name, {option: raw}).options[option] == value


def base_game(game: str, options: dict | None = None) -> Game:
    """The game with the user's options and its komi fixed (the facts' fixed options), checked.

    ``game`` is a name or a spec string; ``options`` are raw values (e.g. from the
    command line). Raises BoardlabError for games without komi, two-seat games
    only, and for a komi, or an option the finder fixes, set by the user otherwise.
    """
    name, raw = parse_spec(game)
    raw.update(options or {})
    name = game_class(name).name
    facts = komi_facts(_quiet_make(name, {}))
    if facts.option in raw:
        raise BoardlabError(f"do not set the komi ({facts.option}): the finder varies it "
                            f"(use --range LO:HI)")
    for option, value in facts.fixed_options:
        if option in raw and not _same_value(name, option, raw[option], value):
            raise BoardlabError(f"the finder plays with {option}={_show(value)} "
                                f"(drop the option)")
        raw[option] = value
    game_obj = _quiet_make(name, raw)
    facts = komi_facts(game_obj)
    if game_obj.num_seats != 2:
        raise BoardlabError(f"{game_obj.spec} has {game_obj.num_seats} seats; the finder "
                            f"needs two")
    if facts.receiver not in game_obj.seat_names:
        raise BoardlabError(f"{game_obj.spec}: the komi goes to {facts.receiver!r}, which is "
                            f"not a seat ({', '.join(game_obj.seat_names)})")
    return game_obj


def _show(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def seats_of(game_obj: Game) -> tuple[int, int]:
    """(the first seat: it gives the komi, the receiver's seat)."""
    receiver = game_obj.seat_names.index(komi_facts(game_obj).receiver)
    return 1 - receiver, receiver


def komi_of(game_obj: Game) -> float:
    """The game's komi in points (its komi option's value)."""
    return game_obj.options[komi_facts(game_obj).option]


def _raw_options(game_obj) -> dict:
    """The explicitly given options of a game, as values make() accepts again."""
    return {name: game_obj.options[name] for name in game_obj.given}


def spec_with_komi(game_obj, komi_half: int) -> str:
    """The canonical spec of ``game_obj`` with a fixed komi of ``komi_half``/2 points."""
    option = komi_facts(game_obj).option
    return _quiet_make(game_obj.name, {**_raw_options(game_obj), option: komi_half / 2}).spec


def board_points(game_obj) -> int:
    """The largest margin a game can end with (the komi facts' ``points``)."""
    return int(komi_facts(game_obj).points)


def to_half(value: float, what: str = "komi") -> int:
    """A komi in points -> half points; it must be a multiple of 0.5."""
    half = float(value) * 2
    if not math.isfinite(half) or not half.is_integer():
        raise BoardlabError(f"{what} must be a multiple of 0.5, not {value!r}")
    return int(half)


def parse_range(text: str) -> tuple[int, int]:
    """'LO:HI' (points) -> (lo, hi) in half points, lo < hi."""
    lo_text, sep, hi_text = str(text).partition(":")
    try:
        lo, hi = float(lo_text), float(hi_text)
    except ValueError:
        raise BoardlabError(f"bad komi range {text!r}: expected LO:HI, e.g. -5:15 "
                            f"(write --range=-5:15 when LO is negative)") from None
    if not sep:
        raise BoardlabError(f"bad komi range {text!r}: expected LO:HI, e.g. -5:15")
    lo_half, hi_half = to_half(lo, "the range's low end"), to_half(hi, "the range's high end")
    if lo_half >= hi_half:
        raise BoardlabError(f"bad komi range {text!r}: LO must be below HI")
    return lo_half, hi_half


def default_range(game_obj, step_half: int = 2) -> tuple[int, int]:
    """The game's default komi ± a quarter of its largest margin (rounded up to a step).

    Self-play margins spread widely (tens of points on a board of 81), so the span
    grows with the game: ±21 for a largest margin of 81 or 82, ±31 for 121 with step 1.
    """
    centre = to_half(komi_of(game_obj))
    span = math.ceil(board_points(game_obj) / 4 * 2 / step_half) * step_half
    return centre - span, centre + span


def allowed_grid(anchor_half: int, step_half: int, lo_half: int, hi_half: int) -> list[int]:
    """The allowed komi values ``anchor + j*step`` inside [lo, hi], in half points."""
    first = anchor_half + math.ceil((lo_half - anchor_half) / step_half) * step_half
    return list(range(first, hi_half + 1, step_half))


def nearest_allowed(komi: float, anchor_half: int, step_half: int) -> int:
    """The allowed komi value (half points) nearest ``komi`` (points); ties go up."""
    j = math.floor((komi * 2 - anchor_half) / step_half + 0.5)
    return anchor_half + j * step_half


# The design ------------------------------------------------------------------------

def round_sizes(total: int, rounds: int) -> list[int]:
    """Games per round: 40% in round 1 (at least 2), the rest split evenly."""
    if rounds <= 1 or total < 4:
        return [total]
    first = max(2, round(total * FIRST_ROUND_SHARE))
    rest, later = total - first, rounds - 1
    sizes = [first] + [rest // later + (1 if i < rest % later else 0) for i in range(later)]
    return [s for s in sizes if s > 0]


def spread_design(grid: list[int], games: int) -> list[int]:
    """Round 1: up to FIRST_ROUND_VALUES evenly spaced grid values, games cycled over them."""
    count = min(len(grid), FIRST_ROUND_VALUES, max(2, games))
    picks = sorted({grid[round(i)] for i in np.linspace(0, len(grid) - 1, count)})
    return [picks[i % len(picks)] for i in range(games)]


def focus_design(grid: list[int], centre: float, games: int) -> list[int]:
    """Later rounds: the FOCUS_VALUES grid values nearest ``centre`` (points), cycled."""
    nearest = sorted(sorted(grid, key=lambda h: (abs(h / 2 - centre), h))[:FOCUS_VALUES])
    return [nearest[i % len(nearest)] for i in range(games)]


# The model -----------------------------------------------------------------------

def aggregate(results) -> dict[int, list[float]]:
    """Per komi (half points): [games, first-seat points, draws] from (komi_half, score)."""
    table: dict[int, list[float]] = {}
    for komi_half, score in results:
        row = table.setdefault(komi_half, [0, 0.0, 0])
        row[0] += 1
        row[1] += score
        row[2] += score == 0.5
    return dict(sorted(table.items()))


def check_separation(x, n, y) -> None:
    """Raise DegenerateData when no finite maximum-likelihood fit exists.

    ``x`` komi (points), ``n`` games, ``y`` first-seat points per value. A finite
    fit needs win weight and loss weight that overlap in komi both ways.
    """
    x, n, y = map(np.asarray, (x, n, y))
    wins, losses = x[y > 0], x[y < n]
    if losses.size == 0:
        raise DegenerateData("all-first", f"the first seat won every game up to komi "
                             f"{x.max():g}: the fair komi is above that (raise the range)",
                             (float(x.max()), None))
    if wins.size == 0:
        raise DegenerateData("all-second", f"the second seat won every game down to komi "
                             f"{x.min():g}: the fair komi is below that (lower the range)",
                             (None, float(x.min())))
    if wins.max() <= losses.min():
        lo, hi = float(wins.max()), float(losses.min())
        raise DegenerateData("separated", f"the results separate perfectly: the first seat "
                             f"scored only at komi {lo:g} or less and dropped points only at "
                             f"komi {hi:g} or more, so no slope can be fitted; the fair komi "
                             f"lies between {lo:g} and {hi:g}", (lo, hi))
    if losses.max() <= wins.min():
        raise DegenerateData("rising", "the first seat did better with more komi against it "
                             "in every game: too few games to fit a curve")


def fit_logistic(x, n, y, tol: float = 1e-10, max_iter: int = 100) -> tuple[float, float]:
    """Maximum-likelihood (a, b) of P(first wins | x) = 1/(1+exp(-(a - b x))).

    Grouped data: ``n`` games and ``y`` first-seat points (draws 0.5) at komi ``x``.
    Newton's method with step halving on the centred komi. Raises DegenerateData
    when the maximum is not finite (see :func:`check_separation`) or the slope is 0.
    """
    x, n, y = (np.asarray(v, dtype=float) for v in (x, n, y))
    check_separation(x, n, y)
    centre = float(np.average(x, weights=n))
    design = np.column_stack([np.ones_like(x), -(x - centre)])
    rate = min(max(y.sum() / n.sum(), 1e-3), 1 - 1e-3)
    beta = np.array([math.log(rate / (1 - rate)), 0.0])
    loglik = _loglik(design, n, y, beta)
    for _ in range(max_iter):
        p = _sigmoid(design @ beta)
        grad = design.T @ (y - n * p)
        hess = (design * (n * p * (1 - p))[:, None]).T @ design
        step = np.linalg.solve(hess + 1e-12 * np.eye(2), grad)
        scale = 1.0
        new = _loglik(design, n, y, beta + step)
        while new < loglik - 1e-12 and scale > 1e-6:
            scale /= 2
            new = _loglik(design, n, y, beta + scale * step)
        if new < loglik - 1e-12:
            break                                # no ascent left: at the maximum
        beta, change, loglik = beta + scale * step, new - loglik, new
        if change < tol and np.max(np.abs(scale * step)) < 1e-8:
            break
    a_centred, b = float(beta[0]), float(beta[1])
    if abs(b) < 1e-9:
        raise DegenerateData("flat", "the first seat's win rate does not change with komi")
    return a_centred + b * centre, b


def _sigmoid(eta):
    return 0.5 * (1 + np.tanh(eta / 2))      # stable for large |eta|


def _loglik(design, n, y, beta) -> float:
    eta = design @ beta
    log_p = -np.logaddexp(0, -eta)
    log_q = -np.logaddexp(0, eta)
    return float(np.sum(y * log_p + (n - y) * log_q))


def logistic_rate(a: float, b: float, komi):
    """The fitted first-seat win rate at ``komi`` (points; scalar or array)."""
    return _sigmoid(a - b * np.asarray(komi, dtype=float))


def estimate(x, n, y) -> float:
    """The fair komi k* = a/b, or the best bound when the fit does not exist.

    Separated data -> the middle of the gap; all first-seat wins -> +inf, all
    second-seat wins -> -inf; 'rising' or 'flat' data -> nan. Used for the design
    and the bootstrap, where a number is needed in every case.
    """
    try:
        a, b = fit_logistic(x, n, y)
    except DegenerateData as error:
        if error.kind == "separated":
            return (error.bounds[0] + error.bounds[1]) / 2
        return {"all-first": math.inf, "all-second": -math.inf}.get(error.kind, math.nan)
    return a / b


def bootstrap(table: dict[int, list[float]], resamples: int, seed: int) -> dict:
    """Percentile 95% interval of k*: outcomes resampled within each komi value.

    Returns {'interval': (lo, hi) with None for unbounded, 'resamples', 'failed'}
    where 'failed' counts resamples with no estimate at all ('rising', 'flat').
    """
    rng = np.random.default_rng(seed)
    x = np.array([k / 2 for k in table])
    counts = [(int(n), int(round(pts - d / 2)), int(d)) for n, pts, d in table.values()]
    estimates = []
    for _ in range(resamples):
        y = []
        for played, wins, draws in counts:
            w, d, _ = rng.multinomial(played, [wins / played, draws / played,
                                               max(0.0, 1 - (wins + draws) / played)])
            y.append(w + d / 2)
        estimates.append(estimate(x, [c[0] for c in counts], y))
    values = np.array(estimates)
    finite = np.sort(values[~np.isnan(values)])
    if finite.size < max(10, resamples // 2):
        return {"interval": (None, None), "resamples": resamples,
                "failed": int(resamples - finite.size)}
    lo = finite[int(math.floor(0.025 * finite.size))]
    hi = finite[int(math.ceil(0.975 * finite.size)) - 1]
    return {"interval": (None if math.isinf(lo) else float(lo),
                         None if math.isinf(hi) else float(hi)),
            "resamples": resamples, "failed": int(resamples - finite.size)}


def margin_estimate(margins, anchor_half: int, step_half: int, resamples: int,
                    seed: int) -> dict | None:
    """The fair komi from the board margins: their median, with a bootstrap interval.

    A game with board margin m (first seat's lead without komi) is won by the first
    seat under komi K exactly when m > K, so the median margin is the komi that
    splits the games evenly. Margins from all komi values are pooled, which assumes
    the agents play about the same whatever the komi (the logistic fit does not
    assume this). It uses the size of each lead, not only who won, so it needs
    fewer games when leads vary a lot.

    >>> margin_estimate([-3, 1, 2, 5, 9], 14, 2, 200, 1)["fair_komi"]
    2.0
    """
    if not margins:
        return None
    values = np.asarray(margins, dtype=float)
    rng = np.random.default_rng(seed)
    medians = np.median(rng.choice(values, size=(resamples, values.size)), axis=1)
    fair = float(np.median(values))
    near = nearest_allowed(fair, anchor_half, step_half) / 2
    rate = float(np.mean(values > near) + 0.5 * np.mean(values == near))
    return {"fair_komi": fair, "interval": [float(np.percentile(medians, 2.5)),
                                            float(np.percentile(medians, 97.5))],
            "nearest_komi": near, "nearest_rate": rate, "games": int(values.size),
            "mean": float(values.mean()), "sd": float(values.std())}


# Playing ----------------------------------------------------------------------------

def _play_one(task):
    """Worker: one self-play game -> (first-seat score 1/0.5/0, actions, CPU seconds, margin).

    ``margin`` is the first seat's lead on the board (see :func:`board_margin`), None
    after a forfeit (the game did not end by the rules).
    """
    spec, agent, seed = task
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_game(spec, [agent, agent], seed)
        final = None if result.forfeit else check_record(result.record)
    first, _ = seats_of(_quiet_make(spec, {}))
    value = result.returns[first]
    score = 1.0 if value > 0 else 0.0 if value < 0 else 0.5
    return score, result.actions, time.process_time() - start, \
        None if final is None else board_margin(final)


def board_margin(state) -> float | None:
    """The first seat's lead at the end of ``state``'s game, komi left out: its score
    minus the receiver's, plus the komi (the komi that would have made it a draw).
    None for a game that keeps no score."""
    scores = state.scores()
    if not scores:
        return None
    names = state.game.seat_names
    first, receiver = seats_of(state.game)
    return scores[names[first]] - scores[names[receiver]] + komi_of(state.game)


def _play_tasks(tasks, pool):
    """Results of ``tasks`` in task order, played in ``pool`` when given."""
    return pool.map(_play_one, tasks) if pool is not None else map(_play_one, tasks)


def _check_settings(games: int, rounds: int, jobs: int, step_half: int, resamples: int):
    if games < 2:
        raise BoardlabError(f"--games must be at least 2, not {games}")
    if rounds < 1:
        raise BoardlabError(f"--rounds must be at least 1, not {rounds}")
    if jobs < 1:
        raise BoardlabError(f"--jobs must be at least 1, not {jobs}")
    if step_half < 1:
        raise BoardlabError("--step must be a positive multiple of 0.5")
    if resamples < 100:
        raise BoardlabError(f"--bootstrap must be at least 100, not {resamples}")


def find_fair_komi(game: str, options: dict | None = None, agent: str = DEFAULT_AGENT,
                   games: int = 200, seed: int = 1, jobs: int = 1, komi_range=None,
                   step: float = 1.0, rounds: int = 4, resamples: int = 2000,
                   progress=None) -> dict:
    """Self-play ``games`` games over komi values and fit the fair komi.

    ``komi_range`` is (lo, hi) in points or an 'LO:HI' string (default: see
    :func:`default_range`); ``step`` the spacing of the allowed values (points).
    ``progress(done, total, note)`` is called after every game. Returns the
    result dict described in docs/komi.md (JSON-ready).
    """
    plan = plan_run(game, options, agent, games, jobs, komi_range, step, rounds, resamples,
                    seed)
    started = time.perf_counter()
    outcomes, actions, cpu, margins = play_rounds(plan, agent, games, seed, jobs, rounds,
                                                  progress)
    result = summarise(outcomes, plan["anchor"], plan["step"], resamples, seed)
    result["margin"] = margin_estimate(margins, plan["anchor"], plan["step"], resamples, seed)
    lo, hi = plan["range"]
    first, receiver = seats_of(plan["game"])
    names = plan["game"].seat_names
    result.update(game=plan["game"].name, spec=plan["game"].spec, agent=agent, seed=seed,
                  first_seat=names[first], receiver=names[receiver],
                  range=[lo / 2, hi / 2], step=plan["step"] / 2,
                  default_komi=plan["anchor"] / 2, rounds=len(round_sizes(games, rounds)),
                  jobs=jobs, mean_actions=float(np.mean(actions)),
                  seconds=time.perf_counter() - started, cpu_seconds=cpu,
                  plot_name=default_plot_name(plan["game"]))
    if result["fair_komi"] is not None and not lo / 2 <= result["fair_komi"] <= hi / 2:
        result["warnings"].append("the fair komi lies outside the tested range: widen "
                                  "--range and run again")
    return result


def plan_run(game, options, agent, games, jobs, komi_range, step, rounds, resamples,
             seed) -> dict:
    """Check every setting and fix the game, range, grid and one spec per komi value."""
    from ..agents import make_agent

    game_obj = base_game(game, options)
    step_half = to_half(step, "--step")
    _check_settings(games, rounds, jobs, step_half, resamples)
    make_agent(agent, game_obj, 0, seed=seed)           # a clear error for a bad agent now
    anchor = to_half(komi_of(game_obj))
    if komi_range is None:
        lo, hi = default_range(game_obj, step_half)
    elif isinstance(komi_range, str):
        lo, hi = parse_range(komi_range)
    else:
        lo, hi = parse_range(f"{komi_range[0]}:{komi_range[1]}")
    grid = allowed_grid(anchor, step_half, lo, hi)
    if len(grid) < 2:
        raise BoardlabError(f"the range {lo / 2:g}:{hi / 2:g} holds fewer than two allowed "
                            f"komi values ({anchor / 2:g} + multiples of {step_half / 2:g})")
    return {"game": game_obj, "anchor": anchor, "step": step_half, "range": (lo, hi),
            "grid": grid, "specs": {k: spec_with_komi(game_obj, k) for k in grid}}


def play_rounds(plan, agent, games, seed, jobs, rounds, progress=None):
    """Play the adaptive rounds -> ([(komi_half, score)], [actions], CPU seconds, margins)."""
    outcomes: list[tuple[int, float]] = []
    actions: list[int] = []
    margins: list[float] = []
    cpu = 0.0
    lo, hi = plan["range"]
    sizes = round_sizes(games, rounds)
    pool = ProcessPoolExecutor(jobs, initializer=load_agents_from,
                               initargs=(loaded_agent_sources(),)) if jobs > 1 else None
    try:
        for index, size in enumerate(sizes):
            centre = _centre(outcomes, lo, hi) if index else None
            design = spread_design(plan["grid"], size) if centre is None else \
                focus_design(plan["grid"], centre, size)
            note = f"round {index + 1}/{len(sizes)}" + \
                ("" if centre is None else f", estimate {centre:.1f}")
            tasks = [(plan["specs"][k], agent, seed + len(outcomes) + i)
                     for i, k in enumerate(design)]
            for komi_half, (score, length, seconds, margin) in zip(
                    design, _play_tasks(tasks, pool), strict=True):
                outcomes.append((komi_half, score))
                if margin is not None:
                    margins.append(margin)
                actions.append(length)
                cpu += seconds
                if progress:
                    progress(len(outcomes), games, note)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return outcomes, actions, cpu, margins


def _centre(outcomes, lo: int, hi: int) -> float:
    """The current estimate of k* (points), clamped to the range, for the design."""
    table = aggregate(outcomes)
    x = [k / 2 for k in table]
    value = estimate(x, [r[0] for r in table.values()], [r[1] for r in table.values()])
    if math.isnan(value):
        value = (lo + hi) / 4
    return min(max(value, lo / 2), hi / 2)


def summarise(outcomes, anchor_half: int, step_half: int, resamples: int, seed: int) -> dict:
    """The fit, the interval and the table from (komi_half, first-seat score) pairs."""
    table = aggregate(outcomes)
    x = [k / 2 for k in table]
    n = [r[0] for r in table.values()]
    y = [r[1] for r in table.values()]
    result: dict[str, Any] = {
        "games": len(outcomes), "status": "ok", "message": None, "warnings": [],
        "a": None, "b": None, "fair_komi": None, "interval": [None, None],
        "nearest_komi": None, "nearest_rate": None, "bootstrap": None}
    a: float | None
    b: float | None
    try:
        a, b = fit_logistic(x, n, y)
    except DegenerateData as error:
        a = b = None
        result.update(status=error.kind, message=str(error), interval=list(error.bounds))
        if error.kind == "separated":
            middle = sum(error.bounds) / 2
            result.update(fair_komi=middle,
                          nearest_komi=nearest_allowed(middle, anchor_half, step_half) / 2)
    if a is not None and b is not None:       # fitted together (or neither)
        fair = a / b
        near = nearest_allowed(fair, anchor_half, step_half) / 2
        boot = bootstrap(table, resamples, seed)
        result.update(a=a, b=b, fair_komi=fair, nearest_komi=near,
                      nearest_rate=float(logistic_rate(a, b, near)),
                      interval=list(boot["interval"]), bootstrap=boot)
        if b < 0:
            result["warnings"].append("the fitted win rate rises with komi: the data is "
                                      "mostly noise, play more games")
        if boot["failed"]:
            result["warnings"].append(f"{boot['failed']} of {resamples} bootstrap resamples "
                                      f"had no estimate")
    result["per_komi"] = _per_komi(table, a, b)
    return result


def _per_komi(table, a, b) -> list[dict]:
    rows = []
    for komi_half, (played, points, draws) in table.items():
        low, high = wilson_interval(points, played)
        rows.append({"komi": komi_half / 2, "games": int(played), "points": float(points),
                     "draws": int(draws), "rate": points / played, "interval": [low, high],
                     "fitted": None if b is None else float(logistic_rate(a, b, komi_half / 2))})
    return rows


# Reporting ------------------------------------------------------------------------

def _bound(value, unbounded: str) -> str:
    return unbounded if value is None else f"{value:.1f}"


def format_report(result: dict) -> list[str]:
    """The result as lines of text: the per-komi table, then the fair komi."""
    lines = [f"{result['spec']}: komi for {result['agent']} self-play, {result['games']} games "
             f"(seed {result['seed']}, range {result['range'][0]:g}:{result['range'][1]:g}, "
             f"allowed komi {result['default_komi']:g} + multiples of {result['step']:g}"
             + (f"; first seat {result['first_seat']}, komi to {result['receiver']}"
                if result.get("receiver") else "") + ")",
             f"{'komi':>7} {'games':>6} {'draws':>6} {'first seat':>11} "
             f"{'95% interval':>14} {'fitted':>7}"]
    for row in result["per_komi"]:
        low, high = row["interval"]
        fitted = "" if row["fitted"] is None else f"{100 * row['fitted']:.1f}%"
        lines.append(f"{row['komi']:>7g} {row['games']:>6} {row['draws']:>6} "
                     f"{100 * row['rate']:>10.1f}% {100 * low:>6.1f}-{100 * high:>5.1f}% "
                     f"{fitted:>7}")
    low, high = result["interval"]
    if result["status"] == "ok":
        lines.append(f"fair komi {result['fair_komi']:.1f} (95% interval "
                     f"{_bound(low, 'below')} to {_bound(high, 'above')}, bootstrap of "
                     f"{result['bootstrap']['resamples']}); nearest allowed komi "
                     f"{result['nearest_komi']:g}: first seat wins "
                     f"{100 * result['nearest_rate']:.1f}% (fitted)")
    else:
        lines.append(f"no fitted fair komi: {result['message']}")
        if result["nearest_komi"] is not None:
            lines.append(f"middle of the gap {result['fair_komi']:g}, nearest allowed komi "
                         f"{result['nearest_komi']:g}")
    margin = result.get("margin")
    if margin:
        low, high = margin["interval"]
        lines.append(f"from the board margins (median of {margin['games']}, sd "
                     f"{margin['sd']:.1f}): fair komi {margin['fair_komi']:.1f} (95% interval "
                     f"{low:.1f} to {high:.1f}); at komi {margin['nearest_komi']:g} the first "
                     f"seat would win {100 * margin['nearest_rate']:.1f}% of these games")
    lines.extend(f"warning: {text}" for text in result["warnings"])
    lines.append(f"{result['mean_actions']:.0f} actions a game, {result['seconds']:.0f} s "
                 f"({result['cpu_seconds']:.0f} s of game CPU time, {result['jobs']} job(s))")
    return lines


def default_plot_name(game_obj) -> str:
    """komi-<game>[-<options>].png for the options given, in the game's order, without
    the komi and the options the finder fixes: the game's first option by its value
    alone (the board size, say), a boolean as its name or no+name, any other as name
    and value; e.g. komi-mygame-9-nobutton.png."""
    facts = komi_facts(game_obj)
    skip = {facts.option} | {name for name, _ in facts.fixed_options}
    parts = [game_obj.name]
    for index, option in enumerate(game_obj.declared_options):
        name = option.name
        if name not in game_obj.given or name in skip:
            continue
        value = game_obj.options[name]
        if isinstance(value, bool):
            parts.append(name if value else f"no{name}")
        else:
            parts.append(str(value) if index == 0 else f"{name}{value}")
    safe = "-".join(parts).replace("/", "_").replace(" ", "")
    return f"komi-{safe}.png"


def plot_result(result: dict, path: str) -> str:
    """Write the plot: observed rates with Wilson bars, fitted curve, band of k*."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result["per_komi"]
    x = np.array([r["komi"] for r in rows])
    rate = np.array([r["rate"] for r in rows])
    bars = np.clip(np.array([[r["rate"] - r["interval"][0] for r in rows],
                             [r["interval"][1] - r["rate"] for r in rows]]), 0, None)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    lo, hi = result["range"]
    low, high = result["interval"]
    if result["fair_komi"] is not None:
        ax.axvspan(lo - 1 if low is None else low, hi + 1 if high is None else high,
                   color="tab:orange", alpha=0.2, label="95% interval of the fair komi")
        ax.axvline(result["fair_komi"], color="tab:orange",
                   label=f"fair komi {result['fair_komi']:.1f}")
    if result.get("margin"):
        ax.axvline(result["margin"]["fair_komi"], color="tab:green", linestyle="--",
                   label=f"median board margin {result['margin']['fair_komi']:.1f}")
    if result["b"] is not None:
        grid = np.linspace(lo, hi, 400)
        ax.plot(grid, logistic_rate(result["a"], result["b"], grid), color="tab:blue",
                label="logistic fit")
    ax.errorbar(x, rate, yerr=bars, fmt="o", color="black", capsize=3,
                label="observed (95% Wilson)")
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xlim(lo - 1, hi + 1)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(f"komi (points for {result.get('receiver') or 'the second seat'})")
    ax.set_ylabel(f"{result.get('first_seat') or 'first seat'}'s score (draws half)")
    ax.set_title(f"{result['spec']}: {result['agent']} self-play, {result['games']} games",
                 fontsize=10)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
