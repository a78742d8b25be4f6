"""The app's watch on pinned topics: a pinned topic whose `memory/topics/` copy is changed outside
dreamdeck while the app runs (TypeClaw's own dream, an editor) is a toast and a badge on the Vault
tab at once, the way the critical files are (tui/critical_watch.py). What counts as drift is
core's rule (`ops.protected.pinned_drift`); reviewing it is the Vault screen's `r`.

One daemon thread follows `memory/topics/` (not recursively) with watchfiles, filtered to the
files that have a vault copy. A check waits for the memory lock, so a change dreamdeck itself is
making (written, then committed under that lock) is seen committed, never as drift.
"""
from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from pathlib import Path

import watchfiles

from dreamdeck.core.door.lock import memory_lock
from dreamdeck.core.ops.protected import PinnedDrift, pinned_drift
from dreamdeck.core.workspace import Workspace
from dreamdeck.tui.critical_watch import hand_over, reread, start_watch


class PinnedDriftWatcher:
    def __init__(self, ws: Workspace, on_drift: Callable[[list[PinnedDrift]], None],
                 on_error: Callable[[str], None] = lambda message: None, debounce_ms: int = 200):
        self.ws = ws
        self._on_drift, self._on_error = on_drift, on_error
        self._debounce = debounce_ms
        self._stop = threading.Event()
        self.ready = threading.Event()  # set once the notifier is in place (tests wait for it)
        self._thread: threading.Thread | None = None
        self._seen: set[tuple[str, str]] = set()  # (slug, sha of the topic copy) already reported

    def start(self) -> None:
        self._seen = {self._mark(d) for d in pinned_drift(self.ws)}  # known at launch: the badge says them
        self._thread = threading.Thread(target=self._loop, name="dreamdeck-pinned-drift", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _mark(self, drift: PinnedDrift) -> tuple[str, str]:
        try:
            data = (self.ws.topics_dir / f"{drift.slug}.md").read_bytes()
        except OSError:
            data = b""
        return drift.slug, hashlib.sha256(data).hexdigest()

    def _is_pinned(self, _change: watchfiles.Change, path: str) -> bool:
        name = Path(path).name
        return name.endswith(".md") and (self.ws.vault_dir / name).is_file()

    def _loop(self) -> None:
        folder = self.ws.topics_dir
        if not folder.is_dir():
            self.ready.set()
            return
        try:
            for changes in watchfiles.watch(
                folder, watch_filter=self._is_pinned, recursive=False, stop_event=self._stop,
                debounce=self._debounce, step=50, rust_timeout=500, yield_on_timeout=True, raise_interrupt=False,
            ):
                self.ready.set()
                if changes:
                    self._check()
        except Exception as exc:  # the folder removed: said, not fatal
            if not self._stop.is_set():
                self._on_error(f"{type(exc).__name__}: {exc}")
        finally:
            self.ready.set()

    def _check(self) -> None:
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


def start_drift_watch(app):
    """Start watching pinned topics; the watcher (stop it on exit), or None when it cannot start (said)."""
    watcher = PinnedDriftWatcher(app.ws, on_drift=lambda drifts: hand_over(app, announce_drift, app, drifts),
                                 on_error=lambda message: hand_over(app, app.notify, message, title="Pinned topics",
                                                                    severity="error"))
    return start_watch(app, watcher, "Pinned topics not watched")


def announce_drift(app, drifts: list[PinnedDrift]) -> None:
    what = ", ".join(f"memory/topics/{d.slug}.md ({d.why})" for d in drifts)
    app.notify(f"{what}: pinned, changed outside dreamdeck. Review it on Vault (4) with r: restore from the vault "
               "or accept.", title="Pinned topic changed", severity="warning", timeout=15)
    reread(app, "vault")
