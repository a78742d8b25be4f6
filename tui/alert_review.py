"""Accepting critical-file alerts: the diff of each change first, then a confirm.

`review_alerts(screen, paths)` reads the diffs in a thread (`core.ops.alert_diff`), shows them
in `AlertReviewModal`, and only on `y` acknowledges exactly those alerts (the versions shown).
"""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from dreamdeck.tui.widgets.diff_text import diff_text


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


class AlertReviewModal(ModalScreen[bool]):
    """The changes, then `y` accepts them as the new baseline, `n`/`esc` leaves them pending."""

    BINDINGS = [
        Binding("y", "accept", "Accept", id="alerts.accept"),
        Binding("n,escape", "cancel", "Leave pending", id="alerts.cancel"),
    ]
    DEFAULT_CSS = """
    AlertReviewModal { align: center middle; }
    AlertReviewModal > Vertical { width: 100; max-width: 95%; height: auto; max-height: 90%;
        border: thick $error; background: $surface; padding: 0 1; }
    AlertReviewModal .title { text-style: bold; color: $error; }
    AlertReviewModal VerticalScroll { height: auto; max-height: 30; margin: 1 0; }
    AlertReviewModal .hint { color: $text-muted; }
    AlertReviewModal Horizontal { height: auto; align-horizontal: right; }
    AlertReviewModal Button { margin-left: 2; }
    """

    def __init__(self, diffs):
        super().__init__()
        self._diffs = diffs

    def compose(self) -> ComposeResult:
        n = len(self._diffs)
        with Vertical():
            yield Label(f"Accept {n} critical-file change{'s' if n != 1 else ''}?", classes="title")
            with VerticalScroll():
                yield Static(diffs_text(self._diffs), id="alert-diff")
            yield Static("Accepting makes these versions the new baseline (one ACK line each in the audit "
                         "log). If a change was not yours, restore the file instead.", classes="hint")
            with Horizontal():
                yield Button("Leave pending (n)", id="no")
                yield Button("Accept (y)", variant="error", id="yes")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_accept(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)


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
