"""The search index as it would be after some shard files change, without changing anything.

A preview (what a reflection's hunks would do to recall) needs the index of a memory that does
not exist yet. It costs what the change costs: a second connection to the real index (fresh,
refreshed first) opens a write transaction, re-indexes only the changed files there by the same
rules the real refresh uses — a shard's document from its new text, its citations on the tail's
days, and the undreamed tail minus what a shard now cites (a fragment no longer cited by anything
comes back to it) — answers its queries inside that transaction, and rolls it back on `close`.
BM25's statistics (document count, lengths, term frequencies) are the after-state's own, so an
answer is exactly the one the index would give once the files are written.

Nothing is ever committed: other connections (readers in WAL mode) see memory as it is all along;
a refresh elsewhere that must write waits for the preview to close (the busy timeout), which is
why a preview runs its queries and closes at once. A process that dies mid-preview leaves only
uncommitted WAL frames, which SQLite discards. `memory/` is never touched.
"""
from __future__ import annotations

import json
import sqlite3

from dreamdeck.core.errors import Busy
from dreamdeck.core.index import search_tail as tail
from dreamdeck.core.index.search import AREAS, Hit, index_path, open_index
from dreamdeck.core.index.search_docs import stream_doc
from dreamdeck.core.index.search_query import QueryCache, query_connection
from dreamdeck.core.index.search_strength import StrengthOrder
from dreamdeck.core.index.search_write import doc_of, drop_files, insert_docs
from dreamdeck.core.workspace import Workspace

BUSY_TIMEOUT = 30  # seconds to wait for another process's refresh to commit before the preview starts


class ScratchIndex:
    """`open_index(ws)` as it would be with `texts` (path under memory/ -> text, None: deleted),
    until `close()`. Use it as a context manager, or close it in a `finally`. `refresh=False`:
    the caller has just refreshed the index (a refresh costs a stat per source file)."""

    def __init__(self, ws: Workspace, texts: dict[str, str | None], *, refresh: bool = True):
        if refresh:
            open_index(ws).refresh()  # the preview starts from memory as it is
        self.conn = sqlite3.connect(index_path(ws), timeout=BUSY_TIMEOUT, isolation_level=None,
                                    check_same_thread=False)
        self._cache = QueryCache()
        try:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError:  # another process held its write past the busy timeout
                raise Busy("the search index is being updated by another process; try the preview again") from None
            self._overlay(ws, texts)
        except BaseException:
            self.close()
            raise

    def _overlay(self, ws: Workspace, texts: dict[str, str | None]) -> None:
        row = self.conn.execute("SELECT v FROM meta WHERE k='tail_days'").fetchone()
        days = sorted(json.loads(row[0])) if row else []
        cited_before = tail.cited(self.conn, days) if days else set()
        for rel, text in texts.items():
            self._replace(rel, text, set(days))
        cited_after = tail.cited(self.conn, days) if days else set()
        self._drop_stream_docs(cited_after - cited_before)
        self._restore_stream_docs(ws, cited_before - cited_after)

    def _replace(self, rel: str, text: str | None, days: set[str]) -> None:
        area, name = rel.split("/", 1)
        if area not in AREAS or not name.endswith(".md") or "/" in name:
            return  # not a file the index reads (a reflection only writes shards)
        drop_files(self.conn, [rel])
        if text is None:
            return
        data = text.encode("utf-8")
        self.conn.executemany("INSERT INTO tail VALUES (?, ?, ?)", tail.file_rows(rel, data, days))
        doc = doc_of(area, name[:-3], rel, data)
        if doc is not None:
            insert_docs(self.conn, [doc])

    def _drop_stream_docs(self, keys: set[str]) -> None:
        for key in sorted(keys):
            self.conn.execute("DELETE FROM fts WHERE rowid IN (SELECT id FROM docs WHERE kind='stream' AND key=?)", (key,))
            self.conn.execute("DELETE FROM docs WHERE kind='stream' AND key=?", (key,))

    def _restore_stream_docs(self, ws: Workspace, keys: set[str]) -> None:
        if not keys:
            return
        frags = [f for f in tail.undreamed_fragments(ws) if f"{f.date}#{f.id}" in keys]
        insert_docs(self.conn, [stream_doc(f.date, f.id, f.topic, f.body, f.source, f.ts, f.who)
                                            for f in frags])

    def search(self, query: str, limit: int = 200, order: StrengthOrder | None = None) -> list[Hit]:
        return query_connection(self.conn, query, limit, self._cache, order)

    def close(self) -> None:
        """Roll the overlay back and let go of the index: nothing of it was ever committed."""
        try:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
        finally:
            self.conn.close()

    def __enter__(self) -> ScratchIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
