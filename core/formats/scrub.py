"""Replacing a forgotten text's verbatim pieces in a file's text (a hard forget)."""
from __future__ import annotations

import re

FORGOTTEN = "[forgotten]"
MIN_PIECE = 12  # shorter parts ("Tuesday.") are too common to scrub; a short whole body is kept


def scrub(text: str, pieces: list[str]) -> str:
    """`text` with every piece, as a whole word sequence (never inside a longer word), replaced."""
    for piece in pieces:
        left = r"(?<!\w)" if piece[:1].isalnum() else ""
        right = r"(?!\w)" if piece[-1:].isalnum() else ""
        text = re.sub(left + re.escape(piece) + right, FORGOTTEN, text)
    return text


def quotes(text: str, pieces: list[str]) -> bool:
    """Whether `text` (a recall query, say) quotes a forgotten text: it holds one of its pieces,
    or it is itself a part of one (case and spacing aside) at least `MIN_PIECE` characters long."""
    if scrub(text, pieces) != text:
        return True
    words = " ".join(text.split()).casefold()
    return len(words) >= MIN_PIECE and any(words in " ".join(p.split()).casefold() for p in pieces)
