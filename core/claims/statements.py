"""What one fragment states: its body cut into statements, each a claim of its own.

An agent's note is often a paragraph line of several sentences, or a multi-line body; a belief is
one sentence (TypeClaw's rule 6), so a fragment read as one claim would leave everything after
its first sentence in no belief at all. The rules:
- each line is read on its own; a header line (ending in ":" or "：", or a Markdown heading)
  takes the list items under it (or, with none, the next line) as one statement:
  "Deploy checklist: run the migrations first; then restart the workers";
- a line is cut into sentences at "。！？" and at ". ", "! ", "? " when an upper-case or
  caseless letter follows, never after an abbreviation ("e.g.", "Dr.", a single letter);
- a piece too slight to be a claim ("Yes!", "Done.") joins the one before; more than `MOST`
  pieces: the rest stay together in the last, so no text is ever dropped.
A body that states one thing comes back as itself, byte for byte.
"""
from __future__ import annotations

import re

__all__ = ["MOST", "statements"]

MOST = 8  # statements per fragment; a pasted document is not forty beliefs

_ITEM = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_HEADER = re.compile(r"(?:[:：]\s*$)|(?:^\s*#{1,6}\s)")
_CJK_STOP = re.compile(r"[。！？؟।][」』”’)）]*")
_LATIN_STOP = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+(?=[^\W\d_])")
_ABBREVIATIONS = frozenset(
    "e.g i.e etc vs cf al approx dr mr mrs ms mx prof st jr sr no nos fig figs inc ltd co corp dept est "
    "jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun a.m p.m u.s".split())


def statements(body: str) -> list[str]:
    """The statements `body` makes, in order (see the module docstring)."""
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    pieces: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if _HEADER.search(line) and i + 1 < len(lines):
            items = _items_after(lines, i + 1)
            pieces.append(_with_items(line, items))
            i += 1 + len(items)
            continue
        pieces += _sentences(line)
        i += 1
    pieces = _joined_slight(pieces)
    if len(pieces) <= 1:
        return [body] if not pieces or pieces[0] == body.strip() else pieces
    if len(pieces) > MOST:
        rest = pieces[MOST - 1]
        for piece in pieces[MOST:]:
            rest = _join(rest, piece)
        pieces = pieces[:MOST - 1] + [rest]
    return pieces


def _items_after(lines: list[str], start: int) -> list[str]:
    items = []
    for line in lines[start:]:
        if not _ITEM.match(line):
            break
        items.append(line)
    return items or lines[start:start + 1]


def _with_items(header: str, items: list[str]) -> str:
    said = "; ".join(_ITEM.sub("", item).rstrip(" .;") for item in items)
    head = header.lstrip("# ").rstrip()
    return f"{head} {said}" if head.endswith((":", "：")) else f"{head}: {said}"


def _sentences(line: str) -> list[str]:
    out: list[str] = []
    start = 0
    for m in _CJK_STOP.finditer(line):
        out += _latin_sentences(line[start:m.end()])
        start = m.end()
    out += _latin_sentences(line[start:])
    return [s for s in (p.strip() for p in out) if s]


def _latin_sentences(text: str) -> list[str]:
    out, start = [], 0
    for m in _LATIN_STOP.finditer(text):
        before, after = text[start:m.start()], text[m.end()]
        if after.islower() or _ends_in_abbreviation(before):
            continue  # "v20.11. then", "e.g. fix", "Dr. Smith": the sentence goes on
        out.append(text[start:m.end()].strip())
        start = m.end()
    out.append(text[start:])
    return out


def _ends_in_abbreviation(text: str) -> bool:
    """"e.g.", "Dr.", "J." (an initial), "a.m.": a stop that does not end the sentence."""
    word = text.rstrip("\"'”’)]").rstrip(".!?").rsplit(None, 1)[-1] if text.strip() else ""
    word = word.lstrip("(\"'“‘[").lower()
    return len(word) == 1 and word.isalpha() or word in _ABBREVIATIONS


def _slight(piece: str) -> bool:
    """Too little to be a claim alone ("Yes!", "Done.", "他说。"): under three words, four CJK/Hangul characters."""
    wide = sum(1 for ch in piece if ord(ch) >= 0x2E80 and ch.isalpha())
    return wide < 4 and len(re.findall(r"[^\W\d_]{2,}", piece)) < 3


def _joined_slight(pieces: list[str]) -> list[str]:
    out: list[str] = []
    for piece in pieces:
        if out and _slight(piece):
            out[-1] = _join(out[-1], piece)
        else:
            out.append(piece)
    if len(out) > 1 and _slight(out[0]):
        out[:2] = [_join(out[0], out[1])]
    return out


def _join(a: str, b: str) -> str:
    return a + b if _CJK_STOP.search(a[-2:]) else f"{a} {b}"
