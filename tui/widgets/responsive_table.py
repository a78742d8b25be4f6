"""A FitTable that drops its optional columns on a narrow terminal, so the last column (a body,
a reason) still gets the room that is left.

Below `NARROW` cells the optional columns go (a screen shows them in its detail pane): at 80
columns the Stream screen's body gets more than half the width instead of nothing.
"""
from __future__ import annotations

from typing import Sequence

from dreamdeck.tui.widgets.table_variants import FitTable
from dreamdeck.tui.widgets.virtual_table import Column

NARROW = 100  # below this many cells, optional columns go
MIN_BODY = 8


class ResponsiveTable(FitTable):
    def __init__(self, columns: Sequence[Column], *args, optional: tuple[str, ...] = (), **kwargs):
        super().__init__(columns, *args, **kwargs)
        self._all_columns = tuple(columns)
        self._optional = optional

    def _ensure_widths(self) -> None:
        width = self.scrollable_content_region.width
        if not width or width == self._fitted_for:
            return
        self._fitted_for = width
        columns = self._all_columns
        if width < NARROW:
            columns = tuple(c for c in columns if c.key not in self._optional)
        self._columns = columns
        self._widths = [c.width or self._label_width(c) for c in columns]
        fixed = sum(w + 2 for w in self._widths[:-1])
        self._widths[-1] = max(MIN_BODY, width - fixed - 2)
        self._line_cache.clear()
        self._update_virtual_size()
