"""The dreamdeck app as the tests open it, and what it told the person."""
from __future__ import annotations

from textual.message import Message
from textual.notifications import Notification, Notify

from dreamdeck.core.workspace import Workspace
from dreamdeck.tui.app import DreamdeckApp
from dreamdeck.tui.config import UserConfig


def make_app(ws: Workspace, mode: str | None = None, *, app_class: type[DreamdeckApp] = DreamdeckApp,
             **kwargs) -> DreamdeckApp:
    """The app on `ws`, opening on `mode` (Topics when None), with no background watcher and an
    empty user config unless the test asks for them."""
    kwargs.setdefault("watcher", False)
    kwargs.setdefault("user_config", UserConfig())
    if mode is None:
        return app_class(ws, **kwargs)

    class OpensOnMode(app_class):  # type: ignore[valid-type, misc]
        _start: str | None = mode

        def switch_mode(self, name: str):
            if self._start is not None:
                name, self._start = self._start, None
            return super().switch_mode(name)

    return OpensOnMode(ws, **kwargs)


class Notes:
    """Every notification the app raised, seen through Textual's public message hook:
    `async with app.run_test(size=SIZE, message_hook=notes) as pilot`."""

    def __init__(self) -> None:
        self.raised: list[Notification] = []

    def __call__(self, message: Message) -> None:
        if isinstance(message, Notify):
            self.raised.append(message.notification)

    @property
    def titles(self) -> list[str]:
        return [n.title for n in self.raised]

    @property
    def messages(self) -> list[str]:
        return [n.message for n in self.raised]

    def triples(self) -> list[tuple[str, str, str]]:
        """(title, message, severity) of each, oldest first."""
        return [(n.title, n.message, n.severity) for n in self.raised]
