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
import re
import sqlite3
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any

from dreamdeck.core.formats.events import _ISO_Z  # the strict parser's own datetime rule
from dreamdeck.core.formats.lazy_re import lazy_re
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


# A fragment line in the append tool's plain shape with no optional key, its strings free of
# escapes and control characters: the strict parser accepts it as exactly these seven strings
# when its `ts` is `events._ISO_Z`'s datetime and the bytes are UTF-8 (checked in `_plain_times`).
_PLAIN_TIMES = lazy_re(rb'^\{"type":"fragment","id":"([^"\\\x00-\x1f]+)","ts":"([^"\\\x00-\x1f]+)",'
                          rb'"source":"[^"\\\x00-\x1f]*","entry":"[^"\\\x00-\x1f]*","topic":"[^"\\\x00-\x1f]*",'
                          rb'"body":"[^"\\\x00-\x1f]*"\}$', re.M)


def read_day(data: bytes) -> DayProvenance:
    """The day's record: from one expression over the bytes when every line is a plain fragment
    without who or where (a year of such lines parsed as JSON costs a quarter of a minute), else
    from the strict parse of each line."""
    plain = _plain_times(data)
    return DayProvenance(plain, {}) if plain is not None else _read_day_parsed(data)


def _plain_times(data: bytes) -> dict[str, str] | None:
    """id -> ts when every line of `data` is a plain fragment line (`_PLAIN_TIMES`), else None."""
    if b'"who"' in data or b'"where"' in data or not data.endswith(b"\n"):
        return None
    found = _PLAIN_TIMES.findall(data)
    if len(found) != data.count(b"\n"):
        return None  # a blank line, another shape or another kind of event: parse it
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return None
    # One decode for them all: no id or ts holds a newline, and each is whole UTF-8.
    pairs = b"\n".join(chain.from_iterable(found)).decode("utf-8").split("\n")
    stamps = pairs[1::2]
    if not all(map(_ISO_Z.match, set(stamps))):
        return None
    return dict(zip(pairs[0::2], stamps, strict=True))  # a later line of the same id wins, as below


def _read_day_parsed(data: bytes) -> DayProvenance:
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
