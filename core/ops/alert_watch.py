"""Watching the critical files (SOUL.md, AGENTS.md, …) while a program runs, so a change to one
is an alert at once rather than whenever someone next runs `dreamdeck alerts`.

One daemon thread follows the folders that hold the watched files (not recursively: never the
year of streams under memory/) with watchfiles, the way the dream watcher follows the streams.
A change to a watched path runs `check_alerts`; alerts it has not reported before go to
`on_alerts` (called from the thread: a GUI hands them over to its own). Starting reads only;
the first write is the baseline of what the watcher saw at its start, on the first change.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import watchfiles

from dreamdeck.core.ops.alerts import Alert, check_alerts, current_states, ensure_baseline, pending_alerts


def _shas(states: dict) -> dict:
    return {rel: state and state.get("sha256") for rel, state in states.items()}


class CriticalWatcher:
    def __init__(self, root: Path | str, files: list[str], on_alerts: Callable[[list[Alert]], None],
                 on_error: Callable[[str], None] = lambda message: None, debounce_ms: int = 200):
        self.root = Path(root)
        self.files = list(files)
        self._on_alerts, self._on_error = on_alerts, on_error
        self._debounce = debounce_ms
        self._stop = threading.Event()
        self.ready = threading.Event()  # set once the notifier is in place (tests wait for it)
        self._thread: threading.Thread | None = None
        self._watched = {str((self.root / f).resolve(strict=False)) for f in self.files}
        self._seen: set[tuple[str, str | None]] = set()  # (path, new_sha) already reported

    def start(self) -> None:
        self._start_states = current_states(self.root, self.files)
        self._seen = {(a.path, a.new_sha) for a in pending_alerts(self.root)}
        self._thread = threading.Thread(target=self._loop, name="dreamdeck-critical-files", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _folders(self) -> list[str]:
        return sorted({str(Path(p).parent) for p in self._watched if Path(p).parent.is_dir()})

    def _is_watched(self, _change: watchfiles.Change, path: str) -> bool:
        return path in self._watched

    def _loop(self) -> None:
        folders = self._folders()
        if not folders:
            self.ready.set()
            return
        try:
            for changes in watchfiles.watch(
                *folders, watch_filter=self._is_watched, recursive=False, stop_event=self._stop,
                debounce=self._debounce, step=50, rust_timeout=500, yield_on_timeout=True, raise_interrupt=False,
            ):
                if not self.ready.is_set():
                    self.ready.set()
                    if _shas(current_states(self.root, self.files)) != _shas(self._start_states):
                        changes = changes or {(watchfiles.Change.modified, "")}  # changed while it set up
                if changes:
                    self._check()
        except Exception as exc:  # a folder removed, a baseline that cannot be read: said, not fatal
            if not self._stop.is_set():
                self._on_error(f"{type(exc).__name__}: {exc}")
        finally:
            self.ready.set()

    def _check(self) -> None:
        try:
            ensure_baseline(self.root, self._start_states)
            alerts = check_alerts(self.root, self.files)
        except Exception as exc:  # BaselineError and OSError: the app says it, the watcher goes on
            self._on_error(str(exc) or type(exc).__name__)
            return
        new = [a for a in alerts if (a.path, a.new_sha) not in self._seen]
        self._seen = {(a.path, a.new_sha) for a in alerts}
        if new:
            self._on_alerts(new)
