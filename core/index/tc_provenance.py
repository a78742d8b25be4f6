"""Each stream day's fragments as TypeClaw's topic documents cite them: id -> time, who, where.

A whole topic document (`tc_documents.whole_documents`) holds, for every fragment the topic
cites actively, its citation, who, time and where. Parsing a year of streams for them costs
minutes; what they need is small. So each day file's record is kept per file stamp, in memory
and in a projection file (`index.projection_db`), looked up day by day: only a changed day file
is read again.
A record lists what `parse_stream_bytes` accepts as a fragment (a later line with the same id
wins, as TypeClaw's map keyed by citation does).
"""
from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dreamdeck.core.formats.stream_lines import parse_stream_bytes
from dreamdeck.core.index import projection_db
from dreamdeck.core.io.cache import MISS, Stamp, StampCache, clock, file_stamp


@dataclass(frozen=True)
class DayProvenance:
    times: dict[str, str]  # fragment id -> ts
    people: dict[str, tuple[Any, Any]]  # fragment id -> (who, where), for fragments with either

    def event(self, fid: str) -> dict[str, Any] | None:
        """The part of the fragment `child_parts` reads, or None when the day has no such fragment."""
        ts = self.times.get(fid)
        if ts is None:
            return None
        who, where = self.people.get(fid, (None, None))
        return {"ts": ts, "who": who, "where": where}

    def to_json(self) -> list[Any]:
        return [list(self.times), list(self.times.values()), [[k, *v] for k, v in self.people.items()]]

    @staticmethod
    def from_json(data: list[Any]) -> DayProvenance:
        ids, times, people = data
        return DayProvenance(dict(zip(ids, times, strict=True)), {p[0]: (p[1], p[2]) for p in people})


_DAYS: StampCache[DayProvenance] = StampCache("typeclaw-day-provenance", max_entries=4096)
VERSION = "1"
DAYS_FILENAME = "typeclaw-days.sqlite3"  # in dreamdeck's private folder, beside the search index
_TABLE = "CREATE TABLE IF NOT EXISTS days(path TEXT PRIMARY KEY, size INT, mtime INT, ctime INT, ino INT, record TEXT)"


def read_day(data: bytes) -> DayProvenance:
    times: dict[str, str] = {}
    people: dict[str, tuple[Any, Any]] = {}
    for ln in parse_stream_bytes(data):
        ev = ln.event
        if ev is not None and ev["type"] == "fragment":
            times[ev["id"]] = ev["ts"]  # a later line wins
            if "who" in ev or "where" in ev:
                people[ev["id"]] = (ev.get("who"), ev.get("where"))
            else:
                people.pop(ev["id"], None)
    return DayProvenance(times, people)


def day_provenance(path: str, store: Path | None = None) -> DayProvenance:
    """The record of the stream file at `path` now (empty when it is gone); `store` is the
    projection file that keeps records between processes (None: memory only)."""
    started, stamp = clock(), file_stamp(path)
    if stamp is None:
        return DayProvenance({}, {})
    hit = _DAYS.get(path, stamp)
    if hit is not MISS:
        return hit  # type: ignore[return-value]
    stored = _stored(store, path, stamp) if store is not None else None
    if stored is not None:
        _DAYS.put(path, stamp, stored)
        return stored
    try:
        with open(path, "rb") as fh:
            record = read_day(fh.read())
    except FileNotFoundError:
        return DayProvenance({}, {})
    if _DAYS.put_if_settled(path, stamp, record, started) and store is not None:
        _store(store, path, stamp, record)
    return record


def _stored(store: Path, path: str, stamp: Stamp) -> DayProvenance | None:
    if not store.exists():
        return None
    try:
        conn = projection_db.shared(store, VERSION, (_TABLE,), ("days",))
        row = conn.execute("SELECT record FROM days WHERE path=? AND size=? AND mtime=? AND ctime=? AND ino=?",
                           (path, *stamp)).fetchone()
        return None if row is None else DayProvenance.from_json(json.loads(row[0]))
    except sqlite3.Error as exc:
        if projection_db.damaged(exc):
            projection_db.discard(store)
    except (ValueError, TypeError, IndexError):
        projection_db.discard(store)
    return None


def _store(store: Path, path: str, stamp: Stamp, record: DayProvenance) -> None:
    try:
        conn = projection_db.shared(store, VERSION, (_TABLE,), ("days",))
        conn.execute("INSERT OR REPLACE INTO days VALUES (?, ?, ?, ?, ?, ?)",
                     (path, *stamp, json.dumps(record.to_json(), ensure_ascii=False)))
    except sqlite3.Error as exc:
        if projection_db.damaged(exc):
            projection_db.discard(store)
    except OSError:
        pass
