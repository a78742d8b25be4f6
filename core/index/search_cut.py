"""Which phrases of a query BM25 gives weight: the others are left out of the MATCH.

FTS5's bm25() floors the IDF of a phrase that half the rows or more hold at 1e-6 (fts5_aux.c
`fts5Bm25GetData`: idf = log((N - n + 0.5) / (n + 0.5)), and 1e-6 when that is not positive),
so such a phrase adds at most 1e-6 × (k1 + 1) = `FLOORED_SHARE` to any document's score. Yet a
MATCH holding it makes FTS5 score every row that holds it: where "user" is in every belief, a
query for "user kayak" ranks all 10,000 beliefs to find the few with "kayak".

So when a query has a phrase BM25 does weigh (held by at least one row and by fewer than half),
its floored phrases are left out: a document holding only floored phrases (BM25's score for it is
at most `FLOORED_SHARE` per phrase: it calls it irrelevant) is no longer a match, and a
document's score loses at most `FLOORED_SHARE` per phrase left out, so only documents whose
scores are that close may change places. A query whose phrases are all floored (or match
nothing but floored ones) is asked whole, exactly as before.

How many rows hold a phrase is bm25's own `nHit` (a count over the MATCH of that phrase alone);
the counts are cached per index generation — the connection's `data_version` (another
connection committed) and its own `total_changes`, less the writes of its temp table of
strengths (`index.search_strength.Strengths`) — so the cache can only ever cost speed. The counts and
the query are read in one snapshot (a read transaction), so they agree.
"""
from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dreamdeck.core.index.search_strength import Strengths

K1 = 1.2  # fts5_aux.c's bm25 k1
FLOORED_IDF = 1e-6
FLOORED_SHARE = FLOORED_IDF * (K1 + 1)  # the most one floored phrase adds to a document's score
MAX_COUNTS = 4096  # phrases remembered per generation


class TermCounts:
    """How many rows hold each phrase, for one connection, valid for one index generation."""

    def __init__(self, strengths: Strengths | None = None) -> None:
        self._strengths = strengths
        self._generation: tuple[int, int] | None = None
        self._rows = 0
        self._held: dict[str, int] = {}

    def weighed(self, conn: sqlite3.Connection, phrases: list[str]) -> tuple[list[str], bool]:
        """The phrases to MATCH: those BM25 weighs when there are any, else those that match
        anything (else all of them); and whether there were any BM25 weighs (False: the query has
        no discriminating word). Call it in the read transaction the query runs in."""
        own = self._strengths.own_changes if self._strengths is not None else 0
        generation = (conn.execute("PRAGMA data_version").fetchone()[0], conn.total_changes - own)
        if generation != self._generation or len(self._held) > MAX_COUNTS:
            self._generation, self._held = generation, {}
            self._rows = conn.execute("SELECT count(*) FROM fts").fetchone()[0]
        kept = [p for p in phrases if 0 < self._count(conn, p) and 2 * self._held[p] < self._rows]
        if kept:
            return kept, True
        return [p for p in phrases if self._held[p]] or phrases, False  # one matching nothing changes nothing

    def _count(self, conn: sqlite3.Connection, phrase: str) -> int:
        held = self._held.get(phrase)
        if held is None:
            held = self._held[phrase] = conn.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (phrase,)).fetchone()[0]
        return held
