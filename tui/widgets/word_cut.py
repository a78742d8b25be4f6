"""Cutting a line of prose to the room it has, at the end of a word, with an ellipsis."""
from __future__ import annotations

from rich.cells import cell_len, set_cell_size


def cut_at_word(text: str, width: int) -> str:
    """`text` in at most `width` cells: whole when it fits, else cut with `…` after its last
    whole word when that word ends in the last third of the room (`The user always…`, not
    `The user always u…`), else where the room ends (a path, an id or Chinese text has no word
    to end at, and ending at an early space would lose most of it)."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    kept = set_cell_size(text, width - 1)
    if not text[len(kept):len(kept) + 1].isspace():  # the cut falls inside a word
        space = kept.rfind(" ")
        if space >= (2 * width) // 3:
            kept = kept[:space]
    return kept.rstrip() + "…"
