"""Writing the search index's documents: what a file becomes, and its rows in and out.

A source file under memory/ gives at most one document (`doc_of`: a belief of topics/ or vault/,
a reference; archive/ only holds citations); its rows are the `docs` row (what a search returns,
with the decay inputs `index.search_strength` ranks by) and the `fts` row (the words it is found
by), under one id. Used by the index's refresh and by a preview's overlay (`index.search_preview`),
so both index a file by the same rules.
"""
from __future__ import annotations

import json
import sqlite3
from typing import TYPE_CHECKING

from dreamdeck.core.index.search_strength import stored_columns

if TYPE_CHECKING:
    from dreamdeck.core.index.search_docs import DocData

# area folder under memory/ -> the kind of its documents (None: tracked for citations only)
AREAS = {"topics": "topic", "vault": "vault", "archive": None, "references": "reference"}
_INFO = json.JSONEncoder(ensure_ascii=False)  # one encoder for every document's facts (half the cost of json.dumps)


def doc_of(area: str, slug: str, rel: str, data: bytes) -> DocData | None:
    """The document of the file `rel` (in `area`, named `slug`.md) with bytes `data`, if any."""
    from dreamdeck.core.index.search_docs import reference_doc, shard_doc

    kind = AREAS[area]
    if kind in ("topic", "vault"):
        return shard_doc(kind, slug, rel, data)
    if kind == "reference":
        return reference_doc(slug, rel, data.decode("utf-8", "replace"))
    return None


def drop_files(conn: sqlite3.Connection, rels: list[str], docs_only: bool = False) -> None:
    """Forget `rels`' documents (and, unless `docs_only`, their tail rows and stamps)."""
    for start in range(0, len(rels), 500):
        chunk = rels[start:start + 500]
        marks = ",".join("?" * len(chunk))
        conn.execute(f"DELETE FROM fts WHERE rowid IN (SELECT id FROM docs WHERE path IN ({marks}))", chunk)
        conn.execute(f"DELETE FROM docs WHERE path IN ({marks})", chunk)
        if not docs_only:
            conn.execute(f"DELETE FROM tail WHERE path IN ({marks})", chunk)
            conn.execute(f"DELETE FROM files WHERE path IN ({marks})", chunk)


def insert_docs(conn: sqlite3.Connection, docs: list[DocData]) -> None:
    if not docs:
        return
    first = (conn.execute("SELECT max(id) FROM docs").fetchone()[0] or 0) + 1
    conn.executemany("INSERT INTO docs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", [
        (first + n, d.kind, d.key, d.path, d.heading, d.excerpt, _INFO.encode(d.info), *stored_columns(d.kind, d.info))
        for n, d in enumerate(docs)])
    conn.executemany("INSERT INTO fts(rowid, title, body) VALUES (?, ?, ?)",
                     [(first + n, d.title_terms, d.body_terms) for n, d in enumerate(docs)])


def indexed_sums(conn: sqlite3.Connection, rels: list[str]) -> dict[str, bytes | None]:
    """path -> digest of the bytes indexed, for the files of `rels` the index holds."""
    out: dict[str, bytes | None] = {}
    for start in range(0, len(rels), 500):
        chunk = rels[start:start + 500]
        marks = ",".join("?" * len(chunk))
        out.update(conn.execute(f"SELECT path, sum FROM files WHERE path IN ({marks})", chunk).fetchall())
    return out
