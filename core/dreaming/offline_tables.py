"""Markdown table rows as the offline dreamer reads them (its docstring's **Tables** rule).

The first of a run of table rows under one topic on one day is the header (Markdown's rule).
Under a header that names a moment ("| job | last run | result |"), a row is one more
observation of its job (a series), never a new value of a setting, and its belief reads with
the header's labels ("reindex: last run 03:16, result ok").
"""
from __future__ import annotations

import re
from dataclasses import replace

from dreamdeck.core.claims.extract import Claim
from dreamdeck.core.claims.logs import logs_each_row, table_cells
from dreamdeck.core.dreaming.beliefs import Key
from dreamdeck.core.dreaming.protocol import UndreamedFragment

_HAN = re.compile(r"[\u3400-\u9fff]")


class TableRows:
    """The table being read, fragment by fragment, in the order a run is given them."""

    def __init__(self) -> None:
        self.table: tuple[tuple[str, str], list[str] | None] | None = None  # (day, topic), a log table's header
        self.head: Key | None = None  # the first row (the header) of the table being read
        self.sentence: dict[Key, str] = {}  # a log table's row, read with its header's labels

    def read(self, frag: UndreamedFragment, claim: Claim) -> Claim:
        """`claim` of `frag` as a row of the table being read (unchanged for any other line)."""
        cells = table_cells(frag.body)
        if cells is None:
            self.table = None
            return claim
        if self.table is None or self.table[0] != (frag.date, frag.topic):
            self.table = ((frag.date, frag.topic), cells if logs_each_row(cells) else None)
            self.head = (frag.date, frag.id)
            return claim
        header = self.table[1]
        if header is None or not cells or not cells[0]:
            return claim
        colon, comma = ("：", "，") if _HAN.search(frag.body) else (": ", ", ")
        labelled = comma.join(f"{label} {cell}".strip() for label, cell in zip(header[1:], cells[1:]) if cell)
        self.sentence[(frag.date, frag.id)] = f"{cells[0]}{colon}{labelled}"
        return replace(claim, event=True, setting=False, series=True)

    def log_table(self) -> tuple[str, str] | None:
        """(day, topic) of the log table the last line read belongs to, if it is one."""
        return self.table[0] if self.table is not None and self.table[1] is not None else None
