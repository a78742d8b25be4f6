"""Accepting critical-file alerts: the diff of each change first, then a confirm.

`review_alerts(screen, paths)` reads the diffs in a thread (`core.ops.alert_diff`), shows them
in `AlertReviewModal`, and only on `y` acknowledges exactly those alerts (the versions shown).
"""
from __future__ import annotations

from rich.text import Text

from dreamdeck.tui.modals import ConfirmModal
from dreamdeck.tui.widgets.diff_text import Gutter, diff_text


def diffs_text(diffs) -> Text:
    out = Text()
    for d in diffs:
        a = d.alert
        out.append(f"⚠ {a.path} {a.kind}", style="bold red")
        out.append(f"   detected {a.detected}\n", style="dim")
        for note in d.notes:
            out.append(f"  {note}\n", style="yellow")
        if d.diff:
            out.append_text(diff_text(d.diff))
        elif d.before == d.after:
            out.append("  (no difference in text)\n", style="dim")
        else:
            out.append(f"  accepted sha256 {(a.old_sha or 'absent')[:16]} → now {(a.new_sha or 'absent')[:16]}\n",
                       style="dim")
        out.append("\n")
    return out


class AlertReviewModal(ConfirmModal):
    """The changes, then `y` accepts them as the new baseline, `n`/`esc` leaves them pending."""

    def __init__(self, diffs):
        n = len(diffs)
        super().__init__(
            f"Accept {n} critical-file change{'s' if n != 1 else ''}?", Gutter(diffs_text(diffs)), "Accept",
            hint="Accepting makes these versions the new baseline (one ACK line each in the audit log). If a "
                 "change was not yours, restore the file instead.",
            cancel_label="Leave pending", tone="error", wide=True, body_id="alert-diff")


def review_alerts(screen, paths: list[str]) -> None:
    """From a MemoryScreen: show the diffs of `paths`' alerts, acknowledge them on confirm."""
    from dreamdeck.core.ops.alert_diff import alert_diffs

    def read() -> None:
        try:
            diffs, error = alert_diffs(screen.ws.root, paths), None
        except Exception as exc:  # a baseline that cannot be read, git missing: said in one line
            diffs, error = [], str(exc) or type(exc).__name__
        screen.app.call_from_thread(_show, screen, diffs, error)

    screen.run_worker(read, thread=True, group="alert-review", exclusive=True, exit_on_error=False)


def _show(screen, diffs, error: str | None) -> None:
    if error:
        screen.notify(error, title="Alerts", severity="error", timeout=10)
        return
    if not diffs:
        screen.notify("nothing left to accept", title="Alerts")
        return
    paths = [d.alert.path for d in diffs]

    def go(ok: bool | None) -> None:
        if ok:
            from dreamdeck.core.ops.alerts import acknowledge

            screen.act("Accept alerts", lambda: acknowledge(screen.ws.root, paths, actor=screen.actor),
                       lambda done: f"accepted {', '.join(a.path for a in done)} as the new baseline" if done
                       else "nothing left to accept")

    screen.app.push_screen(AlertReviewModal(diffs), go)
