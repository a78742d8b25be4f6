"""Every day's fragments as one list, newest at the bottom, read line by line on demand.

A year of streams can hold a million fragments, so nothing here reads the year:
- Days are indexed lazily, newest first. The *loaded window* is always a contiguous run of days
  ending with the newest one: opening indexes the newest days until there are `min_rows`
  fragments; older days are added when the reader scrolls up to them (`load_older`) or jumps
  to one (`find(..., load=True)`).
- A day's index is two arrays of byte offsets (start and end of each fragment line), built by
  splitting the raw bytes on b"\\n" and keeping the lines that contain `"type":"fragment"`
  (watermarks, legacy prose and blank lines are never indexed). No JSON is parsed to index;
  a tombstoned fragment's line is parsed only to confirm its id.
- `row(i)` reads one line with `os.pread` at its offset and parses it (an LRU keeps parsed rows).
- `refresh()` picks up appended bytes by reading from the last indexed offset; a rewrite
  (new inode or a smaller size, e.g. compaction or a hard forget) re-indexes that day.

Reading and installing are separate so a UI can scan in a thread and install on its own
thread: `scan()` only reads files and returns a `ScanPlan`; `apply(plan)` installs it (cheap)
and says what moved (`StreamDelta`). `refresh()`, `load_older()` and `find()` do both.
"""
from __future__ import annotations

import json
import os
import threading
from array import array
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from itertools import accumulate, compress, repeat
from operator import add, not_
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from dreamdeck.core.formats.events import EventError, parse_event_line
from dreamdeck.core.formats.stream_lines import STREAM_FILE
from dreamdeck.core.store.streams import stream_dir
from dreamdeck.core.store.tombstones import load_tombstones, tombstones_path
from dreamdeck.core.workspace import Workspace

FRAGMENT_MARK = b'"type":"fragment"'  # in JSON text this can only be a key/value, never inside a string
FRAGMENT_PREFIX = b'{"type":"fragment"'

Stamp = tuple[int, int, int]  # (inode, size, mtime_ns)
_CHANGED: Stamp = (0, -1, 0)  # a day found changed under its index: no file has this stamp


@dataclass
class DayIndex:
    """Where the shown fragment lines of one day file are.

    A day passed over by a jump is only *counted* (`starts` is None): its offsets are built the
    first time one of its rows is read."""

    date: str
    path: str
    stamp: Stamp  # of the bytes indexed (size = bytes seen, a partial last line included)
    scanned: int  # bytes indexed: through the last newline seen
    count: int
    starts: array | None  # byte offset of each fragment line
    ends: array | None  # offset of its newline
    stones: frozenset[str] = frozenset()  # tombstoned ids of this day, skipped
    hidden: int = 0  # how many lines were skipped for a tombstone

    def __len__(self) -> int:
        return self.count


@dataclass
class _DayScan:
    date: str
    path: str
    stamp: Stamp
    start: int  # 0 for a full index; else the offset the extension was read from
    scanned: int
    count: int
    starts: array | None  # None: counted only
    ends: array | None
    stones: frozenset[str]
    hidden: int

    @property
    def replace(self) -> bool:
        return self.start == 0


@dataclass
class ScanPlan:
    """What `scan()` read; install it with `StreamView.apply` (on the thread that reads rows)."""

    version: int  # the view version it was read against
    days: list[tuple[str, str]]  # every stream day, oldest first
    dir_stamp: tuple | None
    lo: str | None  # oldest day of the loaded window after apply
    scans: list[_DayScan] = field(default_factory=list)
    stones: dict[str, frozenset[str]] | None = None  # new tombstones, when the file changed
    stones_stamp: tuple | None = None
    bytes_scanned: int = 0

    @property
    def empty(self) -> bool:
        return not self.scans and self.stones is None


@dataclass(frozen=True)
class StreamDelta:
    """What an apply changed, for a view that keeps its cursor."""

    appended: int = 0  # rows added after every row that was there (new fragments)
    prepended: int = 0  # rows added before every row that was there (older days loaded)
    reshaped: bool = False  # rows removed or inserted in between (rewrite, tombstone, new old day)
    stale: bool = False  # the plan was read against an older state and was dropped; scan again
    total: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.appended or self.prepended or self.reshaped)


def list_days(folder: Path | None) -> list[tuple[str, str]]:
    """(date, path) of every dated stream file, oldest first: `core.streams.list_stream_days`
    without a Path object per file (a year is 365 of them, listed again after every new file)."""
    if folder is None:
        return []
    days = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                m = STREAM_FILE.match(entry.name)
                if m and entry.is_file():
                    days.append((m.group(1), entry.path))
    except OSError:
        return []
    days.sort()
    return days


def _stat_stamp(path: Path | str) -> Stamp | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _dir_stamp(folder: Path | None) -> tuple | None:
    if folder is None:
        return None
    try:
        st = os.stat(folder)
    except OSError:
        return None
    return (str(folder), st.st_ino, st.st_mtime_ns)


def _is_fragment_id(line: bytes, fid: str) -> bool:
    try:
        ev = json.loads(line)
    except ValueError:
        return False
    return isinstance(ev, dict) and ev.get("type") == "fragment" and ev.get("id") == fid


def _stoned_starts(data: bytes, cut: int, base: int, stones: frozenset[str]) -> set[int]:
    """Offsets of the complete lines that are tombstoned fragments: each id's bytes are searched
    for (C speed) and only the lines holding one are parsed."""
    found: set[int] = set()
    for fid in stones:
        needle = fid.encode("utf-8")
        at = data.find(needle, 0, cut)
        while at != -1:
            line_start = data.rfind(b"\n", 0, at) + 1
            line_end = data.find(b"\n", at, cut)
            if line_end == -1:
                break
            if _is_fragment_id(data[line_start:line_end], fid):
                found.add(base + line_start)
            at = data.find(needle, line_end, cut)
    return found


def index_bytes(data: bytes, base: int, stones: frozenset[str] = frozenset()) -> tuple[array, array, int, int]:
    """(starts, ends, scanned, hidden) of the complete fragment lines in `data` read at `base`.

    One split on b"\n" and a prefix test per line, all in C (map / accumulate / compress); only
    lines without the usual prefix are searched for the mark. No JSON is parsed, except a line
    holding a tombstoned id."""
    cut = data.rfind(b"\n") + 1
    if not cut:
        return array("q"), array("q"), base, 0
    parts = data.split(b"\n")
    parts.pop()  # the bytes after the last newline: a line still being written (or b"")
    lengths = list(map(len, parts))
    line_starts = list(accumulate(map(add, lengths, repeat(1)), initial=base))
    # TypeClaw writes `{"type":"fragment",…` first; any other line is searched for the mark.
    keep = list(map(bytes.startswith, parts, repeat(FRAGMENT_PREFIX)))
    for i in compress(range(len(parts)), map(not_, keep)):
        if FRAGMENT_MARK in parts[i]:
            keep[i] = True
    starts = array("q", compress(line_starts, keep))
    ends = array("q", compress(map(add, line_starts, lengths), keep))
    hidden = 0
    if stones:
        gone = _stoned_starts(data, cut, base, stones)
        if gone:
            pairs = [(s, e) for s, e in zip(starts, ends) if s not in gone]
            hidden = len(starts) - len(pairs)
            starts = array("q", (s for s, _ in pairs))
            ends = array("q", (e for _, e in pairs))
    return starts, ends, base + cut, hidden


def count_bytes(data: bytes) -> tuple[int, int] | None:
    """(fragment lines, scanned) of a whole file's bytes, counted in C without splitting; None when
    some fragment line does not start with TypeClaw's `{"type":"fragment"` (then index it)."""
    cut = data.rfind(b"\n") + 1
    if not cut:
        return 0, 0
    prefixed = data.count(b"\n" + FRAGMENT_PREFIX, 0, cut) + data.startswith(FRAGMENT_PREFIX)
    if data.count(FRAGMENT_MARK, 0, cut) != prefixed:
        return None
    return prefixed, cut


def local_time(ts: str) -> str:
    """`2026-05-22T10:30:01.123Z` as local `HH:MM:SS` (the stream's date is local too)."""
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).astimezone().strftime("%H:%M:%S")
    except (ValueError, AttributeError):
        return ""


def fragment_row(date: str, raw: str) -> dict[str, Any]:
    """A row for a table: date, id, ts, time, topic, body, who, source, plus the raw JSON text."""
    try:
        ev = parse_event_line(raw)
        if ev.get("type") != "fragment":
            raise EventError(f"a {ev.get('type')} line, not a fragment")
    except EventError as exc:
        return {"date": date, "id": "", "ts": "", "time": "", "topic": "⚠ malformed line", "body": str(exc),
                "who": "", "source": "", "raw": raw, "malformed": True, "key": ""}
    return {
        "date": date, "id": ev["id"], "ts": ev["ts"], "time": local_time(ev["ts"]), "topic": ev["topic"],
        "body": ev["body"], "who": ev.get("who") or "", "source": ev.get("source", ""), "raw": raw,
        "malformed": False, "key": f"{date}#{ev['id']}",
    }


def _placeholder(date: str) -> dict[str, Any]:
    """A row whose bytes changed under the index: shown until the next refresh re-indexes the day."""
    return {"date": date, "id": "", "ts": "", "time": "", "topic": "…", "who": "", "source": "",
            "body": "(this day was rewritten; re-reading)", "raw": "", "malformed": True, "key": ""}


def _same_rows(a: DayIndex, b: DayIndex) -> bool:
    if a.count != b.count:
        return False
    if a.starts is None or b.starts is None:
        return a.stamp[0] == b.stamp[0]
    return a.starts == b.starts and a.ends == b.ends


class StreamView:
    """A row source (``len`` / ``row(i)``) over the fragments of every day, newest last.

    Thread safety: `scan()` may run in any thread; `apply()` and the methods that call it
    (`refresh`, `load_older`, `load_until`, `find(load=True)`) belong to the thread that reads
    rows, so the row count never changes under a reader. `row()` itself is safe anywhere.
    """

    def __init__(self, ws: Workspace, *, min_rows: int = 500, cache_size: int = 4096, open: bool = True):
        self.ws = ws
        self.min_rows = min_rows
        self.cache_size = cache_size
        self._lock = threading.RLock()
        self._days: list[tuple[str, str]] = []  # every day file, oldest first
        self._dir_stamp: tuple | None = None
        self._lo: str | None = None  # oldest loaded date; None before the first apply
        self._loaded: list[DayIndex] = []  # the window, oldest first
        self._cum: list[int] = []  # running row totals of _loaded
        self._stones: dict[str, frozenset[str]] = {}
        self._stones_stamp: tuple | None = None
        self._version = 0
        self._dirty = False  # a counted day was found changed under its count
        self._cache: OrderedDict[tuple, dict[str, Any]] = OrderedDict()
        # counters (tests and the benchmark read them)
        self.reads = 0  # row reads (one pread each) and find() day reads
        self.bytes_read = 0
        self.bytes_scanned = 0  # bytes read to build or extend indexes
        if open:
            self.apply(self.scan())

    # --- the row source ---------------------------------------------------------------------
    def __len__(self) -> int:
        return self._cum[-1] if self._cum else 0

    def row(self, index: int) -> dict[str, Any]:
        with self._lock:
            total = len(self)
            if index < 0:
                index += total
            if not 0 <= index < total:
                raise IndexError(f"row {index} of {total}")
            k = bisect_right(self._cum, index)
            day = self._loaded[k]
            local = index - (self._cum[k - 1] if k else 0)
            if not self._materialize(day):
                return _placeholder(day.date)
            start, end = day.starts[local], day.ends[local]
            key = (day.date, day.stamp[0], start)
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached
        raw = self._pread(day.path, day.stamp[0], start, end - start)
        if raw is None:  # the file was rewritten since it was indexed: the next refresh re-indexes it
            return _placeholder(day.date)
        row = fragment_row(day.date, raw.decode("utf-8", "replace"))
        with self._lock:
            self._cache[key] = row
            if len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return row

    def _materialize(self, day: DayIndex) -> bool:
        """Build the offsets of a day that was only counted (under the lock). False when the file
        changed since it was counted: the day is marked so the next refresh re-indexes it."""
        if day.starts is not None:
            return True
        if day.stamp == _CHANGED:
            return False
        try:
            with open(day.path, "rb") as fh:
                same = os.fstat(fh.fileno()).st_ino == day.stamp[0]
                data = fh.read(day.scanned) if same else b""
        except OSError:
            same, data = False, b""
        self.bytes_scanned += len(data)
        starts, ends, scanned, hidden = index_bytes(data, 0, day.stones)
        if not same or len(starts) != day.count or scanned != day.scanned:
            day.stamp = _CHANGED  # changed() now says so; refresh() re-indexes the day
            self._dirty = True
            return False
        day.starts, day.ends, day.hidden = starts, ends, hidden
        return True

    def _pread(self, path: str, ino: int, offset: int, length: int) -> bytes | None:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return None
        try:
            if os.fstat(fd).st_ino != ino:
                return None
            data = os.pread(fd, length, offset)
        finally:
            os.close(fd)
        self.reads += 1
        self.bytes_read += len(data)
        return data

    # --- what is loaded -----------------------------------------------------------------------
    @property
    def total_days(self) -> int:
        return len(self._days)

    @property
    def loaded_days(self) -> int:
        return len(self._loaded)

    @property
    def indexed_days(self) -> int:
        """Loaded days whose line offsets are built (the others were only counted)."""
        return sum(1 for d in self._loaded if d.starts is not None)

    @property
    def older_days(self) -> int:
        """Days older than the loaded window (not indexed yet)."""
        if self._lo is None:
            return len(self._days)
        return bisect_left([d for d, _ in self._days], self._lo)

    @property
    def oldest_loaded(self) -> str | None:
        return self._loaded[0].date if self._loaded else None

    @property
    def hidden(self) -> int:
        """Tombstoned fragments skipped in the loaded window."""
        return sum(d.hidden for d in self._loaded)

    def day_counts(self) -> list[tuple[str, int]]:
        """(date, fragments shown) of each loaded day, oldest first."""
        with self._lock:
            return [(d.date, len(d)) for d in self._loaded]

    def day_offsets(self, date: str) -> list[tuple[int, int]] | None:
        """(start, end) byte offsets of a loaded day's shown fragment lines."""
        with self._lock:
            for d in self._loaded:
                if d.date == date:
                    return list(zip(d.starts, d.ends)) if self._materialize(d) else None
        return None

    def day_start(self, date: str) -> int | None:
        """Row index of the first fragment of a loaded day."""
        with self._lock:
            for k, d in enumerate(self._loaded):
                if d.date == date:
                    return self._cum[k - 1] if k else 0
        return None

    # --- change detection ---------------------------------------------------------------------
    def changed(self, recent: int | None = 7) -> bool:
        """A cheap check (stat calls only): could a scan find something new?

        Looks at the folder (a new, deleted or renamed-over file, i.e. any rewrite), the tombstones,
        and the newest `recent` loaded day files (None: all) for appends. `scan()` always checks
        every loaded day, so an in-place change to an older day shows on the next scan."""
        with self._lock:
            if (self._lo is None and self._days) or self._dirty:
                return True
            dir_stamp, stones_stamp = self._dir_stamp, self._stones_stamp
            window = self._loaded if recent is None else self._loaded[-recent:]
            loaded = [(d.path, d.stamp) for d in window]
        if _dir_stamp(stream_dir(self.ws)) != dir_stamp:
            return True
        if _stat_stamp(tombstones_path(self.ws)) != stones_stamp:
            return True
        return any(_stat_stamp(path) != stamp for path, stamp in loaded)

    # --- reading (any thread) ---------------------------------------------------------------------
    def scan(self, *, older_rows: int = 0, until: str | None = None) -> ScanPlan:
        """Read what changed on disk; with `older_rows`, also index older days until that many more
        rows are loaded (at least one day); with `until`, load every day back to that date."""
        folder = stream_dir(self.ws)
        dir_stamp = _dir_stamp(folder)  # before listing: a file created meanwhile changes it again
        with self._lock:
            version, lo = self._version, self._lo
            have = {d.date: d for d in self._loaded}
            stones_stamp, stones = self._stones_stamp, self._stones
            listed = list(self._days) if dir_stamp is not None and dir_stamp == self._dir_stamp else None
        days = listed if listed is not None else list_days(folder)  # appends leave the folder as it was
        plan = ScanPlan(version, days, dir_stamp, lo)
        new_stamp = _stat_stamp(tombstones_path(self.ws))
        if new_stamp != stones_stamp:
            by_day: dict[str, set[str]] = {}
            for (date, fid) in load_tombstones(self.ws):
                by_day.setdefault(date, set()).add(fid)
            stones = {d: frozenset(ids) for d, ids in by_day.items()}
            plan.stones, plan.stones_stamp = stones, new_stamp
        dates = [d for d, _ in days]
        if not days:
            plan.lo = None
            return plan
        if lo is None:  # first open: newest days until min_rows
            lo_pos, rows = len(days), 0
            while lo_pos > 0 and (rows < self.min_rows or lo_pos == len(days)):
                lo_pos -= 1
                scan = self._scan_day(*days[lo_pos], None, stones.get(days[lo_pos][0], frozenset()))
                if scan is not None:
                    plan.scans.append(scan)
                    rows += scan.count
            plan.lo = dates[lo_pos]
        else:
            lo_pos = bisect_left(dates, lo)
            if lo_pos == len(dates):  # every loaded day vanished: keep the newest one
                lo_pos = len(dates) - 1
            for date, path in days[lo_pos:]:
                scan = self._scan_day(date, path, have.get(date), stones.get(date, frozenset()))
                if scan is not None:
                    plan.scans.append(scan)
            target = lo_pos
            if until is not None:
                target = min(target, bisect_left(dates, until))
            if older_rows > 0:
                rows, pos = 0, lo_pos
                while pos > 0 and rows < older_rows:
                    pos -= 1
                    rows += self._count_scan(plan, *days[pos], stones.get(days[pos][0], frozenset()))
                target = min(target, pos)
            scanned = {s.date for s in plan.scans}
            for pos in range(target, lo_pos):
                date, path = days[pos]
                if date not in scanned:  # days a jump passes over are only counted
                    self._count_scan(plan, date, path, stones.get(date, frozenset()),
                                     count_only=until is not None and pos != target)
            plan.lo = dates[min(target, lo_pos)]
        plan.bytes_scanned = sum(s.scanned - s.start for s in plan.scans)
        return plan

    def _count_scan(self, plan: ScanPlan, date: str, path: str, stones: frozenset[str],
                    count_only: bool = False) -> int:
        scan = self._scan_day(date, path, None, stones, count_only)
        if scan is None:
            return 0
        plan.scans.append(scan)
        return scan.count

    def _scan_day(self, date: str, path: str, have: DayIndex | None, stones: frozenset[str],
                  count_only: bool = False) -> _DayScan | None:
        """A full index of the day (or only its count), an extension of `have`, or None when
        nothing changed."""
        if have is not None and have.stones == stones:
            if _stat_stamp(path) == have.stamp:
                return None
        try:
            fh = open(path, "rb")
        except OSError:
            return None
        with fh:
            st = os.fstat(fh.fileno())
            start = 0
            if (have is not None and have.starts is not None and have.stones == stones
                    and st.st_ino == have.stamp[0] and st.st_size >= have.stamp[1]):
                start = have.scanned  # appended bytes only (the partial last line is read again)
            fh.seek(start)
            data = fh.read()
        self.bytes_scanned += len(data)
        stamp = (st.st_ino, start + len(data), st.st_mtime_ns)
        if count_only and not stones and start == 0:
            counted = count_bytes(data)
            if counted is not None:
                return _DayScan(date, path, stamp, 0, counted[1], counted[0], None, None, stones, 0)
        starts, ends, scanned, hidden = index_bytes(data, start, stones)
        return _DayScan(date, path, stamp, start, scanned, len(starts), starts, ends, stones, hidden)

    # --- installing (the reader's thread) ----------------------------------------------------
    def apply(self, plan: ScanPlan) -> StreamDelta:
        with self._lock:
            if plan.version != self._version:
                return StreamDelta(stale=True, total=len(self))
            old_total = len(self)
            old = {d.date: d for d in self._loaded}
            old_dates = [d.date for d in self._loaded]
            first_old, last_old = (old_dates[0], old_dates[-1]) if old_dates else (None, None)
            appended = prepended = 0
            reshaped = False
            scans = {s.date: s for s in plan.scans}
            lo = plan.lo
            window: list[DayIndex] = []
            for date, path in plan.days:
                if lo is None or date < lo:
                    continue
                day = old.get(date)
                scan = scans.get(date)
                if scan is not None:
                    if scan.replace or day is None:
                        new = DayIndex(date, path, scan.stamp, scan.scanned, scan.count, scan.starts,
                                       scan.ends, scan.stones, scan.hidden)
                        if day is None:
                            if last_old is None or date > last_old:
                                appended += len(new)
                            elif date < first_old:
                                prepended += len(new)
                            else:
                                reshaped = True
                        elif not _same_rows(day, new):
                            reshaped = True
                        day = new
                    else:
                        added = scan.count
                        day.starts.extend(scan.starts)
                        day.ends.extend(scan.ends)
                        day.count += added
                        day.scanned = scan.scanned
                        day.stamp = scan.stamp
                        day.hidden += scan.hidden
                        if date == last_old:
                            appended += added
                        elif added:
                            reshaped = True
                elif day is None:
                    continue  # a day that could not be read
                window.append(day)
            kept = {d.date for d in window}
            if any(d not in kept for d in old_dates):
                reshaped = True  # a loaded day vanished
            self._loaded = window
            self._dirty = any(d.stamp == _CHANGED for d in window)
            cum, total = [], 0
            for d in window:
                total += len(d)
                cum.append(total)
            self._cum = cum
            self._days = plan.days
            self._dir_stamp = plan.dir_stamp
            self._lo = lo
            if plan.stones is not None:
                self._stones, self._stones_stamp = plan.stones, plan.stones_stamp
            if reshaped:
                self._cache.clear()
            if plan.scans or plan.stones is not None or reshaped:
                self._version += 1
            if total != old_total + appended + prepended:
                reshaped = True
            return StreamDelta(appended, prepended, reshaped, False, total)

    # --- conveniences (scan + apply on the calling thread) ------------------------------------
    def refresh(self) -> StreamDelta:
        """Pick up appended bytes, new days, rewrites and tombstones."""
        return self._scan_apply()

    def load_older(self, rows: int = 500) -> StreamDelta:
        """Index older days until about `rows` more fragments are loaded (at least one day)."""
        return self._scan_apply(older_rows=rows)

    def load_until(self, date: str) -> StreamDelta:
        """Load every day back to `date`."""
        return self._scan_apply(until=date)

    def _scan_apply(self, **kw) -> StreamDelta:
        while True:
            delta = self.apply(self.scan(**kw))
            if not delta.stale:
                return delta

    def find(self, date: str, fid: str, *, load: bool = True) -> int | None:
        """Row index of fragment `fid` of `date` (loading older days back to it when `load`)."""
        if load and self._lo is not None and date < self._lo and any(d == date for d, _ in self._days):
            self.load_until(date)
        with self._lock:
            pos = next((k for k, d in enumerate(self._loaded) if d.date == date), None)
            if pos is None:
                return None
            day = self._loaded[pos]
            base = self._cum[pos - 1] if pos else 0
            if not self._materialize(day):
                return None
        try:
            with open(day.path, "rb") as fh:
                if os.fstat(fh.fileno()).st_ino != day.stamp[0]:
                    return None
                data = fh.read(day.scanned)
        except OSError:
            return None
        self.reads += 1
        self.bytes_read += len(data)
        needle = b'"id":' + json.dumps(fid, ensure_ascii=False).encode("utf-8")
        at = data.find(needle)
        while at != -1:
            line_start = data.rfind(b"\n", 0, at) + 1
            j = bisect_left(day.starts, line_start)
            if j < len(day.starts) and day.starts[j] == line_start:
                return base + j
            at = data.find(needle, at + 1)
        return None
