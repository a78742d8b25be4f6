"""Every topic document of a turn in one string, so the keyword lane asks C-speed `str.find`
which documents hold a phrase or a word instead of asking 10,000 documents one by one.

The documents are joined by "\\0". A prompt holding "\\0" is never searched this way
(`keyword_lane` asks each document then), so no match can run across two documents, and a "\\0"
is not a letter or digit, exactly like a document's own start and end: a word found on
alphanumeric boundaries here is found on them in its document, and the other way round.
"""
from __future__ import annotations

from bisect import bisect_right

_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


class Haystack:
    def __init__(self, docs: list[str]):
        self.docs = docs
        self.text = "\0".join(docs)
        self.starts, at = [], 0
        for doc in docs:
            self.starts.append(at)
            at += len(doc) + 1

    def same_docs(self, docs: list[str]) -> bool:
        return len(docs) == len(self.docs) and all(a is b for a, b in zip(docs, self.docs, strict=True))

    def _next_doc(self, at: int) -> tuple[int, int]:
        """(the document holding offset `at`, where the next one starts)."""
        k = bisect_right(self.starts, at) - 1
        return k, self.starts[k + 1] if k + 1 < len(self.starts) else len(self.text)

    def containing(self, needle: str) -> list[int]:
        """Indexes of the documents holding `needle` (no "\\0" in it), in order."""
        out, at = [], self.text.find(needle)
        while at != -1 and self.docs:
            k, after = self._next_doc(at)
            out.append(k)
            at = self.text.find(needle, after) if after < len(self.text) else -1
        return out

    def with_word(self, token: str) -> list[int]:
        """`keyword_lane.token_matcher`'s answer for every document: an ASCII token between
        non-[a-z0-9] characters, any other as a substring."""
        if not token.isascii():
            return self.containing(token)
        text, size, out = self.text, len(token), []
        at = text.find(token)
        while at != -1:
            end = at + size
            if (at == 0 or text[at - 1] not in _ALNUM) and (end == len(text) or text[end] not in _ALNUM):
                k, after = self._next_doc(at)
                out.append(k)
                at = text.find(token, after) if after < len(text) else -1
            else:
                at = text.find(token, at + 1)
        return out


_LAST: list[Haystack] = []  # the last turn's (the fast documents are the same objects while nothing changed)


def haystack(docs: list[str]) -> Haystack:
    if _LAST and _LAST[0].same_docs(docs):
        return _LAST[0]
    hay = Haystack(docs)
    _LAST[:] = [hay]
    return hay
