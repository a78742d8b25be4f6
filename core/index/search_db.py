"""The search index's database file: where it lives, its tables, opening it, throwing it away.

The file is a projection (`index.search`): one of another version, or one that cannot be read,
is dropped and created again empty, for a full refresh to fill from the files. One connection
per `SearchIndex`, reopened when the file was deleted or replaced under it; writers take a file
lock (`filelock`, imported only by writers: a recall that finds nothing changed never locks).
"""
from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from dreamdeck.core.formats.search_terms import TOKENIZER
from dreamdeck.core.index.search_query import QueryCache
from dreamdeck.core.index.search_stamps import Known
from dreamdeck.core.index.search_strength import COLUMNS as STRENGTH_COLUMNS
from dreamdeck.core.workspace import Workspace

if TYPE_CHECKING:
    from filelock import FileLock

VERSION = "7"  # 6: a belief's info holds its own evidence's days (active_days); 7: a BOM shard's prose
FILENAME = "search.sqlite3"

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v TEXT)",
    # a file's stamp as four integers (size NULL: read it again), read back without parsing, and
    # a digest of the bytes indexed (a file read again with the same bytes is not indexed again)
    "CREATE TABLE IF NOT EXISTS files(path TEXT PRIMARY KEY, size INT, mtime INT, ctime INT, ino INT, sum BLOB)",
    "CREATE TABLE IF NOT EXISTS docs(id INTEGER PRIMARY KEY, kind TEXT NOT NULL, key TEXT NOT NULL,"
    f" path TEXT NOT NULL, heading TEXT NOT NULL, excerpt TEXT NOT NULL, info TEXT NOT NULL, {STRENGTH_COLUMNS})",
    "CREATE INDEX IF NOT EXISTS docs_path ON docs(path)",
    f"CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(title, body, tokenize=\"{TOKENIZER}\")",
)


def index_folder(ws: Workspace) -> Path:
    """The private folder the index lives in: the one line to change when it moves."""
    return ws.lock_dir


def index_path(ws: Workspace) -> Path:
    return index_folder(ws) / FILENAME


BUSY_TIMEOUT = 30  # seconds a refresh waits for another writer's transaction (a preview holds one ~1 s)


def locked(exc: sqlite3.DatabaseError) -> bool:
    """Another connection holds the database (busy), as opposed to a damaged one."""
    return getattr(exc, "sqlite_errorcode", None) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


class IndexDatabase:
    """The connection to one workspace's index file, safe to share between threads (`_lock`)."""

    def __init__(self, ws: Workspace):
        self.ws = ws
        self.path = index_path(ws)
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._cache = QueryCache()
        self._known: Known = {}  # area -> file name -> stamp (None: read again), `index.search_stamps`
        self._data_version: int | None = None
        self._wait: float = BUSY_TIMEOUT  # seconds a writer waits for another (`update`'s caller may say 0)
        self._inode: int | None = None
        self._created = False  # this connection created the tables: nothing indexed until a full refresh

    # --- the database -------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        if self._conn is not None:
            try:
                if os.stat(self.path).st_ino == self._inode:
                    return self._conn
            except FileNotFoundError:
                pass
            self._reset()  # deleted or replaced under us: start again from the files
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            version = None
            if conn.execute("SELECT 1 FROM sqlite_master WHERE name='meta'").fetchone():
                row = conn.execute("SELECT v FROM meta WHERE k='version'").fetchone()
                version = row[0] if row else None
            if version != VERSION:
                self._create(conn)
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        self._cache = QueryCache()  # per connection: its generation is this connection's view
        self._inode = os.stat(self.path).st_ino
        self._data_version = None
        return conn

    def _create(self, conn: sqlite3.Connection) -> None:
        from dreamdeck.core.index.search_tail import SCHEMA as TAIL_SCHEMA  # only when creating

        self._created = True  # empty until a refresh fills it
        with self._write_lock():
            conn.execute("BEGIN IMMEDIATE")
            for table in ("fts", "docs", "files", "tail", "meta"):
                conn.execute(f"DROP TABLE IF EXISTS {table}")
            for stmt in (*_SCHEMA, *TAIL_SCHEMA):
                conn.execute(stmt)
            conn.execute("INSERT INTO meta VALUES ('version', ?), ('tokenizer', ?)", (VERSION, TOKENIZER))
            conn.execute("COMMIT")

    def _reset(self) -> None:
        """Throw the database away (corrupt or unreadable): it is rebuilt from the files."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        for suffix in ("", "-wal", "-shm"):
            try:
                os.unlink(f"{self.path}{suffix}")
            except FileNotFoundError:
                pass
        self._known = {}

    def _write_lock(self) -> FileLock:
        from filelock import FileLock  # writers only: a recall that finds nothing changed never locks

        return FileLock(f"{self.path}.lock", timeout=self._wait)

    def _conn_busy(self, seconds: float) -> None:
        if self._conn is not None:
            self._conn.execute(f"PRAGMA busy_timeout={int(seconds * 1000)}")

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
