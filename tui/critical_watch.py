"""The app's watch on the critical files: a change to SOUL.md, AGENTS.md (`[critical] files`)
while the app runs is a toast and a badge on History at once (core: `ops.alert_watch`)."""
from __future__ import annotations


def start_critical_watch(app):
    """Start watching; the watcher (stop it on exit), or None when it cannot start (said)."""
    from dreamdeck.core.ops.alert_watch import CriticalWatcher
    from dreamdeck.core.ops.alerts import DEFAULT_CRITICAL_FILES

    try:
        from dreamdeck.core.store.settings import load_settings

        files = list(load_settings(app.ws.root).critical.files)
    except Exception:  # a broken dreamdeck.toml is said elsewhere; watch the defaults meanwhile
        files = list(DEFAULT_CRITICAL_FILES)

    def hand_over(fn, *args) -> None:
        try:
            app.call_from_thread(fn, *args)
        except RuntimeError:  # the app is shutting down
            pass

    watcher = CriticalWatcher(app.ws.root, files,
                              on_alerts=lambda alerts: hand_over(announce, app, alerts),
                              on_error=lambda message: hand_over(app.notify, message, title="Critical files",
                                                                 severity="error"))
    try:
        watcher.start()
    except Exception as exc:  # an unreadable baseline: the History screen says more
        app.notify(str(exc) or type(exc).__name__, title="Critical files not watched", severity="error")
        return None
    return watcher


def announce(app, alerts) -> None:
    what = ", ".join(f"{a.path} ({a.kind})" for a in alerts)
    app.notify(f"{what} changed outside dreamdeck. See the diff and accept it on History (5) with A.",
               title="Critical file changed", severity="warning", timeout=15)
    app.refresh_counts()
    for screen in getattr(app, "mode_screens", {}).values():
        if screen.MODE == "history":
            if screen is app.screen:
                screen.reload()
            else:
                screen.mark_stale()
