"""Screen: What sub-agents propose: commit, reject or defer each one."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from tui.screens.base import MemoryScreen


class ProposalsScreen(MemoryScreen):
    MODE = "proposals"
    PURPOSE = "What sub-agents propose: commit, reject or defer each one."

    def compose_body(self) -> ComposeResult:
        yield Static("(coming up)", classes="empty")
