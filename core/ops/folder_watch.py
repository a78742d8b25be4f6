"""One daemon thread that follows a few folders (never recursively: never the year of streams)
with watchfiles and runs a check when a file it cares about changes. The critical-file alerts
(`ops.alert_watch`) and pinned-topic drift (`ops.drift_watch`) are two checks on it; what each
reports goes to a callback called from the thread (a GUI hands it over to its own).
"""
from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable

import watchfiles


class FolderWatch(ABC):
    """Subclasses give `folders()`, `wanted(change, path)` and `check()`; `on_ready(changes)` may
    add a change seen while the notifier was being set up."""

    thread_name = "dreamdeck-watch"

    def __init__(self, on_error: Callable[[str], None] = lambda message: None, debounce_ms: int = 200):
        self._on_error = on_error
        self._debounce = debounce_ms
        self._stop = threading.Event()
        self.ready = threading.Event()  # set once the notifier is in place (tests wait for it)
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name=self.thread_name, daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    @abstractmethod
    def folders(self) -> list[str]:
        """The folders to follow (none: the watch ends at once)."""

    @abstractmethod
    def wanted(self, change: watchfiles.Change, path: str) -> bool:
        """Does a change to `path` call for a check?"""

    @abstractmethod
    def check(self) -> None:
        """Look again and report what is new (called from the thread)."""

    def on_ready(self, changes: set) -> set:
        return changes

    def _loop(self) -> None:
        folders = self.folders()
        if not folders:
            self.ready.set()
            return
        try:
            for changes in watchfiles.watch(
                *folders, watch_filter=self.wanted, recursive=False, stop_event=self._stop,
                debounce=self._debounce, step=50, rust_timeout=500, yield_on_timeout=True, raise_interrupt=False,
            ):
                if not self.ready.is_set():
                    self.ready.set()
                    changes = self.on_ready(changes)
                if changes:
                    self.check()
        except Exception as exc:  # a folder removed, a baseline that cannot be read: said, not fatal
            if not self._stop.is_set():
                self._on_error(f"{type(exc).__name__}: {exc}")
        finally:
            self.ready.set()
