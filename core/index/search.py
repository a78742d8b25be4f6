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
(`SearchIndex.linked`) for the caller to warn about. Ranking is FTS5's BM25 (`index.search_query`);
decay is applied by `ops.recall`.

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
the dreaming state, the tombstones, the reflections or any shard changed. Writers in several processes serialize
on a file lock; readers never wait (WAL).

The parts: the database file (`index.search_db`), what a file's documents are and how they are
written (`index.search_write`, `index.search_docs`), the undreamed tail (`index.search_tail`),
reading (`index.search_query`, ranking a query with no discriminating word by strength:
`index.search_strength`); this module keeps the index fresh and hands out one per workspace.

Words: `formats.search_terms` (CJK runs as bigrams, `porter unicode61` for the rest).
"""
from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dreamdeck.core.errors import BadFile, Busy, DreamdeckError
from dreamdeck.core.formats.lazy_re import lazy_re
from dreamdeck.core.formats.stream_lines import STREAM_FILE
from dreamdeck.core.index.search_db import BUSY_TIMEOUT, IndexDatabase, index_folder, index_path, locked
from dreamdeck.core.index.search_query import Hit, query_connection
from dreamdeck.core.index.search_stamps import Known, diff, digest, feed_rels, named_diff, save_stamps, stored_stamps
from dreamdeck.core.index.search_strength import StrengthOrder
from dreamdeck.core.index.search_write import AREAS, doc_of, drop_files, indexed_sums, insert_docs
from dreamdeck.core.io.cache import Stamp, clock, file_stamp, settled
from dreamdeck.core.io.folder_stamps import scan_folder, stamp_text
from dreamdeck.core.io.no_links import LinkRefused, OpenFolder
from dreamdeck.core.store.streams import stream_dir
from dreamdeck.core.store.tombstones import tombstones_path
from dreamdeck.core.workspace import Workspace

if TYPE_CHECKING:
    from dreamdeck.core.index.search_feed import ChangeFeed

# the index's public face: what callers import from here
__all__ = ["AREAS", "BUSY_TIMEOUT", "Hit", "RefreshReport", "SearchIndex", "close_all", "index_folder", "index_path",
           "open_index", "update_after_change"]


def _tail():
    """`index.search_tail`, imported when the tail is touched: a fresh process whose recall finds
    nothing changed never needs it (nor the shard parser `search_docs` brings)."""
    from dreamdeck.core.index import search_tail

    return search_tail


@dataclass
class RefreshReport:
    rebuilt: bool = False  # the index was created from nothing
    files_read: int = 0
    files_indexed: int = 0  # of those read, the ones whose bytes differed from what was indexed
    files_removed: int = 0
    streams_rebuilt: bool = False
    stream_docs: int = 0
    swept: bool = True  # False: a change feed vouched that nothing changed (`index.search_feed`)


class SearchIndex(IndexDatabase):
    """One workspace's index; one per process (`open_index`), safe to share between threads."""

    def __init__(self, ws: Workspace):
        super().__init__(ws)
        self.feed: ChangeFeed | None = None  # set by a long-lived owner (`dreamdeck.api.Memory`)
        self.linked: list[tuple[str, str]] = []  # (path under memory/, why) of the shard files the last sweep left out
        self._vouched: tuple[int, int, int] | None = None  # (feed generation, inode, data_version) last swept

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
                if locked(exc):  # another writer (a recall impact preview): not a damaged index
                    raise Busy("the search index is being updated by another process; try again") from None
                self._reset()
                try:
                    report = self._refresh()
                except sqlite3.DatabaseError as again:  # not damage after all: a full disk, a read-only folder
                    self._reset()
                    raise DreamdeckError(
                        f"the search index cannot be written in {self.path.parent}: {again} — free space there, or "
                        "set DREAMDECK_CACHE_DIR to a folder that can take it (nothing in memory/ was changed)") from None
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
                if locked(exc):
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
                        report.stream_docs = tail.rebuild_docs(conn, self.ws, frags, days, covered, stamps,
                                                               {c[0] for c in changed}, started)
                        report.streams_rebuilt = True
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
        """What decides the undreamed tail, as text; '' when something is inside the racy window:
        the stream files, the dreaming state, the tombstones, and the reflections (the fragments
        a pending one holds are left out of the tail, `index.undreamed`, while TypeClaw's state
        still calls them undreamed)."""
        stamps = [file_stamp(self.ws.state_path), file_stamp(tombstones_path(self.ws))]
        folder = stream_dir(self.ws)
        days = sorted(scan_folder(folder, STREAM_FILE).items()) if folder is not None else []
        held = sorted(scan_folder(self.ws.meta_dir / "reflections", REFLECTION_FILE).items())
        stamps += [stamp for _, stamp in days] + [stamp for _, stamp in held]
        if any(s is not None and not settled(s, started) for s in stamps):
            return ""
        return "|".join([*(name for name, _ in days), "#held", *(name for name, _ in held), *map(stamp_text, stamps)])

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
        drop_files(conn, removed)
        report.files_removed += len(removed)
        sums = indexed_sums(conn, [rel for rel, _ in changed])
        file_rows, docs, tail_rows, stale, gone = [], [], [], [], []
        for rel, stamp, data in self._read_changed(changed):
            if data is None:  # gone since the scan, or no longer a file of its own
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
            doc = doc_of(area, name[:-3], rel, data)
            if doc is not None:
                docs.append(doc)
        drop_files(conn, gone)
        drop_files(conn, stale, docs_only=True)
        conn.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?)", file_rows)
        conn.executemany("INSERT INTO tail VALUES (?, ?, ?)", tail_rows)
        insert_docs(conn, docs)
        return file_rows, [*removed, *gone]

    def _read_changed(self, changed) -> Iterator[tuple[str, Stamp, bytes | None]]:
        """(path, stamp, bytes) of each changed file, read by the no-links rule: each shard
        folder opened once from `memory/` down without following a link, each file relative to
        it with `O_NOFOLLOW`, refused when it has a second hard link or is not a regular file. A
        link or a FIFO swapped in since the sweep's lstat (or a folder swapped for a link) is
        never read: its bytes are None, as for a file gone, and it is named in `linked`."""
        with ExitStack() as stack:
            folders: dict[str, OpenFolder | Exception] = {}
            for rel, stamp in changed:
                area, name = rel.split("/", 1)
                if area not in folders:
                    try:
                        folders[area] = stack.enter_context(OpenFolder(self.ws.memory / area))
                    except (OSError, DreamdeckError) as exc:
                        folders[area] = exc
                folder = folders[area]
                try:
                    if isinstance(folder, Exception):
                        raise folder
                    data: bytes | None = folder.read(name)[1]
                except FileNotFoundError:
                    data = None
                except LinkRefused:
                    self.linked = sorted({*self.linked, (rel, "a link")})
                    data = None
                except BadFile:
                    self.linked = sorted({*self.linked, (rel, "not a regular file")})
                    data = None
                yield rel, stamp, data

    # --- reading ------------------------------------------------------------------------------
    def search(self, query: str, limit: int = 200, order: StrengthOrder | None = None) -> list[Hit]:
        """Documents matching `query`, best first (refreshed first; `index.search_query`)."""
        self.refresh()
        return self.query(query, limit, order)

    def query(self, query: str, limit: int = 200, order: StrengthOrder | None = None) -> list[Hit]:
        """`search` without the refresh: the index as it stands."""
        with self._lock:
            conn = self._connect()
            return query_connection(conn, query, limit, self._cache, order)

    def count(self, kind: str | None = None) -> int:
        with self._lock:
            conn = self._connect()
            if kind is None:
                return conn.execute("SELECT count(*) FROM docs").fetchone()[0]
            return conn.execute("SELECT count(*) FROM docs WHERE kind=?", (kind,)).fetchone()[0]


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


# `store.reflections`' folder and the names its `held_keys` reads (glob "r-*.json"), spelled here:
# that module (git diffs, patterns compiled at import) stays off a fresh recall's path
REFLECTION_FILE = lazy_re(r"^r-.*\.json$")

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
