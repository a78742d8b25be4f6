"""A note's line as a claim reads it: no bullet, timestamp, emphasis, emoji or bookkeeping.

`clean(text)` drops what says nothing about the claim: a leading bullet, list number or quote
marker (">"), a
leading timestamp ("09:12", "[2026-03-02 09:12]"; a time after an emphasis label is what the
line says: "IMPORTANT: 22:00 is the cutoff"), Markdown emphasis (`**`, `__`, `~~`, backticks,
single `*`/`_`), emoji and other symbols, and bookkeeping prefixes that only add emphasis
("Reminder:", "IMPORTANT:", "(again)", "再次提醒：", "다시 알림:") and a trailing running number
("… (3)", "… [#12]"), repeatedly, so stacked ones go too.
`task_state(text)` reads a checkbox mark ("[ ] …", "[x] …") or a belief's state word ("To do:",
"Done:") as the task's state; `with_state` words it back for a belief.
"""
from __future__ import annotations

import re
import unicodedata

__all__ = ["clean", "is_question", "task_state", "with_state"]

_BULLET = re.compile(r"^\s*(?:[-*+•>]|\d+[.)])\s+")  # ">": a quoted chat line
_STAMP = re.compile(r"^\s*\[?(?:\d{4}-\d{2}-\d{2}[ T])?\d{1,2}:\d{2}(?::\d{2})?\]?\s*[-–—:|]?\s+")
_FILLER_PREFIX = re.compile(
    r"^\s*(?:\(\s*(?:again|note|reminder|fyi|update)\s*\)|"
    r"(?:reminder|important|note|nb|fyi|update|heads[- ]up|warning|again|再次提醒|再次强调|提醒|强调|注意|重要|"
    r"다시\s?알림|알림|주의|중요)\s*[:!：！]+)\s*",
    re.IGNORECASE)
# A logger's running number after the line ("… (3)", "… [#12]", "… (note 37)", "…（第37条）",
# "… (3번)"): which line it was, not a value. Up to three digits: "(2019)" is a year, and stays;
# only a counting word goes with it ("(max 8)", "(30 days)" are values).
_TRAILING_COUNTER = re.compile(
    r"\s*[(\[]\s*(?:(?:note|entry|item|line|log|no\.?)\s*)?(?:#\s*)?"
    r"(?:\d{1,3}|第\s*\d{1,3}\s*[条項项]|제?\s*\d{1,3}\s*번)\s*[)\]]\s*$",
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
    stamped = True  # a leading time is the logger's timestamp until an emphasis label went
    while True:
        before = text
        text = _BULLET.sub("", text)
        if stamped:
            text = _STAMP.sub("", text)
        unlabelled = _FILLER_PREFIX.sub("", text)
        stamped = stamped and unlabelled == text  # "IMPORTANT: 22:00 is the cutoff": the time is said
        text = _TRAILING_COUNTER.sub("", unlabelled).strip()
        if text == before:
            return text


# A checkbox mark ("- [ ] …", "- [x] …") is the task's state, never its text; a belief states it
# as a word ("To do: …", "Done: …", in the note's script), read back as the same state.
# "TODO: …" is the same open task ("TODO: X" then "- [x] X": the task done).
_CHECKBOX = re.compile(r"^\s*(?:[-*+•]\s+)?\[(?P<mark>[ xX])\]\s+")
_STATE_WORD = re.compile(r"^\s*(?P<word>to ?do|done|待办|已完成|할 일|완료)\s*[:：]\s*", re.IGNORECASE)
_DONE_WORDS = frozenset({"done", "已完成", "완료"})
_LABELS = {("open", "latin"): "To do: ", ("done", "latin"): "Done: ", ("open", "han"): "待办：",
           ("done", "han"): "已完成：", ("open", "hangul"): "할 일: ", ("done", "hangul"): "완료: "}


def task_state(text: str) -> tuple[str | None, str]:
    """("open" | "done" | None, the text without its checkbox mark or state word)."""
    m = _CHECKBOX.match(text)
    if m:
        return ("open" if m.group("mark") == " " else "done"), text[m.end():]
    m = _STATE_WORD.match(text)
    if m and text[m.end():].strip():
        return ("done" if m.group("word").lower() in _DONE_WORDS else "open"), text[m.end():]
    return None, text


def with_state(state: str, text: str) -> str:
    """A task's text with its state as a word: "To do: update the handbook", "已完成：更新日志"."""
    script = "han" if re.search(r"[\u3400-\u9fff]", text) else "hangul" if re.search(r"[\uac00-\ud7a3]", text) else "latin"
    return _LABELS[(state, script)] + text


_QUESTION = re.compile(r"[.!?。！？](?=[\s\"'”’」』)）]|$)")


def is_question(text: str) -> bool:
    """The text's first sentence ends in a question mark: it asks, it states no value."""
    m = _QUESTION.search(text)
    return m is not None and m.group(0) in "?？"
