"""The ways a key hides from a literal pattern: look-alike characters, spacing and encodings.

`fold` undoes what keeps a key's characters from matching while a person (or an LLM) still reads
the key: fullwidth and other compatibility forms (NFKC: `ＡＫＩＡ…` is `AKIA…`), letters of the
Cyrillic and Greek alphabets that look like Latin ones (`АКІА` in Cyrillic is read as `AKIA`),
and invisible format characters inside it (zero-width space and joiners, soft hyphen, word
joiner, BOM). A look-alike is folded in a word that mixes it with ASCII letters or digits, and in
a long run with no ASCII letter left at all (`АКІАЗЕНМ…`: every letter a look-alike, the digits
look-alikes too, `З` for 3, `б` for 6, fullwidth or mathematical digits); a word of Russian or
Greek prose is neither, and is left alone. It keeps, for each folded character, where it came from, so a finding is mapped
back to the exact span of the original text (a redaction covers the disguise whole).

`encoded_runs` yields the runs of a text that decode to readable text: base64 (and base64url)
(a config blob, a Kubernetes secret value), hex (`414b4941…`) and %-encoding (`%41%4B…`, a
callback URL), and a key spelled out one character at a time between spaces (`g h p _ …`).
Runs that decode to bytes (git shas, sha256 sums, ids, integrity sums, public keys) are not
text and are left to the other rules; prose in other scripts has no such runs. Escapes too: a
run of `\\x41`, `\\u0041`, `\\u{41}`, `&#65;`/`&#x41;` or octal `\\101`/`\\0101` escapes (what code,
JSON, HTML, C, bash's `$'…'`, printf and `echo -e` write), mixed with plain characters or not, is
decoded. An octal escape has three digits (`\\0` and three in echo's form): a backslash and one or
two digits is a regex backreference or a path (`\\1`, `C:\\1\\2`), and is left as written.

`may_hide` is the fast path: plain ASCII text with no run of 16 token characters and no run of
spaced single characters cannot hide anything here, and skips all of it.
"""
from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Iterator
from urllib.parse import unquote

from dreamdeck.core.formats.lazy_re import lazy_re

__all__ = ["fold", "encoded_runs", "joined_runs", "may_hide"]

# Cyrillic and Greek letters a reader takes for Latin ones (Unicode's confusables, the letters
# that occur in keys: capitals, digits' look-alikes aside, and the lower-case ones of base64).
_LOOK_ALIKE_LETTERS = "АВСЕНІЈКМОРЅТХУаеіјкорсѕхуԁһӏԛԜԝЗӠб" "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧοικνρτυχ"  # Cyrillic, Greek
_LOOK_ALIKE = str.maketrans(_LOOK_ALIKE_LETTERS, "ABCEHIJKMOPSTXYaeijkopcsxydhlqWw336" "ABEZHIKMNOPTYXoikvptux")
# A look-alike is folded in a word that also holds an ASCII letter or digit (a key mixing
# scripts), or in a run of 16 characters a key could be spelled with, none of them outside the
# look-alikes, the compatibility forms and key punctuation (a key with no ASCII left): a word of
# Russian or Greek prose is neither (its words are short, or hold letters with no Latin twin).
_LA = "[" + _LOOK_ALIKE_LETTERS + "]"
_MIXED_WORD = lazy_re(r"\S*(?:" + _LA + r"\S*[A-Za-z0-9]|[A-Za-z0-9]\S*" + _LA + r")\S*")
_ASCII_ALNUM = lazy_re(r"[A-Za-z0-9]")
_ANY_LOOK_ALIKE = lazy_re(_LA)  # a cheap scan first: most text (CJK, ASCII) has none
_KEY_LIKE_RUN = lazy_re(
    "[" + _LOOK_ALIKE_LETTERS + "\uff10-\uff19\uff21-\uff3a\uff41-\uff5a\U0001d400-\U0001d7ff"
    "\u00ad\u200b-\u200d\u2060\ufeff_+/=.:-]{16,}")

# Only text holding one of these can fold into something new: format characters (Cf) and the
# compatibility blocks that NFKC maps onto ASCII letters and digits. Most text has none, and is
# not walked character by character.
_FOLDABLE = lazy_re(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f"
    "\u2460-\u24ff\ufe00-\ufe0f\ufeff\uff0b\uff0d-\uff19\uff1d\uff21-\uff3a\uff3f\uff41-\uff5a\ufb00-\ufb06\U0001d400-\U0001d7ff\U000e0000-\U000e007f"
    "]")

_RUN = lazy_re(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,4096}={0,2}(?![A-Za-z0-9+/=_-])")


def _fold_at(text: str) -> list[int]:
    """Where `text` has a character to fold: a compatibility or format character anywhere, a
    look-alike letter in a word that mixes it with ASCII letters or digits."""
    at = [m.start() for m in _FOLDABLE.finditer(text)]
    look_alike = _ANY_LOOK_ALIKE.search(text) is not None
    words = list(_KEY_LIKE_RUN.finditer(text)) if look_alike else []
    if look_alike and _ASCII_ALNUM.search(text) is not None:
        words += _MIXED_WORD.finditer(text)
    for word in words:
        at += [word.start() + j for j, ch in enumerate(word.group()) if ch in _LOOK_ALIKE_LETTERS]
    return sorted(set(at))


def fold(text: str) -> tuple[str, list[int]] | None:
    """(folded text, the index in `text` each of its characters came from), or None when
    folding changes nothing. Only the characters to fold are looked at one by one; the text
    between them is copied whole (a page of CJK or Cyrillic prose is mostly such text)."""
    if text.isascii():
        return None
    at = _fold_at(text)
    if not at:
        return None
    out: list[str] = []
    where: list[int] = []
    pos = 0
    for i in at:
        out.append(text[pos:i])
        where.extend(range(pos, i))
        ch = text[i]
        if unicodedata.category(ch) != "Cf":  # a format character is dropped: it shows as nothing
            folded = unicodedata.normalize("NFKC", ch).translate(_LOOK_ALIKE)
            out.append(folded)
            where.extend([i] * len(folded))
        pos = i + 1
    out.append(text[pos:])
    where.extend(range(pos, len(text)))
    return "".join(out), where


def _decode(run: str) -> str | None:
    body = run.rstrip("=")
    if len(body) % 4 == 1:
        return None
    padded = body + "=" * (-len(body) % 4)
    try:
        raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    if not text.isprintable() and not all(c.isprintable() or c in "\n\r\t" for c in text):
        return None
    return text


# The fast path's gates, on the text's bytes mapped to three classes: `a` a token character
# (base64, hex, %-encoding), `b` any other non-space, ` ` a space or tab (other spaces `\n`).
_TOKEN_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_%=.~-")
_CLASSES = bytes(ord("a") if i in _TOKEN_BYTES else ord(" ") if i in (9, 32) else
                 ord("\n") if chr(i).isspace() else ord("b") for i in range(256))
_LONG_RUN = b"a" * 16
_SPACED_GATE = lazy_re(rb" [ab] +[ab] +[ab] ")  # three single characters between spaces
_CANDIDATE = lazy_re(r"[A-Za-z0-9+/_%=.~-]{16,}")
# Single characters between spaces, 12 or more (the last may carry a closing punctuation mark).
_SPACED = lazy_re(r"(?<!\S)(?:\S[ \t]+){11,}\S[.,;:!?)\]\"']?(?!\S)")
_HEX = lazy_re(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){12,2048}(?![0-9A-Fa-f])")
_PERCENT = lazy_re(r"(?:%[0-9A-Fa-f]{2}|[A-Za-z0-9._~+/=-]){16,4096}")


def _gates(text: str) -> tuple[bool, bool]:
    """(may hold a run of 16 token characters, may hold single characters between spaces)."""
    mapped = text.encode("utf-8", "surrogatepass").translate(_CLASSES)
    return _LONG_RUN in mapped, _SPACED_GATE.search(mapped) is not None


def may_hide(text: str) -> bool:
    """False when `text` cannot hold a disguise `fold` or `encoded_runs` would find (the fast path)."""
    return not text.isascii() or any(_gates(text)) or _may_escape(text)


# Escapes as code, JSON and HTML write them: runs of them (12 characters or more, plain key
# characters between them allowed) are decoded; consecutive `\x` or octal bytes as UTF-8.
# An octal byte: `\0` and three digits (echo -e, printf %b) tried before three digits (C, $'…').
_OCTAL = r"\\0[0-3][0-7]{2}|\\[0-3][0-7]{2}"
_ESCAPE = (r"\\x[0-9A-Fa-f]{2}|\\u\{[0-9A-Fa-f]{1,6}\}|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}"
           r"|&#[xX][0-9A-Fa-f]{1,6};|&#[0-9]{1,7};|" + _OCTAL)
# Starting where a run of key characters starts: tried at every character of a word, a failing
# attempt would cost the word's length each time.
_ESCAPED_RUN = lazy_re(r"(?<![A-Za-z0-9+/=_.~:-])(?:" + _ESCAPE + r"|[A-Za-z0-9+/=_.~:-]){12,4096}")
_ESCAPE_CANDIDATE = lazy_re(r"[A-Za-z0-9+/=_.~:{}&#;\\-]{12,}")
# a `\\x` or octal sequence whole: its bytes are UTF-8
_ONE_ESCAPE = lazy_re(r"(?:\\x[0-9A-Fa-f]{2})+|(?:" + _OCTAL + r")+|" + _ESCAPE)
_ESCAPE_GATE = lazy_re(r"\\[xuU][0-9A-Fa-f{]|&#|\\[0-3][0-7]{2}")


def _may_escape(text: str) -> bool:
    return ("\\" in text or "&#" in text) and _ESCAPE_GATE.search(text) is not None


def _unescaped(m: re.Match[str]) -> str:
    token = m.group()
    if token.startswith("\\x") or token[1].isdigit():
        raw = bytes.fromhex(token.replace("\\x", "")) if token[1] == "x" else _octal_bytes(token)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return raw.decode("latin-1")
    code = int(token[3:-1], 16) if token[:3] in ("&#x", "&#X") else int(token[2:-1]) if token[:2] == "&#" \
        else int(token[2:].strip("{}"), 16)
    return chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"


def _octal_bytes(token: str) -> bytes:
    """`\\101\\0102…` as bytes: each escape's last three digits (a leading `0` is echo's marker)."""
    return bytes(int(part[-3:], 8) for part in token.split("\\")[1:])


def _escaped_runs(text: str) -> Iterator[tuple[int, int, str]]:
    # The runs lie inside runs of escape and key characters, found by one character class:
    # most escaped text (accents in JSON, CJK as `\\uXXXX`) has none long enough to try.
    for candidate in _ESCAPE_CANDIDATE.finditer(text):
        chunk = candidate.group()
        if "\\" not in chunk and "&#" not in chunk:
            continue
        for m in _ESCAPED_RUN.finditer(chunk):
            run = m.group()
            if "\\" in run or "&#" in run:
                decoded = _ONE_ESCAPE.sub(_unescaped, run)
                if decoded != run:
                    yield candidate.start() + m.start(), candidate.start() + m.end(), decoded


def _readable(raw: bytes) -> str | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text if text and all(c.isprintable() or c in "\n\r\t" for c in text) else None


def encoded_runs(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, decoded text) of each run in `text` that decodes to readable text: base64,
    hex, %-encoding, escapes, or single characters spelled out between spaces."""
    long_runs, spaced = _gates(text)
    if long_runs:
        # every encoding's run lies inside a run of token characters: only those are searched
        for candidate in _CANDIDATE.finditer(text):
            yield from _decoded_runs(candidate.group(), candidate.start())
    if spaced:
        for m in _SPACED.finditer(text):
            yield m.start(), m.end(), re.sub(r"[ \t]+", "", m.group())
    if _may_escape(text):
        yield from _escaped_runs(text)


def _decoded_runs(run: str, at: int) -> Iterator[tuple[int, int, str]]:
    for m in _RUN.finditer(run):
        b64 = m.group()
        if b64.lower() == b64 or b64.upper() == b64:  # all one case: a hex sum or a word, not base64
            continue
        decoded = _decode(b64)
        if decoded:
            yield at + m.start(), at + m.end(), decoded
    for m in _HEX.finditer(run):
        decoded = _readable(bytes.fromhex(m.group()))
        if decoded:
            yield at + m.start(), at + m.end(), decoded
    if "%" in run:
        for m in _PERCENT.finditer(run):
            decoded = _unpercent(m.group())
            if decoded:
                yield at + m.start(), at + m.end(), decoded


def _unpercent(run: str) -> str | None:
    """A %-encoded run decoded, or None (no escape in it, or bytes that are not UTF-8 text)."""
    if "%" not in run:
        return None
    try:
        return unquote(run, errors="strict")
    except UnicodeDecodeError:
        return None


# Between decoded runs searched as one text: no rule's characters, and a blank line, so no
# finding reaches from one run into the next (a key block that would is reported on each run).
_RUN_GAP = "\n\x00\n"


def joined_runs(runs: list[tuple[int, int, str]]) -> tuple[str, list[int]]:
    """The decoded texts of `runs` (from `encoded_runs`) as one text, and where each starts in it."""
    starts, at = [], 0
    for _, _, decoded in runs:
        starts.append(at)
        at += len(decoded) + len(_RUN_GAP)
    return _RUN_GAP.join(decoded for _, _, decoded in runs), starts
