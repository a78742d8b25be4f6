"""Variants of the VirtualTable family that screens share: FitTable (the last column fills the
width) and GroupedRows (a row source that names each group once)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from dreamdeck.tui.widgets.virtual_table import ListRowSource, VirtualTable


class FitTable(VirtualTable):
    """A VirtualTable whose last column takes whatever width the others leave (a `fill` column,
    at least 8 cells); no sorting. (The Stream and Dream screens.)"""

    DEFAULT_CSS = """
    FitTable { overflow-x: hidden; }
    FitTable > .virtual-table--header-cursor { text-style: bold; }
    FitTable:focus > .virtual-table--header-cursor { text-style: bold; background: $panel; }
    """

    def __init__(self, columns, source=None, **kwargs) -> None:
        *rest, last = columns
        super().__init__([*rest, replace(last, width=8, min_width=8, fill=True)], source, **kwargs)

    def check_action(self, action: str, parameters) -> bool | None:
        if action in ("sort_column", "column_left", "column_right"):
            return False
        return super().check_action(action, parameters)


class GroupedRows(ListRowSource):
    """Rows sorted by agent; the agent's name shows on the first row of each group only."""

    def row(self, index: int) -> Mapping[str, object]:
        row = super().row(index)
        first = index == 0 or super().row(index - 1).get("agent") != row.get("agent")
        return {**row, "group": row["agent_label"] if first else ""}
