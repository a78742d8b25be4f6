"""Modal screens: confirm (destructive actions), reason (reject/forget), text preview, help."""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import lru_cache

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import Markdown
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.color import Color
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.renderables.background_screen import BackgroundScreen
from textual.screen import ModalScreen, ScreenResultType
from textual.widgets import Button, Input, Label, Static

from dreamdeck.core.formats.terminal_text import terminal_text
from dreamdeck.tui.widgets.panes import ScrollPane
from dreamdeck.tui.widgets.safe_static import SafeStatic

DISTINCT_STYLES = 4096  # tinted styles kept per tint colour (a screen has a few hundred)


@lru_cache(maxsize=8)
def _tint_of(color: Color):
    """style -> Textual's tint of it by `color` (BackgroundScreen.process_segments, one style at a
    time), each distinct style worked out once."""
    tinted: dict[Style | None, Style | None] = {}

    def tint(style: Style | None) -> Style | None:
        try:
            return tinted[style]
        except KeyError:
            pass
        if len(tinted) >= DISTINCT_STYLES:
            tinted.clear()
        out = next(iter(BackgroundScreen.process_segments([Segment(" ", style)], color))).style
        tinted[style] = out
        return out

    return tint


class DimmedScreen(BackgroundScreen):
    """The screen behind a modal, tinted exactly as Textual tints it, but each distinct style once:
    Textual blends two colours per segment, thousands of segments on every open (a fifth of it)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.color.a == 0:
            yield from super().__rich_console__(console, options)
            return
        yield from dim_segments(console.render(self.screen._compositor, options), self.color)  # noqa: SLF001


def dim_segments(segments: Iterable[Segment], color: Color) -> Iterator[Segment]:
    """`BackgroundScreen.process_segments(segments, color)` for a translucent `color`, by style."""
    tint = _tint_of(color)
    for text, style, control in segments:
        yield Segment(text, style, control) if control else Segment(text, tint(style), None)


class DeckModal(ModalScreen[ScreenResultType]):
    """A dreamdeck modal: Textual's, with the screen behind it dimmed by DimmedScreen."""

    def render(self):
        rendered = super().render()
        if type(rendered) is BackgroundScreen:
            return DimmedScreen(rendered.screen, rendered.color)
        return rendered


class ConfirmModal(DeckModal[object]):
    """The one confirm layout: a title, what the action will do (text or a diff, scrolling: it
    never pushes the hint and the buttons off a short terminal), an optional hint, then buttons. `y` confirms (dismisses True), `n`/`esc` cancels (False); `other`
    adds a third choice `(key, label, value)` that dismisses with `value` (restore or accept)."""

    BINDINGS = [
        Binding("y", "confirm", "Yes", id="confirm.yes"),
        Binding("n,escape", "cancel", "No", id="confirm.no"),
    ]
    DEFAULT_CSS = """
    ConfirmModal { align: center middle; }
    /* Nearly the whole width at 80 columns, wider at 120 (fixed at 80 it wrapped every line there). */
    ConfirmModal > Vertical { width: 95%; max-width: 110; height: auto; max-height: 90%;
        border: thick $warning; background: $surface; padding: 1 2; }
    ConfirmModal.-wide > Vertical { max-width: 130; padding: 0 1; }
    ConfirmModal.-short > Vertical { max-height: 100%; padding: 0 2; }
    ConfirmModal.-error > Vertical { border: thick $error; }
    ConfirmModal .title { text-style: bold; color: $warning; }
    ConfirmModal.-error .title { color: $error; }
    /* The buttons stay on screen: the body's height is what the title, hint and buttons leave (_fit). */
    ConfirmModal #confirm-scroll { height: auto; max-height: 40vh; margin: 1 0 0 0; }
    ConfirmModal #confirm-more { color: $text-muted; text-style: italic; height: 1; margin-bottom: 1; }
    ConfirmModal .hint { color: $text-muted; }
    ConfirmModal Horizontal { height: auto; align-horizontal: right; }
    ConfirmModal Button { margin-left: 2; }
    """

    def __init__(self, title: str, body: str | Text = "", confirm_label: str = "Yes", *, hint: str = "",
                 cancel_label: str = "Cancel", tone: str = "warning", wide: bool = False,
                 other: tuple[str, str, object] | None = None, body_id: str = "confirm-body"):
        super().__init__(classes=" ".join(c for c in (f"-{tone}", "-wide" if wide else "") if c))
        self._title, self._body, self._confirm = title, body, confirm_label
        self._hint, self._cancel, self._tone, self._other, self._body_id = hint, cancel_label, tone, other, body_id
        if other is not None:
            self._bindings.bind(other[0], "choose_other", other[1])

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Label(terminal_text(self._title), classes="title", markup=False)
            if self._body:
                with ScrollPane(id="confirm-scroll"):
                    yield SafeStatic(self._body, markup=False, id=self._body_id)
            # Said only while the body goes on below what shows (a scrollbar alone went unseen).
            yield Static("▼ more below: ↓ j pgdn scroll, G the end", id="confirm-more", markup=False)
            if self._hint:
                yield Static(self._hint, markup=False, classes="hint")
            with Horizontal():
                yield Button(f"{self._cancel} (n)", id="no")
                if self._other is not None:
                    key, label, _value = self._other
                    yield Button(f"{label} ({key})", id="other")
                yield Button(f"{self._confirm} (y)", variant="error" if self._tone == "error" else "warning",
                             id="yes")

    def on_mount(self) -> None:
        self.query_one("#confirm-more").display = False
        for scroll in self.query("#confirm-scroll"):
            self.watch(scroll, "scroll_y", self._say_more, init=False)
            self.watch(scroll, "max_scroll_y", self._say_more, init=False)
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """The body gets every row the box may take that the title, the hint, the buttons and
        the "more below" line leave (a third of a 24-row screen showed one row of each list).
        Their heights are known once laid out at this width: a wrapped title takes two."""
        scrolls = self.query("#confirm-scroll")
        if not scrolls or not self.is_attached:
            return
        body, box = scrolls.first(), self.query_one("#confirm-box")
        limit = self.size.height if self.has_class("-short") else int(self.size.height * 0.9)
        others = sum(w.outer_size.height for w in box.children if w is not body and w.id != "confirm-more")
        reserved = 2 + 1  # the "more below" line and its margin; the body's own top margin
        body.styles.max_height = max(3, limit - box.styles.gutter.height - others - reserved)
        self.call_after_refresh(self._say_more)

    def _say_more(self, *_) -> None:
        scrolls = self.query("#confirm-scroll")
        more = bool(scrolls) and scrolls.first().scroll_y < scrolls.first().max_scroll_y
        self.query_one("#confirm-more").display = more

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "other":
            self.action_choose_other()
        else:
            self.dismiss(event.button.id == "yes")

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)

    def action_choose_other(self) -> None:
        if self._other is not None:
            self.dismiss(self._other[2])


class ReasonModal(DeckModal[str | None]):
    """Ask for a reason (required); enter submits, esc cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="reason.cancel")]
    AUTO_FOCUS = "#reason"
    DEFAULT_CSS = """
    ReasonModal { align: center middle; }
    ReasonModal > Vertical { width: 95%; max-width: 110; height: auto; border: thick $primary;
        background: $surface; padding: 1 2; }
    ReasonModal .title { text-style: bold; }
    ReasonModal VerticalScroll { height: auto; max-height: 40vh; }  /* the box and its hint stay on a 24-row screen */
    ReasonModal .error { color: $error; height: auto; }
    ReasonModal #reason-hint { color: $text-muted; height: 1; }
    """

    def __init__(self, title: str, placeholder: str = "why?", detail: str = ""):
        super().__init__()
        self._title, self._placeholder, self._detail = title, placeholder, detail

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(terminal_text(self._title), classes="title", markup=False)
            if self._detail:
                with VerticalScroll(can_focus=False):
                    yield SafeStatic(self._detail, markup=False)
            yield Input(placeholder=self._placeholder, id="reason")
            yield Static("", classes="error", id="reason-error")
            yield Static("enter confirms · esc cancels", id="reason-hint")  # no buttons: say how to go on

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if not event.value.strip():
            self.query_one("#reason-error", Static).update("A reason is required.")
            return
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


def key_columns(rows: list[tuple[str, str]], width: int) -> Table:
    """The keys, one per line (`key  what it does`), in as many columns as `width` holds (up to 3),
    filled top to bottom."""
    key_w = max((len(k) for k, _ in rows), default=1)
    text_w = max((len(t) for _, t in rows), default=1)
    per = key_w + 2 + min(text_w, 34) + 3
    columns = max(1, min(3, width // per, len(rows)))
    height = -(-len(rows) // columns)  # ceiling
    grid = Table.grid(padding=(0, 2, 0, 0), expand=False)
    for _ in range(columns):
        grid.add_column(justify="right", no_wrap=True, style="bold", min_width=key_w)
        grid.add_column(max_width=34 if columns > 1 else None)
    for line in range(height):
        cells: list[Text | str] = []
        for col in range(columns):
            n = col * height + line
            key, text = rows[n] if n < len(rows) else ("", "")
            cells += [Text(key, style="bold"), text]
        grid.add_row(*cells)
    return grid


class HelpModal(DeckModal[None]):
    """`?`: the tab's name, what it is for, every key that works on it now (one per line, in
    columns when there is room), then how it works."""

    BINDINGS = [Binding("escape,q,question_mark", "close", "Close", id="help.close")]
    DEFAULT_CSS = """
    HelpModal { align: center middle; }
    HelpModal > VerticalScroll { width: 95%; max-width: 150; height: auto; max-height: 90%;
        border: thick $primary; background: $surface; padding: 0 1; }
    HelpModal #help-title { text-style: bold; color: $accent; }
    HelpModal #help-purpose { color: $text-muted; margin-bottom: 1; }
    HelpModal #help-keys { margin-bottom: 1; }
    HelpModal #help-text { color: $text; }
    """

    def __init__(self, title: str, purpose: str, keys: list[tuple[str, str]], text: str = "", footnote: str = ""):
        super().__init__()
        self._title, self._purpose, self._keys, self._text, self._footnote = title, purpose, keys, text, footnote

    def compose(self) -> ComposeResult:
        with ScrollPane():  # j, k, g, G as in every pane
            yield Static(self._title, id="help-title", markup=False)
            yield Static(self._purpose, id="help-purpose", markup=False)
            yield Static(id="help-keys")
            if self._text:
                yield Static(Markdown(self._text), id="help-text")
            if self._footnote:
                yield Static(Text(self._footnote, style="dim italic"), id="help-footnote")

    def on_mount(self) -> None:
        self._fit_keys()

    def on_resize(self) -> None:
        self._fit_keys()

    def _fit_keys(self) -> None:
        width = min(150, int(self.app.size.width * 0.95)) - 4  # the box's width, less border and padding
        self.query_one("#help-keys", Static).update(key_columns(self._keys, width))

    @property
    def keys(self) -> list[tuple[str, str]]:
        return list(self._keys)

    def action_close(self) -> None:
        self.dismiss(None)


class TextModal(DeckModal[None]):
    """A read-only text (a fragment's JSON, a preview)."""

    BINDINGS = [Binding("escape,q", "close", "Close", id="text.close")]
    DEFAULT_CSS = """
    TextModal { align: center middle; }
    TextModal > Vertical { width: 100; max-width: 95%; height: 80%; border: thick $primary;
        background: $surface; padding: 0 1; }
    TextModal .title { text-style: bold; }
    """

    def __init__(self, title: str, text: str):
        super().__init__()
        self._title, self._text = title, text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(terminal_text(self._title), classes="title", markup=False)
            with ScrollPane():
                yield SafeStatic(self._text, markup=False)

    def action_close(self) -> None:
        self.dismiss(None)
