"""JavaScript string semantics that decide bytes when porting TypeClaw (spec §9).

TypeClaw measures and cuts strings in UTF-16 code units, trims with ECMAScript's whitespace set,
splits on JavaScript's `\\s`, sorts by code units and hashes code units. Python strings are code
points with other whitespace rules; these helpers say in one place how each JS operation is
reproduced.
"""
from __future__ import annotations

import re

from dreamdeck.core.formats.lazy_re import lazy_re

# ECMAScript WhiteSpace + LineTerminator: what `trim()` removes and what `\s` matches. Python's
# `str.strip()`/`\s` also take U+001C–U+001F and U+0085 and leave U+FEFF.
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
JS_WS_CLASS = "[" + re.escape(JS_WHITESPACE) + "]"
_WS_RUN = lazy_re(JS_WS_CLASS + "+")


def js_trim(text: str) -> str:
    """`String.prototype.trim()`."""
    return text.strip(JS_WHITESPACE)


def js_trim_end(text: str) -> str:
    """`String.prototype.trimEnd()`."""
    return text.rstrip(JS_WHITESPACE)


def js_trim_start(text: str) -> str:
    """`String.prototype.trimStart()`."""
    return text.lstrip(JS_WHITESPACE)


def js_split_whitespace(text: str) -> list[str]:
    """`text.split(/\\s+/)`: like Python's `re.split`, leading/trailing whitespace gives ''."""
    return _WS_RUN.split(text)


def utf16_len(text: str) -> int:
    """`text.length`: astral characters count twice."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def utf16_prefix(text: str, units: int) -> str:
    """`text.slice(0, units)`: may end in half of a surrogate pair (kept as a lone surrogate)."""
    if utf16_len(text) <= units:
        return text
    return text.encode("utf-16-le", "surrogatepass")[: 2 * units].decode("utf-16-le", "surrogatepass")


def utf8_len(text: str) -> int:
    """`Buffer.byteLength(text, 'utf8')`: a lone surrogate counts as the 3 bytes of U+FFFD."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def code_unit_key(text: str) -> bytes:
    """Sort key for JavaScript's default `sort()` (UTF-16 code units, not code points)."""
    return text.encode("utf-16-be", "surrogatepass")


def fnv1a_utf16(text: str) -> str:
    """FNV-1a (32 bit) over UTF-16 code units, as lowercase hex without padding (`>>> 0`)."""
    h = 0x811C9DC5
    data = text.encode("utf-16-le", "surrogatepass")
    for i in range(0, len(data), 2):
        h ^= data[i] | (data[i + 1] << 8)
        h = (h * 0x01000193) & 0xFFFFFFFF
    return format(h, "x")


_LONE_SURROGATE = lazy_re("[\ud800-\udfff]")


def printable(text: str) -> str:
    """`text` as JavaScript's UTF-8 encoder writes it: a lone surrogate becomes U+FFFD."""
    return _LONE_SURROGATE.sub("\ufffd", text)
