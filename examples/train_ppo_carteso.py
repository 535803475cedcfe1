#!/usr/bin/env python3
"""PPO by self-play on Carteso 5x5 through boardlab's vector environment, then a match
against random play.

CleanRL's single-file PPO (``ppo.py``: clipped objective, GAE, minibatch epochs, one
network with a policy and a value head) with two changes for a two-player game:

- **action masks**: the logits of illegal actions are set to a large negative number
  before the softmax (as sb3-contrib's MaskablePPO does), so only legal moves are drawn
  and their probabilities are the ones learned;
- **self-play**: one network plays both sides of every game, each step from the view of
  the seat to act (the observation's header says which). A step's reward is the return
  of the seat that moved (non-zero only on the step that ends the game); in GAE the next
  position's value counts with its sign flipped where the next seat to act is the other
  side (zero-sum), as in AlphaZero-style value targets.

Run it (``pip install 'boardlab[rl]'`` brings PyTorch)::

    python examples/train_ppo_carteso.py --seed 1 --updates 150

It prints the win rate of the untrained and of the trained network against uniformly
random legal moves, over ``--eval-games`` games, half with each side. The parts that do
not need PyTorch (:func:`advantages`, :func:`play_against_random`) are imported by
tests/test_ppo_example.py.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import boardlab.vector

SPEC = "carteso(size=5)"


def advantages(rewards, values, seats, done, last_value, last_seat, gamma=1.0, lam=0.95):
    """GAE for self-play: arrays of shape (steps, envs); ``rewards[t]`` the return of the
    seat that moved at ``t`` (``seats[t]``), ``done[t]`` whether that move ended the game,
    ``values[t]`` the value of the position at ``t`` for ``seats[t]``; ``last_value`` and
    ``last_seat`` those of the positions after the last step (a game that ended there
    is not read). The next position's value counts for the mover with the sign of
    "same side to act" (+1) or "the other side" (-1)."""
    steps = rewards.shape[0]
    adv = np.zeros_like(values)
    following = np.zeros(values.shape[1], dtype=values.dtype)
    for t in reversed(range(steps)):
        if t == steps - 1:
            next_value, next_seat = last_value, last_seat
        else:
            next_value, next_seat = values[t + 1], seats[t + 1]
        live = 1.0 - done[t]
        sign = np.where(next_seat == seats[t], 1.0, -1.0)
        delta = rewards[t] + gamma * sign * next_value * live - values[t]
        following = delta + gamma * lam * sign * live * following
        adv[t] = following
    return adv, adv + values


def play_against_random(policy, games: int, seed: int, spec: str = SPEC) -> dict:
    """``games`` games of ``policy`` (obs, mask -> actions, batched) against uniformly
    random legal moves, the policy playing the first seat in the even games and the second
    in the odd ones: wins, draws, losses and the score rate (a draw counts a half)."""
    env = boardlab.vector.make(spec, games, seed=seed)
    step = env.reset()
    mine = np.arange(games) % 2
    result = np.full(games, np.nan)
    while np.isnan(result).any():
        ours = policy(step.obs, step.mask)
        actions = np.where(step.seat == mine, ours, env.sample())
        step = env.step(actions)
        ended = step.terminated & np.isnan(result)
        result[ended] = step.rewards[ended, mine[ended]]
    wins, draws = int((result > 0).sum()), int((result == 0).sum())
    return {"games": games, "wins": wins, "draws": draws, "losses": games - wins - draws,
            "score": (wins + draws / 2) / games}


def main(argv=None) -> None:
    import torch
    from torch import nn

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--updates", type=int, default=150, help="PPO updates (default 150)")
    parser.add_argument("--envs", type=int, default=64, help="games stepped at once")
    parser.add_argument("--steps", type=int, default=64, help="steps per update per game")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--minibatches", type=int, default=4)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--eval-games", type=int, default=400)
    parser.add_argument("--eval-every", type=int, default=0,
                        help="also play 200 games against random every N updates")
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    env = boardlab.vector.make(SPEC, args.envs, seed=args.seed)
    size, actions = env.observation_size, env.num_actions

    class Agent(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(size, 256), nn.Tanh(),
                                      nn.Linear(256, 256), nn.Tanh())
            self.policy = nn.Linear(256, actions)
            self.value = nn.Linear(256, 1)

        def forward(self, obs, mask):
            hidden = self.body(obs)
            logits = self.policy(hidden).masked_fill(~mask, -1e9)
            return torch.distributions.Categorical(logits=logits), self.value(hidden)[:, 0]

    agent = Agent()
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)

    def greedy(obs, mask):
        with torch.no_grad():
            dist, _ = agent(torch.from_numpy(obs.copy()), torch.from_numpy(mask.copy()))
        return dist.probs.argmax(1).numpy()

    before = play_against_random(greedy, args.eval_games, seed=args.seed + 1)
    print(f"untrained against random: {before}", flush=True)

    T, N = args.steps, args.envs
    buf_obs = torch.zeros((T, N, size))
    buf_mask = torch.zeros((T, N, actions), dtype=torch.bool)
    buf_act = torch.zeros((T, N), dtype=torch.long)
    buf_logp = torch.zeros((T, N))
    values, rewards = np.zeros((T, N), np.float32), np.zeros((T, N), np.float32)
    seats, done = np.zeros((T, N), np.int32), np.zeros((T, N), np.float32)
    valid = np.zeros((T, N), dtype=bool)
    step = env.reset()
    started, games = time.time(), 0
    for update in range(1, args.updates + 1):
        for g in optimizer.param_groups:             # the learning rate falls to 0
            g["lr"] = args.lr * (1.0 - (update - 1) / args.updates)
        for t in range(T):
            obs, mask = torch.from_numpy(step.obs.copy()), torch.from_numpy(step.mask.copy())
            with torch.no_grad():
                dist, value = agent(obs, mask)
                action = dist.sample()
            buf_obs[t], buf_mask[t], buf_act[t] = obs, mask, action
            buf_logp[t], values[t] = dist.log_prob(action), value.numpy()
            seats[t] = step.seat
            valid[t] = ~step.terminated      # a game that ended: this step resets it only
            step = env.step(action.numpy())
            rewards[t] = step.rewards[np.arange(N), step.seat]   # the mover's return
            done[t] = step.terminated
            games += int(step.terminated.sum())
        with torch.no_grad():
            _, last = agent(torch.from_numpy(step.obs.copy()), torch.from_numpy(step.mask.copy()))
        adv, ret = advantages(rewards, values, seats, done, last.numpy(), step.seat.copy())
        b_obs, b_mask = buf_obs.reshape(T * N, size), buf_mask.reshape(T * N, actions)
        b_act, b_logp = buf_act.reshape(-1), buf_logp.reshape(-1)
        b_adv, b_ret = torch.from_numpy(adv.reshape(-1)), torch.from_numpy(ret.reshape(-1))
        order = np.flatnonzero(valid.reshape(-1))      # the decisions (not the resets)
        size_mb = len(order) // args.minibatches + 1
        shuffle = np.random.default_rng(args.seed * 100_003 + update)
        for _ in range(args.epochs):
            shuffle.shuffle(order)
            for start in range(0, len(order), size_mb):
                mb = torch.from_numpy(order[start:start + size_mb])
                dist, value = agent(b_obs[mb], b_mask[mb])
                ratio = (dist.log_prob(b_act[mb]) - b_logp[mb]).exp()
                a = b_adv[mb]
                a = (a - a.mean()) / (a.std() + 1e-8)
                pg = torch.max(-a * ratio, -a * ratio.clamp(0.8, 1.2)).mean()
                loss = pg + 0.5 * ((value - b_ret[mb]) ** 2).mean() - 0.01 * dist.entropy().mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
        if update % 10 == 0 or update == args.updates:
            print(f"update {update}/{args.updates}: {games} self-play games, "
                  f"{time.time() - started:.0f} s", flush=True)
        if args.eval_every and update % args.eval_every == 0:
            print(f"  against random: {play_against_random(greedy, 200, seed=update)}",
                  flush=True)
    after = play_against_random(greedy, args.eval_games, seed=args.seed + 1)
    print(f"trained against random: {after}")


if __name__ == "__main__":
    main()
