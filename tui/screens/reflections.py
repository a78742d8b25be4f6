"""Screen: What a dream proposes, hunk by hunk: approve, reject, edit."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from tui.screens.base import MemoryScreen


class ReflectionsScreen(MemoryScreen):
    MODE = "reflections"
    PURPOSE = "What a dream proposes, hunk by hunk: approve, reject, edit."

    def compose_body(self) -> ComposeResult:
        yield Static("(coming up)", classes="empty")
