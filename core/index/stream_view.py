"""Every day's fragments as one list, newest at the bottom, read line by line on demand.

A year of streams can hold a million fragments, so nothing here reads the year:
- Days are indexed lazily, newest first (`stream_plan`): opening indexes the newest days until
  there are `min_rows` fragments; older days are added when the reader scrolls up to them
  (`load_older`). A jump to a far day (`find(..., load=True)`, `scan(at=...)`) opens the window
  AT that day instead of reading every day back to it; its neighbours then load as the reader
  scrolls up (`load_older`) or down (`load_newer`), and `scan(tail=True)` goes back to the
  newest days.
- A day's index is two arrays of byte offsets of its fragment lines (`stream_days`), found
  without parsing JSON; a day a jump passes over is only counted until one of its rows is read.
- `row(i)` reads one line with `os.pread` at its offset and parses it (`stream_rows`; an LRU
  keeps parsed rows).
- `refresh()` picks up appended bytes by reading from the last indexed offset; a rewrite
  (new inode or a smaller size, e.g. compaction or a hard forget) re-indexes that day.

Reading and installing are separate so a UI can scan in a thread and install on its own
thread: `scan()` only reads files and returns a `ScanPlan`; `apply(plan)` installs it (cheap,
`stream_window`) and says what moved (`StreamDelta`). `refresh()`, `load_older()` and `find()`
do both.
"""
from __future__ import annotations

import json
import os
import threading
from array import array
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from typing import Any

from dreamdeck.core.formats.stream_lines import scan_fragment_lines
from dreamdeck.core.index.stream_days import CHANGED, DayIndex, materialize, stat_stamp
from dreamdeck.core.index.stream_plan import (
    ScanPlan,
    bytes_between,
    dir_stamp,
    list_days,
    plan_at,
    plan_first_open,
    plan_window,
    read_tombstones,
)
from dreamdeck.core.index.stream_rows import fragment_row, placeholder_row
from dreamdeck.core.index.stream_window import StreamDelta, merge_plan
from dreamdeck.core.store.streams import stream_dir
from dreamdeck.core.store.tombstones import NOTHING_FORGOTTEN, Forgotten, tombstones_path
from dreamdeck.core.workspace import Workspace

__all__ = ["ScanPlan", "StreamDelta", "StreamView"]

# The most bytes of day files a jump reads (counting their lines) to stretch the window back to
# the cited day; beyond it the window reopens at that day. Counting runs at ~1 ms per MB.
JUMP_BYTES = 8 << 20


class StreamView:
    """A row source (``len`` / ``row(i)``) over the fragments of every day, newest last.

    Thread safety: `scan()` may run in any thread; `apply()` and the methods that call it
    (`refresh`, `load_older`, `load_until`, `find(load=True)`) belong to the thread that reads
    rows, so the row count never changes under a reader. `row()` itself is safe anywhere.
    """

    def __init__(self, ws: Workspace, *, min_rows: int = 500, cache_size: int = 4096, open: bool = True,
                 jump_bytes: int | None = None):
        self.ws = ws
        self.min_rows = min_rows
        self.jump_bytes = JUMP_BYTES if jump_bytes is None else jump_bytes
        self.cache_size = cache_size
        self._lock = threading.RLock()
        self._days: list[tuple[str, str]] = []  # every day file, oldest first
        self._dir_stamp: tuple | None = None
        self._lo: str | None = None  # oldest loaded date; None before the first apply
        self._hi: str | None = None  # newest loaded date; None: the window follows the newest day
        self._loaded: list[DayIndex] = []  # the window, oldest first
        self._cum: list[int] = []  # running row totals of _loaded
        self._stones: Forgotten = NOTHING_FORGOTTEN
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
                return placeholder_row(day.date)
            start, end = day.starts[local], day.ends[local]  # type: ignore[index]
            key = (day.date, day.stamp[0], start)
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached
        raw = self._pread(day.path, day.stamp[0], start, end - start)
        if raw is None:  # the file was rewritten since it was indexed: the next refresh re-indexes it
            return placeholder_row(day.date)
        row = fragment_row(day.date, raw.decode("utf-8", "replace"))
        with self._lock:
            self._cache[key] = row
            if len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return row

    def _materialize(self, day: DayIndex) -> bool:
        """Build the offsets of a day that was only counted (under the lock). False when the file
        changed since it was counted: the day is marked so the next refresh re-indexes it."""
        if day.starts is None:
            self.bytes_scanned += materialize(day)
            self._dirty = self._dirty or day.stamp == CHANGED
        return day.starts is not None

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
    def newer_days(self) -> int:
        """Days newer than the loaded window (after a jump opened it at an old day)."""
        if self._hi is None:
            return 0
        return len(self._days) - bisect_right([d for d, _ in self._days], self._hi)

    @property
    def at_tail(self) -> bool:
        """The window reaches the newest day and takes new days as they appear."""
        return self._hi is None

    def covers(self, date: str) -> bool:
        """`date` lies inside the loaded window (whether or not it has a file)."""
        return self._lo is not None and self._lo <= date and (self._hi is None or date <= self._hi)

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
                    return list(zip(d.starts, d.ends)) if self._materialize(d) else None  # type: ignore[arg-type]
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
            known_dir, stones_stamp = self._dir_stamp, self._stones_stamp
            window = self._loaded if recent is None else self._loaded[-recent:]
            loaded = [(d.path, d.stamp) for d in window]
        if dir_stamp(stream_dir(self.ws)) != known_dir:
            return True
        if stat_stamp(tombstones_path(self.ws)) != stones_stamp:
            return True
        return any(stat_stamp(path) != stamp for path, stamp in loaded)

    # --- reading (any thread) ---------------------------------------------------------------------
    def scan(self, *, older_rows: int = 0, until: str | None = None, newer_rows: int = 0,
             at: str | None = None, tail: bool = False) -> ScanPlan:
        """Read what changed on disk; with `older_rows` / `newer_rows`, also index older / newer
        days until that many more rows are loaded (at least one day); with `until`, load every day
        back (or forward) to that date; with `at`, bring that day into the window for a jump
        (stretching it when the days in between are small, else opening a new window there);
        with `tail`, open the window at the newest days again."""
        folder = stream_dir(self.ws)
        folder_stamp = dir_stamp(folder)  # before listing: a file created meanwhile changes it again
        with self._lock:
            version, lo, hi = self._version, self._lo, self._hi
            have = {d.date: d for d in self._loaded}
            stones_stamp, stones = self._stones_stamp, self._stones
            same_folder = folder_stamp is not None and folder_stamp == self._dir_stamp
            listed = list(self._days) if same_folder else None
        days = listed if listed is not None else list_days(folder)  # appends leave the folder as it was
        plan = ScanPlan(version, days, folder_stamp, lo)
        new_stones = read_tombstones(self.ws, stones_stamp)
        if new_stones is not None:
            plan.stones, plan.stones_stamp = new_stones
            stones = new_stones[0]
        if at is not None and lo is not None and days:
            if bytes_between(days, lo, hi, at) > self.jump_bytes:
                plan_at(plan, at, have, stones, self.min_rows)
                return self._planned(plan)
            until = at
        if not days:
            plan.lo = None
        elif lo is None or tail:
            plan_first_open(plan, stones, self.min_rows)
        else:
            plan_window(plan, lo, hi, have, stones, older_rows, until, newer_rows)
        return self._planned(plan)

    def _planned(self, plan: ScanPlan) -> ScanPlan:
        plan.bytes_scanned = sum(s.scanned - s.start for s in plan.scans)
        self.bytes_scanned += sum(s.read for s in plan.scans)
        return plan

    # --- installing (the reader's thread) ----------------------------------------------------
    def apply(self, plan: ScanPlan) -> StreamDelta:
        with self._lock:
            if plan.version != self._version:
                return StreamDelta(stale=True, total=len(self))
            old_total = len(self)
            window, moves = merge_plan(self._loaded, plan)
            self._install(window, plan)
            if moves.reshaped:
                self._cache.clear()
            if plan.scans or plan.stones is not None or moves.reshaped:
                self._version += 1
            total = len(self)
            reshaped = moves.reshaped or total != old_total + moves.appended + moves.prepended
            return StreamDelta(moves.appended, moves.prepended, reshaped, False, total)

    def _install(self, window: list[DayIndex], plan: ScanPlan) -> None:
        self._loaded = window
        self._dirty = any(d.stamp == CHANGED for d in window)
        cum, total = [], 0
        for d in window:
            total += len(d)
            cum.append(total)
        self._cum = cum
        self._days = plan.days
        self._dir_stamp = plan.dir_stamp
        self._lo, self._hi = plan.lo, plan.hi
        if plan.stones is not None:
            self._stones, self._stones_stamp = plan.stones, plan.stones_stamp

    # --- conveniences (scan + apply on the calling thread) ------------------------------------
    def refresh(self) -> StreamDelta:
        """Pick up appended bytes, new days, rewrites and tombstones."""
        return self._scan_apply()

    def load_older(self, rows: int = 500) -> StreamDelta:
        """Index older days until about `rows` more fragments are loaded (at least one day)."""
        return self._scan_apply(older_rows=rows)

    def load_newer(self, rows: int = 500) -> StreamDelta:
        """Index newer days until about `rows` more fragments are loaded (at least one day)."""
        return self._scan_apply(newer_rows=rows)

    def load_until(self, date: str) -> StreamDelta:
        """Load every day back (or forward) to `date`."""
        return self._scan_apply(until=date)

    def load_at(self, date: str) -> StreamDelta:
        """Bring `date` into the window for a jump (see `scan(at=...)`)."""
        return self._scan_apply(at=date)

    def load_tail(self) -> StreamDelta:
        """Open the window at the newest days again."""
        return self._scan_apply(tail=True)

    def _scan_apply(self, **kw) -> StreamDelta:
        while True:
            delta = self.apply(self.scan(**kw))
            if not delta.stale:
                return delta

    def find(self, date: str, fid: str, *, load: bool = True) -> int | None:
        """Row index of fragment `fid` of `date` (loading older days back to it when `load`)."""
        outside = self._lo is not None and (date < self._lo or (self._hi is not None and date > self._hi))
        if load and outside and any(d == date for d, _ in self._days):
            self.load_at(date)
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
        j = _row_of(data, fid, day.starts)  # type: ignore[arg-type]
        return None if j is None else base + j


def _row_of(data: bytes, fid: str, starts: array) -> int | None:
    """Which of a day's shown lines (`starts`) is fragment `fid`'s: its id is searched for as the
    append tool writes it, else (another layout, an escape) read by the scanner."""
    needle = b'"id":' + json.dumps(fid, ensure_ascii=False).encode("utf-8")
    at = data.find(needle)
    while at != -1:
        j = _shown(starts, data.rfind(b"\n", 0, at) + 1)
        if j is not None:
            return j
        at = data.find(needle, at + 1)
    lines = scan_fragment_lines(data, complete=True)
    for start, line_id in zip(lines.starts, lines.ids):  # type: ignore[arg-type]
        if line_id == fid and (j := _shown(starts, start)) is not None:
            return j
    return None


def _shown(starts: array, line_start: int) -> int | None:
    """The row of the line at `line_start` among a day's shown lines (None: not shown)."""
    j = bisect_left(starts, line_start)
    return j if j < len(starts) and starts[j] == line_start else None
