"""Watching the critical files (SOUL.md, AGENTS.md, …) while a program runs, so a change to one
is an alert at once rather than whenever someone next runs `dreamdeck alerts`.

The folders that hold the watched files are followed by `ops.folder_watch`.
A change to a watched path runs `check_alerts`; alerts it has not reported before go to
`on_alerts` (called from the thread: a GUI hands them over to its own). Starting reads only;
the first write is the baseline of what the watcher saw at its start, on the first change.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import watchfiles

from dreamdeck.core.ops.alerts import Alert, check_alerts, current_states, ensure_baseline, pending_alerts
from dreamdeck.core.ops.folder_watch import FolderWatch


def _shas(states: dict) -> dict:
    return {rel: state and state.get("sha256") for rel, state in states.items()}


class CriticalWatcher(FolderWatch):
    thread_name = "dreamdeck-critical-files"

    def __init__(self, root: Path | str, files: list[str], on_alerts: Callable[[list[Alert]], None],
                 on_error: Callable[[str], None] = lambda message: None, debounce_ms: int = 200):
        super().__init__(on_error, debounce_ms)
        self.root = Path(root)
        self.files = list(files)
        self._on_alerts = on_alerts
        self._watched = {str((self.root / f).resolve(strict=False)) for f in self.files}
        self._seen: set[tuple[str, str | None]] = set()  # (path, new_sha) already reported

    def start(self) -> None:
        self._start_states = current_states(self.root, self.files)
        self._seen = {(a.path, a.new_sha) for a in pending_alerts(self.root)}
        super().start()

    def folders(self) -> list[str]:
        return sorted({str(Path(p).parent) for p in self._watched if Path(p).parent.is_dir()})

    def wanted(self, _change: watchfiles.Change, path: str) -> bool:
        return path in self._watched

    def on_ready(self, changes: set) -> set:
        if _shas(current_states(self.root, self.files)) != _shas(self._start_states):
            return changes or {(watchfiles.Change.modified, "")}  # changed while it set up
        return changes

    def check(self) -> None:
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
