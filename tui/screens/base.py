"""What every dreamdeck screen shares: the tab bar, a purpose line, help, and the threading rule.

The rule: `load()` runs in a thread worker and returns plain data from core; the result comes
back as a `Loaded` message and `show()` (UI thread) renders it. Mutations go through `act()`,
which runs the core call in a thread and, whatever happens, makes the app re-read core.
"""
from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.worker import Worker, get_current_worker

from dreamdeck.core.errors import DreamdeckError
from dreamdeck.tui.widgets.footer import DeckFooter
from dreamdeck.tui.widgets.safe_static import PurposeLine
from dreamdeck.tui.widgets.tab_bar import LABELS, TABS, TabBar

__all__ = ["TABS", "TabBar", "MemoryScreen", "failure_toast"]

# Movements whose two directions are one line of the help: action -> (row, what it says, which
# side of the "/" its keys go on), so the keys read in the order the words do ("↑ k / ↓ j  Up / down").
PAIRED = {
    "cursor_up": ("move", "Up / down", 0), "cursor_down": ("move", "Up / down", 1),
    "scroll_up": ("move", "Up / down", 0), "scroll_down": ("move", "Up / down", 1),
    "cursor_top": ("ends", "First / last", 0), "cursor_bottom": ("ends", "First / last", 1),
    "first": ("ends", "First / last", 0), "last": ("ends", "First / last", 1),
    "scroll_home": ("ends", "First / last", 0), "scroll_end": ("ends", "First / last", 1),
    "first_hunk": ("ends", "First / last", 0), "last_hunk": ("ends", "First / last", 1),
    "page_up": ("page", "Page up / down", 0), "page_down": ("page", "Page up / down", 1),
    "half_page_down": ("half", "Half a page down / up", 0), "half_page_up": ("half", "Half a page down / up", 1),
    "column_left": ("column", "Column left / right", 0), "column_right": ("column", "Column left / right", 1),
    "next_pane": ("pane", "Next / previous pane", 0),  # next_pane(-1) is the other side
    "next_hunk": ("hunk", "Next / previous hunk", 0), "prev_hunk": ("hunk", "Next / previous hunk", 1),
    "next_reflection": ("reflection", "Next / previous reflection", 0),
}


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
    premounted = False  # built by the app in the background, before anyone asked for it
    HELP = ""  # markdown: what the screen is for; the key list is generated

    BINDINGS = [
        Binding("question_mark", "help", "Help", key_display="?", id="screen.help"),
        Binding("ctrl+r", "reload", "Reload", show=False, id="screen.reload"),
        Binding("tab", "next_pane(1)", "Next pane", show=False, id="screen.next_pane"),
        Binding("shift+tab", "next_pane(-1)", "Previous pane", show=False, id="screen.previous_pane"),
    ]

    # Selectors of the panes `tab` and `shift+tab` go through, in the order they are seen on the
    # screen (left to right, top to bottom); the filter box comes first while it is open. A pane
    # that is hidden or cannot take focus is skipped.
    PANES: tuple[str, ...] = ()

    # Selectors of the VirtualTables that `/` narrows (the first one gets focus back); a screen
    # that lists things sets it and yields `self.filter_box(...)` in its body.
    FILTER_TABLES: tuple[str, ...] = ()

    DEFAULT_CSS = """
    MemoryScreen #filter { display: none; height: 3; }
    MemoryScreen #filter.-visible { display: block; }
    MemoryScreen .purpose { height: 1; color: $text-muted; padding: 0 1; background: $boost;
        text-wrap: nowrap; text-overflow: ellipsis; }
    MemoryScreen .empty { color: $text-muted; text-style: italic; padding: 1 2; }
    """

    class Loaded(Message):
        def __init__(self, data: Any):
            super().__init__()
            self.data = data

    def compose(self) -> ComposeResult:
        yield TabBar(self.MODE)
        yield PurposeLine(self.PURPOSE, classes="purpose", markup=False)
        yield from self.compose_body()
        yield DeckFooter()

    def compose_body(self) -> ComposeResult:
        yield from ()

    @property
    def ws(self):
        return self.app.ws  # type: ignore[attr-defined]

    @property
    def actor(self) -> str:
        """Who acts from the app: `human:<login>`, as the command line records it."""
        return self.app.actor  # type: ignore[attr-defined]

    # --- loading -------------------------------------------------------------------------
    def on_mount(self) -> None:
        modes = getattr(self.app, "mode_screens", None)
        if modes is not None and self.MODE:
            modes[self.MODE] = self
        self._styled_as = self._style_state()  # its widgets took their styles as they mounted
        self.reload()

    def _style_state(self) -> tuple:
        """What this screen's styles depend on beyond its own widgets (which restyle themselves
        when their classes, focus or hover change): the stylesheet, the theme, app focus, the
        screen's classes (the size breakpoints among them)."""
        app = self.app
        return app._css_update_count, app.theme, app.app_focus, frozenset(self.classes)

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        """Textual restyles every widget of a screen each time it is shown, twice on its first
        visit (half of a first visit's time). Here only when something it was styled by has
        changed since: a screen shown again as it was styled keeps its styles. Textual's handler
        runs from here and not again after it (prevent_default). Textual dispatches this one in
        place of `on_screen_resume` below, so it calls that too, unless a screen overrides it
        (the override, dispatched first, calls it through super())."""
        state = self._style_state()
        refresh = event.refresh_styles and state != getattr(self, "_styled_as", None)
        Screen._on_screen_resume(self, events.ScreenResume(refresh_styles=refresh))
        event.prevent_default()
        if self.is_attached:
            self._styled_as = state
        if type(self).on_screen_resume is MemoryScreen.on_screen_resume:
            self.on_screen_resume()

    def on_screen_resume(self) -> None:
        if getattr(self, "_stale", False):
            self._stale = False
            self.reload()
        self.query_one(TabBar).refresh_bar()
        self.call_after_refresh(self.query_one(DeckFooter).shown_again)

    def _screen_resized(self, size) -> None:
        """Textual re-lays out every screen beneath a modal when the modal first learns its size,
        at the size they already have: a whole layout of this screen on every modal's opening.
        Only a real change of size is laid out (a change of content lays itself out as usual)."""
        if self.app.screen is not self and self.outer_size == size:
            return
        super()._screen_resized(size)

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

    def on_memory_screen_loaded(self, message: MemoryScreen.Loaded) -> None:
        from textual.css.query import NoMatches

        message.stop()
        try:
            self.show(message.data)
        except NoMatches:
            app = self.app
            closing = (getattr(app, "_exit", False) or getattr(app, "_closing", False) or self._closing
                       or getattr(app, "_unmounted", False) or not self.is_attached
                       or not app.is_running)  # shutting down: screens are pruned before any flag above
            if not closing:
                raise  # a screen without its widgets while the app runs is a bug
            # else: a premounted screen's load that lands while the app tears its widgets down

    def show(self, data: Any) -> None:  # UI thread
        pass

    def check_action(self, action: str, parameters) -> bool | None:
        if action == "clear_filter":
            return self.filter_visible()
        return True

    # --- panes -----------------------------------------------------------------------------
    def panes(self) -> list:
        """The panes tab goes through now, in order (see PANES)."""
        found = []
        selectors = (("#filter",) if self.filter_visible() else ()) + self.PANES
        for selector in selectors:
            for widget in self.query(selector):
                if widget.focusable and all(node.display for node in widget.ancestors_with_self
                                            if isinstance(node, Widget)):
                    found.append(widget)
        return found

    def action_next_pane(self, step: int = 1) -> None:
        panes = self.panes()
        if not panes:
            self.focus_next() if step > 0 else self.focus_previous()
            return
        focused = self.focused
        index = next((n for n, pane in enumerate(panes) if focused is pane or (focused is not None and
                      pane in focused.ancestors)), -1 if step > 0 else 0)
        panes[(index + step) % len(panes)].focus()

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
    def key_rows(self) -> list[tuple[str, str]]:
        """(keys, what they do) for every key of dreamdeck's that works here now, one action per
        row (a binding's tooltip is its longer description); the two directions of a movement
        share a row. Number keys, quit and the palette are said once, under the list."""
        rows: dict[str, tuple[tuple[list[str], list[str]], str]] = {}
        for active in self.active_bindings.values():
            b = active.binding
            if not b.id or not (b.tooltip or b.description) or not active.enabled:
                continue
            action = b.action.split("(")[0].removeprefix("app.").removeprefix("screen.")
            if action in ("switch_mode", "quit", "command_palette"):
                continue
            group, description, side = PAIRED.get(action, (action, b.tooltip or b.description, 0))
            side = 1 if b.action.endswith("(-1)") else side
            sides, _ = rows.setdefault(group, (([], []), description))
            # One key each: a footer's shared label (`n/p`) would repeat the other key's own line.
            display = self.app.get_key_display(replace(b, key_display=None) if "/" in (b.key_display or "")
                                               else b)
            if display not in sides[side]:
                sides[side].append(display)
        return [(" / ".join(" ".join(keys) for keys in sides if keys), description)
                for sides, description in rows.values()]

    def action_help(self) -> None:
        from dreamdeck.tui.modals import HelpModal

        key = next((k for m, k, _ in TABS if m == self.MODE), "")
        self.app.push_screen(HelpModal(
            f"{key} {LABELS.get(self.MODE, self.MODE.title())}".strip(), self.PURPOSE, self.key_rows(), self.HELP,
            "Number keys 1–9 switch screens · tab moves between panes · ctrl+p has every action · q quits."))
