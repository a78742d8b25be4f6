"""Reusable widgets for the dreamdeck TUI."""

from tui.widgets.virtual_table import Column, ListRowSource, RowSource, VirtualTable

__all__ = ["Column", "ListRowSource", "RowSource", "VirtualTable"]
