"""The app's watch on pinned topics (core: `ops.drift_watch`): a pinned topic changed outside
dreamdeck while the app runs is a toast and a badge on the Vault tab at once, the way the critical
files are (tui/critical_watch.py); reviewing it is the Vault screen's `r`.
"""
from __future__ import annotations

from dreamdeck.core.ops.drift_watch import PinnedDriftWatcher
from dreamdeck.core.ops.protected import PinnedDrift
from dreamdeck.tui.critical_watch import hand_over, reread, start_watch


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
