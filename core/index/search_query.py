"""Reading the search index: the documents a query matches, best first.

A query is its words as FTS5 phrases (`formats.search_terms`). Those BM25 weighs decide: a word
in half the documents or more is left out when the query holds a rarer one (`index.search_cut`),
and the matches come best BM25 first. A query with no discriminating word (every word that
matches anything is in half the documents or more) gets, when the caller passes a
`StrengthOrder`, its matches strongest first instead (`index.search_strength`: BM25 can only
tell them apart by ~1e-6 there). Either way, ties come in (kind, key) order, so a caller ranking
only the first `limit` knows which tied documents it has not seen (`ops.recall`).
"""
from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from dreamdeck.core.formats.search_terms import match_terms
from dreamdeck.core.index.search_cut import TermCounts
from dreamdeck.core.index.search_strength import StrengthOrder, Strengths, strongest

TITLE_WEIGHT, BODY_WEIGHT = 2.0, 1.0


@dataclass(frozen=True)
class Hit:
    """One document a query matched, with BM25 relevance (higher is better); `strength` is set
    instead (ln of its decay value, None when it has none) when the query had no discriminating
    word and the hits are strongest first (`index.search_strength`); `relevance` is then 0."""

    kind: str
    key: str
    path: str
    heading: str
    excerpt: str
    info: dict[str, Any]
    relevance: float
    strength: float | None = None
    by_strength: bool = False


class QueryCache:
    """What one connection's queries keep between them: the term counts and every document's
    strength (`Strengths`, whose temp-table writes the counts' generation leaves out)."""

    def __init__(self) -> None:
        self.strengths = Strengths()
        self.counts = TermCounts(self.strengths)


def query_connection(conn: sqlite3.Connection, query: str, limit: int = 200, cache: QueryCache | None = None,
                     order: StrengthOrder | None = None) -> list[Hit]:
    """Documents of the index in `conn` matching `query` (module docstring), at most `limit`.
    `cache`: the caller's `QueryCache` for this connection (None: a fresh one); `order`: rank a
    query with no discriminating word by strength (None: by BM25 whatever the query)."""
    phrases = match_terms(query)
    if not phrases:
        return []
    cache = cache or QueryCache()
    snapshot = not conn.in_transaction  # the counts and the query read the same index
    if snapshot:
        conn.execute("BEGIN")
    try:
        kept, discriminating = cache.counts.weighed(conn, phrases)
        if order is not None and not discriminating:
            return _strongest(conn, kept, limit, order, cache.strengths)
        rows = conn.execute(
            "SELECT d.kind, d.key, d.path, d.heading, d.excerpt, d.info, bm25(fts, ?, ?) AS r "
            "FROM fts JOIN docs d ON d.id = fts.rowid WHERE fts MATCH ? ORDER BY r, d.kind, d.key LIMIT ?",
            (TITLE_WEIGHT, BODY_WEIGHT, " OR ".join(kept), limit),
        ).fetchall()
    finally:
        if snapshot and conn.in_transaction:
            conn.execute("COMMIT")
    return [Hit(k, key, p, h, e, json.loads(i), -r) for k, key, p, h, e, i, r in rows]


def _strongest(conn: sqlite3.Connection, phrases: list[str], limit: int, order: StrengthOrder,
               strengths: Strengths) -> list[Hit]:
    ranked = strongest(conn, phrases, limit, order, strengths)
    if not ranked:
        return []
    ids = [doc_id for doc_id, _ in ranked]
    rows: dict[int, tuple] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        rows.update((r[0], r[1:]) for r in conn.execute(
            f"SELECT id, kind, key, path, heading, excerpt, info FROM docs WHERE id IN ({','.join('?' * len(chunk))})", chunk))
    hits = []
    for doc_id, strength in ranked:
        kind, key, path, heading, excerpt, info = rows[doc_id]
        hits.append(Hit(kind, key, path, heading, excerpt, json.loads(info), 0.0, strength, True))
    return hits
