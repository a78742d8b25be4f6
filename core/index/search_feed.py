"""A change feed over `memory/`: lets a warm search index skip its stamp sweep when nothing changed.

Proving the index fresh costs one stat per source file (10,366 at 10,000 shards). A process that
keeps the index open (`dreamdeck.api.Memory`) can instead follow `memory/` and count the batches
of changes under it (`generation`), all but the access record's (recall appends to it; the index
never reads it). Before trusting "no change", a query passes a *barrier* (`barrier()`): the
generation once every change made before the call has been counted.

On Linux the feed reads its own inotify queue (`io.inotify`): the kernel queues an event inside
the system call that made the change, so draining the queue at the barrier counts every change
made before it, in microseconds when nothing changed. Elsewhere watchfiles follows `memory/` in
a thread, whose events arrive asynchronously: the barrier creates a new file in a folder of its
own that the same notifier follows, and waits until the thread has seen that file (the kernel
queues a watcher's events in order, so every change made before it has been counted; this waits
out watchfiles' 2 ms step twice).

The feed also remembers which paths each generation changed (the last `MAX_PATHS`), so a search
index whose generation moved reads only those files (`SearchIndex.refresh`); it sweeps when they
are not all remembered, when a folder under memory/ was moved, created or removed, or when the
kernel's queue overflowed (`io.inotify` reports those batches as lost).

Whenever the feed cannot vouch (not started, the notifier failed, the barrier not seen within
`BARRIER_TIMEOUT`), `barrier()` returns None and the index sweeps as it would without a feed.
"""
from __future__ import annotations

import itertools
import os
import threading
from collections import deque

from dreamdeck.core.io.inotify import DirWatch
from dreamdeck.core.store.access import access_path
from dreamdeck.core.workspace import Workspace

BARRIER_TIMEOUT = 2.0  # seconds; past it the sweep decides
ADDED = 1  # watchfiles.Change.added
MAX_PATHS = 4096  # changed paths remembered; a refresh after more sweeps
_IDS = itertools.count()


class ChangeFeed:
    """An inotify queue over `ws.memory` (Linux), else one watcher thread over it and a barrier
    folder in the private folder."""

    def __init__(self, ws: Workspace):
        self.memory = os.path.realpath(ws.memory)
        # what recall itself writes and the index never reads: the access record
        self.ignored = {os.path.join(self.memory, os.path.relpath(access_path(ws.memory), ws.memory))}
        self.barriers = str(ws.lock_dir / "feed" / f"{os.getpid()}-{next(_IDS)}")
        self._cond = threading.Condition()
        self._generation = 0
        self._batches: deque[tuple[int, frozenset[str]]] = deque()  # (generation, paths it changed)
        self._remembered = 0  # paths in _batches
        self._paths_from = 1  # the oldest generation whose paths are all in _batches
        self._seen: set[str] = set()
        self._healthy = False
        self._stop = threading.Event()
        self._count = itertools.count()
        self._thread: threading.Thread | None = None
        self._watch: DirWatch | None = None

    def start(self) -> ChangeFeed:
        """Start following (returns at once; `barrier()` answers None until the notifier is ready)."""
        try:
            self._watch = DirWatch(self.memory)
        except OSError:
            pass  # not Linux, no memory/ yet, or no watches left: watchfiles' thread, below
        else:
            self._healthy = True
            return self
        # the notifier `watchfiles.watch` wraps, created here synchronously; imported late (it is
        # slow to import and a fresh `dreamdeck recall` never needs it)
        from watchfiles._rust_notify import RustNotify

        try:
            os.makedirs(self.barriers, exist_ok=True)
            self.barriers = os.path.realpath(self.barriers)
            notify = RustNotify([self.memory, self.barriers], False, False, 50, True, False)
        except (OSError, RuntimeError):
            return self  # no memory/ yet, or no notifier: the sweep decides every time
        self._healthy = True
        self._thread = threading.Thread(target=self._loop, args=(notify,), name="dreamdeck-search-feed", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        with self._cond:
            if self._watch is not None:
                self._watch.close()
                self._watch = None
        if self._thread is not None:
            self._thread.join(2.0)
        with self._cond:
            self._healthy = False
            self._cond.notify_all()
        try:
            for name in os.listdir(self.barriers):
                os.unlink(os.path.join(self.barriers, name))
            os.rmdir(self.barriers)
        except OSError:
            pass

    def _loop(self, notify) -> None:
        prefix = self.barriers + os.sep
        try:
            with notify:
                while not self._stop.is_set():
                    changes = notify.watch(50, 2, 500, self._stop)
                    if isinstance(changes, str):
                        if changes == "timeout":
                            continue
                        break
                    with self._cond:
                        ours = [(c, p) for c, p in changes if p.startswith(prefix)]
                        self._seen.update(p for c, p in ours if c == ADDED)
                        theirs = frozenset(p for _, p in changes if not p.startswith(prefix) and p not in self.ignored)
                        if theirs:
                            self._generation += 1
                            self._remember(theirs)
                        self._cond.notify_all()
        except Exception:  # noqa: BLE001 - any notifier failure only means the sweep decides again
            pass
        finally:
            with self._cond:
                self._healthy = False
                self._cond.notify_all()

    def _remember(self, paths: frozenset[str], lost: bool = False) -> None:
        """Keep the paths of the generation just counted (under the condition's lock); `lost`:
        they are not all that changed (no range holding this generation is named)."""
        if lost:
            self._batches.clear()
            self._remembered = 0
            self._paths_from = self._generation + 1
            return
        self._batches.append((self._generation, paths))
        self._remembered += len(paths)
        while self._remembered > MAX_PATHS and self._batches:
            generation, dropped = self._batches.popleft()
            self._remembered -= len(dropped)
            self._paths_from = generation + 1

    def changed_between(self, since: int, until: int) -> set[str] | None:
        """The absolute paths under memory/ changed after generation `since` up to `until`
        (both from `barrier()`), or None when they are no longer all remembered."""
        with self._cond:
            if since + 1 < self._paths_from:
                return None
            return {p for generation, paths in self._batches if since < generation <= until for p in paths}

    def barrier(self) -> int | None:
        """The generation once every change made before this call has been counted; None when
        the feed cannot say (then sweep)."""
        if not self._healthy:
            return None
        if self._watch is not None:
            return self._drain()
        path = os.path.join(self.barriers, str(next(self._count)))
        try:
            with open(path, "wb"):
                pass
        except OSError:
            return None
        with self._cond:
            seen = self._cond.wait_for(lambda: path in self._seen or not self._healthy, BARRIER_TIMEOUT)
            generation = self._generation if seen and self._healthy else None
            self._seen.discard(path)
        try:
            os.unlink(path)
        except OSError:
            pass
        return generation

    def _drain(self) -> int | None:
        """The inotify barrier: count what the kernel has queued (every change made before now)."""
        with self._cond:
            if self._watch is None:
                return None
            try:
                paths, lost = self._watch.read()
            except OSError:  # memory/ itself went: nothing to vouch for any more
                self._watch.close()
                self._watch, self._healthy = None, False
                return None
            theirs = frozenset(paths - self.ignored)
            if theirs or lost:
                self._generation += 1
                self._remember(theirs, lost)
            return self._generation

    @property
    def running(self) -> bool:
        return self._healthy
