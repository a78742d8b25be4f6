"""Screen 8, Forgotten: what a person forgot, with who, when and why, and `u` to bring it back.

Two lists: tombstoned fragments (`memory/meta/tombstones.jsonl`: hidden everywhere, never dreamed
again, their citations removed) and archived topics (`memory/archive/`: out of TypeClaw's sight,
their citations still protecting their evidence). Unforget goes through the core verbs after a
confirm that says what it does; a hard-forgotten fragment cannot come back (its bytes are gone).
"""
from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from dreamdeck.tui.screens.base import MemoryScreen
from dreamdeck.tui.widgets.panes import ScrollPane
from dreamdeck.tui.widgets.responsive_table import ResponsiveTable
from dreamdeck.tui.widgets.safe_static import SafeStatic
from dreamdeck.tui.widgets.virtual_table import Column, ListRowSource, VirtualTable

FRAGMENT_COLUMNS = [
    Column("when", "forgotten", width=16, sortable=False),
    Column("actor", "by", width=12, sortable=False),
    Column("date", "day", width=10, sortable=False),
    Column("topic", "topic", width=14, sortable=False),
    Column("reason", "reason", width=20, sortable=False),  # the room that is left
]
TOPIC_COLUMNS = [
    Column("when", "archived", width=16, sortable=False),
    Column("actor", "by", width=12, sortable=False),
    Column("slug", "topic", width=24, sortable=False),
    Column("cites", "cites", width=5, align="right", sortable=False),
    Column("reason", "reason", width=20, sortable=False),
]
EMPTY_FRAGMENTS = "No forgotten fragments. Forget one with x on the Stream screen (6)."
EMPTY_TOPICS = "No archived topics. Forget a topic with f on the Topics screen (1)."


def _when(iso: str) -> str:
    """Local `YYYY-MM-DD HH:MM` (tombstones carry a local offset, audit lines UTC)."""
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone().strftime("%Y-%m-%d %H:%M")
    except (ValueError, AttributeError):
        return iso[:16].replace("T", " ") if iso else "—"


def fragment_row(f) -> dict[str, Any]:
    reason = ("hard · " if f.hard else "") + f.reason
    return {"key": f.key, "kind": "fragment", "date": f.date, "id": f.id, "topic": f.topic or "—",
            "actor": f.actor, "when": _when(f.when), "reason": reason, "hard": f.hard, "body": f.body}


def topic_row(t) -> dict[str, Any]:
    return {"key": t.slug, "kind": "topic", "slug": t.slug, "heading": t.heading, "cites": t.cites,
            "actor": t.actor or "—", "when": _when(t.when), "reason": t.reason or "(no audit line says)",
            "text": t.text}


def cell_style(key: str, row: Mapping[str, object]) -> str | None:
    if key == "reason" and row.get("hard"):
        return "red"
    if key in ("when", "actor"):
        return "dim"
    if key in ("topic", "slug"):
        return "cyan"
    return None


class ForgottenScreen(MemoryScreen):
    MODE = "forgotten"
    AUTO_FOCUS = "#fragments"
    FILTER_TABLES = ("#fragments", "#archived")
    PURPOSE = "What was forgotten, by whom and why. u brings it back (asks first)."
    HELP = (
        "**Forgotten fragments** are tombstoned: hidden on every screen, never shown to a dream again, "
        "refused if the same text is appended again, and their citations were removed from the topics. "
        "A soft forget keeps the bytes in the stream, so `u` brings the fragment back: visible again and "
        "on the undreamed tail, so the next dream reconsiders it (citations are not put back; the dream "
        "decides). A *hard* forget purged the bytes: it cannot be undone.\n\n"
        "**Archived topics** were forgotten on the Topics screen: the shard moved to `memory/archive/`, "
        "where TypeClaw no longer sees it but its citations still protect their fragments. `u` moves it "
        "back to `memory/topics/`, byte for byte.\n\n"
        "`tab` / `shift+tab` go through the panes in the order they are seen: forgotten fragments → "
        "archived topics → the detail. `u` and `enter` act on the row of the list focused last (its divider "
        "is lit), also while the detail pane has focus; `/` filters both lists."
    )
    PANES = ("#fragments", "#archived", "#forgotten-detail")
    BINDINGS = [
        Binding("u", "unforget", "Unforget", id="forgotten.unforget"),
        Binding("enter", "open_row", "Whole text", show=False, id="forgotten.open"),
        Binding("slash", "filter", "Filter", key_display="/", id="forgotten.filter"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="forgotten.clear_filter"),
    ]
    DEFAULT_CSS = """
    ForgottenScreen .list { height: 1fr; min-height: 4; border-top: solid $panel-lighten-1;
        border-title-color: $text; border-title-style: bold; }
    ForgottenScreen .list.-last { border-top: solid $accent-darken-2; }
    ForgottenScreen .list:focus { border-top: solid $accent; }
    ForgottenScreen #fragments { height: 3fr; }
    ForgottenScreen #archived { height: 2fr; }
    ForgottenScreen #forgotten-detail { height: 2fr; min-height: 4; border-top: solid $panel-lighten-1;
        padding: 0 1; }
    ForgottenScreen #forgotten-detail:focus { border-top: solid $accent; }
    ForgottenScreen #forgotten-title { text-style: bold; height: auto; }
    ForgottenScreen #forgotten-text { height: auto; }
    """

    def compose_body(self) -> ComposeResult:
        yield self.filter_box("filter forgotten fragments and archived topics (reason, topic, who, day)")
        with Vertical():
            # the actor is in the detail pane's title: on a narrow terminal the reason gets its room
            yield ResponsiveTable(FRAGMENT_COLUMNS, ListRowSource([]), cell_style=cell_style, id="fragments",
                                  classes="list -last", empty_message=EMPTY_FRAGMENTS, optional=("actor",))
            yield ResponsiveTable(TOPIC_COLUMNS, ListRowSource([]), cell_style=cell_style, id="archived",
                                  classes="list", empty_message=EMPTY_TOPICS, optional=("actor", "cites"))
            with ScrollPane(id="forgotten-detail"):
                yield SafeStatic("", id="forgotten-title", markup=False)
                yield SafeStatic("", id="forgotten-text", markup=False)

    # --- data ----------------------------------------------------------------------------
    def load(self) -> Any:
        from dreamdeck.core.ops.forgotten import archived_topics, forgotten_fragments

        return {"fragments": [fragment_row(f) for f in forgotten_fragments(self.ws)],
                "topics": [topic_row(t) for t in archived_topics(self.ws)]}

    def show(self, data: dict) -> None:
        keys = ("when", "actor", "date", "topic", "slug", "reason", "id", "body", "heading")
        fragments = self.query_one("#fragments", VirtualTable)
        topics = self.query_one("#archived", VirtualTable)
        fragments.set_source(ListRowSource(data["fragments"], filter_keys=keys), keep_cursor_key="key")
        topics.set_source(ListRowSource(data["topics"], filter_keys=keys), keep_cursor_key="key")
        fragments.border_title = f"Forgotten fragments ({len(data['fragments'])})"
        topics.border_title = f"Archived topics ({len(data['topics'])})"
        self._show_detail(self._current())
        self.refresh_bindings()

    # --- selection -------------------------------------------------------------------------
    _last_list = "fragments"  # the list the keys act on: the one focused last

    def _list(self) -> VirtualTable:
        return self.query_one(f"#{self._last_list}", VirtualTable)

    def _current(self) -> Mapping[str, object] | None:
        return self._list().current_row() if self.is_mounted else None

    @on(VirtualTable.RowHighlighted)
    def _highlighted(self, event: VirtualTable.RowHighlighted) -> None:
        if event.table is self._list():
            self._show_detail(event.row)
            self.refresh_bindings()

    def on_descendant_focus(self, event) -> None:
        widget = event.widget
        if isinstance(widget, VirtualTable) and widget.id in ("fragments", "archived"):
            self._last_list = widget.id
            for table in self.query(".list"):
                table.set_class(table is widget, "-last")
            self._show_detail(widget.current_row())
            self.refresh_bindings()

    def _show_detail(self, row: Mapping[str, object] | None) -> None:
        title = self.query_one("#forgotten-title", Static)
        text = self.query_one("#forgotten-text", Static)
        if not row:
            title.update("")
            text.update("")
            return
        if row["kind"] == "fragment":
            title.update(f"streams/{row['key']} · [{row['topic']}] · forgotten {row['when']} by {row['actor']}")
            body = row.get("body")
            text.update(Text(str(body)) if body is not None else
                        Text("(its bytes are gone: hard-forgotten, or collected; it cannot be brought back)",
                             style="italic"))
        else:
            title.update(f"memory/archive/{row['slug']}.md · archived {row['when']} by {row['actor']}")
            text.update(str(row.get("text", "")))

    def check_action(self, action: str, parameters) -> bool | None:
        if action == "unforget":
            row = self._current()
            return row is not None and not row.get("hard")
        return super().check_action(action, parameters)

    # --- actions -------------------------------------------------------------------------------
    @on(VirtualTable.RowSelected)
    def _selected(self, event: VirtualTable.RowSelected) -> None:
        self._open(event.row)

    def action_open_row(self) -> None:
        row = self._current()
        if row is not None:
            self._open(row)

    def _open(self, row: Mapping[str, object]) -> None:
        from dreamdeck.tui.modals import TextModal

        if row["kind"] == "fragment":
            self.app.push_screen(TextModal(f"streams/{row['key']}", str(row.get("body") or "(bytes gone)")))
        else:
            self.app.push_screen(TextModal(f"memory/archive/{row['slug']}.md", str(row.get("text", ""))))

    def action_unforget(self) -> None:
        row = self._current()
        if row is None:
            return
        if row.get("hard"):
            self.notify("hard-forgotten: its bytes were purged, so it cannot be brought back", title="Unforget",
                        severity="warning")
            return
        from dreamdeck.core.ops import forget
        from dreamdeck.tui.modals import ConfirmModal

        if row["kind"] == "fragment":
            day, fid = str(row["date"]), str(row["id"])
            title = f"Unforget streams/{day}#{fid}?"
            body = (f"[{row['topic']}] {row.get('body') or ''}\n\nIt becomes visible again and goes back to the "
                    "undreamed tail: the next dream reconsiders it. The citations its forget removed are not "
                    "put back (the dream decides). Forgotten because: " + str(row["reason"]))

            def run():
                return forget.unforget(self.ws, day, fid, actor=self.actor)
        else:
            slug = str(row["slug"])
            title = f"Unforget topic {slug}?"
            body = (f"memory/archive/{slug}.md moves back to memory/topics/{slug}.md, byte for byte: TypeClaw "
                    f"and dreams see it again.\n\nArchived because: {row['reason']}")

            def run():
                return forget.unforget_topic(self.ws, slug, actor=self.actor)

        def go(ok: bool | None) -> None:
            if ok:
                self.act("Unforget", run, lambda r: r.message + ("; " + "; ".join(r.warnings) if r.warnings else ""))

        self.app.push_screen(ConfirmModal(title, body, confirm_label="Unforget"), go)
