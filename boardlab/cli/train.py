"""``boardlab train``: a policy/value network by self-play (expert iteration)."""
from __future__ import annotations

from ..core.errors import BoardlabError


def cmd_train(args) -> int:
    """Check the numbers, then train (boardlab.learn.train.run)."""
    from ..learn.train import run

    for flag in ("generations", "games", "epochs", "window", "channels", "blocks"):
        if getattr(args, flag) < 1:
            raise BoardlabError(f"--{flag} must be at least 1, not {getattr(args, flag)}")
    if args.workers is not None and args.workers < 1:
        raise BoardlabError(f"--workers must be at least 1, not {args.workers}")
    if args.explore < 0:
        raise BoardlabError(f"--explore must be at least 0, not {args.explore}")
    if not 0 < args.sharpen <= 1:
        raise BoardlabError(f"--sharpen must be above 0 and at most 1, not {args.sharpen}")
    if not 0 <= args.holdout < 1:
        raise BoardlabError(f"--holdout must be at least 0 and below 1, not {args.holdout}")
    for flag in ("candidates", "gate_games"):
        if getattr(args, flag) < 1:
            raise BoardlabError(f"--{flag.replace('_', '-')} must be at least 1, not "
                                f"{getattr(args, flag)}")
    if not 0 < args.lr <= 1:
        raise BoardlabError(f"--lr must be above 0 and at most 1, not {args.lr}")
    if args.ray_batch is not None:
        if args.ray is None:
            raise BoardlabError("--ray-batch is for self-play on Ray: give --ray ADDRESS too")
        if args.ray_batch < 1:
            raise BoardlabError(f"--ray-batch must be at least 1, not {args.ray_batch}")
    run(args.spec, args.out, args.generations, args.games, args.expert, args.player,
        workers=args.workers, explore=args.explore, epochs=args.epochs, window=args.window,
        seconds=args.seconds, channels=args.channels, blocks=args.blocks, seed=args.seed,
        sharpen=args.sharpen, holdout=args.holdout, value_target=args.value_target,
        lr=args.lr, schedule=args.schedule, augment=args.augment, candidates=args.candidates,
        gate_games=args.gate_games, gate_agent=args.gate_agent,
        gate_opponent=args.gate_opponent, positions=args.positions, ray_address=args.ray,
        ray_batch=args.ray_batch, log=lambda line: print(line, flush=True))
    return 0


def add_parsers(sub) -> None:
    """The subcommand train."""
    train = sub.add_parser("train", help="train a policy/value network by self-play "
                           "(expert iteration; needs PyTorch: pip install boardlab[train])",
                           epilog="Runs on the CPU, or a GPU when PyTorch sees one; run it "
                           "again with the same --out to resume. See docs/learning.md.")
    train.add_argument("spec", help="the game, e.g. 'carteso(size=9)'")
    train.add_argument("--out", required=True, help="the training folder (net.npz, "
                       "checkpoint.pt, data-*.npz, log.jsonl)")
    train.add_argument("--generations", type=int, default=3, help="generations in all, "
                       "those already in --out included (default 3)")
    train.add_argument("--games", type=int, default=200, help="self-play games a generation "
                       "(default 200)")
    train.add_argument("--seconds", type=float, help="or stop a generation's self-play "
                       "after this long")
    train.add_argument("--expert", default="mcts(iterations=800)", help="generation 0's "
                       "player (default mcts(iterations=800))")
    train.add_argument("--player", default="mcts(evaluator=net,iterations=200)",
                       help="later generations' player, given the last network as net=... "
                       "(default mcts(evaluator=net,iterations=200))")
    train.add_argument("--explore", type=int, default=8, help="decisions a game whose move "
                       "is drawn by visits (default 8)")
    train.add_argument("--epochs", type=int, default=4, help="passes over the samples a "
                       "generation (default 4)")
    train.add_argument("--window", type=int, default=4, help="generations of samples "
                       "trained on (default 4)")
    train.add_argument("--sharpen", type=float, default=0.25, help="the policy learns the "
                       "search's visits to the power 1/SHARPEN, renormalized (default 0.25; "
                       "1: the visits as they are)")
    train.add_argument("--holdout", type=float, default=0.1, help="share of a generation's "
                       "last games kept out of training to measure it (default 0.1)")
    train.add_argument("--value-target", choices=("outcome", "search", "mix"),
                       default="outcome", help="what the value learns: the game's outcome "
                       "(every seat), the search's estimate (every seat's), or their mean "
                       "(default outcome)")
    train.add_argument("--positions", choices=("all", "turn-starts"), default="all",
                       help="the positions learned from: every searched one, or only the "
                       "first decision of each team's turn, for a network that values the "
                       "horizon of a rollout (mcts(evaluator=net,net_at=horizon); default all)")
    train.add_argument("--lr", type=float, default=2e-3, help="the learning rate at the "
                       "start of each generation's training (AdamW; default 0.002)")
    train.add_argument("--schedule", choices=("constant", "cosine"), default="constant",
                       help="the learning rate along a generation's training: constant, or "
                       "falling to zero along half a cosine by its last batch (default "
                       "constant)")
    train.add_argument("--augment", action="store_true", help="train on the images of "
                       "the samples under the game's symmetries too (turns and flips of the board, "
                       "shifts of a torus, swapped colours: those the game declares), one "
                       "drawn at random "
                       "for each sample each time")
    train.add_argument("--candidates", type=int, default=1, help="networks trained a "
                       "generation, seeds --seed, --seed + 1, ...; the one that scores "
                       "most in the gate's duel is kept (default 1: no gate)")
    train.add_argument("--gate-games", type=int, default=20, help="games of each candidate "
                       "in the gate (default 20)")
    train.add_argument("--gate-agent", default="mcts(evaluator=net,priors=false,mix=0.5,"
                       "iterations=200)", help="the candidate's player in the gate, given "
                       "the candidate as net=... (default: %(default)s)")
    train.add_argument("--gate-opponent", default="mcts(iterations=200)", help="its "
                       "opponent in the gate (default: %(default)s)")
    train.add_argument("--channels", type=int, default=32, help="network width (default 32)")
    train.add_argument("--blocks", type=int, default=4, help="3x3 convolutions (default 4)")
    train.add_argument("--workers", type=int, help="self-play processes (default: one a core)")
    train.add_argument("--ray", metavar="ADDRESS", help="play the self-play games as Ray "
                       "tasks on this cluster ('auto', 'ray://host:10001', or 'local' for a "
                       "Ray instance on this machine); the same games and samples as "
                       "without it (pip install boardlab[ray])")
    train.add_argument("--ray-batch", type=int, metavar="N", help="with --ray: N games in "
                       "one Ray task (default: as many as play in about half a second, "
                       "from the games so far)")
    train.add_argument("--seed", type=int, default=1)
