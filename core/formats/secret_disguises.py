"""The two ways a key hides from a literal pattern: look-alike characters and base64.

`fold` undoes what keeps a key's characters from matching while a person (or an LLM) still reads
the key: fullwidth and other compatibility forms (NFKC: `ＡＫＩＡ…` is `AKIA…`) and invisible
format characters inside it (zero-width space and joiners, soft hyphen, word joiner, BOM). It
keeps, for each folded character, where it came from, so a finding is mapped back to the exact
span of the original text (a redaction covers the disguise whole).

`encoded_runs` yields the base64 (and base64url) runs of a text that decode to readable text:
a key stored as a config blob or a Kubernetes secret value is still the key. Runs that decode to
bytes (hashes, ids, integrity sums, public keys) are not text and are left to the other rules.
"""
from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Iterator

__all__ = ["fold", "encoded_runs"]

# Only text holding one of these can fold into something new: format characters (Cf) and the
# compatibility blocks that NFKC maps onto ASCII letters and digits. Most text has none, and is
# not walked character by character.
_FOLDABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f"
    "\u2460-\u24ff\ufe00-\ufe0f\ufeff\uff01-\uff5e\U0001d400-\U0001d7ff\U000e0000-\U000e007f]")

_RUN = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,4096}={0,2}(?![A-Za-z0-9+/=_-])")
_HAS_LOWER_UPPER = re.compile(r"[a-z].*[A-Z]|[A-Z].*[a-z]")


def fold(text: str) -> tuple[str, list[int]] | None:
    """(folded text, the index in `text` each of its characters came from), or None when
    folding changes nothing."""
    if text.isascii() or _FOLDABLE.search(text) is None:
        return None
    out: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        if ch.isascii():
            out.append(ch)
            where.append(i)
        elif unicodedata.category(ch) != "Cf":  # a format character is dropped: it shows as nothing
            for c in unicodedata.normalize("NFKC", ch):
                out.append(c)
                where.append(i)
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


def encoded_runs(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, decoded text) of each base64 run in `text` that decodes to readable text."""
    for m in _RUN.finditer(text):
        run = m.group()
        if _HAS_LOWER_UPPER.search(run) is None:  # all one case: a hex sum or a word, not base64
            continue
        decoded = _decode(run)
        if decoded:
            yield m.start(), m.end(), decoded
