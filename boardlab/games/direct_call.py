"""A numba kernel's compiled entry point, called without numba's per-call dispatch.

Calling a ``@njit`` function from Python goes through its dispatcher, which types every
argument to pick the compiled version: some 0.2-0.6 µs a call with four arrays, as much as
the work of a small kernel. A state whose arrays keep their types can call the compiled
version for those types directly (:func:`direct`): the same machine code, the same
rules, only the lookup skipped. It must then always pass arguments of exactly those types
(the entry point converts them as it was compiled for, without checking them again).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

_CACHE: dict[tuple, Callable] = {}


def direct(kernel: Any, *example: Any) -> Callable:
    """The compiled entry point of the numba dispatcher ``kernel`` for the types of the
    arguments ``example`` (compiled, or loaded from numba's cache, now; nothing is run);
    ``kernel`` itself where it is not a numba dispatcher (e.g. under NUMBA_DISABLE_JIT)."""
    compile_ = getattr(kernel, "compile", None)
    if compile_ is None:
        return kernel
    from numba import typeof

    signature = tuple(typeof(arg) for arg in example)
    key = (kernel, signature)
    found = _CACHE.get(key)
    if found is None:
        found = _CACHE[key] = compile_(signature)
    return found
