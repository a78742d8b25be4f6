"""Screen: Fragments as the agent appends them, live."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from tui.screens.base import MemoryScreen


class StreamScreen(MemoryScreen):
    MODE = "stream"
    PURPOSE = "Fragments as the agent appends them, live."

    def compose_body(self) -> ComposeResult:
        yield Static("(coming up)", classes="empty")
