"""What TypeClaw's per-turn retrieval derives from the files, kept between processes.

A turn reads every topic shard: parsing 10,000 of them and splitting their citation lines
(`tc_documents.TopicFacts`) costs many seconds, the same result every time the file did not
change. This projection keeps, per shard file, the parse and the facts under the file's stamp
(size, mtime, ctime, inode: `io.cache`), and the undreamed days under the stamps of the state,
the tombstones and every stream file. A fresh process seeds the in-memory caches from it; each
entry is trusted only while the stamp seen now equals the stored one, and a file changed within
the racy window is never stored (`put_if_settled`'s rule), so the projection can only cost speed.

It lives beside the search index, in dreamdeck's private folder (`index.projection_db`: missing,
unreadable, corrupt or of another version, it is started again). Writes are best effort.
The stream days' who/time/where records are kept by `index.tc_provenance`, looked up per day
only when a prompt needs whole documents.
"""
from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from dreamdeck.core.index import projection_db
from dreamdeck.core.index.tc_documents import TopicFacts, remember_facts, topic_facts
from dreamdeck.core.index.tc_memory import TcDay, TcShard, cached_undreamed, remember_shard, remember_undreamed, take_fresh_shards
from dreamdeck.core.io.cache import StampCache
from dreamdeck.core.workspace import Workspace

VERSION = "2"
FILENAME = "typeclaw-turn.sqlite3"
# a shard file's parse (slug NULL: malformed, `warning` says why) and its facts, under its stamp
_TOPICS = (
    "CREATE TABLE IF NOT EXISTS topics(path TEXT PRIMARY KEY, size INT, mtime INT, ctime INT, ino INT,"
    " slug TEXT, heading TEXT, tags TEXT, body TEXT, cites INT, days INT, last TEXT, warning TEXT,"
    " cited TEXT, superseded TEXT, fast_doc TEXT, memory_prefix INT)"
)
_SEEDED: StampCache[bool] = StampCache("typeclaw-projection-seeded")  # emptied with every cache
_STORED_TAIL: dict[str, tuple] = {}  # workspace -> the undreamed signature last stored


def projection_path(ws: Workspace) -> Path:
    return ws.lock_dir / FILENAME


def _connect(ws: Workspace) -> sqlite3.Connection:
    return projection_db.connect(projection_path(ws), VERSION, (_TOPICS,), ("topics",))


def _open_existing(ws: Workspace) -> sqlite3.Connection | None:
    return _connect(ws) if projection_path(ws).exists() else None


# --- records ------------------------------------------------------------------------------------
def _row(path: str, stamp: tuple, shard: TcShard | None, warning: str | None) -> tuple:
    if shard is None:
        return (path, *stamp, None, None, None, None, None, None, None, warning, None, None, None, None)
    f = topic_facts(shard)
    tags = None if shard.tags is None else json.dumps(shard.tags, ensure_ascii=False)
    return (path, *stamp, shard.slug, shard.heading, tags, shard.body, shard.cites, shard.days,
            shard.last_reinforced, warning, f.cited, f.superseded, f.fast_doc, int(f.memory_prefix))


def _seed_row(row: tuple) -> None:
    path, size, mtime, ctime, ino, slug, heading, tags, body, cites, days, last, warning = row[:13]
    stamp = (size, mtime, ctime, ino)
    if slug is None:
        remember_shard(path, stamp, (None, warning))
        return
    shard = TcShard(slug, heading, None if tags is None else tuple(json.loads(tags)), body, path, cites, days, last)
    remember_shard(path, stamp, (shard, warning))
    remember_facts(shard, TopicFacts(row[13], row[14], row[15], bool(row[16])))


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _gone(conn: sqlite3.Connection, ws: Workspace) -> list[str]:
    folder = ws.topics_dir  # once: the property builds a Path each time (10,000 times cost 0.5 s)
    try:
        present = {f"{folder}/{n}" for n in os.listdir(folder)}
    except OSError:
        present = set()
    return [p for (p,) in conn.execute("SELECT path FROM topics") if p not in present]


# --- seeding and saving -------------------------------------------------------------------------
def seed(ws: Workspace) -> None:
    """Fill this process's caches from the projection, once per process (or after `clear_all`)."""
    key = str(ws.root)
    if _SEEDED.get(key, ()) is True:
        return
    _SEEDED.put(key, (), True)
    try:
        conn = _open_existing(ws)
        if conn is None:
            return
        try:
            for row in conn.execute("SELECT * FROM topics"):
                _seed_row(row)
            row = conn.execute("SELECT v FROM meta WHERE k='undreamed'").fetchone()
        finally:
            conn.close()
        if row is not None:
            signature, days = json.loads(row[0])
            remember_undreamed(ws, _tuples(signature), [TcDay(d, tuple(evs)) for d, evs in days])
            _STORED_TAIL[key] = _tuples(signature)
    except (sqlite3.Error, OSError, ValueError, TypeError, KeyError, IndexError) as exc:
        if not isinstance(exc, sqlite3.Error) or projection_db.damaged(exc):
            projection_db.discard(projection_path(ws))  # this process parses the files; saving starts the projection again


def save(ws: Workspace) -> None:
    """Store what this process parsed since the last save, and the undreamed days if they changed."""
    fresh = take_fresh_shards()
    tail = cached_undreamed(ws)
    tail_text = None
    if tail is not None and _STORED_TAIL.get(str(ws.root)) != tail[0]:
        tail_text = json.dumps([tail[0], [[d.date, d.events] for d in tail[1]]], ensure_ascii=False)
    root = f"{ws.topics_dir}/"
    rows = [_row(p, st, *res) for p, st, res in fresh if p.startswith(root)]
    if not rows and tail_text is None:
        return
    def write(conn: sqlite3.Connection) -> None:
        conn.executemany(f"INSERT OR REPLACE INTO topics VALUES ({', '.join('?' * 17)})", rows)
        if rows:  # something changed: drop the records of shards that are gone
            conn.executemany("DELETE FROM topics WHERE path=?", [(p,) for p in _gone(conn, ws)])
        if tail_text is not None:
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('undreamed', ?)", (tail_text,))

    try:
        path = projection_path(ws)
        if path.exists() or not projection_db.create_whole(path, VERSION, (_TOPICS,), ("topics",), write):
            conn = _connect(ws)
            try:
                conn.execute("BEGIN IMMEDIATE")
                write(conn)
                conn.execute("COMMIT")
            finally:
                conn.close()
    except sqlite3.Error as exc:
        if projection_db.damaged(exc):
            projection_db.discard(projection_path(ws))
        return
    except OSError:
        return
    if tail is not None:
        _STORED_TAIL[str(ws.root)] = tail[0]
