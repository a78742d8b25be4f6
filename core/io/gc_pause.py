"""Pausing Python's cyclic garbage collector through a bulk read.

A bulk read (doctor's first run: a million citation keys in sets, 10,000 shards judged) makes
many container objects, and each allocation threshold crossed starts a collection that walks
every live container, the million-key sets included: 0.4 s of a first run's CPU went there.
Nothing such a read makes is a reference cycle that must be freed before it ends, so the
collector is paused for it and resumed (as it was) when it ends, however it ends.
"""
from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
