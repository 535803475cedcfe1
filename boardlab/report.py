"""An analysis report of one game: a Markdown file with plots (``boardlab report``).

Four sections, each measured by games this run plays (nothing is copied in):

* **first seat**: self-play of one agent in every seat at each of a few strengths
  (``run_match`` with fresh deals: game i has seed ``seed + i``); the first seat's
  score with a 95% Wilson interval, and the mean game length;
* **komi**: for a game that declares komi facts, the fair komi by self-play of the
  strong agent at each board size (``find_fair_komi``), a table and a plot;
* **speed**: random playouts/s of the kernel and the strong agent's simulations/s
  (``bench_kernel``, ``bench_search``);
* **levels**: level k+1 against level k of the strong agent's kind (``duel``, seats
  alternating).

:func:`plan_report` checks every setting before anything runs; :func:`run_report`
plays, and rewrites ``report.md`` (whole, through a temporary file) after each
section, so that an interruption leaves the sections measured so far.
"""
from __future__ import annotations

import math
import os
import platform
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime

from .core.errors import BoardlabError
from .core.game import Game
from .core.options import parse_spec
from .core.registry import game_class, make

SECTIONS = ("first-seat", "komi", "speed", "levels")
TITLES = {"first-seat": "First-seat win rate by strength", "komi": "Fair komi by size",
          "speed": "Speed", "levels": "Levels compared"}
DEFAULT_STRENGTHS = ("mcts(level=1)", "mcts(level=3)", "mcts(level=5)")
DEFAULT_STRONG = "mcts(level=5)"
DEFAULT_SIZES = (5, 7, 9, 11, 13)
DEFAULT_LEVELS = (1, 2, 3, 4, 5)
SIZE_OPTION = "size"          # the declared option the komi section varies
BENCH_RUNS = 3                # runs of the kernel benchmark (the median is reported)


@dataclass
class ReportPlan:
    """Every setting of a report, checked (see :func:`plan_report`)."""

    game: Game                         # the game as configured
    out: str
    games: int
    komi_games: int
    strengths: list[str]
    strong: str
    levels: list[int]
    sizes: list[int]                   # the komi section's sizes the game allows
    dropped_sizes: list[int]           # requested sizes the game does not allow
    komi_options: dict | None          # the finder's options (None: no komi section)
    skip: set[str]
    jobs: int = 1
    seed: int = 1
    speed_seconds: float = 1.0
    command: str = "(called from Python)"
    why_no_komi: str = ""


@dataclass
class Report:
    """What a run measured so far: per section, its Markdown lines, its seconds and its
    results (the dicts of run_match rows, find_fair_komi, bench_* and duel)."""

    plan: ReportPlan
    started: str = field(default_factory=lambda: datetime.now(UTC)
                         .isoformat(timespec="seconds"))
    lines: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)
    results: dict = field(default_factory=dict)
    interrupted: str = ""


# Settings ----------------------------------------------------------------------------

def plan_report(game: str, options: dict | None = None, out: str | None = None,
                games: int = 100, komi_games: int = 100, sizes=DEFAULT_SIZES,
                strengths=DEFAULT_STRENGTHS, strong: str = DEFAULT_STRONG,
                levels=DEFAULT_LEVELS, skip=(), jobs: int = 1, seed: int = 1,
                speed_seconds: float = 1.0, command: str | None = None) -> ReportPlan:
    """Check everything and fix the plan; BoardlabError for anything that would fail later."""
    name, raw = parse_spec(game)
    raw.update(options or {})
    game_obj = make(game_class(name).name, **raw)
    skip = _check_skip(skip)
    _check_numbers(games, komi_games, jobs, seed, speed_seconds)
    strengths, levels = list(strengths), [int(k) for k in levels]
    if not strengths:
        raise BoardlabError("--strengths needs at least one agent")
    if "levels" not in skip and len(levels) < 2:
        raise BoardlabError(f"--levels needs at least two levels to compare, not {levels}")
    for flag, spec in [*(("--strengths", s) for s in strengths), ("--strong", strong)]:
        _check_agent(spec, game_obj, flag)
    if "levels" not in skip:
        _check_levels(strong, levels, game_obj)
    komi_options, why = komi_setup(game_obj, raw)
    allowed, dropped = allowed_sizes(game_obj, komi_options, sizes) \
        if komi_options is not None and "komi" not in skip else ([], [])
    out = out or default_out(game_obj)
    if os.path.exists(out) and not os.path.isdir(out):
        raise BoardlabError(f"--out {out} is a file, not a folder")
    return ReportPlan(game_obj, out, games, komi_games, strengths,
                      strong, levels, allowed, dropped, komi_options, skip, jobs, seed,
                      speed_seconds, command or "(called from Python)", why)


def _check_skip(skip) -> set[str]:
    unknown = [s for s in skip if s not in SECTIONS]
    if unknown:
        raise BoardlabError(f"--skip: unknown section(s) {', '.join(unknown)} (the sections: "
                            f"{', '.join(SECTIONS)})")
    return set(skip)


def _check_numbers(games, komi_games, jobs, seed, speed_seconds) -> None:
    for flag, value, least in (("games", games, 1), ("komi-games", komi_games, 2),
                               ("jobs", jobs, 1)):
        if value < least:
            raise BoardlabError(f"--{flag} must be at least {least}, not {value}")
    if not 0 <= seed < 2**31 - 10**6:
        raise BoardlabError(f"--seed must be between 0 and {2**31 - 10**6 - 1}, not {seed}")
    if not 0 < speed_seconds < math.inf:
        raise BoardlabError(f"--speed-seconds must be a positive number, not {speed_seconds}")


def _check_agent(spec: str, game_obj, flag: str) -> None:
    from .agents import make_agent

    try:
        make_agent(spec, game_obj, 0).close()
    except BoardlabError as error:
        raise BoardlabError(f"{flag}: {error}") from None


def _check_levels(strong: str, levels: list[int], game_obj) -> None:
    for spec in level_agents(strong, levels):
        _check_agent(spec, game_obj, "--levels (the strong agent's kind at each level)")


def level_agents(strong: str, levels) -> list[str]:
    """The agents of the levels: the strong agent's kind at each level."""
    kind = parse_spec(strong)[0]
    return [f"{kind}(level={k})" for k in levels]


def default_out(game_obj) -> str:
    """report-GAME-SIZE (report-GAME for a game without a size option)."""
    size = game_obj.options.get(SIZE_OPTION)
    return f"report-{game_obj.name}" + ("" if size is None else f"-{size}")


def komi_setup(game_obj, raw: dict) -> tuple[dict | None, str]:
    """The options the komi finder plays with (the user's, less the komi and what the
    finder fixes), or None and the reason when the game declares no komi facts."""
    from .arena.komi import komi_games

    facts = game_obj.komi
    if facts is None:
        return None, (f"{game_obj.spec} has no komi option: it declares no komi facts "
                      f"(games with komi: {', '.join(komi_games()) or 'none'})")
    fixed = {facts.option} | {option for option, _ in facts.fixed_options}
    return {k: v for k, v in raw.items() if k not in fixed}, ""


def allowed_sizes(game_obj, komi_options: dict, sizes) -> tuple[list[int], list[int]]:
    """(the sizes the finder can play, the requested sizes the game refuses)."""
    from .arena.komi import base_game

    declared = {o.name for o in game_obj.declared_options}
    if SIZE_OPTION not in declared:
        return [], list(sizes)
    allowed, dropped = [], []
    for size in sizes:
        try:
            base_game(game_obj.name, {**komi_options, SIZE_OPTION: size})
        except BoardlabError:
            dropped.append(size)
            continue
        allowed.append(size)
    return allowed, dropped


def parse_int_list(text: str, flag: str) -> list[int]:
    """'5,7,9' -> [5, 7, 9]; BoardlabError naming ``flag`` otherwise."""
    try:
        values = [int(part) for part in str(text).split(",") if part.strip()]
    except ValueError:
        raise BoardlabError(f"{flag} wants whole numbers separated by commas, e.g. 5,7,9, "
                            f"not {text!r}") from None
    if not values:
        raise BoardlabError(f"{flag} is empty")
    return values


# Running -----------------------------------------------------------------------------

def run_report(plan: ReportPlan, log=None) -> Report:
    """Play every section not skipped, writing the report after each; returns it.

    ``log(line)`` gets a progress line per batch of games and per section. On
    KeyboardInterrupt the report is written with what was measured, then re-raised.
    """
    log = log or (lambda line: None)
    os.makedirs(plan.out, exist_ok=True)
    report = Report(plan)
    write_report(report)
    for section in SECTIONS:
        if section in plan.skip:
            continue
        started = time.perf_counter()
        try:
            report.lines[section] = MEASURE[section](report, log)
        except KeyboardInterrupt:
            report.interrupted = section
            write_report(report)
            raise
        report.seconds[section] = time.perf_counter() - started
        write_report(report)
        log(f"report: {TITLES[section]} done in {report.seconds[section]:.0f} s")
    return report


def _ticker(log, label: str):
    """A progress callback that logs about every tenth of the games, and the last."""
    def tick(done: int, total: int, note: str = "") -> None:
        if done == total or done % max(1, total // 10) == 0:
            log(f"{label}: {done}/{total} games" + (f", {note}" if note else ""))
    return tick


def self_play(spec: str, agent: str, games: int, seed: int, jobs: int, tick) -> dict:
    """``agent`` in every seat: the first side's points, interval, length and forfeits."""
    from .arena.match import run_match, wilson_interval
    from .arena.schedule import sides_of
    sides = len(sides_of(make(spec)))
    participants = {f"side{i + 1}": agent for i in range(sides)}
    outcome = run_match(spec, participants, games, seed=seed, jobs=jobs, deals="fresh",
                        on_game=lambda p: tick(p.done, p.total))
    rows = outcome.rows
    points = sum(row.scores[0] for row in rows)
    return {"agent": agent, "games": len(rows), "points": points,
            "rate": points / len(rows), "interval": wilson_interval(points, len(rows)),
            "draws": sum(row.scores[0] == 0.5 for row in rows),
            "forfeits": sum(bool(row.forfeit) for row in rows),
            "mean_actions": sum(row.actions for row in rows) / len(rows)}


def measure_first_seat(report: Report, log) -> list[str]:
    plan = report.plan
    game = plan.game
    results = [self_play(game.spec, agent, plan.games, plan.seed, plan.jobs,
                         _ticker(log, f"first seat, {agent}")) for agent in plan.strengths]
    report.results["first-seat"] = results
    rows = [[r["agent"], r["games"], f"{r['points']:g}", _percent(r["rate"]),
             _interval(r["interval"]), r["draws"], r["forfeits"], f"{r['mean_actions']:.1f}"]
            for r in results]
    plot = _bar_plot(report, "first-seat.png", [r["agent"] for r in results], results,
                     f"{game.spec}: the first seat's score in self-play")
    return [f"The same agent in every seat; game i has seed {plan.seed} + i. The first seat "
            f"is {game.seat_names[0]} (with its team, if any); its score counts a win 1 and "
            f"a draw ½ (with more than two sides: the share of the other sides it beat). A "
            f"fair game scores 50%.", "",
            *_table(["agent", "games", "first-seat points", "rate", "95% Wilson interval",
                     "draws", "forfeits", "mean length (actions)"], rows),
            "", f"![first seat]({plot})"]


def measure_komi(report: Report, log) -> list[str]:
    plan = report.plan
    if plan.komi_options is None:
        return [f"No komi section: {plan.why_no_komi}."]
    if not plan.sizes:
        return [f"No komi section: the game allows none of the sizes "
                f"{_sizes(plan.dropped_sizes)}."]
    results = [_fair_komi(plan, size, log) for size in plan.sizes]
    report.results["komi"] = results
    rows = [_komi_row(size, r) for size, r in zip(plan.sizes, results)]
    plot = _komi_plot(report, results)
    first = results[0]
    return [f"Self-play of `{plan.strong}` in both seats, {plan.komi_games} games per size "
            f"over a range of komi values (the komi finder, docs/komi.md: adaptive rounds, "
            f"a logistic fit with a bootstrap interval, and the median board margin), "
            f"seed {plan.seed}. The fair komi is the points for {first['receiver']} that "
            f"make {first['first_seat']} win half the games."
            + (f" Sizes the game does not allow, left out: {_sizes(plan.dropped_sizes)}."
               if plan.dropped_sizes else ""), "",
            *_table(["size", "games", "fit", "default komi", "fair komi (logistic)",
                     "95% interval", "board margin: fair komi", "95% interval",
                     "nearest allowed", "mean length", "seconds", "plot"], rows),
            *_komi_notes(plan.sizes, results), "", f"![fair komi by size]({plot})"]


def _fair_komi(plan: ReportPlan, size: int, log) -> dict:
    from .arena.komi import find_fair_komi, plot_result

    assert plan.komi_options is not None, "a komi section needs the finder's options"
    result = find_fair_komi(plan.game.name, {**plan.komi_options, SIZE_OPTION: size},
                            agent=plan.strong, games=plan.komi_games, seed=plan.seed,
                            jobs=plan.jobs, progress=_ticker(log, f"komi, size {size}"))
    result["plot"] = f"komi-size-{size}.png"
    plot_result(result, os.path.join(plan.out, result["plot"]))
    return result


def _komi_row(size: int, r: dict) -> list:
    margin = r.get("margin") or {}
    return [size, r["games"], r["status"], f"{r['default_komi']:g}", _number(r["fair_komi"]),
            _bounds(r["interval"]), _number(margin.get("fair_komi")),
            _bounds(margin.get("interval")), _number(r["nearest_komi"], "g"),
            f"{r['mean_actions']:.1f}", f"{r['seconds']:.0f}", f"[plot]({r['plot']})"]


def _komi_notes(sizes, results) -> list[str]:
    notes = [f"size {size} (the komi finder): {text}" for size, r in zip(sizes, results)
             for text in ([r["message"]] if r["message"] else []) + r["warnings"]]
    return ["", *(f"* {note}" for note in notes)] if notes else []


def measure_speed(report: Report, log) -> list[str]:
    from .bench import bench_kernel, bench_search

    plan = report.plan
    kernel = bench_kernel(plan.game.spec, seconds=plan.speed_seconds, runs=BENCH_RUNS,
                          seed=plan.seed)
    log(f"speed: {kernel['playouts_per_s']:,.0f} random playouts/s")
    kind = parse_spec(plan.strong)[0]
    try:
        search = bench_search(plan.game.spec, kind, seconds=plan.speed_seconds, runs=1,
                              seed=plan.seed)
    except BoardlabError as error:          # not a search agent with time and iterations
        search = {"error": str(error)}
    report.results["speed"] = {"kernel": kernel, "search": search}
    rows = [["random playouts/s (kernel)", f"{kernel['playouts_per_s']:,.0f}",
             f"{kernel['cpu_playouts_per_s']:,.0f}",
             f"median of {BENCH_RUNS} runs of ~{plan.speed_seconds:g} s"],
            ["moves/s (kernel)", f"{kernel['moves_per_s']:,.0f}", "",
             f"mean random game {kernel['mean_length']:.1f} moves"]]
    if "error" not in search:
        rows.append([f"`{kind}` simulations/s", f"{search['sims_per_s']:,.0f}",
                     f"{search['cpu_sims_per_s']:,.0f}",
                     f"one search of {plan.speed_seconds:g} s from the initial position"])
    return [f"`{plan.game.spec}`, one thread (`boardlab bench`; per CPU second is the "
            f"steadier figure on a busy machine).", "",
            *_table(["what", "per second", "per CPU second", "how"], rows),
            *([] if "error" not in search else
              ["", f"No search speed for `{kind}`: {search['error']}"])]


def measure_levels(report: Report, log) -> list[str]:
    from .arena.match import duel
    from .arena.schedule import sides_of
    plan = report.plan
    sides = len(sides_of(plan.game))
    if sides != 2:
        return [f"No level duels: {plan.game.spec} has {sides} sides; a duel needs two."]
    agents = level_agents(plan.strong, plan.levels)
    results = [duel(plan.game.spec, strong, weak, plan.games, seed=plan.seed, jobs=plan.jobs,
                    progress=_points_ticker(log, f"levels, {strong} vs {weak}"))
               for weak, strong in zip(agents, agents[1:])]
    report.results["levels"] = results
    rows = [[f"`{r['a']}` vs `{r['b']}`", r["games"], f"{r['points']:g}", _percent(r["rate"]),
             _interval(r["interval"]), f"{r['mean_actions']:.1f}",
             sum(count for count, _ in r["forfeits"])] for r in results]
    plot = _bar_plot(report, "levels.png", [f"{r['a']}\nvs {r['b']}" for r in results],
                     results, f"{plan.game.spec}: each level against the one below")
    return [f"Each level against the one below, seats alternating; game i has seed "
            f"{plan.seed} + i. Points are the stronger level's (a draw ½).", "",
            *_table(["duel", "games", "points", "rate", "95% Wilson interval",
                     "mean length", "forfeits"], rows), "", f"![levels]({plot})"]


def _points_ticker(log, label: str):
    tick = _ticker(log, label)
    return lambda done, total, points: tick(done, total, f"{points:g} points")


MEASURE = {"first-seat": measure_first_seat, "komi": measure_komi, "speed": measure_speed,
           "levels": measure_levels}


# Writing -----------------------------------------------------------------------------

def write_report(report: Report) -> str:
    """Write ``report.md`` in the plan's folder (whole or not at all); returns its path."""
    path = os.path.join(report.plan.out, "report.md")
    with open(path + ".part", "w", encoding="utf-8") as handle:
        handle.write("\n".join(report_lines(report)) + "\n")
    os.replace(path + ".part", path)
    return path


def report_lines(report: Report) -> list[str]:
    lines = _header(report)
    for section in SECTIONS:
        lines += ["", f"## {TITLES[section]}", ""]
        if section in report.plan.skip:
            lines.append("Skipped (`--skip`).")
        elif section in report.lines:
            lines += report.lines[section]
        else:
            lines.append("Interrupted before it finished." if report.interrupted == section
                         else "Not measured (the run was interrupted)." if report.interrupted
                         else "Not measured yet.")
    return lines


def _header(report: Report) -> list[str]:
    plan = report.plan
    komi = plan.komi_options is not None and "komi" not in plan.skip
    timing = ", ".join(f"{TITLES[s].lower()} {report.seconds[s]:.0f} s" for s in SECTIONS
                       if s in report.seconds and (komi or s != "komi")) \
        or "nothing finished yet"
    return [f"# {plan.game.name}: analysis report", "",
            f"* game: `{plan.game.spec}`",
            f"* date: {report.started} (UTC)",
            f"* command: `{plan.command}`",
            f"* seed: {plan.seed} (game i of a measurement has seed {plan.seed} + i)",
            f"* budgets: {plan.games} games a self-play or level measurement"
            + (f", {plan.komi_games} games a komi size" if komi else "")
            + f"; strong agent `{plan.strong}`; jobs {plan.jobs}",
            f"* machine: {os.cpu_count()} CPU(s), {platform.machine()}, Python "
            f"{platform.python_version()}",
            f"* time: {timing}"]\
        + ([f"* **interrupted** during {TITLES[report.interrupted].lower()}: the sections "
            f"after it were not measured"] if report.interrupted else [])


def _table(header: list[str], rows: list[list]) -> list[str]:
    return [f"| {' | '.join(header)} |", f"|{'---|' * len(header)}",
            *(f"| {' | '.join(str(cell) for cell in row)} |" for row in rows)]


def _percent(rate: float) -> str:
    return f"{100 * rate:.1f}%"


def _interval(interval) -> str:
    return f"{100 * interval[0]:.1f}–{100 * interval[1]:.1f}%"


def _number(value, form: str = "+.1f") -> str:
    return "–" if value is None else format(value, form)


def _bounds(interval) -> str:
    if not interval:
        return "–"
    low, high = interval
    return f"{_number(low) if low is not None else 'below'} to " \
           f"{_number(high) if high is not None else 'above'}"


def _sizes(sizes) -> str:
    return ", ".join(str(s) for s in sizes) or "none"


# Plots -------------------------------------------------------------------------------

def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _bar_plot(report: Report, name: str, labels: list[str], results: list[dict],
              title: str) -> str:
    """Rates with their Wilson intervals as bars around the 50% line; returns the file name."""
    plt = _pyplot()
    rates = [r["rate"] for r in results]
    errors = [[max(0.0, r["rate"] - r["interval"][0]) for r in results],
              [max(0.0, r["interval"][1] - r["rate"]) for r in results]]
    fig, ax = plt.subplots(figsize=(max(5, 1.8 * len(results) + 2), 4))
    ax.bar(range(len(results)), rates, yerr=errors, capsize=4, color="tab:blue", alpha=0.8)
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xticks(range(len(results)), labels, fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_ylabel("score (draws half), 95% Wilson")
    ax.set_title(title, fontsize=10)
    return _save(fig, plt, report, name)


def _komi_plot(report: Report, results: list[dict]) -> str:
    """The fair komi against the size: the logistic fit and the board margin, with bars."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    sizes = report.plan.sizes
    for key, label, colour, shift in (("fit", "logistic fit", "tab:orange", -0.1),
                                      ("margin", "median board margin", "tab:green", 0.1)):
        points = [(size + shift, *_estimate(r, key)) for size, r in zip(sizes, results)]
        points = [p for p in points if p[1] is not None]
        if points:
            x, y, low, high = zip(*points)
            ax.errorbar(x, y, yerr=[[v - lo for v, lo in zip(y, low)],
                                    [hi - v for v, hi in zip(y, high)]],
                        fmt="o", capsize=3, color=colour, label=label)
    ax.plot(sizes, [r["default_komi"] for r in results], "k:", label="default komi")
    ax.set_xticks(sizes)
    ax.set_xlabel("board size")
    ax.set_ylabel("fair komi (points), 95% interval")
    ax.set_title(f"{report.plan.game.name}: fair komi for {report.plan.strong}", fontsize=10)
    ax.legend(fontsize=8)
    return _save(fig, plt, report, "komi-by-size.png")


def _estimate(result: dict, key: str) -> tuple:
    """(estimate, low, high) of the fit or the margin; open ends clipped to the range."""
    source = result if key == "fit" else result.get("margin") or {}
    value = source.get("fair_komi")
    if value is None:
        return None, None, None
    low, high = source.get("interval") or (None, None)
    lo_range, hi_range = result["range"]
    low = lo_range if low is None else low
    high = hi_range if high is None else high
    return value, min(low, value), max(high, value)


def _save(fig, plt, report: Report, name: str) -> str:
    fig.tight_layout()
    path = os.path.join(report.plan.out, name)
    fig.savefig(path + ".part.png", dpi=100)
    plt.close(fig)
    os.replace(path + ".part.png", path)
    return name
