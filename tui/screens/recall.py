"""Screen 9, Recall: what the agent would get back for a question, and why; and the `# Memory`
section its next turn would be given.

Everything here is a preview: `recall(..., record=False)` and `inject(..., record=False)`, so a
person looking never counts as the agent being shown something (the access record, which feeds
decay, stays the agent's). Typing runs the query (one worker at a time, the newest wins).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import ContentSwitcher, Input, Static
from textual.worker import get_current_worker

from dreamdeck.tui.screens.base import MemoryScreen
from dreamdeck.tui.widgets.recall_views import answer_rows, block_detail, prompt_header, questions_text
from dreamdeck.tui.widgets.responsive_table import ResponsiveTable
from dreamdeck.tui.widgets.safe_static import SafeStatic
from dreamdeck.tui.widgets.virtual_table import Column, ListRowSource, VirtualTable

BUDGETS = ("balanced", "lean", "deep", "auto")
COLUMNS = [
    Column("rank", "#", width=2, align="right", sortable=False),
    Column("kind", "kind", width=9, sortable=False),
    Column("score", "score", width=7, align="right", sortable=False),
    Column("status", "status", width=8, sortable=False),
    Column("tier", "tier", width=12, sortable=False),
    Column("shown", "shown", width=5, align="right", sortable=False),
    Column("heading", "what the agent gets", sortable=False),
]
NO_QUESTION = "Press / and ask a question."
NO_ANSWER = "Nothing in memory matches that."
STATUS_STYLE = {"active": "green", "pinned": "magenta", "fading": "yellow", "dormant": "dim"}


def cell_style(key: str, row: Mapping[str, object]) -> str | None:
    if key == "status":
        return STATUS_STYLE.get(str(row.get("status")))
    if key == "kind":
        return "cyan"
    if key in ("rank", "shown"):
        return "dim"
    return None


@dataclass
class RecallView:
    """What one query gives: the blocks, the injection for a turn with that text, the replayable
    questions (shown while the box is empty) and whether the query is saved."""

    query: str
    blocks: list = field(default_factory=list)
    injection: Any = None
    questions: list = field(default_factory=list)
    saved: bool = False
    problem: str | None = None


class RecallScreen(MemoryScreen):
    MODE = "recall"
    AUTO_FOCUS = "#answers-table"  # number keys still switch screens; `/` starts a question
    PURPOSE = "What the agent would get back, and why: / asks a question, n the next prompt."
    HELP = (
        "`/` and type a question (`enter` or `esc` goes back to the list): the list is what `dreamdeck recall` would give the agent, best first, cut to the "
        "budget (`b` cycles lean, balanced, deep, auto; `d` brings back dormant beliefs). Each answer says "
        "why: its BM25 relevance, its decay score and status (active, fading — deprioritized —, dormant, "
        "pinned: the vault never decays), the wording tier and how often the agent was shown it.\n\n"
        "`enter` on an answer opens it: a belief on Topics (a pinned one on Vault), an undreamed "
        "fragment on Stream. `n` switches to the next prompt: the `# Memory` section a turn with this text "
        "would get, exactly as TypeClaw renders it, with its mode (direct or index) and how much of the "
        "injection budget the shards use.\n\n"
        "`s` saves the question (or unsaves it): saved questions are replayed, with the most asked ones, "
        "when you check a reflection's recall impact (`i` on Reflections). Nothing here counts as the agent "
        "being shown something: previews are not written to the access record."
    )
    BINDINGS = [
        Binding("slash", "focus_query", "Question", key_display="/", id="recall.query"),
        Binding("n", "toggle_prompt", "Next prompt", id="recall.prompt"),
        Binding("b", "cycle_budget", "Budget", id="recall.budget"),
        Binding("d", "toggle_dormant", "Dormant", id="recall.dormant"),
        Binding("s", "toggle_saved", "Save question", id="recall.save"),
        Binding("escape", "focus_answers", "Answers", show=False, id="recall.escape"),
    ]
    DEFAULT_CSS = """
    RecallScreen #query { height: 3; margin: 0 0; }
    RecallScreen #recall-status { height: 1; padding: 0 1; color: $text-muted; }
    RecallScreen #recall-switcher { height: 1fr; }
    RecallScreen #answers { height: 1fr; }
    RecallScreen #answers-table { height: 1fr; min-height: 3; }
    RecallScreen #answer-detail { height: 1fr; min-height: 4; border-top: solid $panel-lighten-1; padding: 0 1; }
    RecallScreen #prompt { height: 1fr; padding: 0 1; }
    RecallScreen #prompt-header { height: auto; color: $text-muted; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.budget = "balanced"
        self.include_dormant = False
        self.view: RecallView | None = None

    def compose_body(self) -> ComposeResult:
        yield Input(placeholder="/ to ask what the agent would remember, e.g. which package manager?", id="query")
        yield SafeStatic("", id="recall-status", markup=False)
        with ContentSwitcher(initial="answers", id="recall-switcher"):
            with Vertical(id="answers"):
                yield ResponsiveTable(COLUMNS, ListRowSource([]), cell_style=cell_style, id="answers-table",
                                      empty_message=NO_QUESTION, optional=("tier", "shown"))
                with VerticalScroll(id="answer-detail"):
                    yield SafeStatic("", id="answer-text", markup=False)
            with VerticalScroll(id="prompt"):
                yield SafeStatic("", id="prompt-header", markup=False)
                yield SafeStatic("", id="prompt-text", markup=False)

    @property
    def query_text(self) -> str:
        return self.query_one("#query", Input).value

    # --- data ----------------------------------------------------------------------------
    def reload(self) -> None:
        self._recall_worker(self.query_text if self.is_mounted else "", self.budget, self.include_dormant)

    @on(Input.Changed, "#query")
    def _typed(self, event: Input.Changed) -> None:
        self._recall_worker(event.value, self.budget, self.include_dormant)

    @on(Input.Submitted, "#query")
    def _submitted(self, event: Input.Submitted) -> None:
        self.action_focus_answers()

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def _recall_worker(self, query: str, budget: str, dormant: bool) -> None:
        view = compute_view(self.ws, query, budget, dormant)
        if not get_current_worker().is_cancelled:
            self.post_message(self.Loaded(view))

    def show(self, view: RecallView) -> None:
        if view.query != self.query_text:
            return  # typed on since: the newer query's worker brings its own answer
        self.view = view
        table = self.query_one("#answers-table", VirtualTable)
        table.empty_message = NO_ANSWER if view.query.strip() else NO_QUESTION
        table.set_source(ListRowSource(answer_rows(view.blocks)))
        self._update_status()
        self._show_detail(table.current_row())
        header, text = prompt_header(view.injection), (view.injection.text if view.injection else "")
        self.query_one("#prompt-header", Static).update(header)
        self.query_one("#prompt-text", Static).update(text or "(nothing would be injected this turn)")

    def _update_status(self) -> None:
        view = self.view
        parts = [f"budget {self.budget}", "dormant shown" if self.include_dormant else "dormant hidden"]
        if view is not None and view.query.strip():
            if view.problem:
                parts.insert(0, view.problem)
            else:
                size = sum(b.size for b in view.blocks)
                parts.insert(0, f"{len(view.blocks)} answer{'' if len(view.blocks) == 1 else 's'} · {size:,} bytes")
            parts.append("★ saved" if view.saved else "s saves it")
        self.query_one("#recall-status", Static).update(" · ".join(parts))

    @on(VirtualTable.RowHighlighted, "#answers-table")
    def _highlighted(self, event: VirtualTable.RowHighlighted) -> None:
        self._show_detail(event.row)

    def _show_detail(self, row) -> None:
        view = self.view
        pane = self.query_one("#answer-text", Static)
        if view is None or not view.query.strip():
            pane.update(questions_text(view.questions if view else []))
        elif view.problem:
            pane.update(view.problem)
        elif row is None:
            pane.update("Nothing in memory matches that: a fact only in a pending reflection is not memory yet.")
        else:
            pane.update(block_detail(view.blocks[int(row["rank"]) - 1]))

    # --- actions ---------------------------------------------------------------------------
    def action_focus_query(self) -> None:
        self.query_one("#query", Input).focus()

    def action_focus_answers(self) -> None:
        self.query_one("#answers-table", VirtualTable).focus()

    def action_toggle_prompt(self) -> None:
        switcher = self.query_one("#recall-switcher", ContentSwitcher)
        switcher.current = "prompt" if switcher.current == "answers" else "answers"

    def action_cycle_budget(self) -> None:
        self.budget = BUDGETS[(BUDGETS.index(self.budget) + 1) % len(BUDGETS)]
        self.reload()

    def action_toggle_dormant(self) -> None:
        self.include_dormant = not self.include_dormant
        self.reload()

    def action_toggle_saved(self) -> None:
        from dreamdeck.core.ops.saved_queries import save_query, unsave_query

        query = self.query_text
        if not query.strip():
            self.notify("Type a question first: s saves the question in the box.", title="Save", severity="warning")
            return
        ws, saved = self.ws, bool(self.view and self.view.saved)
        if saved:
            self.act("Unsave", lambda: unsave_query(ws, query, actor="human:tui"), lambda _r: f"no longer replayed: {query!r}")
        else:
            self.act("Save", lambda: save_query(ws, query, actor="human:tui"), lambda _r: f"saved, replayed before approvals: {query!r}")

    @on(VirtualTable.RowSelected, "#answers-table")
    def _open(self, event: VirtualTable.RowSelected) -> None:
        from dreamdeck.tui.widgets.recall_views import open_item

        if self.view is not None and event.row is not None:
            open_item(self.app, self.view.blocks[int(event.row["rank"]) - 1])


def compute_view(ws, query: str, budget: str, dormant: bool) -> RecallView:
    """The answer, the next turn's injection and the questions (thread: core calls only)."""
    from dreamdeck.core.errors import DreamdeckError
    from dreamdeck.core.ops.inject import inject
    from dreamdeck.core.ops.recall import recall
    from dreamdeck.core.ops.recall_impact import replay_queries
    from dreamdeck.core.store.saved_queries import load_saved_queries, normal_query

    view = RecallView(query)
    try:
        if query.strip():
            view.blocks = recall(ws, query, budget=budget, include_dormant=dormant, record=False)
            view.saved = normal_query(query) in {normal_query(q) for q in load_saved_queries(ws)}
        else:
            view.questions = replay_queries(ws)
        view.injection = inject(ws, query, record=False)
    except DreamdeckError as exc:
        view.problem = " ".join(str(exc).split())
    return view



