"""The loose content key: a fragment's text written another way is the same text to a tombstone.

TypeClaw's `fragment_content_hash` only trims line ends, so a forgotten text came back with
another case, other spacing or a final period. A tombstone also holds the *loose* hash:
sha256 over `loose_text(topic) + "\\n\\n" + loose_text(body)`, where `loose_text` is, in order,
1. Unicode NFKC, then casefold, then NFKC again (fullwidth and other compatibility letters,
   ligatures and case all fold to one spelling: "ＤＥＰＬＯＹ", "Deploy", "deploy" are one word),
   and every Default_Ignorable_Code_Point dropped (a zero-width space or joiner, a soft hyphen,
   a byte-order mark, a bidi mark, a variation selector, a tag character: invisible, so
   "dep<U+200B>loy" is "deploy" to a reader and must be to a tombstone);
2. every run of whitespace collapsed to one space, and the ends trimmed;
3. a run of sentence-ending punctuation (`. ! , ; :` and the CJK full stop and comma, after
   NFKC's folding of their fullwidth forms, "…" included) and the spaces between it stripped at
   the end ("Tuesday.", "Tuesday !" and "Tuesday" are one ending). Nothing else at the end is:
   "Budget cut 50%" is not "Budget cut 50", "use C#" not "use C", "rm -rf /" not "rm -rf", and
   "Deploy on Friday?" (a question) not "Deploy on Friday." (an instruction).
Equal exact hashes imply equal loose hashes, so the loose hash refuses a superset of what the
exact one does. It never sees a paraphrase, other words, words moved between topic and body, a
text split over two fragments, or look-alike letters of another script.

Records made with the first rule (`loose1`: no ignorable characters dropped, any punctuation
stripped at the end) keep it: `loose_content_hashes` gives a text's hash under both rules, so a
record never refuses less than when it was made.

A statement is forgotten under any topic too: a body of four words or more (or eight CJK or
Hangul characters) also gets a *body* hash, sha256 over `lbody1` and its loose text alone
(`loose_body_hash`). A shorter body ("heartbeat ok") is forgotten with its topic only, or every
later "heartbeat ok" would be refused.

The prefilter (`fold` and `needle_of`) lets a reader skip parsing the lines that cannot match:
a tombstone's *needle* is the longest run of word characters of its loose topic, and every
line holding that fragment's text, however it was re-cased or re-spaced, holds the needle in
`fold(raw line)` — except through a JSON `\\u` escape, which the caller parses (`may_escape`).
"""
from __future__ import annotations

import hashlib
import unicodedata

from dreamdeck.core.formats.lazy_re import lazy_re

LOOSE_VERSION = "loose2"  # hashed in, so a record of one rule can never collide with another's
_FIRST_VERSION = "loose1"
_SPACES = lazy_re(r"\s+")
_WORD_RUN = lazy_re(r"\w+")
# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 15).
_IGNORABLE = lazy_re("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
                        "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3"
                        "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]+")
_ENDING = frozenset(".!,;:\u3001\u3002")  # NFKC folds …, ！, ．, ，, ；, ：, ‼ into these


def fold(text: str) -> str:
    """NFKC, casefold, NFKC, ignorable characters dropped: one spelling for case, compatibility
    letters and invisible characters."""
    if text.isascii():
        return text.lower()  # NFKC leaves ASCII alone, casefold is lower() there, and none is ignorable
    return _IGNORABLE.sub("", _fold_letters(text))


def _fold_letters(text: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def _strip_ending(text: str) -> str:
    end = len(text)
    while end and (text[end - 1] == " " or text[end - 1] in _ENDING):
        end -= 1
    return text[:end]


def loose_text(text: str) -> str:
    """The text as the loose key sees it (see the module docstring for the three steps)."""
    return _strip_ending(_SPACES.sub(" ", fold(text)).strip())


def loose_content_hash(topic: str, body: str) -> str:
    """The loose hash of a fragment's topic and body (the module docstring's rule)."""
    return _sha(f"{LOOSE_VERSION}\n{loose_text(topic)}\n\n{loose_text(body)}")


def loose_content_hashes(topic: str, body: str) -> tuple[str, str]:
    """(the loose hash, the hash under the first rule): a text is forgotten by a record of either."""
    return loose_content_hash(topic, body), _sha(f"{_FIRST_VERSION}\n{_first_text(topic)}\n\n{_first_text(body)}")


def _first_text(text: str) -> str:
    """The first rule's loose text: no ignorable character dropped, any punctuation stripped at the end."""
    text = _SPACES.sub(" ", text.lower() if text.isascii() else _fold_letters(text)).strip()
    end = len(text)
    while end and (text[end - 1] == " " or unicodedata.category(text[end - 1]).startswith("P")):
        end -= 1
    return text[:end]


def _sha(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


_BODY_VERSION = "lbody1"
_WIDE = lazy_re(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff]")  # CJK, kana, Hangul: words without spaces


def _statement(text: str) -> bool:
    """A loose body long enough to be forgotten whatever its topic."""
    return len(_WORD_RUN.findall(text)) >= 4 or len(_WIDE.findall(text)) >= 8


def loose_body_hash(body: str) -> str:
    """The body hash of a statement ("" for a body too short to be one)."""
    text = loose_text(body)
    return _sha(f"{_BODY_VERSION}\n{text}") if _statement(text) else ""


def needle_of(topic: str) -> str | None:
    """The longest word-character run of the loose topic; None when it has none."""
    runs = _WORD_RUN.findall(loose_text(topic))
    return max(runs, key=len) if runs else None


def may_escape(raw: bytes) -> bool:
    """True when a JSON `\\u` escape may spell a character the needle search cannot see."""
    return b"\\u" in raw
