"""Pinned-topic drift while a program runs: a pinned topic whose `memory/topics/` copy is changed
outside dreamdeck (TypeClaw's own dream, an editor) is reported at once, the way the critical
files are (`ops.alert_watch`). What counts as drift is `ops.protected.pinned_drift`.

`memory/topics/` is followed (not recursively) by `ops.folder_watch`, filtered to the files that
have a vault copy. A check waits for the memory lock, so a change dreamdeck itself is making
(written, then committed under that lock) is seen committed, never as drift.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import watchfiles

from dreamdeck.core.door.lock import memory_lock
from dreamdeck.core.ops.folder_watch import FolderWatch
from dreamdeck.core.ops.protected import PinnedDrift, pinned_drift
from dreamdeck.core.workspace import Workspace


class PinnedDriftWatcher(FolderWatch):
    thread_name = "dreamdeck-pinned-drift"

    def __init__(self, ws: Workspace, on_drift: Callable[[list[PinnedDrift]], None],
                 on_error: Callable[[str], None] = lambda message: None, debounce_ms: int = 200):
        super().__init__(on_error, debounce_ms)
        self.ws = ws
        self._on_drift = on_drift
        self._seen: set[tuple[str, str]] = set()  # (slug, sha of the topic copy) already reported

    def start(self) -> None:
        self._seen = {self._mark(d) for d in pinned_drift(self.ws)}  # known at launch: the badge says them
        super().start()

    def _mark(self, drift: PinnedDrift) -> tuple[str, str]:
        try:
            data = (self.ws.topics_dir / f"{drift.slug}.md").read_bytes()
        except OSError:
            data = b""
        return drift.slug, hashlib.sha256(data).hexdigest()

    def folders(self) -> list[str]:
        return [str(self.ws.topics_dir)] if self.ws.topics_dir.is_dir() else []

    def wanted(self, _change: watchfiles.Change, path: str) -> bool:
        name = Path(path).name
        return name.endswith(".md") and (self.ws.vault_dir / name).is_file()

    def check(self) -> None:
        try:
            with memory_lock(self.ws, timeout=30):
                drifts = pinned_drift(self.ws)
        except Exception as exc:  # git missing, the lock held for long: said once per change
            self._on_error(f"{type(exc).__name__}: {exc}")
            return
        new = [d for d in drifts if self._mark(d) not in self._seen]
        self._seen = {self._mark(d) for d in drifts}  # a drift resolved and back again is new again
        if new:
            self._on_drift(new)
