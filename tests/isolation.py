"""Run a test body in a forked child process with a time limit.

The engines' compiled kernels cannot be interrupted, so an endless loop in them
would otherwise hang the whole run; a fresh process per test also keeps tests
independent of the per-size work space the kernels share.
"""
from __future__ import annotations

import functools
import os
import select
import signal
import tempfile
import time
import traceback

_PROGRESS = {"path": None}


def progress(text):
    """Record what the child is doing (shown with any failure, hang or crash)."""
    if _PROGRESS["path"]:
        with open(_PROGRESS["path"], "w") as f:
            f.write(text)


def isolated(timeout=60.0):
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            fd, path = tempfile.mkstemp(prefix="boardlab-progress-")
            os.close(fd)
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: run the body, send back "OK" or the traceback
                try:
                    os.close(r)
                    _PROGRESS["path"] = path
                    try:
                        fn(*args, **kwargs)
                        message = b"OK"
                    except BaseException:
                        message = traceback.format_exc().encode()
                    with os.fdopen(w, "wb") as pipe:
                        pipe.write(message)
                finally:
                    os._exit(0)
            os.close(w)
            chunks, deadline, timed_out = [], time.monotonic() + timeout, False
            try:
                while True:
                    left = deadline - time.monotonic()
                    if left <= 0 or not select.select([r], [], [], left)[0]:
                        timed_out = True
                        os.kill(pid, signal.SIGKILL)
                        break
                    chunk = os.read(r, 65536)
                    if not chunk:
                        break
                    chunks.append(chunk)
                _, status = os.waitpid(pid, 0)
                with open(path) as f:
                    last = f.read()
            finally:
                os.close(r)
                os.unlink(path)
            message = b"".join(chunks).decode(errors="replace")
            if timed_out:
                raise AssertionError(f"timed out after {timeout:g} s (endless loop in the "
                                     f"engine?); last progress: {last}")
            if message != "OK":
                if not message:
                    raise AssertionError(f"the test process died (status {status}); "
                                         f"last progress: {last}")
                raise AssertionError(f"in the isolated test process (last progress: "
                                     f"{last or '-'}):\n{message}")
        return wrapper
    return decorate
