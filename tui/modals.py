"""Modal screens: confirm (destructive actions), reason (reject/forget), text preview, help."""
from __future__ import annotations

from rich.markdown import Markdown
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static


class ConfirmModal(ModalScreen[bool]):
    """Yes/no for anything destructive; `y`/`enter` confirm, `n`/`esc` cancel."""

    BINDINGS = [
        Binding("y", "confirm", "Yes", id="confirm.yes"),
        Binding("n,escape", "cancel", "No", id="confirm.no"),
    ]
    DEFAULT_CSS = """
    ConfirmModal { align: center middle; }
    ConfirmModal > Vertical { width: 80; max-width: 95%; height: auto; max-height: 90%;
        border: thick $warning; background: $surface; padding: 1 2; }
    ConfirmModal .title { text-style: bold; color: $warning; }
    ConfirmModal VerticalScroll { height: auto; max-height: 40vh; margin: 1 0; }  /* the buttons stay on a 24-row screen */
    ConfirmModal Horizontal { height: auto; align-horizontal: right; }
    ConfirmModal Button { margin-left: 2; }
    """

    def __init__(self, title: str, body: str = "", confirm_label: str = "Yes"):
        super().__init__()
        self._title, self._body, self._confirm = title, body, confirm_label

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self._title, classes="title")
            if self._body:
                with VerticalScroll():
                    yield Static(self._body, markup=False, id="confirm-body")
            with Horizontal():
                yield Button("Cancel (n)", id="no")
                yield Button(f"{self._confirm} (y)", variant="warning", id="yes")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)


class ReasonModal(ModalScreen[str | None]):
    """Ask for a reason (required); enter submits, esc cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="reason.cancel")]
    DEFAULT_CSS = """
    ReasonModal { align: center middle; }
    ReasonModal > Vertical { width: 80; max-width: 95%; height: auto; border: thick $primary;
        background: $surface; padding: 1 2; }
    ReasonModal .title { text-style: bold; }
    ReasonModal .error { color: $error; height: auto; }
    """

    def __init__(self, title: str, placeholder: str = "why?", detail: str = ""):
        super().__init__()
        self._title, self._placeholder, self._detail = title, placeholder, detail

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self._title, classes="title")
            if self._detail:
                yield Static(self._detail, markup=False)
            yield Input(placeholder=self._placeholder, id="reason")
            yield Static("", classes="error", id="reason-error")

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


class HelpModal(ModalScreen[None]):
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
        with VerticalScroll():
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


class TextModal(ModalScreen[None]):
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
            yield Label(self._title, classes="title")
            with VerticalScroll():
                yield Static(self._text, markup=False)

    def action_close(self) -> None:
        self.dismiss(None)
