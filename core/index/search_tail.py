"""The search index's undreamed tail, and which of its fragments a shard already cites.

The tail is what no dream has seen yet (`index.undreamed`), minus what a person forgot (by id,
and by content hash). A fragment that a topic, the vault or the archive cites — actively, or as
superseded evidence — is not a document of its own: it is found through its belief, or not at
all. Knowing which tail fragments are cited means reading shards, and every append to today's
stream changes the tail; so the index keeps, per shard file, its citations on the days the tail
covers (the `tail` table). A changed file's rows are rewritten from the bytes the refresh
already read; a day new to the tail is looked up once through `index.citation_ranges`, which
rules out, without opening them, the files whose citations cannot reach it.
"""
from __future__ import annotations

import json
import sqlite3

from dreamdeck.core.formats.citations import citation_keys
from dreamdeck.core.index.citation_ranges import CitationRanges, file_keys
from dreamdeck.core.index.undreamed import UndreamedFragment, collect_undreamed
from dreamdeck.core.io.cache import Stamp
from dreamdeck.core.store.state import load_state
from dreamdeck.core.workspace import Workspace

CITING_AREAS = ("topics", "vault", "archive")
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS tail(path TEXT NOT NULL, day TEXT NOT NULL, id TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS tail_path ON tail(path)",
)


def is_citing(rel: str) -> bool:
    return rel.split("/", 1)[0] in CITING_AREAS


def undreamed_fragments(ws: Workspace) -> list[UndreamedFragment]:
    """Fragments not dreamed yet and not forgotten, by id or by content (`collect_undreamed`'s rule)."""
    state, _ = load_state(ws.state_path)
    return collect_undreamed(ws, state)


def file_rows(rel: str, data: bytes, days: set[str]) -> list[tuple[str, str, str]]:
    """(path, day, id) of the citations of one shard file's bytes on `days`."""
    if not is_citing(rel):
        return []
    hits = {d for d in days if f"/{d}#".encode() in data}  # every citation of day d holds "/d#"
    if not hits:
        return []
    return [(rel, d, i) for d, i in citation_keys(data.decode("utf-8", "replace")) if d in hits]


def cover_days(conn: sqlite3.Connection, ws: Workspace, days: set[str], stamps: dict[str, Stamp],
               skip: set[str], started: int) -> None:
    """Add the rows of `days` for every shard file not in `skip` (those were just written)."""
    ranges = CitationRanges.of(ws)
    rows: list[tuple[str, str, str]] = []
    for rel, stamp in stamps.items():
        if rel in skip or not is_citing(rel) or not ranges.may_cite(rel, stamp, days):
            continue
        keys = file_keys(ws.memory / rel)
        dates = [d for d, _ in keys]
        ranges.record(rel, stamp, min(dates) if dates else None, max(dates) if dates else None, started)
        rows += [(rel, d, i) for d, i in keys if d in days]
    ranges.save()
    conn.executemany("INSERT INTO tail VALUES (?, ?, ?)", rows)


def cited(conn: sqlite3.Connection, days: list[str]) -> set[str]:
    """`DATE#ID` of the tail that some shard cites."""
    marks = ",".join("?" * len(days))
    return {f"{d}#{i}" for d, i in conn.execute(f"SELECT day, id FROM tail WHERE day IN ({marks})", days)}


def keep_only(conn: sqlite3.Connection, days: list[str]) -> None:
    marks = ",".join("?" * len(days))
    conn.execute(f"DELETE FROM tail WHERE day NOT IN ({marks})", days)


def rebuild_docs(conn: sqlite3.Connection, ws: Workspace, frags: list[UndreamedFragment], days: list[str],
                 covered: set[str], stamps: dict[str, Stamp], rewritten: set[str], started: int) -> int:
    """The tail's documents: its fragments minus those a shard cites, for the tail's `days`
    (those not in `covered` looked up first, `cover_days`). Returns how many there are."""
    from dreamdeck.core.index.search_docs import stream_doc
    from dreamdeck.core.index.search_write import insert_docs

    new_days = set(days) - covered
    if new_days:
        cover_days(conn, ws, new_days, stamps, rewritten, started)
    keep_only(conn, days)
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('tail_days', ?)", (json.dumps(days),))
    cited_now = cited(conn, days) if days else set()
    conn.execute("DELETE FROM fts WHERE rowid IN (SELECT id FROM docs WHERE kind='stream')")
    conn.execute("DELETE FROM docs WHERE kind='stream'")
    docs = [stream_doc(f.date, f.id, f.topic, f.body, f.source, f.ts, f.who)
            for f in frags if f"{f.date}#{f.id}" not in cited_now]
    insert_docs(conn, docs)
    return len(docs)
