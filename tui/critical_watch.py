"""The app's watches on files changed outside dreamdeck while it runs, each a toast and a badge at
once: the critical files (SOUL.md, AGENTS.md, `[critical] files`; core: `ops.alert_watch`) on
History, and pinned topics (tui/drift_watch.py) on Vault. What they share is here: handing a
thread's report to the app, starting a watcher, and re-reading the screen the badge points to."""
from __future__ import annotations


def hand_over(app, fn, *args) -> None:
    """Call `fn(*args)` on the app's thread, from a watcher's."""
    try:
        app.call_from_thread(fn, *args)
    except RuntimeError:  # the app is shutting down
        pass


def start_watch(app, watcher, not_watched: str):
    """Start `watcher`; it (stop it on exit), or None when it cannot start (said as `not_watched`)."""
    try:
        watcher.start()
    except Exception as exc:  # an unreadable baseline or vault: its screen says more
        app.notify(str(exc) or type(exc).__name__, title=not_watched, severity="error")
        return None
    return watcher


def reread(app, mode: str) -> None:
    """The counts, and the screen of `mode`: now if it is shown, when it is next shown if not."""
    app.refresh_counts()
    for screen in getattr(app, "mode_screens", {}).values():
        if screen.MODE == mode:
            if screen is app.screen:
                screen.reload()
            else:
                screen.mark_stale()


def start_critical_watch(app):
    """Start watching the critical files; the watcher, or None when it cannot start (said)."""
    from dreamdeck.core.ops.alert_watch import CriticalWatcher
    from dreamdeck.core.ops.alerts import DEFAULT_CRITICAL_FILES

    try:
        from dreamdeck.core.store.settings import load_settings

        files = list(load_settings(app.ws.root).critical.files)
    except Exception:  # a broken dreamdeck.toml is said elsewhere; watch the defaults meanwhile
        files = list(DEFAULT_CRITICAL_FILES)
    watcher = CriticalWatcher(app.ws.root, files,
                              on_alerts=lambda alerts: hand_over(app, announce, app, alerts),
                              on_error=lambda message: hand_over(app, app.notify, message, title="Critical files",
                                                                 severity="error"))
    return start_watch(app, watcher, "Critical files not watched")


def announce(app, alerts) -> None:
    what = ", ".join(f"{a.path} ({a.kind})" for a in alerts)
    app.notify(f"{what} changed outside dreamdeck. See the diff and accept it on History (5) with A.",
               title="Critical file changed", severity="warning", timeout=15)
    reread(app, "history")
