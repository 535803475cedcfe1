#!/usr/bin/env python3
"""An engine that misbehaves on purpose, for the runner's tests.

Usage: bad_engine.py MODE [PIDFILE]. It plays random legal moves until its
first ``go`` and then, depending on MODE:

  crash    exits with code 3           hang       never answers
  garbage  answers "hello there"       illegal    answers "move Zz99"
  child    starts a child process (its pid goes to PIDFILE) and hangs
  silent   never answers the handshake wrong-version  answers "ok 2"
  long     answers with a line of 100 KiB without a newline, then hangs
  late     answers the 3rd go too late (sleeps 3 s)
  orphan   starts a child in a session of its own that keeps the output open
           (its pid goes to PIDFILE), then exits with code 3
"""
import random
import subprocess
import sys
import time

mode = sys.argv[1]
pidfile = sys.argv[2] if len(sys.argv) > 2 else None
rng = random.Random(0)
legal, goes = [], 0


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def misbehave():
    if mode == "crash":
        sys.exit(3)
    if mode == "garbage":
        say("hello there")
    elif mode == "illegal":
        say("move Zz99")
    elif mode == "child":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        with open(pidfile, "w") as handle:
            handle.write(str(child.pid))
        time.sleep(600)
    elif mode == "long":
        sys.stdout.write("x" * 100_000)
        sys.stdout.flush()
        time.sleep(600)
    elif mode == "hang":
        time.sleep(600)
    elif mode == "orphan":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                                 start_new_session=True)
        with open(pidfile, "w") as handle:
            handle.write(str(child.pid))
        sys.exit(3)


for line in sys.stdin:
    command, _, rest = line.rstrip("\n").partition(" ")
    if command == "boardlab":
        if mode == "silent":
            time.sleep(600)
        say("ok 2" if mode == "wrong-version" else "ok 1")
    elif command == "legal":
        legal = rest.split(" | ")
    elif command == "go":
        goes += 1
        if mode == "late" and goes == 3:
            time.sleep(3)
        elif mode not in ("late", "wrong-version", "silent") and goes >= 2:
            misbehave()
        say("move " + rng.choice(legal))
    elif command == "quit":
        break
