"""Reusable widgets for the dreamdeck TUI."""

from dreamdeck.tui.widgets.virtual_table import Column, ListRowSource, RowSource, VirtualTable

__all__ = ["Column", "ListRowSource", "RowSource", "VirtualTable"]
