"""Screen 6, Stream: the live tail of fragments across every day, newest at the bottom.

The table is a VirtualTable over `core.stream_view.StreamView`, which indexes day files by byte
offset (newest days first) and reads only the rows on screen. A citation jump to a far day opens
the view's window at that day; scrolling from there loads the days above and below it, and
following (`F`) goes back to the newest days. New bytes are noticed by a cheap
stat poll every 50 ms; the new lines are indexed in a thread and installed here, so the row count
never changes under the table while it paints. Following keeps the cursor on the newest fragment;
moving up (or `F`) pauses, and the purpose line counts what arrived meanwhile.

`/` filters (a day-by-day search), `p` pins and `f` forgets the selected fragment: see
`stream_curation`. The detail pane sits beside the table on a wide terminal and below it
otherwise, so the body column always gets most of the width.
"""
from __future__ import annotations

import json
from typing import Any

from rich.highlighter import JSONHighlighter
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Static

from dreamdeck.core.formats.terminal_text import terminal_json, terminal_text
from dreamdeck.tui.screens.base import MemoryScreen
from dreamdeck.tui.screens.stream_curation import StreamCuration
from dreamdeck.tui.widgets.panes import ScrollPane
from dreamdeck.tui.widgets.responsive_table import ResponsiveTable
from dreamdeck.tui.widgets.safe_static import SafeStatic
from dreamdeck.tui.widgets.virtual_table import Column, VirtualTable

POLL_SECONDS = 0.05  # a stat per loaded day file: appends show within ~100 ms
LOAD_MARGIN = 3  # rows from either end of the loaded window that trigger loading the next days
OLDER_ROWS = 500  # fragments to load per step when scrolling into the past (or, after a jump, forward)
SIDE_DETAIL = 160  # from this many columns the detail pane sits beside the table, else below it

COLUMNS = [
    Column("date", "date", width=10, sortable=False),
    Column("time", "time", width=8, sortable=False),
    Column("topic", "topic", width=16, sortable=False),
    Column("who", "who", width=10, sortable=False),
    Column("body", "body", width=40, sortable=False),  # ResponsiveTable gives it the room that is left
]


def pretty_json(raw: str) -> Text:
    """The fragment line pretty-printed and highlighted, wrapping long strings (verbatim when not JSON)."""
    try:
        data = json.loads(raw)
    except (ValueError, TypeError):
        return Text(terminal_text(raw))
    # as rich's JSON draws it, with what a terminal would obey in a string written as its escape
    text = JSONHighlighter()(terminal_json(json.dumps(data, indent=2, ensure_ascii=False)))
    text.no_wrap = False
    text.overflow = "fold"
    return text


class StreamScreen(StreamCuration, MemoryScreen):
    MODE = "stream"
    AUTO_FOCUS = "#stream-table"
    PURPOSE = "Fragments as the agent appends them, live."
    HELP = (
        "Every fragment of every day, oldest at the top and the newest at the bottom, as the agent "
        "appends them to `memory/streams/YYYY-MM-DD.jsonl`. Forgotten (tombstoned) fragments are hidden.\n\n"
        "**Following** keeps the cursor on the newest fragment. Moving up pauses it and the top line "
        "counts the fragments that arrived since; `F` (as in `less`; or going back to the bottom with `G`) follows "
        "again. Scrolling to the top loads older days; only the days you look at are read.\n\n"
        "The detail pane shows the selected fragment and its JSON line (`enter` opens it in a window). "
        "A citation opened from the Topics screen (`enter` on it) lands here with that fragment selected "
        "and following paused. A citation far in the past opens the list at its day, without reading the "
        "days between: scrolling up or down loads the days around it, and `F` goes back to today.\n\n"
        "**Filter** (`/`): words match the topic, body, who or source; terms narrow it: `topic:deploys`, "
        "`source:slack`, `who:dana`, `from:2026-05-01`, `to:2026-05-20`, `day:2026-05-21`. Every day is "
        "searched, newest first, one at a time; the matches show as they are found. `esc` returns to the "
        "live tail.\n\n"
        "**Pin** (`p`) makes the selected fragment a vault shard no dream may change. **Forget** (`f`) "
        "hides it for good and removes its citations (undo on the Forgotten screen, `8`)."
    )
    BINDINGS = [
        # `F` as in `less`: `f` forgets, as on Topics (one key per verb on every screen).
        Binding("F", "toggle_follow", "Follow/pause", key_display="F", id="stream.follow"),
        Binding("slash", "filter", "Filter", key_display="/", id="stream.filter"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="stream.clear_filter"),
        Binding("p", "pin", "Pin", id="stream.pin"),
        Binding("f", "forget", "Forget", id="stream.forget"),
        Binding("o", "load_older", "Older days", id="stream.older"),
    ]
    PANES = ("#stream-table", "#detail-scroll")
    DEFAULT_CSS = """
    StreamScreen #detail:focus-within { border-left: solid $accent; }
    StreamScreen.-stacked #detail:focus-within { border-left: none; border-top: solid $accent; }
    StreamScreen #stream-body { height: 1fr; }
    StreamScreen #stream-table { width: 1fr; height: 1fr; }
    StreamScreen #detail { width: 60; border-left: solid $panel-lighten-1; }
    StreamScreen.-stacked #stream-body { layout: vertical; }
    StreamScreen.-stacked #detail { width: 1fr; height: 38%; min-height: 5; border-left: none;
        border-top: solid $panel-lighten-1; }
    StreamScreen #detail-title { text-style: bold; padding: 0 1; height: auto; }
    StreamScreen #detail-meta { color: $text-muted; padding: 0 1; height: auto; }
    StreamScreen #detail-body { padding: 0 1; height: auto; }
    StreamScreen #detail-json { padding: 0 1; height: auto; color: $text-muted; }
    """

    class Scanned(Message):
        def __init__(self, view, plan, error: str | None):
            super().__init__()
            self.view, self.plan, self.error = view, plan, error

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.view = None  # core.stream_view.StreamView, built in the load worker
        self.new_count = 0  # fragments appended while paused
        self.jumped_key: str | None = None  # the fragment a citation jump landed on
        self._scanning = False
        self._again = False
        self._want: dict[str, Any] = {}  # what the next scan should load besides changes
        self._jump: tuple[str, str] | None = None
        self._scan_error: str | None = None
        self._init_curation()

    def compose_body(self) -> ComposeResult:
        yield self.filter_box("filter: words, topic:T source:S who:W from:DAY to:DAY day:DAY")
        with Horizontal(id="stream-body"):
            yield ResponsiveTable(COLUMNS, None, cell_style=self._cell_style, follow=True, id="stream-table",
                                  optional=("who",),
                                  empty_message="No fragments yet. The agent's appends show up here as they land.")
            with Vertical(id="detail"):
                yield SafeStatic("", id="detail-title", markup=False)
                yield SafeStatic("", id="detail-meta", markup=False)
                with ScrollPane(id="detail-scroll"):
                    yield SafeStatic("", id="detail-body", markup=False)
                    yield SafeStatic("", id="detail-json")

    def on_resize(self, event) -> None:
        self.set_class(event.size.width < SIDE_DETAIL, "-stacked")
        self._update_status()

    def check_action(self, action: str, parameters) -> bool | None:
        if action in ("pin", "forget"):
            return self._fragment() is not None
        if action == "clear_filter":
            return self.filtering or self.query_one("#filter").has_class("-visible") if self.is_mounted else True
        return True

    @property
    def table(self) -> VirtualTable:
        return self.query_one("#stream-table", VirtualTable)

    def on_mount(self) -> None:
        from textual.css.query import NoMatches

        super().on_mount()
        self._poll_timer = self.set_interval(POLL_SECONDS, self._poll, pause=True)
        try:
            table = self.table
        except NoMatches:  # premounted as the app shuts down: its children are already gone
            return
        self.watch(table, "follow", self._follow_changed, init=False)
        self.watch(table, "scroll_y", self._scrolled, init=False)
        self._update_status()

    # --- loading -------------------------------------------------------------------------
    def load(self) -> Any:  # thread: list the days, index the newest ones
        from dreamdeck.core.index.stream_view import StreamView

        try:
            return StreamView(self.ws)
        except OSError as exc:  # an unreadable folder: say so; ctrl+r tries again
            return f"cannot read the streams: {exc}"

    def show(self, view) -> None:
        if isinstance(view, str):
            self.notify(view, title="Stream", severity="error")
            return
        self.view = view
        self.table.set_source(view)
        self._update_status()
        if self.is_current:
            self._poll_timer.resume()
        self._take_pending_jump()

    def reload(self) -> None:
        """Memory changed (a dream compacted, a fragment was forgotten): re-read what moved."""
        if self.view is None:
            super().reload()
        elif self.filtering:
            self.refresh_filter()
        else:
            self._kick_scan()

    def on_screen_resume(self) -> None:
        super().on_screen_resume()
        if self.view is not None and not self.filtering:
            self._poll_timer.resume()
            self._kick_scan()
        self._take_pending_jump()

    def on_screen_suspend(self) -> None:
        if hasattr(self, "_poll_timer"):
            self._poll_timer.pause()

    # --- following the files -----------------------------------------------------------------
    def _poll(self) -> None:
        view = self.view
        if view is None or self._scanning or self.filtering:
            return
        try:
            changed = view.changed()
        except OSError:
            changed = True
        if changed:
            self._kick_scan()

    def _kick_scan(self, **want: Any) -> None:
        """Scan in a thread for changes and what `want` asks for (`older_rows`, `newer_rows`: rows
        to add at an end; `at`: a jump's day; `tail`: back to the newest days). A request made
        while a scan runs waits for it; a jump or a return to the tail replaces the other asks."""
        if self.view is None:
            return
        if "at" in want or "tail" in want:
            self._want = {}
        for key in ("older_rows", "newer_rows"):
            if want.get(key):
                self._want[key] = max(self._want.get(key, 0), want[key])
        for key in ("at", "tail"):
            if want.get(key):
                self._want[key] = want[key]
        if self._scanning:
            self._again = True
            return
        self._scanning = True
        asked, self._want = self._want, {}
        self._scan_worker(self.view, asked)

    @work(thread=True, group="stream-scan", exit_on_error=False)
    def _scan_worker(self, view, asked: dict[str, Any]) -> None:
        try:
            plan, error = view.scan(**asked), None
        except Exception as exc:  # an unreadable folder: say so, keep polling
            plan, error = None, f"{type(exc).__name__}: {exc}"
        self.post_message(self.Scanned(view, (plan, asked), error))

    def on_stream_screen_scanned(self, message: StreamScreen.Scanned) -> None:
        message.stop()
        self._scanning = False
        plan, asked = message.plan
        if message.view is not self.view:
            return
        if message.error:
            if message.error != self._scan_error:
                self.notify(message.error, title="Stream", severity="error")
            self._scan_error = message.error
        else:
            self._scan_error = None
            self._install(plan, asked)
        if self._again:
            self._again = False
            self._kick_scan()

    def _install(self, plan, asked: dict[str, Any]) -> None:
        view, table = self.view, self.table
        current = table.current_row() if table.row_count else None
        key = current.get("key") if current else None
        cursor, scroll_y = table.cursor_row, table.scroll_y
        delta = view.apply(plan)
        if delta.stale:  # something else was installed first: read again from there
            self._kick_scan(**asked)
            return
        if self.filtering:  # the table shows search matches: the view is kept current, unseen
            return
        if delta.changed:
            table.refresh_rows()
            if not table.follow:
                if delta.reshaped and key:
                    date, fid = key.split("#", 1)
                    index = view.find(date, fid, load=False)
                    if index is not None and index != table.cursor_row:
                        table.scroll_to(y=index - (cursor - round(scroll_y)), animate=False)
                        table.move_cursor(index)
                elif delta.prepended:
                    table.scroll_to(y=scroll_y + delta.prepended, animate=False)
                    table.move_cursor(cursor + delta.prepended, scroll=False)
                if not asked.get("newer_rows"):  # rows loaded below a jump are not news
                    self.new_count += delta.appended
        if self._jump is not None and ("at" in asked or view.covers(self._jump[0])):
            self._finish_jump()
        self._update_status()

    # --- follow / pause ------------------------------------------------------------------
    def action_toggle_follow(self) -> None:
        self.table.follow = not self.table.follow

    def _follow_changed(self, follow: bool) -> None:
        if follow:
            self.new_count = 0
            if self.view is not None and not self.view.at_tail:  # after a jump: back to today
                self._kick_scan(tail=True)
        self._update_status()

    def action_load_older(self) -> None:
        if self.view is not None and self.view.older_days:
            self._kick_scan(older_rows=OLDER_ROWS)
        else:
            self.notify("every day is loaded")

    def _scrolled(self, scroll_y: float) -> None:
        top = round(scroll_y)
        self._maybe_load_more(top, top + self.table._body_height - 1)  # noqa: SLF001 - the rows on screen

    @on(VirtualTable.RowHighlighted, "#stream-table")
    def _highlighted(self, event: VirtualTable.RowHighlighted) -> None:
        self._show_detail(event.row)
        self._maybe_load_more(event.index, event.index)

    def _maybe_load_more(self, top: int, bottom: int) -> None:
        """Load the days above (below) the window when rows `top`..`bottom` near its top (end)."""
        view = self.view
        if view is None or self._scanning:
            return
        if top < LOAD_MARGIN and view.older_days:
            self._kick_scan(older_rows=OLDER_ROWS)
        elif bottom >= len(view) - LOAD_MARGIN and view.newer_days:
            self._kick_scan(newer_rows=OLDER_ROWS)

    # --- citation jump -------------------------------------------------------------------
    def _take_pending_jump(self) -> None:
        jump = getattr(self.app, "pending_jump", None)
        if not jump or self.view is None:
            return
        self.app.pending_jump = None  # type: ignore[attr-defined]
        self.action_clear_filter()  # a citation lands in the live tail
        self._jump = (str(jump[0]), str(jump[1]))
        self._kick_scan(at=self._jump[0])

    def _finish_jump(self) -> None:
        date, fid = self._jump  # type: ignore[misc]
        self._jump = None
        table = self.table
        index = self.view.find(date, fid, load=False)
        if index is None:
            self.notify(f"{date}#{fid} is not in the stream (forgotten, or collected after dreaming)",
                        title="Citation", severity="warning")
            return
        table.follow = False
        self.jumped_key = f"{date}#{fid}"
        self.new_count = 0
        body = table._body_height  # noqa: SLF001 - center the row when the table knows its height
        table.scroll_to(y=max(0, index - body // 2), animate=False)
        table.move_cursor(index)
        table.refresh_rows()  # repaint with the jump mark
        self._show_detail(table.current_row())
        table.focus()

    # --- rendering -----------------------------------------------------------------------
    def _cell_style(self, key: str, row) -> str | None:
        if row.get("malformed"):
            return "red"
        if self.jumped_key and row.get("key") == self.jumped_key:
            return "bold reverse" if key == "date" else "bold"
        if key == "topic":
            return "cyan"
        if key in ("who", "time"):
            return "dim"
        return None

    def _show_detail(self, row) -> None:
        from textual.css.query import NoMatches

        try:
            title = self.query_one("#detail-title", Static)
            meta = self.query_one("#detail-meta", Static)
            text = self.query_one("#detail-body", Static)
            body = self.query_one("#detail-json", Static)
        except NoMatches:  # a highlight that arrives while the app tears the screen down
            return
        self.refresh_bindings()  # pin and forget apply to fragments only
        if not row:
            for part in (title, meta, text, body):
                part.update("")
            return
        if row.get("malformed"):
            title.update(f"⚠ {row['date']}: malformed line")
            meta.update(str(row.get("body", "")))
            text.update("")
            body.update(Text(str(row.get("raw", ""))))
            return
        jumped = " ← citation" if row.get("key") == self.jumped_key else ""
        who = f" · {row['who']}" if row.get("who") else ""
        title.update(f"{row['date']} {row['time']} · {row['topic']}{who}{jumped}")
        meta.update(f"streams/{row['date']}#{row['id']} · source {row.get('source', '')}")
        text.update(str(row.get("body", "")))
        body.update(pretty_json(str(row["raw"])))

    def _update_status(self) -> None:
        purpose = self.query_one(".purpose", Static)
        if self.filtering or self._search_error:
            purpose.update(self.filter_status())
            return
        # On a narrow terminal the state (following, counts) is worth the room more than the purpose.
        text = Text(self.PURPOSE + "  " if self.size.width >= SIDE_DETAIL - 40 else "")
        table = self.table
        if table.follow:
            text.append("● following", style="bold green")
        else:
            text.append("‖ paused", style="bold yellow")
            if self.new_count:
                text.append(" ")
                text.append(f" {self.new_count} new ", style="bold reverse yellow")
            text.append(" · F to follow")
        view = self.view
        if view is not None:
            text.append(f"  │ {len(view):,} fragments in {view.loaded_days} of {view.total_days} days")
            if view.older_days:
                text.append(f" · ▲ {view.older_days} older (scroll up or o)")
            if view.newer_days:
                text.append(f" · ▼ {view.newer_days} newer (scroll down, F for today)")
            if view.hidden:
                text.append(f" · {view.hidden} forgotten hidden")
        purpose.update(text)

    @on(VirtualTable.RowSelected, "#stream-table")
    def _selected(self, event: VirtualTable.RowSelected) -> None:
        self.open_json(event.row)

    def open_json(self, row) -> None:
        """`enter`: the selected line in a modal, for copying or long bodies."""
        if not row:
            return
        from dreamdeck.tui.modals import TextModal

        raw = str(row.get("raw", ""))
        try:
            text = json.dumps(json.loads(raw), indent=2, ensure_ascii=False)
        except ValueError:
            text = raw
        self.app.push_screen(TextModal(f"{row.get('date')}#{row.get('id')}", text))
