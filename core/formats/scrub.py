"""Replacing a forgotten text's verbatim pieces in a file's text (a hard forget)."""
from __future__ import annotations

import re

FORGOTTEN = "[forgotten]"


def scrub(text: str, pieces: list[str]) -> str:
    """`text` with every piece, as a whole word sequence (never inside a longer word), replaced."""
    for piece in pieces:
        left = r"(?<!\w)" if piece[:1].isalnum() else ""
        right = r"(?!\w)" if piece[-1:].isalnum() else ""
        text = re.sub(left + re.escape(piece) + right, FORGOTTEN, text)
    return text
