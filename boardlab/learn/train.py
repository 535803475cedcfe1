"""``boardlab train``: expert iteration for a policy/value network (docs/learning.md).

A run works in a folder and goes generation by generation:

1. **self-play**: games between copies of the search (:mod:`.selfplay`): generation 0
   with the plain rollout search (``--expert``), later ones with the search guided by
   the network of the generation before (``--player``, PUCT over its priors);
2. **training**: the network (PyTorch, on the GPU when one is present) learns the
   search's visit distributions (cross-entropy) and the games' outcomes (squared error)
   from the samples of the last ``--window`` generations;
3. **export**: the weights go to ``net.npz`` (numpy, read at play time without
   PyTorch) and ``checkpoint.pt`` (to resume); ``log.jsonl`` gets one line a generation.

Run it again with the same folder and it resumes after the last finished generation
(the samples and the optimizer's state are kept). PyTorch is needed only here: ``pip
install boardlab[train]``.
"""
from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..agents.base import make_agent, public_game
from ..core.errors import BoardlabError
from ..core.options import parse_spec, with_options
from ..core.registry import make
from ..nn.features import BoardFeatures
from ..nn.net import FORMAT, Network
from .selfplay import SAMPLE_KEYS, default_workers, generate

#: what the value head learns: the game's outcome for every seat, the search's estimate
#: for the seat that acted, or the mean of the two for that seat
VALUE_TARGETS = ("outcome", "search", "mix")
#: the learning rate along a generation's training: falling to zero along half a cosine,
#: or constant
SCHEDULES = ("cosine", "constant")
#: which positions a generation's network learns from: every searched one, or only the
#: first decision of each team's turn (for ``mcts(evaluator=net,net_at=horizon)``)
POSITIONS = ("all", "turn-starts")


def replace_whole(path: Path, write: Callable[[Path], object]) -> None:
    """``write(tmp)`` a file beside ``path`` (of the same suffix), then put it in
    ``path``'s place: a run killed while writing leaves the file before, never half a new
    one that the next run could not read (it resumes from the file before)."""
    tmp = path.with_name(f".{path.stem}.part{path.suffix}")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _torch():
    try:
        import torch
    except ImportError:
        raise BoardlabError("boardlab train needs PyTorch: pip install 'boardlab[train]' "
                            "(or pip install torch)") from None
    return torch


def build_model(torch, features: BoardFeatures, actions: int, seats: int, channels: int,
                blocks: int, layout: int = FORMAT):
    """The PyTorch twin of :class:`~boardlab.nn.net.Network` (of file format
    ``layout``: 1 with a ReLU after the heads' 1x1 convolutions, 2 without)."""
    head = torch.relu if layout == 1 else (lambda x: x)
    nn = torch.nn
    planes, height, width = features.shape
    padding = "circular" if features.torus else "zeros"

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.convs = nn.ModuleList(
                nn.Conv2d(planes if i == 0 else channels, channels, 3, padding=1,
                          padding_mode=padding) for i in range(blocks))
            self.pconv = nn.Conv2d(channels, 2, 1)
            self.pfc = nn.Linear(2 * height * width, actions)
            self.vconv = nn.Conv2d(channels, 1, 1)
            self.vfc1 = nn.Linear(height * width, 64)
            self.vfc2 = nn.Linear(64, seats)

        def forward(self, x):
            relu = torch.relu
            for i, conv in enumerate(self.convs):
                y = relu(conv(x))
                x = y if i == 0 else relu(y + x)
            p = head(self.pconv(x)).flatten(1)
            v = head(self.vconv(x)).flatten(1)
            return self.pfc(p), torch.tanh(self.vfc2(relu(self.vfc1(v))))

    return Model()


def export_arrays(model) -> dict:
    """The model's weights under the names :class:`Network` reads."""
    w = {k: v.detach().cpu().numpy() for k, v in model.state_dict().items()}
    arrays = {}
    for i in range(len(model.convs)):
        arrays[f"conv{i}.w"], arrays[f"conv{i}.b"] = w[f"convs.{i}.weight"], w[f"convs.{i}.bias"]
    for ours, theirs in (("policy.conv", "pconv"), ("policy.fc", "pfc"), ("value.conv", "vconv"),
                         ("value.fc1", "vfc1"), ("value.fc2", "vfc2")):
        arrays[f"{ours}.w"], arrays[f"{ours}.b"] = w[f"{theirs}.weight"], w[f"{theirs}.bias"]
    return arrays


def to_planes(torch, flat, features: BoardFeatures, scale):
    """Encoder vectors (batch, size) -> the network's planes, as BoardFeatures.encode."""
    batch = flat.shape[0]
    board = flat[:, features.board_cells].reshape(batch, features.board_planes, features.height,
                                             features.width)
    scalars = torch.cat((flat[:, :features.header], flat[:, features.board_cells.stop:]), 1) * scale
    scalars = scalars[:, :, None, None].expand(batch, features.scalars, features.height,
                                               features.width)
    return torch.cat((board, scalars), 1)


def learning_rate(lr: float, schedule: str, step: int, steps: int) -> float:
    """The learning rate of batch ``step`` (from 0) of ``steps``: ``lr`` all along
    (``constant``) or falling from ``lr`` to zero along half a cosine (``cosine``).

    >>> [round(learning_rate(1.0, "cosine", i, 4), 3) for i in range(5)]
    [1.0, 0.854, 0.5, 0.146, 0.0]
    >>> learning_rate(0.002, "constant", 3, 4)
    0.002
    """
    if schedule == "constant":
        return lr
    return lr * 0.5 * (1.0 + math.cos(math.pi * min(step, steps) / max(steps, 1)))


def value_targets(data: dict, value_target: str) -> tuple[np.ndarray, np.ndarray]:
    """(targets, mask), each (samples, seats): what each seat's value learns, and which
    seats' values learn at all.

    ``outcome``: every seat its return at the game's end. ``search``: every seat the
    search's estimate for it (``v``); ``mix``: the mean of the two. Samples made before
    ``v`` was kept have the acting seat's estimate only (``q``): then only that seat's
    value learns (mask 0 for the others), which teaches nothing about the seats that
    were not to act; a game whose side acts several times running (CTOR's turns) then
    gives networks whose values for the two sides barely differ (docs/learning.md).
    """
    outcome = data["z"].astype(np.float32)
    if value_target == "outcome":
        return outcome, np.ones_like(outcome)
    if "v" in data:
        search = data["v"].astype(np.float32)
        target = search if value_target == "search" else (search + outcome) / 2
        return target, np.ones_like(outcome)
    rows, seats = np.arange(len(outcome)), data["seat"].astype(np.int64)
    mover = data["q"] if value_target == "search" else (data["q"] + outcome[rows, seats]) / 2
    mask = np.zeros_like(outcome)
    mask[rows, seats] = 1.0
    target = outcome.copy()
    target[rows, seats] = mover
    return target, mask


def turn_starts(data: dict, game) -> np.ndarray:
    """Which samples are the first decision of their team's turn (bool, per sample): the
    ``start`` self-play keeps, or for samples made before it was kept, those whose team
    is not the one of the sample before (a game's first decision is missed where the
    game before ended with the same team's).

    >>> import boardlab
    >>> turn_starts({"seat": np.array([0, 0, 1, 1, 0])}, boardlab.make("ctor(size=8)")).tolist()
    [True, False, True, False, True]
    """
    if "start" in data:
        return data["start"].astype(bool)
    teams = np.array([game.team_of(int(s)) for s in data["seat"]])
    return np.r_[True, teams[1:] != teams[:-1]] if len(teams) else np.zeros(0, bool)


def _masked_mean(values, mask):
    return (values * mask).sum() / mask.sum().clamp(min=1.0)


class Trainer:
    """One training folder (see the module)."""

    def __init__(self, spec: str, folder: str, channels: int = 32, blocks: int = 4,
                 seed: int = 1, log=print):
        self.torch = torch = _torch()
        self.game = make(spec)
        self.public = public_game(self.game)
        self.spec = self.game.spec
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.log = log
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.features = BoardFeatures(self.public)
        self.checkpoint = self.folder / "checkpoint.pt"
        state = torch.load(self.checkpoint, map_location="cpu") if self.checkpoint.exists() \
            else None
        if state is not None:
            if state["spec"] != self.spec:
                raise BoardlabError(f"{self.folder} trains {state['spec']}, not {self.spec}")
            channels, blocks, seed = state["channels"], state["blocks"], state["seed"]
        # a folder started before format 2 goes on with the layout it began with
        self.layout = state.get("format", 1) if state is not None else FORMAT
        self.channels, self.blocks, self.seed = channels, blocks, seed
        torch.manual_seed(seed)
        self.model = build_model(torch, self.features, self.game.num_actions,
                                 self.game.num_seats, channels, blocks,
                                 self.layout).to(self.device)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=2e-3, weight_decay=1e-4)
        self.generation, self.scale, self.history = 0, None, []
        self.value_target, self.positions = "outcome", "all"
        if state is not None:
            self.model.load_state_dict(state["model"])
            self.optimizer.load_state_dict(state["optimizer"])
            self.generation, self.history = state["generation"], state["history"]
            self.scale = np.array(state["scale"], dtype=np.float32)

    # One generation -------------------------------------------------------------------
    def self_play(self, agent_spec: str, games: int, workers: int, explore: int,
                  seconds: float | None, ray_address: str | None = None,
                  ray_batch: int | None = None) -> dict:
        """Play this generation's games (on ``workers`` processes, or on the Ray cluster
        at ``ray_address``) and save their samples (``data-NNN.npz``) and one line a game
        (``games-NNN.jsonl``: its seed, length, returns and, on Ray, the node that
        played it)."""
        live = sys.stderr.isatty()
        started = time.time()

        def progress(done, total, result):
            rate = done / max(time.time() - started, 1e-9)
            where = f" [node {result['node'][:8]} at {result['node_ip']}]" \
                if "node" in result else ""
            line = (f"generation {self.generation}: self-play {done}/{total} games "
                    f"({rate:.2f}/s, last {result['length']} plies){where}")
            print("\r" + line if live else line, end="" if live else "\n", file=sys.stderr,
                  flush=True)

        deadline = started + seconds if seconds else None
        seed = self.seed * 1_000_003 + self.generation * 100_003
        data = generate(self.spec, agent_spec, games, seed, workers, explore, deadline,
                        progress, ray_address=ray_address, ray_batch=ray_batch)
        if live:
            print(file=sys.stderr)
        nodes = data.get("nodes") or [{}] * len(data["seeds"])
        lines = "".join(json.dumps({"seed": game_seed, **node}) + "\n"
                        for game_seed, node in zip(data["seeds"], nodes))
        replace_whole(self.folder / f"games-{self.generation:03d}.jsonl",
                      lambda tmp: tmp.write_text(lines))
        replace_whole(self.folder / f"data-{self.generation:03d}.npz",
                      lambda tmp: np.savez_compressed(
                          tmp, **{k: data[k] for k in SAMPLE_KEYS if k in data}))
        return data

    def found_data(self) -> dict | None:
        """This generation's self-play samples if an earlier run saved them (it stopped
        while training, or the samples were made elsewhere, e.g. on more cores)."""
        path = self.folder / f"data-{self.generation:03d}.npz"
        if not path.exists():
            return None
        with np.load(path) as data:
            found = {k: data[k] for k in data.files}
        return found | {"games": None, "first_seat_points": None, "mean_length": None}

    def samples(self, window: int, holdout: float) -> tuple[dict, dict]:
        """(training samples, held-out samples): the last ``holdout`` share of each of
        the last ``window`` generations' samples (the last games played) is held out."""
        train, held = [], []
        for g in range(max(0, self.generation - window + 1), self.generation + 1):
            path = self.folder / f"data-{g:03d}.npz"
            if path.exists():
                with np.load(path) as data:
                    part = {k: data[k] for k in data.files}
                cut = len(part["x"]) - int(len(part["x"]) * holdout)
                train.append({k: v[:cut] for k, v in part.items()})
                held.append({k: v[cut:] for k, v in part.items()})
        keys = set(SAMPLE_KEYS).intersection(*(p.keys() for p in train))
        if self.value_target != "outcome" and "q" not in keys:
            raise BoardlabError(f"--value-target {self.value_target} needs the search's "
                                f"values, which samples made before they were recorded "
                                f"lack (in {self.folder}); use --value-target outcome")

        def join(parts):
            joined = {k: np.concatenate([p[k] for p in parts]) for k in keys}
            if self.positions == "turn-starts":
                keep = turn_starts(joined, self.game)
                joined = {k: v[keep] for k, v in joined.items()}
            return joined
        return join(train), join(held)

    def _tensors(self, data: dict, sharpen: float):
        """(inputs, policy targets, value targets, value mask): see
        :func:`value_targets`."""
        torch = self.torch
        pi = data["pi"].astype(np.float64)
        if sharpen != 1.0:                       # visits ** (1 / T), renormalized
            pi = np.power(pi, 1.0 / sharpen)
            pi /= np.maximum(pi.sum(1, keepdims=True), 1e-12)
        target, mask = value_targets(data, self.value_target)

        def tensor(a):
            return torch.tensor(np.ascontiguousarray(a, dtype=np.float32), device=self.device)
        return tensor(data["x"]), tensor(pi), tensor(target), tensor(mask)

    def measure(self, data: dict, sharpen: float) -> dict:
        """On ``data``: the policy's cross-entropy against the (sharpened) targets, how
        often its best legal move is the search's most visited one, the value's squared
        error and how often its sign is the outcome's."""
        torch = self.torch
        if not len(data["x"]):
            return {}
        x, pi, z, mask = self._tensors(data, sharpen)
        scale = torch.tensor(self.scale, device=self.device)
        self.model.eval()
        with torch.no_grad():
            logits, values = self.model(to_planes(torch, x, self.features, scale))
            masked = torch.where(pi > 0, logits, torch.full_like(logits, -1e9))
            right = (torch.sign(values) == torch.sign(z)).float()
            return {"policy": round(-(pi * torch.log_softmax(masked, 1)).sum(1).mean().item(), 4),
                    "top1": round((masked.argmax(1) == pi.argmax(1)).float().mean().item(), 4),
                    "value": round(_masked_mean((values - z) ** 2, mask).item(), 4),
                    "sign": round(_masked_mean(right, mask).item(), 4)}

    def train(self, data: dict, held: dict, epochs: int, sharpen: float = 1.0,
              batch: int = 256, lr: float = 2e-3, schedule: str = "constant",
              augment: bool = False) -> dict:
        """Train ``epochs`` passes over ``data``; the learning rate starts at ``lr`` and,
        with the ``cosine`` schedule, falls to zero along half a cosine by the last batch
        (``constant``, the default: stays at ``lr``). With ``augment`` each sample of a
        batch is replaced by its image under one of the game's symmetries (the identity
        among them), drawn at random each time (:meth:`Game.symmetries`)."""
        torch, features = self.torch, self.features
        if augment:
            need_symmetries(self.public)
            vectors, policies = (torch.tensor(a, device=self.device)
                                 for a in features.symmetry_indices(self.public))
        if self.scale is None:                   # fixed at the first generation
            raw = np.stack([features.raw_scalars(row) for row in data["x"]])
            self.scale = (1.0 / np.maximum(np.abs(raw).max(0), 1.0)).astype(np.float32)
        scale = torch.tensor(self.scale, device=self.device)
        x, pi, z, mask = self._tensors(data, sharpen)
        n = len(x)
        generator = torch.Generator().manual_seed(self.seed * 7919 + self.generation)
        curve, steps, step = [], epochs * -(-n // batch), 0
        for epoch in range(epochs):
            self.model.train()
            order = torch.randperm(n, generator=generator).to(self.device)
            for start in range(0, n, batch):
                for group in self.optimizer.param_groups:
                    group["lr"] = learning_rate(lr, schedule, step, steps)
                step += 1
                index = order[start:start + batch]
                inputs, targets = x[index], pi[index]
                if augment:
                    which = torch.randint(len(vectors), (len(index),),
                                          generator=generator).to(self.device)
                    inputs = torch.gather(inputs, 1, vectors[which])
                    targets = torch.gather(targets, 1, policies[which])
                logits, values = self.model(to_planes(torch, inputs, features, scale))
                policy_loss = -(targets * torch.log_softmax(logits, 1)).sum(1).mean()
                value_loss = _masked_mean((values - z[index]) ** 2, mask[index])
                self.optimizer.zero_grad()
                (policy_loss + value_loss).backward()
                self.optimizer.step()
            point = {"epoch": epoch + 1, "train": self.measure(data, sharpen),
                     "held_out": self.measure(held, sharpen)}
            curve.append(point)
            self.log(json.dumps(point))
        self.model.eval()
        return {"samples": n, "held_out_samples": len(held["x"]), "sharpen": sharpen,
                "lr": lr, "schedule": schedule, "augment": augment,
                "value_target": self.value_target, "learned_from": self.positions,
                "final": curve[-1] if curve else {}}

    def export(self, path: Path, record: dict) -> Path:
        """Write the network as it stands to ``path`` (numpy, read at play time)."""
        meta = {"format": self.layout, "spec": self.public.spec,
                "features": self.features.signature(),
                "channels": self.channels, "blocks": self.blocks,
                "actions": self.game.num_actions, "seats": self.game.num_seats,
                "generation": self.generation + 1, "trained": self.history + [record]}
        replace_whole(path, lambda tmp: Network.save(
            tmp, export_arrays(self.model) | {"scale": self.scale}, meta))
        return path

    def save(self, record: dict) -> Path:
        torch = self.torch
        path = self.export(self.folder / "net.npz", record)
        self.history.append(record)
        self.generation += 1
        state = {"spec": self.spec, "model": self.model.state_dict(),
                 "optimizer": self.optimizer.state_dict(), "generation": self.generation,
                 "history": self.history, "scale": self.scale.tolist(),
                 "channels": self.channels, "blocks": self.blocks, "seed": self.seed,
                 "format": self.layout}
        replace_whole(self.checkpoint, lambda tmp: torch.save(state, tmp))
        with open(self.folder / "log.jsonl", "a") as log:
            log.write(json.dumps(record) + "\n")
        return path


def _played_on(data: dict, ray_address: str | None) -> dict:
    """What the record says of where the games were played: on Ray, the address and
    the games each node played (``games-NNN.jsonl`` has the node of every game)."""
    if ray_address is None:
        return {}
    nodes: dict[str, int] = {}
    for where in data.get("nodes") or []:
        nodes[where["node"]] = nodes.get(where["node"], 0) + 1
    return {"ray": ray_address, "nodes": nodes}


def need_symmetries(game) -> None:
    """Refuse ``--augment`` for a game that declares no symmetries (BoardlabError)."""
    if not game.symmetries():
        raise BoardlabError(f"{game.spec} declares no symmetries: nothing to augment with "
                            f"(leave out --augment)")


#: the gate's players (``--candidates``): the mixed search of docs/learning.md against
#: the plain one, at equal simulations
GATE_AGENT = "mcts(evaluator=net,priors=false,mix=0.5,iterations=200)"
GATE_OPPONENT = "mcts(iterations=200)"


def run(spec: str, folder: str, generations: int, games: int, expert: str, player: str,
        workers: int | None = None, explore: int = 8, epochs: int = 4, window: int = 4,
        seconds: float | None = None, channels: int = 32, blocks: int = 4, seed: int = 1,
        sharpen: float = 0.25, holdout: float = 0.1, value_target: str = "outcome",
        lr: float = 2e-3, schedule: str = "constant", augment: bool = False,
        candidates: int = 1, gate_games: int = 20, gate_agent: str = GATE_AGENT,
        gate_opponent: str = GATE_OPPONENT, positions: str = "all",
        ray_address: str | None = None, ray_batch: int | None = None, log=print) -> Path:
    """Train in ``folder`` until ``generations`` generations are done (see the module).

    ``ray_address``: play the self-play games as Ray tasks on that cluster (the
    arena's Ray runner; ``"local"``: a Ray instance started here with ``workers`` CPUs),
    ``ray_batch`` games a task (None: sized from the games' length).

    ``positions``: ``all`` searched positions, or only ``turn-starts`` (the first decision
    of each team's turn: a network for ``mcts(evaluator=net,net_at=horizon)``).

    With ``candidates`` K above 1, each generation trains K networks on its samples (seeds
    ``seed``, ``seed + 1``, ...: other initial weights at generation 0, another order of
    the batches), plays ``gate_games`` games of ``gate_agent`` with each (its ``net``
    option set to the candidate) against ``gate_opponent``, the same seeds for every
    candidate, and keeps the one that scores most (the first of equals).
    """
    if value_target not in VALUE_TARGETS:
        raise BoardlabError(f"value target {value_target!r}: one of {', '.join(VALUE_TARGETS)}")
    if positions not in POSITIONS:
        raise BoardlabError(f"positions {positions!r}: one of {', '.join(POSITIONS)}")
    if schedule not in SCHEDULES:
        raise BoardlabError(f"schedule {schedule!r}: one of {', '.join(SCHEDULES)}")
    if not 0 < lr <= 1:
        raise BoardlabError(f"learning rate {lr}: above 0 and at most 1")
    if candidates < 1 or gate_games < 1:
        raise BoardlabError(f"candidates and gate games: at least 1 (not {candidates}, "
                            f"{gate_games})")
    if augment:
        need_symmetries(make(spec))
    if candidates > 1:                           # the gate's agents, before hours of work
        if parse_spec(gate_agent)[1].get("evaluator", "").lower() != "net":
            raise BoardlabError(f"the gate's agent {gate_agent!r} does not use the network "
                                f"(it needs evaluator=net)")
        make_agent(gate_opponent, make(spec), 0)
    trainer = Trainer(spec, folder, channels, blocks, seed, log)
    trainer.value_target, trainer.positions = value_target, positions
    workers = workers or default_workers()
    if trainer.generation:
        log(f"resuming {folder}: {trainer.generation} generation(s) done")
    where = f"self-play on the Ray cluster at {ray_address}" if ray_address is not None \
        else f"{workers} self-play worker(s)"
    log(f"training {trainer.spec} on {trainer.device}, {where}")
    path = trainer.folder / "net.npz"
    while trainer.generation < generations:
        started = time.time()
        agent = expert if trainer.generation == 0 else with_options(player, net=path)
        data = trainer.found_data()
        if data is not None:
            log(f"generation {trainer.generation}: its self-play samples are in {folder} "
                f"already ({len(data['x'])} positions): training on them")
        else:
            data = trainer.self_play(agent, games, workers, explore, seconds, ray_address,
                                     ray_batch)
        played = time.time() - started
        samples = trainer.samples(window, holdout)
        gate = {}
        if candidates == 1:
            losses = trainer.train(*samples, epochs, sharpen, lr=lr, schedule=schedule,
                                   augment=augment)
        else:
            trainer, losses, gate = _gate(trainer, samples, candidates, gate_games,
                                          gate_agent, gate_opponent, workers, log,
                                          epochs=epochs, sharpen=sharpen, lr=lr,
                                          schedule=schedule, augment=augment)
        record = {"generation": trainer.generation, "agent": agent, "games": data["games"],
                  "positions": int(len(data["x"])),
                  "mean_length": data["mean_length"] and round(data["mean_length"], 1),
                  "first_seat_points": data["first_seat_points"],
                  "self_play_s": round(played, 1),
                  "train_s": round(time.time() - started - played, 1), **losses, **gate,
                  "device": trainer.device, "workers": workers, "epochs": epochs,
                  **_played_on(data, ray_address),
                  "window": window, "explore": explore, "seed": seed}
        path = trainer.save(record)
        log(json.dumps(record))
    log(f"network: {path}")
    return path


def _gate(first: Trainer, samples, candidates: int, games: int, agent: str, opponent: str,
          workers: int, log, **training):
    """Train ``candidates`` networks on ``samples`` and keep the best in a duel (see
    :func:`run`): (its trainer, its training figures, the gate's record)."""
    from ..arena import duel

    generation, base = first.generation, first.seed
    gate_seed = base * 1_009 + generation * 10_007      # the same games for every candidate
    best, scores = None, []
    for k in range(candidates):
        trainer = first if k == 0 else Trainer(first.spec, str(first.folder), first.channels,
                                               first.blocks, base + k, log)
        trainer.seed, trainer.value_target = base + k, first.value_target
        trainer.positions = first.positions
        log(f"generation {generation}: candidate {k + 1}/{candidates} (seed {base + k})")
        losses = trainer.train(*samples, **training)
        path = trainer.export(first.folder / f"candidate-{generation:03d}-{k + 1}.npz",
                              {"generation": generation, "candidate": k + 1, "seed": base + k,
                               **losses})
        result = duel(first.spec, with_options(agent, net=str(path)), opponent, games,
                      seed=gate_seed, jobs=min(workers, games))
        scores.append({"seed": base + k, "points": result["points"], "games": games,
                       "held_out": losses["final"].get("held_out", {})})
        log(f"generation {generation}: candidate {k + 1} scored {result['points']:g} of "
            f"{games} against {opponent}")
        if best is None or result["points"] > best[0]:
            best = (result["points"], trainer, losses, k)
    points, trainer, losses, k = best
    trainer.seed = base                  # the next generation's candidates: base, base + 1, ...
    log(f"generation {generation}: keeping candidate {k + 1} (seed {base + k}, "
        f"{points:g} of {games})")
    return trainer, losses, {"gate": {"agent": agent, "opponent": opponent, "seed": gate_seed,
                                      "candidates": scores, "kept": k + 1}}
