"""A FitTable that drops its optional columns on a narrow terminal, so the last column (a body,
a reason) still gets the room that is left.

Below `NARROW` cells the optional columns go (a screen shows them in its detail pane): at 80
columns the Stream screen's body gets more than half the width instead of nothing. (Any
VirtualTable takes `optional=`; this is the unsortable, last-column-fills variant.)
"""
from __future__ import annotations

from collections.abc import Sequence

from dreamdeck.tui.widgets.table_variants import FitTable
from dreamdeck.tui.widgets.virtual_table import NARROW, Column

__all__ = ["NARROW", "ResponsiveTable"]


class ResponsiveTable(FitTable):
    def __init__(self, columns: Sequence[Column], *args, optional: tuple[str, ...] = (), **kwargs):
        super().__init__(columns, *args, optional=optional, **kwargs)
