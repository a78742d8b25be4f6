"""A folder without git: the app says so once per folder and offers to start the history.

Without a repository nothing dreamdeck applies is committed: no history, no rollback. The offer
runs `core.git.init.start_history` (git init and one commit of memory/ as it is).
"""
from __future__ import annotations


def offer_git_init(app) -> None:
    from dreamdeck.core.git.init import NO_HISTORY, has_history
    from dreamdeck.core.io.once import first_time

    root = app.ws.root
    if has_history(root) or not first_time("no-history", str(root.resolve())):
        return
    from dreamdeck.tui.modals import ConfirmModal

    def go(ok: bool | None) -> None:
        if ok:
            app.run_worker(lambda: _start(app), thread=True, group="git-init", exit_on_error=False)
        else:
            app.notify("History stays off: start it any time with `dreamdeck init`.", title="No git history")

    app.push_screen(ConfirmModal(
        "Start a git history here?",
        NO_HISTORY.format(root=root) + ".\n\nYes runs `git init` in this folder and commits memory/ as it is now, "
        "so every later change is a commit you can see on History (5) and roll back. Only .git is created "
        "outside memory/. No leaves it as it is (`dreamdeck init` does the same later).",
        confirm_label="git init"), go)


def _start(app) -> None:
    from dreamdeck.core.git.init import start_history
    from dreamdeck.tui.screens.base import failure_toast

    try:
        sha = start_history(app.ws.root, actor=app.actor)
    except Exception as exc:
        title, message = failure_toast("git init", exc)
        app.call_from_thread(app.notify, message, title=title, severity="error", timeout=10)
        return
    app.call_from_thread(app.notify, "memory/ committed as " + sha[:10] if sha else "git history started",
                         title="git init")
    app.call_from_thread(app.memory_changed)
