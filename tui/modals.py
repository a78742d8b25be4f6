"""Modal screens: confirm (destructive actions), reason (reject/forget), text preview, help."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Markdown, Static


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
    ConfirmModal VerticalScroll { height: auto; max-height: 24; margin: 1 0; }
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


class HelpModal(ModalScreen[None]):
    """`?`: what this screen is for and every key that works on it now."""

    BINDINGS = [Binding("escape,q,question_mark", "close", "Close", id="help.close")]
    DEFAULT_CSS = """
    HelpModal { align: center middle; }
    HelpModal > VerticalScroll { width: 90; max-width: 95%; height: 80%; border: thick $primary;
        background: $surface; padding: 0 1; }
    """

    def __init__(self, markdown: str):
        super().__init__()
        self._markdown = markdown

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(self._markdown)

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
