"""Screen: Pinned memories: what must never change."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from tui.screens.base import MemoryScreen


class VaultScreen(MemoryScreen):
    MODE = "vault"
    PURPOSE = "Pinned memories: what must never change."

    def compose_body(self) -> ComposeResult:
        yield Static("(coming up)", classes="empty")
