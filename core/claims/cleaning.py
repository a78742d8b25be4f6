"""A note's line as a claim reads it: no bullet, timestamp, emphasis, emoji or bookkeeping.

`clean(text)` drops what says nothing about the claim: a leading bullet, list number or quote
marker (">"), a
leading timestamp ("09:12", "[2026-03-02 09:12]"), Markdown emphasis (`**`, `__`, `~~`, backticks,
single `*`/`_`), emoji and other symbols, and bookkeeping prefixes that only add emphasis
("Reminder:", "IMPORTANT:", "(again)", "再次提醒：", "다시 알림:"), repeatedly, so stacked ones go too.
"""
from __future__ import annotations

import re
import unicodedata

__all__ = ["clean"]

_BULLET = re.compile(r"^\s*(?:[-*+•>]|\d+[.)])\s+")  # ">": a quoted chat line
_STAMP = re.compile(r"^\s*\[?(?:\d{4}-\d{2}-\d{2}[ T])?\d{1,2}:\d{2}(?::\d{2})?\]?\s*[-–—:|]?\s+")
_FILLER_PREFIX = re.compile(
    r"^\s*(?:\(\s*(?:again|note|reminder|fyi|update)\s*\)|"
    r"(?:reminder|important|note|nb|fyi|update|heads[- ]up|warning|again|再次提醒|再次强调|提醒|强调|注意|重要|"
    r"다시\s?알림|알림|주의|중요)\s*[:!：！]+)\s*",
    re.IGNORECASE)
_EMPHASIS = re.compile(r"\*\*|__|~~|`")
_ASCII_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_SINGLE_EMPHASIS = re.compile(r"(?<![\w*])[*_](?=\S)([^*_\n]+?)(?<=\S)[*_](?![\w*])")


def clean(text: str, *, normalize: bool = True) -> str:
    """One line without bullets, timestamps, emphasis, emoji or bookkeeping prefixes; NFKC
    (full-width punctuation as ASCII) unless `normalize` is False (a sentence to show)."""
    if normalize:
        text = unicodedata.normalize("NFKC", text)
    if text.isascii():
        text = _ASCII_CONTROL.sub(" ", text)
    else:
        text = "".join(" " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in text)
        text = "".join(ch for ch in text if unicodedata.category(ch) not in ("So", "Sk", "Cs", "Mn") or ch.isalnum())
    text = _EMPHASIS.sub("", text)
    text = _SINGLE_EMPHASIS.sub(r"\1", text)
    text = re.sub(r"\s+", " ", text).strip()
    while True:
        before = text
        text = _BULLET.sub("", text)
        text = _STAMP.sub("", text)
        text = _FILLER_PREFIX.sub("", text)
        text = text.strip()
        if text == before:
            return text
