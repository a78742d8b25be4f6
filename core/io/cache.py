"""The one cache policy: process-wide, stamp-keyed caches that can only ever cost speed.

A cache maps a key (a file's path, or a text itself) to a value computed from it, together with
the *stamp* the value was computed under:
- for a file or folder, `file_stamp`: (size, mtime_ns, ctime_ns, inode). ctime is in it because
  `touch -d`, `os.utime` or `cp -p` can put an mtime back, but every change of a file's bytes or
  inode sets its ctime to now and nothing sets it back;
- for a text, the text is the key and the stamp is `()`: the value depends on nothing else.
An entry is trusted only when the stamp seen now equals the one it was stored with. A file's
entry is stored only once the file has *settled* (`put_if_settled`, git's racy-timestamp rule):
timestamps tick coarsely, so a file changed within `RACY_NS` of the read might change again
without changing its stamp; such a file is simply read again next time.

Every cache is thread safe (the app's workers and the watcher share them), may be bounded
(least recently used out first), and is registered so `clear_all()` empties them all (a fresh
process, for tests and benchmarks). The rule every caller keeps: a wrong or missing entry can
cost time, never correctness. Nothing that decides what evidence is kept may rely on a cache it
has not checked against the stamp.
"""
from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["Stamp", "RACY_NS", "StampCache", "file_stamp", "stamp_of", "settled", "clear_all", "MISS", "clock", "set_clock"]

Stamp = tuple[int, int, int, int]  # size, mtime_ns, ctime_ns, ino
RACY_NS = 2_000_000_000
V = TypeVar("V")


class _Miss:
    def __repr__(self) -> str:
        return "MISS"


MISS = _Miss()  # what `get` returns for no trusted entry (a cached value may itself be None)


_clock: Callable[[], int] = time.time_ns


def clock() -> int:
    """Now, in ns: what a read's start time (`put_if_settled`'s `started_ns`) is measured by."""
    return _clock()


def set_clock(fn: Callable[[], int] | None) -> None:
    """Replace the clock (tests and benchmarks pretend files have settled); None restores it."""
    global _clock
    _clock = fn or time.time_ns


def stamp_of(st: os.stat_result) -> Stamp:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def file_stamp(path: str | os.PathLike[str]) -> Stamp | None:
    """The stamp of `path` now, or None when it is gone."""
    try:
        return stamp_of(os.stat(path))
    except (FileNotFoundError, NotADirectoryError):
        return None


def settled(stamp: Stamp, started_ns: int) -> bool:
    """True when the file last changed more than RACY_NS before `started_ns` (safe to record)."""
    cutoff = started_ns - RACY_NS
    return stamp[1] < cutoff and stamp[2] < cutoff


_REGISTRY: list[StampCache] = []
_REGISTRY_LOCK = threading.Lock()


class StampCache(Generic[V]):
    """key -> (stamp, value), trusted only for the exact stamp; see the module docstring."""

    def __init__(self, name: str, *, max_entries: int | None = None):
        self.name = name
        self.max_entries = max_entries
        self._entries: OrderedDict[Hashable, tuple[Hashable, V]] = OrderedDict()
        self._lock = threading.Lock()
        with _REGISTRY_LOCK:
            _REGISTRY.append(self)

    def get(self, key: Hashable, stamp: Hashable) -> V | _Miss:
        with self._lock:
            hit = self._entries.get(key)
            if hit is None or hit[0] != stamp:
                return MISS
            if self.max_entries is not None:
                self._entries.move_to_end(key)
            return hit[1]

    def put(self, key: Hashable, stamp: Hashable, value: V) -> None:
        """Store without the racy check: for text-keyed memos, and for files that only ever
        change by rename (a new inode, so a new stamp)."""
        with self._lock:
            self._entries[key] = (stamp, value)
            self._entries.move_to_end(key)
            if self.max_entries is not None:
                while len(self._entries) > self.max_entries:
                    self._entries.popitem(last=False)

    def put_if_settled(self, key: Hashable, stamp: Stamp, value: V, started_ns: int) -> bool:
        """Store only if the file had settled when the read began (`started_ns`); True if stored."""
        if not settled(stamp, started_ns):
            return False
        self.put(key, stamp, value)
        return True

    def discard(self, key: Hashable) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


def clear_all() -> None:
    """Empty every cache of the process: what a fresh process starts with."""
    with _REGISTRY_LOCK:
        caches = list(_REGISTRY)
    for cache in caches:
        cache.clear()
