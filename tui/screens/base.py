"""What every dreamdeck screen shares: the tab bar, a purpose line, help, and the threading rule.

The rule: `load()` runs in a thread worker and returns plain data from core; the result comes
back as a `Loaded` message and `show()` (UI thread) renders it. Mutations go through `act()`,
which runs the core call in a thread and, whatever happens, makes the app re-read core.
"""
from __future__ import annotations

import traceback
from typing import Any, Callable

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static
from textual.worker import Worker, get_current_worker

from dreamdeck.core.errors import DreamdeckError
from dreamdeck.tui.widgets.tab_bar import TABS, TabBar

__all__ = ["TABS", "TabBar", "MemoryScreen", "failure_toast"]

def failure_toast(label: str, exc: BaseException) -> tuple[str, str]:
    """(title, message) for an action that raised, as the command line words it: a DreamdeckError
    is a refusal in its own words, an OSError what the machine said, anything else a bug."""
    if isinstance(exc, DreamdeckError):
        return f"{label}: refused", " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, OSError):
        where = f": {exc.filename}" if exc.filename else ""
        return f"{label}: failed", f"{exc.strerror or exc}{where}"
    return f"{label}: bug in dreamdeck", (f"{type(exc).__name__}: {exc} — this is a bug in dreamdeck, not a refusal. "
                                          "Please report it.")


class MemoryScreen(Screen):
    """Base for the seven screens."""

    MODE = ""
    PURPOSE = ""
    HELP = ""  # markdown: what the screen is for; the key list is generated

    BINDINGS = [
        Binding("question_mark", "help", "Help", key_display="?", id="screen.help"),
        Binding("ctrl+r", "reload", "Reload", show=False, id="screen.reload"),
    ]

    # Selectors of the VirtualTables that `/` narrows (the first one gets focus back); a screen
    # that lists things sets it and yields `self.filter_box(...)` in its body.
    FILTER_TABLES: tuple[str, ...] = ()

    DEFAULT_CSS = """
    MemoryScreen #filter { display: none; height: 3; }
    MemoryScreen #filter.-visible { display: block; }
    MemoryScreen .purpose { height: 1; color: $text-muted; padding: 0 1; background: $boost; }
    MemoryScreen .empty { color: $text-muted; text-style: italic; padding: 1 2; }
    """

    class Loaded(Message):
        def __init__(self, data: Any):
            super().__init__()
            self.data = data

    def compose(self) -> ComposeResult:
        yield TabBar(self.MODE)
        yield Static(self.PURPOSE, classes="purpose")
        yield from self.compose_body()
        yield Footer()

    def compose_body(self) -> ComposeResult:
        yield from ()

    @property
    def ws(self):
        return self.app.ws  # type: ignore[attr-defined]

    # --- loading -------------------------------------------------------------------------
    def on_mount(self) -> None:
        modes = getattr(self.app, "mode_screens", None)
        if modes is not None and self.MODE:
            modes[self.MODE] = self
        self.reload()

    def on_screen_resume(self) -> None:
        if getattr(self, "_stale", False):
            self._stale = False
            self.reload()
        self.query_one(TabBar).refresh_bar()

    def mark_stale(self) -> None:
        self._stale = True

    def action_reload(self) -> None:
        self.reload()

    def reload(self) -> None:
        self._load_worker()

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def _load_worker(self) -> None:
        data = self.load()
        if not get_current_worker().is_cancelled:
            self.post_message(self.Loaded(data))

    def load(self) -> Any:  # runs in a thread: core calls only, no widgets
        return None

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "load" and event.worker.is_finished:
            first_load_finished = getattr(self.app, "first_load_finished", None)
            if first_load_finished is not None:
                first_load_finished()

    def on_memory_screen_loaded(self, message: "MemoryScreen.Loaded") -> None:
        message.stop()
        self.show(message.data)

    def show(self, data: Any) -> None:  # UI thread
        pass

    # --- filtering -----------------------------------------------------------------------
    def filter_box(self, placeholder: str):
        from textual.widgets import Input

        return Input(placeholder=f"{placeholder} — enter to keep, esc to clear", id="filter", disabled=True)

    def filter_visible(self) -> bool:
        boxes = self.query("#filter") if self.is_mounted else []
        return any(box.has_class("-visible") for box in boxes)

    def _filter_tables(self):
        from dreamdeck.tui.widgets.virtual_table import VirtualTable

        return [self.query_one(sel, VirtualTable) for sel in self.FILTER_TABLES]

    def action_filter(self) -> None:
        if not self.FILTER_TABLES:
            return
        box = self.query_one("#filter")
        box.disabled = False
        box.add_class("-visible")
        box.focus()

    def on_input_changed(self, event) -> None:
        if event.input.id == "filter":
            for table in self._filter_tables():
                table.set_filter(event.value)

    def on_input_submitted(self, event) -> None:
        if event.input.id == "filter" and self.FILTER_TABLES:
            self._filter_tables()[0].focus()

    def action_clear_filter(self) -> None:
        if not self.FILTER_TABLES:
            return
        box = self.query_one("#filter")
        box.value = ""
        box.remove_class("-visible")
        box.disabled = True
        tables = self._filter_tables()
        for table in tables:
            table.set_filter("")
        tables[0].focus()

    # --- acting --------------------------------------------------------------------------
    def act(self, label: str, fn: Callable[[], Any], done: Callable[[Any], str | None] | None = None) -> None:
        """Run a core mutation in a thread; toast the outcome; re-read core everywhere."""
        self._act_worker(label, fn, done)

    @work(thread=True, group="act", exit_on_error=False)
    def _act_worker(self, label: str, fn, done) -> None:
        try:
            result = fn()
        except Exception as exc:
            title, message = failure_toast(label, exc)
            if title.endswith("bug in dreamdeck"):
                self.log.error(traceback.format_exc())
            self.app.call_from_thread(self.notify, message, title=title, severity="error", timeout=10)
        else:
            message = done(result) if done else None
            if message:
                self.app.call_from_thread(self.notify, message, title=label)
        self.app.call_from_thread(self.app.memory_changed)  # type: ignore[attr-defined]

    # --- help ----------------------------------------------------------------------------
    def action_help(self) -> None:
        from dreamdeck.tui.modals import HelpModal

        # Every key of an action on one row (`j` `down`), not only the first one met.
        keys_of: dict[tuple[str, str], list[str]] = {}
        for key, active in self.active_bindings.items():
            b = active.binding
            if not b.description:
                continue
            shown = keys_of.setdefault((b.action, b.description), [])
            display = b.key_display or key
            if display not in shown:
                shown.append(display)
        rows = [f"| {' '.join(f'`{k}`' for k in shown)} | {description} |"
                for (_action, description), shown in keys_of.items()]
        keys = "\n".join(["| key | action |", "| --- | --- |", *rows])
        text = f"# {self.MODE.title()}\n\n{self.PURPOSE}\n\n{self.HELP}\n\n## Keys\n\n{keys}\n\n" \
               "Number keys `1`–`9` switch screens, `ctrl+p` opens the command palette, `q` quits."
        self.app.push_screen(HelpModal(text))
