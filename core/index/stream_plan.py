"""What a StreamView scan reads: which day files, and whether each is indexed, extended or counted.

The loaded window is always a contiguous run of days, `lo` to `hi`; `hi` None means the window
follows the newest day (new days join it). Opening indexes the newest days until there are
`min_rows` fragments; older days are added when the reader scrolls up to them (`older_rows`),
newer ones when a window that stops short of today is scrolled down (`newer_rows`). A jump to a
day outside the window either stretches the window to it (`until`: the days it passes over are
only counted) or, when those days hold more bytes than a jump should read, opens a new window
at the day (`plan_at`), so a jump costs one day, not the age of the citation. Every loaded day
is checked for appends and rewrites on every scan. Reading only: the plan is installed by
`stream_window.merge_plan` on the reader's thread.
"""
from __future__ import annotations

import os
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from pathlib import Path

from dreamdeck.core.formats.stream_lines import STREAM_FILE
from dreamdeck.core.index.stream_days import DayIndex, DayScan, scan_day, stat_stamp
from dreamdeck.core.store.tombstones import Forgotten, forgotten, tombstones_path
from dreamdeck.core.workspace import Workspace

Stones = Forgotten  # the forgotten identities, the same for every day (ids under any date, hashes)


@dataclass
class ScanPlan:
    """What `scan()` read; install it with `StreamView.apply` (on the thread that reads rows)."""

    version: int  # the view version it was read against
    days: list[tuple[str, str]]  # every stream day, oldest first
    dir_stamp: tuple | None
    lo: str | None  # oldest day of the loaded window after apply
    hi: str | None = None  # newest day of that window; None: it follows the newest day
    scans: list[DayScan] = field(default_factory=list)
    stones: Stones | None = None  # new tombstones, when the file changed
    stones_stamp: tuple | None = None
    bytes_scanned: int = 0

    @property
    def empty(self) -> bool:
        return not self.scans and self.stones is None

    def add(self, scan: DayScan | None) -> int:
        """Keep a day's scan (None: nothing to read); the rows it holds."""
        if scan is None:
            return 0
        self.scans.append(scan)
        return scan.count


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


def dir_stamp(folder: Path | None) -> tuple | None:
    if folder is None:
        return None
    try:
        st = os.stat(folder)
    except OSError:
        return None
    return (str(folder), st.st_ino, st.st_mtime_ns)


def read_tombstones(ws: Workspace, known_stamp: tuple | None) -> tuple[Stones, tuple | None] | None:
    """(the forgotten identities, the file's stamp) when the tombstones changed since `known_stamp`."""
    stamp = stat_stamp(tombstones_path(ws))
    if stamp == known_stamp:
        return None
    return forgotten(ws), stamp


def plan_first_open(plan: ScanPlan, stones: Stones, min_rows: int) -> None:
    """Index the newest days until there are `min_rows` fragments (at least one day)."""
    days = plan.days
    lo_pos, rows = len(days), 0
    while lo_pos > 0 and (rows < min_rows or lo_pos == len(days)):
        lo_pos -= 1
        date, path = days[lo_pos]
        rows += plan.add(scan_day(date, path, None, stones))
    plan.lo = days[lo_pos][0]


def plan_window(plan: ScanPlan, lo: str, hi: str | None, have: dict[str, DayIndex], stones: Stones,
                older_rows: int = 0, until: str | None = None, newer_rows: int = 0) -> None:
    """Check every loaded day (`lo` to `hi`) for changes; with `older_rows` / `newer_rows`, also
    index older / newer days until that many more rows are loaded; with `until`, stretch the
    window to that date (the days in between are only counted)."""
    days = plan.days
    dates = [d for d, _ in days]
    lo_pos = min(bisect_left(dates, lo), len(dates) - 1)  # every loaded day vanished: keep the newest
    hi_pos = len(dates) if hi is None else max(bisect_right(dates, hi), lo_pos + 1)
    for date, path in days[lo_pos:hi_pos]:
        plan.add(scan_day(date, path, have.get(date), stones))
    low, high = lo_pos, hi_pos
    if until is not None:
        low = min(low, bisect_left(dates, until))
        high = max(high, bisect_right(dates, until))
    if older_rows > 0:
        low = min(low, _index_while(plan, stones, range(lo_pos - 1, -1, -1), older_rows))
    if newer_rows > 0:
        high = max(high, _index_while(plan, stones, range(hi_pos, len(days)), newer_rows) + 1)
    scanned = {s.date for s in plan.scans}
    for pos in [*range(low, lo_pos), *range(hi_pos, high)]:
        date, path = days[pos]
        if date not in scanned:  # days a jump passes over are only counted
            count_only = until is not None and date != until
            plan.add(scan_day(date, path, None, stones, count_only))
    plan.lo = dates[low]
    plan.hi = None if high >= len(dates) else dates[high - 1]


def plan_at(plan: ScanPlan, date: str, have: dict[str, DayIndex], stones: Stones, min_rows: int) -> None:
    """A new window at `date`: that day indexed, then the days after it until there are
    `min_rows` fragments (a screenful around the citation); nothing between it and the old
    window is read."""
    days = plan.days
    dates = [d for d, _ in days]
    pos = min(bisect_left(dates, date), len(dates) - 1)
    rows, high = 0, pos
    while high < len(days) and (rows < min_rows or high == pos):
        day, path = days[high]
        scan = scan_day(day, path, have.get(day), stones)
        rows += plan.add(scan) if scan is not None else len(have[day]) if day in have else 0
        high += 1
    plan.lo = dates[pos]
    plan.hi = None if high >= len(dates) else dates[high - 1]


def bytes_between(days: list[tuple[str, str]], lo: str | None, hi: str | None, date: str) -> int:
    """Bytes of the day files a jump to `date` would pass over to stretch the window `lo`..`hi`
    (stat calls only); 0 when `date` is in the window."""
    dates = [d for d, _ in days]
    if lo is not None and date < lo:
        span = days[bisect_left(dates, date):bisect_left(dates, lo)]
    elif hi is not None and date > hi:
        span = days[bisect_right(dates, hi):bisect_right(dates, date)]
    else:
        return 0
    total = 0
    for _date, path in span:
        try:
            total += os.stat(path).st_size
        except OSError:
            pass
    return total


def _index_while(plan: ScanPlan, stones: Stones, positions: range, rows: int) -> int:
    """Index the days at `positions` (in that order) until `rows` rows are added (at least one
    day); the last position indexed, or the one before the range when it is empty."""
    added, last = 0, positions.start - positions.step
    for pos in positions:
        if added >= rows:
            break
        date, path = plan.days[pos]
        added += plan.add(scan_day(date, path, None, stones))
        last = pos
    return last
