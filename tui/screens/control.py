"""Screen: Dreaming: the watcher, its gates, the lock, and the last runs."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from tui.screens.base import MemoryScreen


class ControlScreen(MemoryScreen):
    MODE = "control"
    PURPOSE = "Dreaming: the watcher, its gates, the lock, and the last runs."

    def compose_body(self) -> ComposeResult:
        yield Static("(coming up)", classes="empty")
