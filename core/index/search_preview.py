"""The search index as it would be after some shard files change, without changing anything.

A preview (what a reflection's hunks would do to recall) needs the index of a memory that does
not exist yet. Building it from the files would mean a scratch copy of `memory/`; instead the
real index (refreshed) is copied into an in-memory database (`SearchIndex.snapshot`) and only
the changed files are re-indexed there, by the same rules the real refresh uses: a shard's
document from its new text, its citations on the tail's days, and the undreamed tail minus
what a shard now cites (a fragment no longer cited by anything comes back to it). Neither
`memory/` nor the real index is touched; the copy is dropped with the object.
"""
from __future__ import annotations

import json

from dreamdeck.core.index import search_tail as tail
from dreamdeck.core.index.search import AREAS, Hit, SearchIndex, open_index, query_connection
from dreamdeck.core.index.search_docs import stream_doc
from dreamdeck.core.workspace import Workspace


class ScratchIndex:
    """`open_index(ws)` as it would be with `texts` (path under memory/ -> text, None: deleted)."""

    def __init__(self, ws: Workspace, texts: dict[str, str | None]):
        self.conn = open_index(ws).snapshot()
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
        SearchIndex.drop_file(self.conn, rel)
        if text is None:
            return
        data = text.encode("utf-8")
        self.conn.executemany("INSERT INTO tail VALUES (?, ?, ?)", tail.file_rows(rel, data, days))
        doc = SearchIndex.doc_of(area, name[:-3], rel, data)
        if doc is not None:
            SearchIndex.insert_docs(self.conn, [doc])

    def _drop_stream_docs(self, keys: set[str]) -> None:
        for key in sorted(keys):
            self.conn.execute("DELETE FROM fts WHERE rowid IN (SELECT id FROM docs WHERE kind='stream' AND key=?)", (key,))
            self.conn.execute("DELETE FROM docs WHERE kind='stream' AND key=?", (key,))

    def _restore_stream_docs(self, ws: Workspace, keys: set[str]) -> None:
        if not keys:
            return
        frags = [f for f in tail.undreamed_fragments(ws) if f"{f.date}#{f.id}" in keys]
        SearchIndex.insert_docs(self.conn, [stream_doc(f.date, f.id, f.topic, f.body, f.source, f.ts, f.who)
                                            for f in frags])

    def search(self, query: str, limit: int = 200) -> list[Hit]:
        return query_connection(self.conn, query, limit)

    def close(self) -> None:
        self.conn.close()
