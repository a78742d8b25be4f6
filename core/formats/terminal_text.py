"""Text bound for a terminal: what a person's screen shows, never what it obeys.

A shard, a fragment, a slug, a reason a dreamer gave or a file's name can hold characters a
terminal acts on instead of showing: ESC and the other C0 controls (retitle the window, clear
the screen, move the cursor, hide a line), the C1 controls (U+009B is CSI on its own), the
bidirectional overrides and isolates that make a line read in an order other than its bytes'
(U+202E turns `exe.txt` into what looks like `txt.exe`), and the line and paragraph separators.
Every path to a terminal (the CLI's lines, its error lines on stderr, its JSON, the app) shows
them as visible escapes (`\\x1b`, `\\u202e`). Newline and tab are kept: they are layout. A field
that is one line by nature (a file name, a slug, a heading, a query, a table cell, a listed
fragment) goes through `terminal_line`, which shows newline, carriage return and tab as escapes too:
a name holding a newline must not forge a second result line. A lone
surrogate (TypeClaw's cut previews can hold one) is shown as its escape too, where a UTF-8
terminal could not take it at all.
"""
from __future__ import annotations

import re

from dreamdeck.core.formats.lazy_re import lazy_re

__all__ = ["terminal_text", "terminal_line", "terminal_json", "visible_text"]

_BIDI_AND_SEPARATORS = "\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_UNSAFE_IN_A_LINE = lazy_re("[\x00-\x1f\x7f-\x9f" + _BIDI_AND_SEPARATORS + "\ud800-\udfff]")
_UNSAFE = lazy_re("[\x00-\x08\x0b-\x1f\x7f-\x9f" + _BIDI_AND_SEPARATORS + "\ud800-\udfff]")
# A whole control sequence, as a terminal consumes it: OSC (a title, a link) up to its BEL or ST;
# DCS, SOS, PM and APC up to ST; CSI (colours, cursor moves) up to its final byte; any other
# ESC with its intermediates and final byte. A lone control character is the last alternative.
_SEQUENCE = lazy_re(
    r"(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c]*(?:\x1b\\|\x9c)?"
    r"|(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|\x1b[ -/]*[0-~]?"
    "|[\x00-\x08\x0b-\x1f\x7f-\x9f" + _BIDI_AND_SEPARATORS + "]"
)
# In JSON text the C0 controls are already escaped by the encoder; these are the rest.
_UNSAFE_IN_JSON = lazy_re("[\x7f-\x9f" + _BIDI_AND_SEPARATORS + "\ud800-\udfff]")


def _visible(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_text(text: str) -> str:
    """`text` with every character a terminal would act on shown as its escape."""
    return _UNSAFE.sub(_visible, text)


def terminal_line(text: str) -> str:
    """`text` shown on one line: as `terminal_text`, with newline, carriage return and tab escaped too."""
    return _UNSAFE_IN_A_LINE.sub(_visible, text)


def terminal_json(text: str) -> str:
    """JSON text (as `json.dumps(..., ensure_ascii=False)` writes it) with the characters a
    terminal would act on written as `\\uXXXX` escapes: the same JSON, the same values once
    parsed (those characters only ever stand inside a string)."""
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def visible_text(text: str) -> str:
    """`text` as a terminal would show it: each control sequence dropped whole (`\\x1b[31m`,
    a title's OSC), never its letters ("31m") left behind as words. For names made from text
    (a slug), not for showing it: a screen shows the escapes (`terminal_text`)."""
    return _SEQUENCE.sub("", text) if _UNSAFE.search(text) else text
