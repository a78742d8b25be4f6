"""A private, rebuildable SQLite projection file: opened, versioned, thrown away when damaged.

The turn projections (`index.tc_projection`, `index.tc_provenance`) keep what the files say
under the files' stamps, in dreamdeck's private folder. They are written without fsync (a
projection is never the truth): a file that is torn, corrupt or of another version is deleted
and started again, and nothing in it is trusted unless the stamp seen now equals the stored one.
"""
from __future__ import annotations

import os
import sqlite3
import stat
import threading
from collections.abc import Callable
from pathlib import Path

# The offline dreamer's projection (`dreaming.offline_projection`), named in this lower layer so a
# hard forget's purge (`index.search_purge`) can delete it: it holds every shard's heading and claim.
OFFLINE_DREAMER_FILE = "offline-dreamer-index.sqlite3"

_OPEN: dict[str, sqlite3.Connection] = {}
_LOCK = threading.Lock()


def connect(path: Path, version: str, tables: tuple[str, ...], names: tuple[str, ...],
            journal: str = "WAL") -> sqlite3.Connection:
    """A connection to the projection at `path` (created; emptied when of another `version`).
    `tables` are CREATE statements of the tables called `names`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    drop_links(path)
    conn = sqlite3.connect(path, timeout=5, isolation_level=None, check_same_thread=False)
    try:
        conn.execute(f"PRAGMA journal_mode={journal}")
        conn.execute("PRAGMA synchronous=OFF")
        conn.execute("CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v TEXT NOT NULL)")
        row = conn.execute("SELECT v FROM meta WHERE k='version'").fetchone()
        if row is None or row[0] != version:
            for name in names:
                conn.execute(f"DROP TABLE IF EXISTS {name}")
            conn.execute("DELETE FROM meta")
            conn.execute("INSERT INTO meta VALUES ('version', ?)", (version,))
        for stmt in tables:
            conn.execute(stmt)
    except BaseException:
        conn.close()
        raise
    return conn


def create_whole(path: Path, version: str, tables: tuple[str, ...], names: tuple[str, ...],
                 fill: Callable[[sqlite3.Connection], None]) -> bool:
    """Write a projection that does not exist yet whole: beside `path` with a rollback journal,
    then linked in (never over a file another process made meanwhile: its WAL would be read
    against ours). A first fill of ~100 MB through the WAL is written twice, the second time by
    the checkpoint: 0.3 s of CPU and a second of wall time more. False when `path` exists."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}-{threading.get_ident()}.new")
    try:
        conn = connect(tmp, version, tables, names, journal="DELETE")
        try:
            conn.execute("BEGIN IMMEDIATE")
            fill(conn)
            conn.execute("COMMIT")
            conn.execute("PRAGMA journal_mode=WAL")  # as every later connection opens it
        finally:
            conn.close()
        os.link(tmp, path)
        return True
    except FileExistsError:
        return False
    finally:
        for suffix in ("", "-journal", "-wal", "-shm"):
            try:
                os.unlink(f"{tmp}{suffix}")
            except OSError:
                pass


def shared(path: Path, version: str, tables: tuple[str, ...], names: tuple[str, ...]) -> sqlite3.Connection:
    """One connection per projection file per process, kept open (for many small look-ups)."""
    with _LOCK:
        conn = _OPEN.get(str(path))
        if conn is None or not path.exists():
            if conn is not None:
                conn.close()
            conn = _OPEN[str(path)] = connect(path, version, tables, names)
        return conn


def drop_links(path: Path) -> None:
    """SQLite follows a link at the projection's name (or its -wal, -shm), and writes through it:
    a link planted there (or another name sharing the file) is removed, never followed. The file
    is ours to rebuild, in a folder only we may write (`io.private`)."""
    for suffix in ("", "-wal", "-shm"):
        name = f"{path}{suffix}"
        try:
            st = os.lstat(name)
        except OSError:
            continue
        if stat.S_ISLNK(st.st_mode) or (stat.S_ISREG(st.st_mode) and st.st_nlink > 1):
            try:
                os.unlink(name)
            except OSError:
                pass


def damaged(exc: sqlite3.Error) -> bool:
    """A damaged file, as opposed to one another process holds for a moment."""
    return isinstance(exc, sqlite3.DatabaseError) and getattr(exc, "sqlite_errorcode", None) not in (
        sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def discard(path: Path) -> None:
    """Delete the projection (it is started again by the next write)."""
    with _LOCK:
        conn = _OPEN.pop(str(path), None)
        if conn is not None:
            conn.close()
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(f"{path}{suffix}")
        except OSError:
            pass
