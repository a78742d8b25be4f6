"""Screen: Every memory commit, its diff, and rollback."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from tui.screens.base import MemoryScreen


class HistoryScreen(MemoryScreen):
    MODE = "history"
    PURPOSE = "Every memory commit, its diff, and rollback."

    def compose_body(self) -> ComposeResult:
        yield Static("(coming up)", classes="empty")
