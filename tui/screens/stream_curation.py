"""What the Stream screen does to fragments besides showing them: `/` filter, pin and forget.

The filter is a search (`core.index.stream_search`) run day by day, newest first, in a thread:
each searched day comes back as a message, so the matches so far and "searched N of M days"
show while it runs, and a new query cancels the old search between two days. While a filter is
shown the table holds its matches (a snapshot); the live tail comes back with `esc`.

Pin and forget act on the selected fragment through the core verbs (`ops.vault.pin_fragment`,
`ops.forget.forget_fragment`); the screen re-reads afterwards like after any action.
"""
from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import work
from textual.message import Message
from textual.worker import get_current_worker

from dreamdeck.tui.widgets.virtual_table import ListRowSource

MAX_MATCHES = 2000  # a filter that matches more is narrowed, not scrolled
DEBOUNCE_SECONDS = 0.2


class SearchProgress(Message):
    def __init__(self, generation: int, text: str, day, done: bool, stopped: bool = False):
        super().__init__()
        self.generation, self.text, self.day, self.done, self.stopped = generation, text, day, done, stopped


class StreamCuration:
    """Mixed into StreamScreen (which provides `table`, `view`, `ws`, `act`, `_update_status`)."""

    filtering = False  # the table shows search matches, not the live tail
    search_done = True
    searched_for = ""  # the text the last finished (or refused) search was for

    def _init_curation(self) -> None:
        self._query = None
        self._search_error: str | None = None
        self._search_generation = 0
        self._days: list = []  # DayMatches, newest first
        self._progress = (0, 0)
        self._stopped = False
        self._follow_before = True
        self._debounce = None

    # --- the filter box ------------------------------------------------------------------
    def action_filter(self) -> None:
        box = self.query_one("#filter")
        box.disabled = False
        box.add_class("-visible")
        box.focus()

    def on_input_changed(self, event) -> None:
        if event.input.id != "filter":
            return
        event.stop()
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(DEBOUNCE_SECONDS, lambda: self._start_search(event.value))

    def on_input_submitted(self, event) -> None:
        if event.input.id == "filter":
            event.stop()
            self.table.focus()

    def action_clear_filter(self) -> None:
        box = self.query_one("#filter")
        if not box.has_class("-visible"):
            return
        box.value = ""
        box.remove_class("-visible")
        box.disabled = True
        self._end_filter()
        self.table.focus()

    # --- searching ---------------------------------------------------------------------------
    def _start_search(self, text: str) -> None:
        from dreamdeck.core.errors import DreamdeckError
        from dreamdeck.core.index.stream_search import parse_query

        self._debounce = None
        self._search_generation += 1
        try:
            query = parse_query(text)
        except DreamdeckError as exc:
            self._search_error, self.searched_for, self.search_done = str(exc), text, True
            self._update_status()
            return
        self._search_error = None
        if query.empty:
            self._end_filter()
            self.searched_for, self.search_done = text, True
            self._update_status()
            return
        if not self.filtering:
            self.filtering = True
            self._follow_before = self.table.follow
            self.table.follow = False
            self._poll_timer.pause()
        self._query, self._days, self._progress, self._stopped = query, [], (0, 0), False
        self.search_done, self.searched_for = False, ""
        self.table.set_source(ListRowSource([]))
        self._update_status()
        self._search_worker(self._search_generation, query, text)

    @work(thread=True, exclusive=True, group="stream-search", exit_on_error=False)
    def _search_worker(self, generation: int, query, text: str) -> None:
        from dreamdeck.core.index.stream_search import search_days

        worker = get_current_worker()
        found = 0
        stopped = False
        for day in search_days(self.ws, query):
            if worker.is_cancelled:
                return
            found += len(day.rows)
            self.post_message(SearchProgress(generation, text, day, done=False))
            if found >= MAX_MATCHES:
                stopped = True
                break
        self.post_message(SearchProgress(generation, text, None, done=True, stopped=stopped))

    def on_search_progress(self, message: SearchProgress) -> None:
        message.stop()
        if message.generation != self._search_generation or not self.filtering:
            return
        if message.day is not None:
            day = message.day
            self._progress = (day.searched, day.total)
            if day.rows:
                self._days.append(day)
                first = not any(len(d.rows) for d in self._days[:-1])
                rows = [row for d in reversed(self._days) for row in d.rows]
                self.table.set_source(ListRowSource(rows), keep_cursor_key=None if first else "key")
                if first:
                    self.table.move_cursor(len(rows) - 1)
        if message.done:
            self._stopped = message.stopped
            self.search_done, self.searched_for = True, message.text
        self._update_status()

    def _end_filter(self) -> None:
        self._search_generation += 1  # a search still running is dropped
        self._query, self._search_error, self._days = None, None, []
        if not self.filtering:
            return
        self.filtering = False
        if self.view is not None:
            self.table.set_source(self.view)
            self.table.follow = self._follow_before
        self._poll_timer.resume()
        self._kick_scan()
        self._update_status()

    def refresh_filter(self) -> None:
        """Memory changed (a forget, a pin, a dream): search again, keeping the cursor's fragment."""
        text = self.query_one("#filter").value
        self._start_search(text)

    def filter_status(self) -> Text:
        text = Text()
        if self._search_error:
            text.append(f"⚠ {self._search_error}", style="bold red")
            return text
        text.append("filter ", style="bold")
        text.append(self._query.describe() if self._query else "", style="bold cyan")
        count = sum(len(d.rows) for d in self._days)
        searched, total = self._progress
        if self.search_done and not count:
            text.append(f"  no matches in {total:,} day{'s' if total != 1 else ''}")
        else:
            text.append(f"  {count:,} match{'es' if count != 1 else ''} · searched {searched:,} of {total:,} days")
        if not self.search_done:
            text.append(" …searching", style="yellow")
        if self._stopped:
            text.append(f" · stopped at {MAX_MATCHES:,}: narrow the filter", style="yellow")
        text.append("  · esc for the live tail", style="dim")
        return text

    # --- pin and forget ------------------------------------------------------------------------
    def _fragment(self) -> dict[str, Any] | None:
        row = self.table.current_row() if self.is_mounted else None
        if not row or row.get("malformed") or not row.get("id"):
            return None
        return dict(row)

    def action_pin(self) -> None:
        row = self._fragment()
        if row is None:
            return
        from dreamdeck.core.ops import vault

        day, fid = row["date"], row["id"]
        self.act("Pin", lambda: vault.pin_fragment(self.ws, day, fid, actor=self.actor),
                 lambda r: r.message + ("" if r.noop else " — see the Vault screen (4)"))

    def action_forget(self) -> None:
        row = self._fragment()
        if row is None:
            return
        from dreamdeck.tui.modals import ReasonModal

        day, fid = row["date"], row["id"]
        from dreamdeck.core.formats.events import fragment_content_hash

        # The row the person chose, by its content: another line sharing the id is not meant.
        content = fragment_content_hash(str(row.get("topic", "")), str(row.get("body", "")))

        def go(reason: str | None) -> None:
            if reason:
                from dreamdeck.core.ops import forget

                self.act("Forget", lambda: forget.forget_fragment(self.ws, day, fid, reason=reason, actor=self.actor,
                                                                  content=content),
                         lambda r: r.message + ("; " + "; ".join(r.warnings) if r.warnings else ""))

        body = " ".join(str(row.get("body", "")).split())
        self.app.push_screen(ReasonModal(
            f"Forget fragment {day}#{fid[:13]}…?",
            detail=f"[{row.get('topic')}] {body[:160]}{'…' if len(body) > 160 else ''}\n\n"
                   "It is hidden everywhere and never comes back (not by a dream, a replay or the same text "
                   "appended again), and every citation of it is removed from topics. Its bytes stay in the "
                   f"stream.\n\nUndo: the Forgotten screen (8), u — or `dreamdeck unforget {day}#{fid}`.",
            placeholder="reason (required)"), go)
