"""The search index's copy of its file stamps is read from a file in the private folder: torn,
truncated, garbage or crafted bytes (a marshalled value of another shape, a copy of another
length than the table) only cost the read of the table's rows, never a crash or another
result (issue 10, item 5). `marshal.loads` is not safe against crafted bytes: it is not used."""
from __future__ import annotations

import marshal
import sqlite3

import pytest

from dreamdeck.core.index.search import SearchIndex, close_all, index_path
from dreamdeck.core.index.search_stamps import STAMPS_KEY, pack
from tests.support.memory import shard_text, write_shard

CRAFTED = {
    "marshalled, another shape": marshal.dumps({"topics": 5}),
    "marshalled, stamps of text": marshal.dumps({"topics": {"sailing.md": "now"}}),
    "garbage": b"\x00\xff" * 40,
    "empty": b"",
    "text": "not bytes",
    "a copy of one file for a table of two": pack({"topics": {"sailing.md": (1, 2, 3, 4)}}),
}


def _hits(ws, query: str) -> list[str]:
    index = SearchIndex(ws)
    try:
        return sorted(h.key for h in index.search(query))
    finally:
        index.close()


@pytest.mark.parametrize("name", [*CRAFTED, "truncated"])
def test_a_damaged_or_crafted_stamps_copy_costs_only_speed(ws, settled_clock, name):
    close_all()
    write_shard(ws.root, "sailing", shard_text("The user sails boats", []))
    write_shard(ws.root, "pets", shard_text("The user keeps cats", []))
    _hits(ws, "boats")
    write_shard(ws.root, "sailing", shard_text("The user sails kayaks", []))  # changed since it was indexed
    conn = sqlite3.connect(index_path(ws))
    with conn:
        real = conn.execute("SELECT v FROM meta WHERE k=?", (STAMPS_KEY,)).fetchone()[0]
        value = real[:len(real) // 2] if name == "truncated" else CRAFTED[name]
        for key in ("stamps", STAMPS_KEY):
            conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
    conn.close()

    assert _hits(ws, "kayaks") == ["sailing"] and _hits(ws, "boats") == []
    assert _hits(ws, "cats") == ["pets"]


def test_the_copy_is_the_table_for_a_fresh_process(ws, settled_clock):
    close_all()
    write_shard(ws.root, "sailing", shard_text("The user sails boats", []))
    _hits(ws, "boats")
    fresh = SearchIndex(ws)
    try:
        conn = fresh._connect()
        table = {rel: tuple(st) for rel, *st in conn.execute("SELECT path, size, mtime, ctime, ino FROM files")}
        known = fresh._known_stamps(conn)
        assert {f"{a}/{n}": st for a, names in known.items() for n, st in names.items()} == table
        assert fresh.refresh().files_read == 0
    finally:
        fresh.close()
