"""The loose content key: a fragment's text written another way is the same text to a tombstone.

TypeClaw's `fragment_content_hash` only trims line ends, so a forgotten text came back with
another case, other spacing or a final period. A tombstone also holds the *loose* hash:
sha256 over `loose_text(topic) + "\\n\\n" + loose_text(body)`, where `loose_text` is, in order,
1. Unicode NFKC, then casefold, then NFKC again (fullwidth and other compatibility letters,
   ligatures and case all fold to one spelling: "ＤＥＰＬＯＹ", "Deploy", "deploy" are one word);
2. every run of whitespace collapsed to one space, and the ends trimmed;
3. trailing punctuation (Unicode category P*) and the spaces between it stripped ("Tuesday.",
   "Tuesday !" and "Tuesday" are one ending).
Equal exact hashes imply equal loose hashes, so the loose hash refuses a superset of what the
exact one does. It never sees a paraphrase, other words, or look-alike letters of another script.

The prefilter (`fold` and `needle_of`) lets a reader skip parsing the lines that cannot match:
a tombstone's *needle* is the longest run of word characters of its loose topic, and every
line holding that fragment's text, however it was re-cased or re-spaced, holds the needle in
`fold(raw line)` — except through a JSON `\\u` escape, which the caller parses (`may_escape`).
"""
from __future__ import annotations

import hashlib
import re
import unicodedata

LOOSE_VERSION = "loose1"  # hashed in, so a future rule cannot collide with a record of this one
_SPACES = re.compile(r"\s+")
_WORD_RUN = re.compile(r"\w+")


def fold(text: str) -> str:
    """NFKC, casefold, NFKC: one spelling for case and compatibility letters."""
    if text.isascii():
        return text.lower()  # NFKC leaves ASCII alone and casefold is lower() there
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def _strip_trailing_punctuation(text: str) -> str:
    end = len(text)
    while end and (text[end - 1] == " " or unicodedata.category(text[end - 1]).startswith("P")):
        end -= 1
    return text[:end]


def loose_text(text: str) -> str:
    """The text as the loose key sees it (see the module docstring for the three steps)."""
    return _strip_trailing_punctuation(_SPACES.sub(" ", fold(text)).strip())


def loose_content_hash(topic: str, body: str) -> str:
    """The loose hash of a fragment's topic and body (the module docstring's rule)."""
    key = f"{LOOSE_VERSION}\n{loose_text(topic)}\n\n{loose_text(body)}"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def needle_of(topic: str) -> str | None:
    """The longest word-character run of the loose topic; None when it has none."""
    runs = _WORD_RUN.findall(loose_text(topic))
    return max(runs, key=len) if runs else None


def may_escape(raw: bytes) -> bool:
    """True when a JSON `\\u` escape may spell a character the needle search cannot see."""
    return b"\\u" in raw
