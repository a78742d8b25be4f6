"""What one fragment states: its body cut into statements, each a claim of its own.

An agent's note is often a paragraph line of several sentences, or a multi-line body; a belief is
one sentence (TypeClaw's rule 6), so a fragment read as one claim would leave everything after
its first sentence in no belief at all. The rules:
- a line without a closing stop goes on in the next one (hard-wrapped prose), unless the next is
  a list item, a table row or a header;
- a header line (ending in ":" or "：", or a Markdown heading) takes the list items under it
  (or, with none, the next line) as one statement:
  "Deploy checklist: run the migrations first; then restart the workers";
- a line is cut into sentences (`sentences`) at "。！？" and at ". ", "! ", "? " when an upper-case
  or caseless letter follows, never after an abbreviation ("e.g.", "Dr.", an initial);
- a sentence that leans on the one before ("It is wiped on Sundays.", "他…"), or too slight to
  be a claim alone ("Yes!", "Done."), stays with it; more than `MOST` statements: the rest stay
  together in the last, so no text is ever dropped.
A body that states one thing comes back as itself, byte for byte.
"""
from __future__ import annotations

import re

__all__ = ["MOST", "sentences", "statements"]

MOST = 8  # statements per fragment; a pasted document is not forty beliefs

_ITEM = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_ROW = re.compile(r"^\s*\|")
_HEADER = re.compile(r"(?:[:：]\s*$)|(?:^\s*#{1,6}\s)")
_CLOSED = re.compile(r"[.!?。！？;；:：…)\]）」』\"'”’]\s*$")
_CJK_STOP = re.compile(r"[。！？؟।][」』”’)）]*")
_LATIN_STOP = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+(?=[^\W\d_])")
_ABBREVIATIONS = frozenset(
    "e.g i.e etc vs cf al approx dr mr mrs ms mx prof st jr sr no nos fig figs inc ltd co corp dept est "
    "jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun a.m p.m u.s".split())
# A sentence opening with one of these leans on the one before it.
_LEANING = frozenset(
    "it its it's he his him she her they them their this that these those there also but and so then "
    "which who whose otherwise instead still".split())
_LEANING_WIDE = ("他", "她", "它", "这", "那", "也", "但", "而且", "所以", "그", "이것", "또한", "하지만")


def statements(body: str) -> list[str]:
    """The statements `body` makes, in order (see the module docstring)."""
    pieces: list[str] = []
    lines = _unwrapped([line.strip() for line in body.splitlines() if line.strip()])
    i = 0
    while i < len(lines):
        line = lines[i]
        if _HEADER.search(line) and i + 1 < len(lines):
            items = _items_after(lines, i + 1)
            pieces.append(_with_items(line, items))
            i += 1 + len(items)
            continue
        pieces += sentences(line)
        i += 1
    pieces = _kept_together(pieces)
    if len(pieces) <= 1:
        return [body] if not pieces or pieces[0] == body.strip() else pieces
    if len(pieces) > MOST:
        pieces = pieces[:MOST - 1] + [_join_all(pieces[MOST - 1:])]
    return pieces


def sentences(text: str) -> list[str]:
    """`text` cut at its sentence ends (abbreviation-aware; see the module docstring)."""
    out: list[str] = []
    start = 0
    for m in _CJK_STOP.finditer(text):
        out += _latin_sentences(text[start:m.end()])
        start = m.end()
    out += _latin_sentences(text[start:])
    return [s for s in (p.strip() for p in out) if s]


def _unwrapped(lines: list[str]) -> list[str]:
    """Hard-wrapped lines joined back: a line without a closing stop goes on in the next."""
    out: list[str] = []
    for line in lines:
        if out and _goes_on(out[-1], line):
            out[-1] = f"{out[-1]} {line}"
        else:
            out.append(line)
    return out


def _goes_on(line: str, nxt: str) -> bool:
    structural = (_ITEM.match(nxt) or _ROW.match(nxt) or _HEADER.search(nxt) or _ROW.match(line)
                  or _ITEM.match(line) or _HEADER.search(line))
    return not structural and not _CLOSED.search(line)


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


def _kept_together(pieces: list[str]) -> list[str]:
    """Sentences that lean on the one before, or say too little alone, stay with it."""
    out: list[str] = []
    for piece in pieces:
        if out and (_slight(piece) or _leans(piece)):
            out[-1] = _join(out[-1], piece)
        else:
            out.append(piece)
    if len(out) > 1 and _slight(out[0]):
        out[:2] = [_join(out[0], out[1])]
    return out


def _leans(piece: str) -> bool:
    first = re.split(r"[\s,;:]+", piece.strip(), maxsplit=1)[0].lower().strip("\"'“‘(")
    return first in _LEANING or piece.lstrip().startswith(_LEANING_WIDE)


def _slight(piece: str) -> bool:
    """Too little to be a claim alone ("Yes!", "Done.", "好。"): under three words or four wide characters."""
    wide = sum(1 for ch in piece if ord(ch) >= 0x2E80 and ch.isalpha())
    return wide < 4 and len(re.findall(r"[^\W\d_]{2,}", piece)) < 3


def _join(a: str, b: str) -> str:
    return a + b if _CJK_STOP.search(a[-2:]) else f"{a} {b}"


def _join_all(pieces: list[str]) -> str:
    out = pieces[0]
    for piece in pieces[1:]:
        out = _join(out, piece)
    return out
