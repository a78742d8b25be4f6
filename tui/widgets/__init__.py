"""Reusable widgets for the dreamdeck TUI.

Screens compose these; no widget class is defined in a screen module. One module per family:
virtual_table (VirtualTable, its columns and row sources), table_variants (FitTable, GroupedRows),
hunk_view (HunkView), tab_bar (TabBar), diff_text (a coloured unified diff).
"""

from dreamdeck.tui.widgets.table_variants import FitTable, GroupedRows
from dreamdeck.tui.widgets.virtual_table import Column, ListRowSource, RowSource, VirtualTable

__all__ = ["Column", "FitTable", "GroupedRows", "ListRowSource", "RowSource", "VirtualTable"]
