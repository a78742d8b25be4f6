"""Variants of the VirtualTable family that screens share: FitTable (the last column fills the
width) and GroupedRows (a row source that names each group once)."""
from __future__ import annotations

from typing import Mapping

from dreamdeck.tui.widgets.virtual_table import ListRowSource, VirtualTable


class FitTable(VirtualTable):
    """A VirtualTable whose last column takes whatever width the others leave; no sorting.

    (The Stream and Dream screens; a `fill` option on VirtualTable would replace it.)
    """

    DEFAULT_CSS = """
    FitTable { overflow-x: hidden; }
    FitTable > .virtual-table--header-cursor { text-style: bold; }
    FitTable:focus > .virtual-table--header-cursor { text-style: bold; background: $panel; }
    """

    _fitted_for = -1

    def _ensure_widths(self) -> None:
        width = self.scrollable_content_region.width
        if width and width != self._fitted_for:
            self._fitted_for = width
            fixed = sum(w + 2 for w in self._widths[:-1])
            self._widths[-1] = max(8, width - fixed - 2)
            self._line_cache.clear()
            self._update_virtual_size()

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
