"""The recall impact of a reflection, over the Reflections screen (`i`): which answers the
agent gets would change if the chosen hunks were approved (`core.ops.recall_impact`).

The hunks previewed are the ones approved so far; with none approved yet, every hunk that is
neither rejected nor in conflict (what `e` would start from). Nothing is written.
"""
from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, Static

from dreamdeck.tui.modals import DeckModal
from dreamdeck.tui.screens.base import failure_toast
from dreamdeck.tui.widgets.safe_static import SafeStatic

CHANGE_STYLE = {"entered": "green", "left": "red", "moved": "yellow", "reworded": "cyan"}


def previewed_hunks(hunks: list, decisions: dict[str, str]) -> list[str] | None:
    """The hunk ids to preview (None: the whole reflection): approved ones, else every hunk
    neither rejected nor in conflict."""
    approved = [h.id for h in hunks if decisions.get(h.id) == "approve"]
    chosen = approved or [h.id for h in hunks if decisions.get(h.id) != "reject" and not h.conflict]
    return None if len(chosen) == len(hunks) else chosen


def impact_text(impact) -> Text:
    text = Text()
    text.append(f"{len(impact.changed)} of {len(impact.queries)} replayed questions change", style="bold")
    text.append(f" · writes {', '.join(impact.paths) or 'nothing'}\n\n", style="dim")
    if not impact.queries:
        text.append("No questions to replay yet: save one on the Recall screen (9, then s), or let the agent "
                    "recall (`dreamdeck recall`): its most asked questions are replayed here.\n")
    for q in impact.queries:
        r = q.replay
        mark = "★ saved" if r.source == "saved" else f"asked {r.asked}×"
        text.append(f"{r.query}", style="bold" if q.changes else "dim")
        text.append(f"  ({mark})", style="dim")
        text.append("\n" if q.changes else "  — unchanged\n", style="dim")
        for c in q.changes:
            text.append(f"  {c.mark} {c.change:<8} ", style=CHANGE_STYLE[c.change])
            text.append(f"{c.item}  ", style="cyan")
            text.append(f"{c.heading}  ")
            text.append(f"({c.where})\n", style="dim")
    return text


class ImpactModal(DeckModal[None]):
    """What approving `hunks` of `rid` changes in recall (None: the whole reflection)."""

    BINDINGS = [Binding("escape,q,i", "close", "Close", id="impact.close")]
    DEFAULT_CSS = """
    ImpactModal { align: center middle; }
    ImpactModal > Vertical { width: 100; max-width: 95%; height: 80%; border: thick $primary;
        background: $surface; padding: 0 1; }
    ImpactModal #impact-title { text-style: bold; }
    """

    def __init__(self, ws, rid: str, hunks: list[str] | None):
        super().__init__()
        self.ws, self.rid, self.hunks = ws, rid, hunks

    def compose(self) -> ComposeResult:
        chosen = "all hunks" if self.hunks is None else f"hunks {', '.join(self.hunks)}" if self.hunks else "no hunks"
        with Vertical():
            yield Label(f"Recall impact of {self.rid} ({chosen})", id="impact-title")
            with VerticalScroll():
                yield SafeStatic("replaying questions…", id="impact-text", markup=False)

    def on_mount(self) -> None:
        self._impact_worker()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _impact_worker(self) -> None:
        from dreamdeck.core.ops.recall_impact import recall_impact

        try:
            shown: Text | str = impact_text(recall_impact(self.ws, self.rid, self.hunks))
        except Exception as exc:
            title, message = failure_toast("Recall impact", exc)
            shown = f"{title}: {message}"
        self.app.call_from_thread(self._show, shown)

    def _show(self, shown) -> None:
        if self.is_attached:
            self.query_one("#impact-text", Static).update(shown)

    def action_close(self) -> None:
        self.dismiss(None)
