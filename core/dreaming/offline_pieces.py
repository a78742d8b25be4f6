"""Which of the shards' headings hold a term, found from their distinct whitespace pieces.

A run used to index every heading's terms up front (10,000 term sets and their postings: a
fifth of a first run's CPU), though it only ever looks up the terms its new fragments hold. A
heading read a piece at a time (`claims.tokens.term_pieces`: ASCII text) holds exactly the terms
of its pieces, and 10,000 headings share about 5,900 distinct pieces: each piece is tokenized
once, and a term's headings are the union of its pieces' headings, gathered only when the run
looks the term up (`claims.index.ClaimIndex(pending=...)`). No heading's own term set is built.
"""
from __future__ import annotations

from dreamdeck.core.claims.tokens import piece_terms, term_pieces

__all__ = ["HeadingPieces"]


class HeadingPieces:
    def __init__(self) -> None:
        self._slugs: dict[str, list[str]] = {}  # piece -> the headings it is a piece of
        self._pieces: dict[str, list[str]] = {}  # term -> the pieces it is a term of
        self._worded: set[str] = set()  # the pieces that hold a term

    def add(self, slug: str, text: str) -> bool:
        """Hold the heading `text` of `slug`; False (not held) when its terms cannot be told
        from its pieces, or it has none (a heading of values only is looked up by its values)."""
        pieces = term_pieces(text)
        if pieces is None:
            return False
        by_piece = self._slugs
        for piece in pieces:
            if piece not in by_piece:
                self._read(piece)
        if self._worded.isdisjoint(pieces):
            return False
        for piece in pieces:
            by_piece[piece].append(slug)
        return True

    def _read(self, piece: str) -> None:
        """A piece seen for the first time: its terms, once for every heading holding it."""
        self._slugs[piece] = []
        for term in piece_terms(piece):
            self._worded.add(piece)
            self._pieces.setdefault(term, []).append(piece)

    def slugs(self, term: str) -> set[str]:
        """The held headings holding `term`."""
        out: set[str] = set()
        for piece in self._pieces.get(term, ()):
            out.update(self._slugs[piece])
        return out
