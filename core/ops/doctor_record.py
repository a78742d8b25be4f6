"""`doctor`'s record: what it last found in each memory file, kept under that file's stamp.

Examining a year of memory means parsing a million stream lines and every shard; a `doctor`
after a few files changed must pay only for those. The record is a SQLite database in
dreamdeck's private folder (`ws.lock_dir`), one row per file read, under the file's stamp
(`core.io.cache`: size, mtime, ctime, inode):
- `shard`: per shard file (topics/, vault/, archive/), its findings (unparseable, stale
  frontmatter) and, when those depend on the date (a shard citing nothing), the date used;
- `cite`: each shard's citation keys (also kept in its `shard` row as `DATE#ID` lines, to
  remove them), with
  `held` = does that day's stream hold the id now;
- `stream`: per stream day, the path of the file read and its malformed-line problems; `frag`: the ids it
  holds (what the fast fragment-line scan finds, as the fragment index does);
- `single`: the dreaming state file's problem.
A row whose file had not settled when it was read (the racy window) is stored with no stamp,
so it is read again next time. A record that SQLite finds damaged, one of another schema
version or another workspace, or one that cannot be opened, is removed and built again (or the
examination runs on an in-memory database): it can only ever cost speed.
"""
from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.io.cache import Stamp
from dreamdeck.core.workspace import Workspace

RECORD = "doctor-record.sqlite"
VERSION = 3
Row = list  # [kind, where, detail, fixable]

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE shard(id INTEGER PRIMARY KEY, rel TEXT NOT NULL UNIQUE, stamp TEXT, today TEXT, findings TEXT NOT NULL,
                   keys TEXT NOT NULL);
CREATE TABLE cite(day TEXT NOT NULL, fid TEXT NOT NULL, shard INTEGER NOT NULL, held INTEGER NOT NULL,
                  PRIMARY KEY(day, fid, shard)) WITHOUT ROWID;
CREATE INDEX cite_missing ON cite(held) WHERE held = 0;
CREATE TABLE stream(day TEXT PRIMARY KEY, source TEXT NOT NULL, stamp TEXT, problems TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE frag(day TEXT NOT NULL, fid TEXT NOT NULL, PRIMARY KEY(day, fid)) WITHOUT ROWID;
CREATE TABLE single(name TEXT PRIMARY KEY, stamp TEXT, value TEXT) WITHOUT ROWID;
"""


def stamp_text(stamp: Stamp | None) -> str | None:
    return None if stamp is None else ",".join(map(str, stamp))


class Record:
    """One open record; every change is made in one transaction (`opened` commits or rolls back)."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db
        self._new_cites: list[tuple[str, str, int]] = []  # inserted together, in key order (`flush`)

    # --- shards ---------------------------------------------------------------------------
    def shard_rows(self) -> dict[str, tuple[str | None, str | None]]:
        """rel -> (stamp, date the findings depend on)."""
        return {rel: (stamp, today) for rel, stamp, today in self.db.execute("SELECT rel, stamp, today FROM shard")}

    def put_shard(self, rel: str, stamp: str | None, today: str | None, findings: list[Row],
                  keys: Iterable[tuple[str, str]]) -> None:
        self.drop_shard(rel)
        keys = sorted(keys)
        cur = self.db.execute("INSERT INTO shard(rel, stamp, today, findings, keys) VALUES (?, ?, ?, ?, ?)",
                              (rel, stamp, today, json.dumps(findings), "\n".join(f"{d}#{f}" for d, f in keys)))
        sid = cur.lastrowid
        self._new_cites += [(day, fid, sid) for day, fid in keys]  # type: ignore[misc]

    def drop_shard(self, rel: str) -> None:
        row = self.db.execute("SELECT id, keys FROM shard WHERE rel = ?", (rel,)).fetchone()
        if row is not None:
            sid, keys = row
            self.db.executemany("DELETE FROM cite WHERE day = ? AND fid = ? AND shard = ?",
                                ((*key.split("#", 1), sid) for key in keys.split("\n") if key))
            self.db.execute("DELETE FROM shard WHERE id = ?", (sid,))

    def flush(self) -> None:
        """Insert the citations of the shards put since, each marked held or not by the streams
        as recorded now (a B-tree fills fastest in key order)."""
        self._new_cites.sort()
        self.db.executemany(
            "INSERT INTO cite(day, fid, shard, held) "
            "VALUES (?1, ?2, ?3, EXISTS(SELECT 1 FROM frag WHERE day = ?1 AND fid = ?2))", self._new_cites)
        self._new_cites = []

    def shard_findings(self) -> dict[str, list[Row]]:
        return {rel: load_json(found) for rel, found in
                self.db.execute("SELECT rel, findings FROM shard WHERE findings != '[]'")}

    def uncited_citations(self) -> list[tuple[str, str, str]]:
        """(shard rel, day, id) of every citation whose day's stream does not hold the id."""
        return self.db.execute("SELECT s.rel, c.day, c.fid FROM cite c JOIN shard s ON s.id = c.shard "
                               "WHERE c.held = 0").fetchall()

    # --- streams --------------------------------------------------------------------------
    def stream_rows(self) -> dict[str, tuple[str, str | None]]:
        """day -> (path of the file read, stamp)."""
        return {day: (source, stamp) for day, source, stamp in self.db.execute("SELECT day, source, stamp FROM stream")}

    def put_stream(self, day: str, source: str, stamp: str | None, ids: Iterable[str], problems: list[Row]) -> None:
        self.drop_stream(day)
        self.db.execute("INSERT INTO stream(day, source, stamp, problems) VALUES (?, ?, ?, ?)",
                        (day, source, stamp, json.dumps(problems)))
        self.db.executemany("INSERT OR IGNORE INTO frag(day, fid) VALUES (?, ?)", ((day, fid) for fid in ids))

    def drop_stream(self, day: str) -> None:
        self.db.execute("DELETE FROM stream WHERE day = ?", (day,))
        self.db.execute("DELETE FROM frag WHERE day = ?", (day,))

    def recheck_citations(self, days: Iterable[str]) -> None:
        """Whether each citation into these days is held, from their streams as recorded now."""
        self.db.executemany(
            "UPDATE cite SET held = EXISTS(SELECT 1 FROM frag f WHERE f.day = cite.day AND f.fid = cite.fid) "
            "WHERE day = ?", ((day,) for day in days))

    def stream_problems(self) -> dict[str, list[Row]]:
        return {day: load_json(found) for day, found in
                self.db.execute("SELECT day, problems FROM stream WHERE problems != '[]'")}

    def held(self, keys: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
        """The keys some stream holds, as recorded this run."""
        by_day: dict[str, list[str]] = {}
        for day, fid in keys:
            by_day.setdefault(day, []).append(fid)
        found: set[tuple[str, str]] = set()
        for day, fids in by_day.items():
            for at in range(0, len(fids), 500):  # well under SQLite's limit of bound values
                chunk = fids[at:at + 500]
                ask = f"SELECT fid FROM frag WHERE day = ? AND fid IN ({','.join('?' * len(chunk))})"
                found.update((day, fid) for (fid,) in self.db.execute(ask, (day, *chunk)))
        return found

    # --- single files ---------------------------------------------------------------------
    def single(self, name: str, stamp: str | None) -> tuple[bool, str | None]:
        """(found under this stamp, its value)."""
        row = self.db.execute("SELECT stamp, value FROM single WHERE name = ?", (name,)).fetchone()
        if row is None or stamp is None or row[0] != stamp:
            return False, None
        return True, row[1]

    def put_single(self, name: str, stamp: str | None, value: str | None) -> None:
        self.db.execute("INSERT OR REPLACE INTO single(name, stamp, value) VALUES (?, ?, ?)", (name, stamp, value))


def record_path(ws: Workspace) -> Path:
    return ws.lock_dir / RECORD


@contextmanager
def opened(ws: Workspace, *, in_memory: bool = False) -> Iterator[Record]:
    """The workspace's record (a fresh one when there was none, or it was damaged or foreign),
    in one transaction: committed when the block ends, rolled back when it raises. Another
    `doctor` writing it is waited for (`busy` when that takes too long). `in_memory`: a
    throwaway record."""
    db = _in_memory_db() if in_memory else _file_db(ws)
    with closing(db):
        db.execute("BEGIN IMMEDIATE")  # one run at a time: all of its rows, or none
        try:
            yield Record(db)
        except BaseException:
            try:
                db.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # a damaged record: the caller drops it
            raise
        db.execute("COMMIT")


def busy(exc: sqlite3.Error) -> bool:
    """Did SQLite refuse because another process holds the record (not because it is damaged)?"""
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc))


def _file_db(ws: Workspace) -> sqlite3.Connection:
    path = record_path(ws)
    try:
        db = _connect(path)
        if _belongs(db, ws):
            return db
        db.close()
    except sqlite3.Error as exc:
        if busy(exc):
            return _in_memory_db()  # another doctor is building it: this run keeps nothing
    discard(ws)
    try:
        db = _connect(path)
        _create(db, ws)
        return db
    except sqlite3.Error:
        discard(ws)
        return _in_memory_db()  # the private folder is unusable: this run keeps nothing


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(str(path), timeout=5, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")  # a crash or power loss leaves the last whole run
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA cache_size=-65536")  # 64 MiB: a first run inserts a million citations
    return db


def _in_memory_db() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:", isolation_level=None)
    _create(db, None)
    return db


def _belongs(db: sqlite3.Connection, ws: Workspace) -> bool:
    if db.execute("PRAGMA user_version").fetchone()[0] != VERSION:
        return False
    row = db.execute("SELECT value FROM meta WHERE key = 'memory'").fetchone()
    return row is not None and row[0] == str(ws.memory)


def _create(db: sqlite3.Connection, ws: Workspace | None) -> None:
    db.executescript(f"BEGIN; {_SCHEMA} PRAGMA user_version = {VERSION};")
    db.execute("INSERT INTO meta(key, value) VALUES ('memory', ?)", (str(ws.memory) if ws else "",))
    db.execute("COMMIT")


def discard(ws: Workspace) -> None:
    """Remove the record (and SQLite's side files): the next run builds it again."""
    path = record_path(ws)
    for name in (path.name, path.name + "-wal", path.name + "-shm", path.name + "-journal"):
        try:
            os.remove(path.with_name(name))
        except FileNotFoundError:
            pass
        except OSError:
            pass  # not a file we can remove (a folder in its place): runs go on without a record
