"""`doctor`'s record: what it last found in each memory file, kept under that file's stamp.

Examining a year of memory means reading a million stream lines and every shard; a `doctor`
after a few files changed must pay only for those. The record is a SQLite database in
dreamdeck's private folder (`ws.lock_dir`), one row per file read, under the file's stamp
(`core.io.cache`: size, mtime, ctime, inode):
- `shard`: per shard file (topics/, vault/, archive/), its findings (unparseable, stale
  frontmatter) and, when those depend on the date (a shard citing nothing), the date used; its
  citation keys (`DATE#ID` lines) and, of those, the ones no stream held when last
  checked (`missing`, almost always empty);
- `stream`: per stream day, the path of the file read, its malformed-line problems, and the ids
  it holds (what the fast fragment-line scan finds, as the fragment index does) as one blob of
  lines: a day is read, kept and compared whole, never a row per fragment;
- `single`: the dreaming state file's problem.
Each shard's `missing` is kept equal to its keys the recorded streams do not hold: a stream day
read again checks the shards missing something on that day, and, when ids left it, every
shard citing one of them (`doctor_memory`).
A row whose file had not settled when it was read (the racy window) is stored with no stamp,
so it is read again next time. A record that SQLite finds damaged, one of another schema
version or another workspace, or one that cannot be opened, is removed and built again (or the
examination runs on an in-memory database): it can only ever cost speed. A first record is built
whole under a temporary name and linked into place, so two doctors starting at once never see
(nor remove) a half-made one; a record another doctor is writing is waited for at most
`BUSY_WAIT_S`, then this run goes on without it.
"""
from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import closing, contextmanager, suppress
from pathlib import Path

from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.io.cache import Stamp
from dreamdeck.core.workspace import Workspace

RECORD = "doctor-record.sqlite"
VERSION = 5
# A first record is ~90 MB, nearly all of it the streams' ids and the shards' keys: with SQLite's
# usual 4 KB pages they filled 22,000 pages written one system call each (0.15 s of CPU, 0.35 s
# of wall at load 6); 32 KB pages write the same rows in 2,800 (0.08 s, 0.18 s). The keys then lie
# in the shard table's own pages, so what a run reads of every shard comes from indexes that
# hold no keys (`shard_found`, `shard_stamps`): a scan of the table would read all 90 MB.
PAGE_BYTES = 32768
BUSY_WAIT_S = 5.0  # another doctor's first run takes seconds; then this one goes on without the record
Row = list  # [kind, where, detail, fixable]

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE shard(rel TEXT PRIMARY KEY, stamp TEXT, today TEXT, findings TEXT NOT NULL, keys TEXT NOT NULL,
                   missing TEXT NOT NULL);
CREATE INDEX shard_missing ON shard(missing) WHERE missing != '';
CREATE INDEX shard_found ON shard(findings) WHERE findings != '[]';
CREATE INDEX shard_stamps ON shard(rel, stamp, today);
CREATE TABLE stream(day TEXT PRIMARY KEY, source TEXT NOT NULL, stamp TEXT, problems TEXT NOT NULL, ids BLOB NOT NULL);
CREATE TABLE single(name TEXT PRIMARY KEY, stamp TEXT, value TEXT) WITHOUT ROWID;
"""


def stamp_text(stamp: Stamp | None) -> str | None:
    return None if stamp is None else ",".join(map(str, stamp))


def _lines(text: str) -> list[str]:
    return text.split("\n") if text else []


class Record:
    """One open record; every change is made in one transaction (`opened` commits or rolls back)."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db
        self._new_shards: list[tuple] = []  # inserted together (`flush`)

    # --- shards ---------------------------------------------------------------------------
    def shard_rows(self) -> dict[str, tuple[str | None, str | None]]:
        """rel -> (stamp, date the findings depend on)."""
        return {rel: (stamp, today) for rel, stamp, today in self.db.execute("SELECT rel, stamp, today FROM shard")}

    def put_shard(self, rel: str, stamp: str | None, today: str | None, findings: list[Row],
                  keys: str, missing: list[str]) -> None:
        """`keys`: the shard's `DATE#ID` citation keys, one a line; `missing`: those no stream holds."""
        self._new_shards.append((rel, stamp, today, json.dumps(findings) if findings else "[]", keys, "\n".join(missing)))

    def drop_shard(self, rel: str) -> None:
        self.db.execute("DELETE FROM shard WHERE rel = ?", (rel,))

    def flush(self) -> None:
        self.db.executemany("INSERT OR REPLACE INTO shard(rel, stamp, today, findings, keys, missing) "
                            "VALUES (?, ?, ?, ?, ?, ?)", self._new_shards)
        self._new_shards = []

    def shard_findings(self) -> dict[str, list[Row]]:
        """rel -> its findings, of the shards that have some (by `shard_found`: no scan of every
        shard's keys, which lie in the table's pages)."""
        return {rel: load_json(found) for rel, found in
                self.db.execute("SELECT rel, findings FROM shard WHERE findings != '[]'")}

    def shards_missing(self) -> dict[str, list[str]]:
        """rel -> its citation keys no stream held when last checked (shards missing nothing left out)."""
        return {rel: _lines(missing) for rel, missing in self.db.execute("SELECT rel, missing FROM shard WHERE missing != ''")}

    def shard_keys(self, rels: Iterable[str] | None = None) -> Iterator[tuple[str, list[str]]]:
        """(rel, citation keys) of these shards, or of every shard."""
        if rels is None:
            for rel, keys in self.db.execute("SELECT rel, keys FROM shard"):
                yield rel, _lines(keys)
            return
        for rel in rels:
            row = self.db.execute("SELECT keys FROM shard WHERE rel = ?", (rel,)).fetchone()
            if row is not None:
                yield rel, _lines(row[0])

    def set_missing(self, rel: str, missing: list[str]) -> None:
        self.db.execute("UPDATE shard SET missing = ? WHERE rel = ?", ("\n".join(missing), rel))

    # --- streams --------------------------------------------------------------------------
    def stream_rows(self) -> dict[str, tuple[str, str | None]]:
        """day -> (path of the file read, stamp)."""
        return {day: (source, stamp) for day, source, stamp in self.db.execute("SELECT day, source, stamp FROM stream")}

    def stream_ids(self, day: str) -> list[str]:
        """The ids the day's stream held when last read (none when it has no row)."""
        return _lines(self.stream_id_lines(day))

    def stream_id_lines(self, day: str) -> str:
        """`stream_ids` as stored: one a line, "" when none (not split: a search in it is enough)."""
        row = self.db.execute("SELECT ids FROM stream WHERE day = ?", (day,)).fetchone()
        return row[0].decode("utf-8") if row is not None else ""

    def put_stream(self, day: str, source: str, stamp: str | None, ids: str, problems: list[Row]) -> None:
        """`ids`: the day's fragment ids, one a line."""
        self.db.execute("INSERT OR REPLACE INTO stream(day, source, stamp, problems, ids) VALUES (?, ?, ?, ?, ?)",
                        (day, source, stamp, json.dumps(problems), ids.encode("utf-8")))

    def drop_stream(self, day: str) -> None:
        self.db.execute("DELETE FROM stream WHERE day = ?", (day,))

    def stream_problems(self) -> dict[str, list[Row]]:
        return {day: load_json(found) for day, found in
                self.db.execute("SELECT day, problems FROM stream WHERE problems != '[]'")}

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
    throwaway record. A first record is built under a temporary name with no journal (a run that
    fails leaves nothing to roll back to) and linked into place when the run ends, unless another
    doctor put one there first: its first run writes each row once."""
    db, new = (_in_memory_db(), None) if in_memory else _file_db(ws)
    try:
        with closing(db):
            db.execute("BEGIN IMMEDIATE")  # one run at a time: all of its rows, or none
            try:
                yield Record(db)
            except BaseException:
                with suppress(sqlite3.Error):
                    db.execute("ROLLBACK")  # a damaged record: the caller drops it
                raise
            db.execute("COMMIT")
            if new is not None:
                db.execute("PRAGMA journal_mode=WAL")  # kept in the file: every later opener finds it so
        if new is not None:
            _put_in_place(new, record_path(ws))
    finally:
        if new is not None:
            with suppress(FileNotFoundError):
                os.remove(new)


def busy(exc: sqlite3.Error) -> bool:
    """Did SQLite refuse because another process holds the record (not because it is damaged)?"""
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc))


def _file_db(ws: Workspace) -> tuple[sqlite3.Connection, Path | None]:
    """(the record open, the temporary path of a new one to link into place when the run ends)."""
    path = record_path(ws)
    for _attempt in range(2):  # a damaged or foreign record is removed and made again once
        try:
            if not os.path.lexists(path):
                return _new_record(path, ws)
            db = _connect(path)
            if _belongs(db, ws):
                return db, None
            db.close()
        except sqlite3.Error as exc:
            if busy(exc):
                return _in_memory_db(), None  # another doctor holds it: this run keeps nothing
        except OSError:
            break  # the private folder is unusable
        discard(ws)
    return _in_memory_db(), None  # this run keeps nothing


def _new_record(path: Path, ws: Workspace) -> tuple[sqlite3.Connection, Path]:
    _remove_orphans(path)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.new")
    with suppress(FileNotFoundError):
        os.remove(tmp)  # left by a killed run that had this process id
    db = sqlite3.connect(str(tmp), isolation_level=None)
    db.execute("PRAGMA journal_mode=OFF")
    db.execute("PRAGMA synchronous=OFF")  # made durable once, before it is linked into place
    # Written once, with no journal: a small cache hands each page to the file as it fills, where
    # 64 MiB of them held until the commit cost a first run ~16,000 page faults.
    db.execute("PRAGMA cache_size=-2000")
    db.execute(f"PRAGMA page_size={PAGE_BYTES}")  # before the first table: it fixes the file's pages
    _create(db, ws)
    return db, tmp


def _remove_orphans(path: Path) -> None:
    """Remove the first records a killed run left half-built (the process named is gone): each
    can be as big as the record."""
    for tmp in path.parent.glob(f"{path.name}.*.new"):
        pid = tmp.name[len(path.name) + 1:-len(".new")]
        if pid.isdigit() and not _running(int(pid)):
            with suppress(OSError):
                os.remove(tmp)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # someone else's, or not a process id we can ask about: left alone
    return True


def _put_in_place(tmp: Path, path: Path) -> None:
    fd = os.open(tmp, os.O_RDONLY)
    try:
        os.fsync(fd)  # whole on disk before any other run can open it
    finally:
        os.close(fd)
    with suppress(FileExistsError):
        os.link(tmp, path)  # another doctor put theirs first: this run's is dropped


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(str(path), timeout=BUSY_WAIT_S, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")  # a crash or power loss leaves the last whole run
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA cache_size=-65536")  # 64 MiB
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
