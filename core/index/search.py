"""The search index: a rebuildable SQLite FTS5 projection of what recall may return.

What it holds (documents from `index.search_docs`):
- active beliefs: every `memory/topics/*.md` and `memory/vault/*.md`, found by heading, slug,
  tags and prose, never by their citation lines (a superseded citation is never a hook);
- references (`memory/references/*.md`, TypeClaw's stored documents) that are not demoted;
- the undreamed tail: fragments no dream has seen yet, so what the agent observed today is
  reachable before the next dream — except fragments a person forgot (tombstones, by id and by
  content hash) and fragments a shard already cites, actively or as superseded evidence.
Archived topics (`memory/archive/`) are never documents; their files are tracked only for the
citations they hold. A shard file that is a symbolic link or has a second hard link is never read
(`store.shard_files`' rule: its bytes may be a file's outside memory/); each sweep names them
(`SearchIndex.linked`) for the caller to warn about. Ranking is FTS5's BM25; decay is applied by `ops.recall`.

Where it lives: outside `memory/`, in dreamdeck's private per-user folder (`index_folder`, the
one place to change when that folder moves). It is never the truth: deleted, unreadable,
corrupt or of another version, it is rebuilt from the files.

How it stays fresh: every query first compares each source file's stamp (size, mtime, ctime,
inode: `io.cache`) with the stamp it was indexed under, and re-reads only files that changed,
appeared or went (`index.search_stamps`). A file changed within the racy window is indexed but
not trusted, so it is read again next time (its bytes unchanged, its documents are kept). After
every apply the door names the files it wrote or removed (`update_after_change`): those are
read at once, without the sweep; what anyone else changed keeps its old stamp here, so the next
sweep still finds it. A long-lived owner may attach a change feed (`index.search_feed`): while it
vouches that nothing under memory/ changed, the sweep is skipped, and after a change only the
paths it saw are read. The undreamed tail is rebuilt when the stream files,
the dreaming state, the tombstones or any shard changed. Writers in several processes serialize
on a file lock; readers never wait (WAL).

Over ~400 lines on purpose: the index's one class (connection, freshness, writing, reading) is
kept together.

Words: `formats.search_terms` (CJK runs as bigrams, `porter unicode61` for the rest).
"""
from __future__ import annotations

import json
import os
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dreamdeck.core.errors import Busy, DreamdeckError
from dreamdeck.core.formats.search_terms import TOKENIZER, match_terms
from dreamdeck.core.formats.stream_lines import STREAM_FILE
from dreamdeck.core.index.search_cut import TermCounts
from dreamdeck.core.index.search_stamps import Known, diff, digest, feed_rels, named_diff, save_stamps, stored_stamps
from dreamdeck.core.io.cache import Stamp, clock, file_stamp, settled
from dreamdeck.core.io.folder_stamps import scan_folder, stamp_text
from dreamdeck.core.store.streams import stream_dir
from dreamdeck.core.store.tombstones import tombstones_path
from dreamdeck.core.workspace import Workspace

if TYPE_CHECKING:
    from filelock import FileLock

    from dreamdeck.core.index.search_docs import DocData
    from dreamdeck.core.index.search_feed import ChangeFeed

VERSION = "4"
FILENAME = "search.sqlite3"
# area folder under memory/ -> the kind of its documents (None: tracked for citations only)
AREAS = {"topics": "topic", "vault": "vault", "archive": None, "references": "reference"}
TITLE_WEIGHT, BODY_WEIGHT = 2.0, 1.0
_INFO = json.JSONEncoder(ensure_ascii=False)  # one encoder for every document's facts (half the cost of json.dumps)

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v TEXT)",
    # a file's stamp as four integers (size NULL: read it again), read back without parsing, and
    # a digest of the bytes indexed (a file read again with the same bytes is not indexed again)
    "CREATE TABLE IF NOT EXISTS files(path TEXT PRIMARY KEY, size INT, mtime INT, ctime INT, ino INT, sum BLOB)",
    "CREATE TABLE IF NOT EXISTS docs(id INTEGER PRIMARY KEY, kind TEXT NOT NULL, key TEXT NOT NULL,"
    " path TEXT NOT NULL, heading TEXT NOT NULL, excerpt TEXT NOT NULL, info TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS docs_path ON docs(path)",
    f"CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(title, body, tokenize=\"{TOKENIZER}\")",
)


def _tail():
    """`index.search_tail`, imported when the tail is touched: a fresh process whose recall finds
    nothing changed never needs it (nor the shard parser `search_docs` brings)."""
    from dreamdeck.core.index import search_tail

    return search_tail


def index_folder(ws: Workspace) -> Path:
    """The private folder the index lives in: the one line to change when it moves."""
    return ws.lock_dir


def index_path(ws: Workspace) -> Path:
    return index_folder(ws) / FILENAME


BUSY_TIMEOUT = 30  # seconds a refresh waits for another writer's transaction (a preview holds one ~1 s)


def _locked(exc: sqlite3.DatabaseError) -> bool:
    return getattr(exc, "sqlite_errorcode", None) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


@dataclass(frozen=True)
class Hit:
    """One document a query matched, with BM25 relevance (higher is better)."""

    kind: str
    key: str
    path: str
    heading: str
    excerpt: str
    info: dict[str, Any]
    relevance: float


@dataclass
class RefreshReport:
    rebuilt: bool = False  # the index was created from nothing
    files_read: int = 0
    files_indexed: int = 0  # of those read, the ones whose bytes differed from what was indexed
    files_removed: int = 0
    streams_rebuilt: bool = False
    stream_docs: int = 0
    swept: bool = True  # False: a change feed vouched that nothing changed (`index.search_feed`)


class SearchIndex:
    """One workspace's index; one per process (`open_index`), safe to share between threads."""

    def __init__(self, ws: Workspace):
        self.ws = ws
        self.path = index_path(ws)
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._counts = TermCounts()
        self._known: Known = {}  # area -> file name -> stamp (None: read again), `index.search_stamps`
        self._data_version: int | None = None
        self._wait: float = BUSY_TIMEOUT  # seconds a writer waits for another (`update`'s caller may say 0)
        self._inode: int | None = None
        self.feed: ChangeFeed | None = None  # set by a long-lived owner (`dreamdeck.api.Memory`)
        self.linked: list[tuple[str, str]] = []  # (path under memory/, why) of the shard files the last sweep left out
        self._vouched: tuple[int, int, int] | None = None  # (feed generation, inode, data_version) last swept
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
        self._counts = TermCounts()  # per connection: its generation is this connection's view
        self._inode = os.stat(self.path).st_ino
        self._data_version = None
        return conn

    def _create(self, conn: sqlite3.Connection) -> None:
        self._created = True  # empty until a refresh fills it
        with self._write_lock():
            conn.execute("BEGIN IMMEDIATE")
            for table in ("fts", "docs", "files", "tail", "meta"):
                conn.execute(f"DROP TABLE IF EXISTS {table}")
            for stmt in (*_SCHEMA, *_tail().SCHEMA):
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

    def _known_stamps(self, conn: sqlite3.Connection) -> Known:
        # data_version changes when another process committed: then our copy may be stale.
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        if version != self._data_version:
            self._known = stored_stamps(conn, AREAS)
            self._data_version = version
        return self._known

    # --- freshness ----------------------------------------------------------------------------
    def refresh(self) -> RefreshReport:
        """Bring the index up to date with the files (see the module docstring)."""
        with self._lock:
            feed = self.feed
            generation = feed.barrier() if feed is not None else None
            only = None
            if feed is not None and generation is not None and not self._created and self._vouched is not None \
                    and self._vouched[1:] == self._db_state():
                if self._vouched[0] == generation:
                    return RefreshReport(swept=False)
                only = feed_rels(feed.memory, feed.changed_between(self._vouched[0], generation), AREAS)
            self._vouched = None
            try:
                report = self._refresh(only)
            except sqlite3.DatabaseError as exc:
                if _locked(exc):  # another writer (a recall impact preview): not a damaged index
                    raise Busy("the search index is being updated by another process; try again") from None
                self._reset()
                report = self._refresh()
            if generation is not None:  # changes after the barrier move the generation on
                self._vouched = (generation, *self._db_state())
            return report

    def _db_state(self) -> tuple[int, int]:
        """(inode, data_version): another process replacing or writing the index makes us sweep."""
        if self._conn is None or self._inode is None:
            return (-1, -1)
        try:
            if os.stat(self.path).st_ino != self._inode:
                return (-1, -1)
            return (self._inode, self._conn.execute("PRAGMA data_version").fetchone()[0])
        except (OSError, sqlite3.Error):
            return (-1, -1)

    def update(self, rels: list[str], wait: float = BUSY_TIMEOUT) -> RefreshReport:
        """Bring the index up to date for exactly `rels` (paths under memory/, e.g. "topics/x.md")
        that a change wrote or removed, without the sweep: what the door calls after an apply.
        Correct whatever else changed: a file nobody named keeps the stamp it was indexed under,
        so the next `refresh` still finds it. A day new to the undreamed tail needs every shard's
        citations of it, so then this sweeps. Never builds an index: none there, or one of another
        version (thrown away on opening), is left for the next query to build. `wait`: how long
        to wait for another writer (its lock, then its transaction) before `Busy`."""
        with self._lock:
            if not self.path.exists():
                return RefreshReport(swept=False)
            try:
                self._connect()
                if self._created:
                    return RefreshReport(swept=False)
                self._wait = wait
                self._conn_busy(wait)
                try:
                    return self._refresh(only=rels)
                finally:
                    self._wait = BUSY_TIMEOUT
                    self._conn_busy(BUSY_TIMEOUT)
            except sqlite3.DatabaseError as exc:
                if _locked(exc):
                    raise Busy("the search index is being updated by another process; try again") from None
                self._reset()  # damaged: the next query rebuilds it from the files
                return RefreshReport(swept=False)

    def _refresh(self, only: list[str] | None = None) -> RefreshReport:
        started = clock()
        existed = self.path.exists()
        conn = self._connect()
        report = RefreshReport(rebuilt=not existed, swept=only is None)
        known = self._known_stamps(conn)
        current: dict[str, dict[str, Stamp]] = {}
        if only is None:
            linked: list[tuple[str, str]] = []
            current = {area: self._scan_area(area, linked) for area in AREAS}
            self.linked = sorted(linked)
            changed, removed = diff(current, known)
        else:
            changed, removed = named_diff(str(self.ws.memory), only, known, AREAS, self.linked)
        stream_sig = self._stream_signature(started)
        same_streams = bool(stream_sig) and stream_sig == self._meta(conn, "streams")
        if not changed and not removed and same_streams:
            self._created = self._created and only is not None
            return report
        tail = _tail()
        shards_changed = any(tail.is_citing(rel) for rel in [*(c[0] for c in changed), *removed])
        # Streams, state and tombstones unchanged: the tail's days are the ones covered, and its
        # documents change only if what shards cite in it does. Otherwise read the tail again.
        frags = None if same_streams else tail.undreamed_fragments(self.ws)
        if only is not None and frags is not None:
            if {f.date for f in frags} - set(json.loads(self._meta(conn, "tail_days") or "[]")):
                return self._refresh()  # a day new to the tail: every shard's citations of it
        from filelock import Timeout

        try:
            with self._write_lock():
                conn.execute("BEGIN IMMEDIATE")
                try:
                    covered = set(json.loads(self._meta(conn, "tail_days") or "[]"))
                    days = sorted(covered) if frags is None else sorted({f.date for f in frags})
                    cited_before = tail.cited(conn, days) if frags is None and shards_changed else None
                    written, dropped = self._apply_files(conn, changed, removed, report, started, covered | set(days))
                    save_stamps(conn, self._known_stamps(conn), written, dropped)  # the latest commit's, another writer's too
                    if cited_before is not None and tail.cited(conn, days) != cited_before:
                        frags = tail.undreamed_fragments(self.ws)
                    if frags is not None:
                        stamps = {f"{a}/{n}": st for a in tail.CITING_AREAS for n, st in current.get(a, {}).items()}
                        self._rebuild_streams(conn, frags, days, covered, stamps, {c[0] for c in changed}, started, report)
                        conn.execute("INSERT OR REPLACE INTO meta VALUES ('streams', ?)", (stream_sig,))
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    self._known, self._data_version = {}, None  # `save_stamps` changed our copy
                    raise
        except Timeout:
            raise Busy("the search index is being rebuilt by another process; try again") from None
        self._created = self._created and only is not None
        return report

    def _scan_area(self, area: str, linked: list[tuple[str, str]]) -> dict[str, Stamp]:
        found: list[tuple[str, str]] = []
        stamps = scan_folder(self.ws.memory / area, linked=found)
        linked += [(f"{area}/{name}", why) for name, why in found]
        return stamps

    def _stream_signature(self, started: int) -> str:
        """What decides the undreamed tail, as text; '' when something is inside the racy window."""
        stamps = [file_stamp(self.ws.state_path), file_stamp(tombstones_path(self.ws))]
        folder = stream_dir(self.ws)
        days = sorted(scan_folder(folder, STREAM_FILE).items()) if folder is not None else []
        stamps += [stamp for _, stamp in days]
        if any(s is not None and not settled(s, started) for s in stamps):
            return ""
        return "|".join([*(name for name, _ in days), *map(stamp_text, stamps)])

    @staticmethod
    def _meta(conn: sqlite3.Connection, key: str) -> str | None:
        row = conn.execute("SELECT v FROM meta WHERE k=?", (key,)).fetchone()
        return row[0] if row else None

    # --- writing ------------------------------------------------------------------------------
    def _apply_files(self, conn, changed, removed, report: RefreshReport, started: int,
                     days: set[str]) -> tuple[list[tuple], list[str]]:
        """Re-read changed files into documents and tail rows (for `days`); drop removed ones.
        A file whose bytes are the ones indexed (read again after the racy window, or touched)
        keeps its documents: only its stamp and tail rows are written again. Returns the files
        table's rows written and the paths dropped from it."""
        tail = _tail()
        self.drop_files(conn, removed)
        report.files_removed += len(removed)
        sums = self._sums(conn, [rel for rel, _ in changed])
        file_rows, docs, tail_rows, stale, gone = [], [], [], [], []
        memory = str(self.ws.memory)  # joined as text: 10,000 Path objects cost a third of a second
        for rel, stamp in changed:
            try:
                with open(f"{memory}/{rel}", "rb") as fh:
                    data = fh.read()
            except FileNotFoundError:  # gone since the scan
                gone += [rel] if rel in sums else []
                continue
            report.files_read += 1
            hashed = digest(data)
            file_rows.append((rel, *(stamp if settled(stamp, started) else (None,) * 4), hashed))
            tail_rows += tail.file_rows(rel, data, days)
            if rel in sums:
                conn.execute("DELETE FROM tail WHERE path=?", (rel,))
                if sums[rel] == hashed:
                    continue
                stale.append(rel)
            report.files_indexed += 1
            area, name = rel.split("/", 1)
            doc = self.doc_of(area, name[:-3], rel, data)
            if doc is not None:
                docs.append(doc)
        self.drop_files(conn, gone)
        self.drop_files(conn, stale, docs_only=True)
        conn.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?)", file_rows)
        conn.executemany("INSERT INTO tail VALUES (?, ?, ?)", tail_rows)
        self.insert_docs(conn, docs)
        return file_rows, [*removed, *gone]

    @staticmethod
    def _sums(conn, rels: list[str]) -> dict[str, bytes | None]:
        """path -> digest of the bytes indexed, for the files of `rels` the index holds."""
        out: dict[str, bytes | None] = {}
        for start in range(0, len(rels), 500):
            chunk = rels[start:start + 500]
            marks = ",".join("?" * len(chunk))
            out.update(conn.execute(f"SELECT path, sum FROM files WHERE path IN ({marks})", chunk).fetchall())
        return out

    @staticmethod
    def doc_of(area: str, slug: str, rel: str, data: bytes) -> DocData | None:
        from dreamdeck.core.index.search_docs import reference_doc, shard_doc

        kind = AREAS[area]
        if kind in ("topic", "vault"):
            return shard_doc(kind, slug, rel, data)
        if kind == "reference":
            return reference_doc(slug, rel, data.decode("utf-8", "replace"))
        return None

    @staticmethod
    def drop_file(conn, rel: str) -> None:
        SearchIndex.drop_files(conn, [rel])

    @staticmethod
    def drop_files(conn, rels: list[str], docs_only: bool = False) -> None:
        """Forget `rels`' documents (and, unless `docs_only`, their tail rows and stamps)."""
        for start in range(0, len(rels), 500):
            chunk = rels[start:start + 500]
            marks = ",".join("?" * len(chunk))
            conn.execute(f"DELETE FROM fts WHERE rowid IN (SELECT id FROM docs WHERE path IN ({marks}))", chunk)
            conn.execute(f"DELETE FROM docs WHERE path IN ({marks})", chunk)
            if not docs_only:
                conn.execute(f"DELETE FROM tail WHERE path IN ({marks})", chunk)
                conn.execute(f"DELETE FROM files WHERE path IN ({marks})", chunk)

    @staticmethod
    def insert_docs(conn, docs: list[DocData]) -> None:
        if not docs:
            return
        first = (conn.execute("SELECT max(id) FROM docs").fetchone()[0] or 0) + 1
        conn.executemany("INSERT INTO docs VALUES (?, ?, ?, ?, ?, ?, ?)", [
            (first + n, d.kind, d.key, d.path, d.heading, d.excerpt, _INFO.encode(d.info))
            for n, d in enumerate(docs)])
        conn.executemany("INSERT INTO fts(rowid, title, body) VALUES (?, ?, ?)",
                         [(first + n, d.title_terms, d.body_terms) for n, d in enumerate(docs)])

    def _rebuild_streams(self, conn, frags, days: list[str], covered: set[str], stamps: dict[str, Stamp],
                         rewritten: set[str], started: int, report: RefreshReport) -> None:
        """The tail's documents: its fragments minus those a shard cites (`index.search_tail`)."""
        from dreamdeck.core.index.search_docs import stream_doc

        tail = _tail()
        new_days = set(days) - covered
        if new_days:
            tail.cover_days(conn, self.ws, new_days, stamps, rewritten, started)
        tail.keep_only(conn, days)
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('tail_days', ?)", (json.dumps(days),))
        cited = tail.cited(conn, days) if days else set()
        conn.execute("DELETE FROM fts WHERE rowid IN (SELECT id FROM docs WHERE kind='stream')")
        conn.execute("DELETE FROM docs WHERE kind='stream'")
        docs = [stream_doc(f.date, f.id, f.topic, f.body, f.source, f.ts, f.who)
                for f in frags if f"{f.date}#{f.id}" not in cited]
        self.insert_docs(conn, docs)
        report.streams_rebuilt, report.stream_docs = True, len(docs)

    # --- reading ------------------------------------------------------------------------------
    def search(self, query: str, limit: int = 200) -> list[Hit]:
        """Documents matching any word of `query`, best BM25 first (refreshed first)."""
        self.refresh()
        return self.query(query, limit)

    def query(self, query: str, limit: int = 200) -> list[Hit]:
        """`search` without the refresh: the index as it stands."""
        with self._lock:
            conn = self._connect()
            return query_connection(conn, query, limit, self._counts)

    def count(self, kind: str | None = None) -> int:
        with self._lock:
            conn = self._connect()
            if kind is None:
                return conn.execute("SELECT count(*) FROM docs").fetchone()[0]
            return conn.execute("SELECT count(*) FROM docs WHERE kind=?", (kind,)).fetchone()[0]

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def query_connection(conn: sqlite3.Connection, query: str, limit: int = 200, counts: TermCounts | None = None) -> list[Hit]:
    """Documents of the index in `conn` matching any word of `query` BM25 weighs (`index.search_cut`:
    a word in half the documents or more is left out when the query has a rarer one), best BM25
    first; equal BM25 in (kind, key) order, as recall breaks ties, so a recall that ranks only
    the first of them knows which tied documents it has not seen (`ops.recall`). `counts`: the
    caller's cache of how many documents hold each word (None: counted for this query)."""
    phrases = match_terms(query)
    if not phrases:
        return []
    snapshot = not conn.in_transaction  # the counts and the query read the same index
    if snapshot:
        conn.execute("BEGIN")
    try:
        kept = (counts or TermCounts()).weighed(conn, phrases)
        rows = conn.execute(
            "SELECT d.kind, d.key, d.path, d.heading, d.excerpt, d.info, bm25(fts, ?, ?) AS r "
            "FROM fts JOIN docs d ON d.id = fts.rowid WHERE fts MATCH ? ORDER BY r, d.kind, d.key LIMIT ?",
            (TITLE_WEIGHT, BODY_WEIGHT, " OR ".join(kept), limit),
        ).fetchall()
    finally:
        if snapshot and conn.in_transaction:
            conn.execute("COMMIT")
    return [Hit(k, key, p, h, e, json.loads(i), -r) for k, key, p, h, e, i, r in rows]


def update_after_change(ws: Workspace, rels: list[str]) -> None:
    """The door's call after an apply: the index, if there is one, re-reads the files the change
    wrote or removed (`SearchIndex.update`). It never fails the change: an index that is busy
    or damaged, or a file it cannot read, is only slower: the next query meets it (and says what
    is wrong), its sweep finds what this did not."""
    if not rels or not index_path(ws).exists():
        return
    try:
        open_index(ws).update(rels, wait=0)  # busy elsewhere: the next query's sweep reads them
    except (DreamdeckError, sqlite3.Error, OSError):
        pass


_OPEN: dict[str, SearchIndex] = {}
_OPEN_LOCK = threading.Lock()
MAX_OPEN = 8  # workspaces whose index a process keeps open; the least recently used is closed


def open_index(ws: Workspace) -> SearchIndex:
    """The process's index of `ws` (kept open between queries: that is what makes it warm)."""
    key = str(index_path(ws))
    with _OPEN_LOCK:
        index = _OPEN.pop(key, None)
        if index is None or index.ws.memory != ws.memory:
            index = SearchIndex(ws)
        else:
            index.ws = ws  # the same folder; `today` may differ
        _OPEN[key] = index
        while len(_OPEN) > MAX_OPEN:
            _OPEN.pop(next(iter(_OPEN))).close()
        return index


def close_all() -> None:
    """Close every open index (a fresh process, for tests and benchmarks)."""
    with _OPEN_LOCK:
        for index in _OPEN.values():
            index.close()
        _OPEN.clear()
