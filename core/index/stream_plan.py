"""What a StreamView scan reads: which day files, and whether each is indexed, extended or counted.

The loaded window is always a contiguous run of days ending with the newest one. Opening indexes
the newest days until there are `min_rows` fragments; older days are added when the reader
scrolls up to them (`older_rows`) or jumps to one (`until`: the days the jump passes over are
only counted). Every loaded day is checked for appends and rewrites on every scan. Reading only:
the plan is installed by `stream_window.merge_plan` on the reader's thread.
"""
from __future__ import annotations

import os
from bisect import bisect_left
from dataclasses import dataclass, field
from pathlib import Path

from dreamdeck.core.formats.stream_lines import STREAM_FILE
from dreamdeck.core.index.stream_days import DayIndex, DayScan, scan_day, stat_stamp
from dreamdeck.core.store.tombstones import load_tombstones, tombstones_path
from dreamdeck.core.workspace import Workspace

Stones = dict[str, frozenset[str]]  # date -> its tombstoned fragment ids


@dataclass
class ScanPlan:
    """What `scan()` read; install it with `StreamView.apply` (on the thread that reads rows)."""

    version: int  # the view version it was read against
    days: list[tuple[str, str]]  # every stream day, oldest first
    dir_stamp: tuple | None
    lo: str | None  # oldest day of the loaded window after apply
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
    """(tombstoned ids by day, the file's stamp) when the tombstones changed since `known_stamp`."""
    stamp = stat_stamp(tombstones_path(ws))
    if stamp == known_stamp:
        return None
    by_day: dict[str, set[str]] = {}
    for (date, fid) in load_tombstones(ws):
        by_day.setdefault(date, set()).add(fid)
    return {d: frozenset(ids) for d, ids in by_day.items()}, stamp


def plan_first_open(plan: ScanPlan, stones: Stones, min_rows: int) -> None:
    """Index the newest days until there are `min_rows` fragments (at least one day)."""
    days = plan.days
    lo_pos, rows = len(days), 0
    while lo_pos > 0 and (rows < min_rows or lo_pos == len(days)):
        lo_pos -= 1
        date, path = days[lo_pos]
        rows += plan.add(scan_day(date, path, None, stones.get(date, frozenset())))
    plan.lo = days[lo_pos][0]


def plan_window(plan: ScanPlan, lo: str, have: dict[str, DayIndex], stones: Stones,
                older_rows: int, until: str | None) -> None:
    """Check every loaded day (from `lo`) for changes; with `older_rows`, also index older days
    until that many more rows are loaded; with `until`, load every day back to that date."""
    days = plan.days
    dates = [d for d, _ in days]
    lo_pos = min(bisect_left(dates, lo), len(dates) - 1)  # every loaded day vanished: keep the newest
    for date, path in days[lo_pos:]:
        plan.add(scan_day(date, path, have.get(date), stones.get(date, frozenset())))
    target = lo_pos
    if until is not None:
        target = min(target, bisect_left(dates, until))
    if older_rows > 0:
        rows, pos = 0, lo_pos
        while pos > 0 and rows < older_rows:
            pos -= 1
            date, path = days[pos]
            rows += plan.add(scan_day(date, path, None, stones.get(date, frozenset())))
        target = min(target, pos)
    scanned = {s.date for s in plan.scans}
    for pos in range(target, lo_pos):
        date, path = days[pos]
        if date not in scanned:  # days a jump passes over are only counted
            count_only = until is not None and pos != target
            plan.add(scan_day(date, path, None, stones.get(date, frozenset()), count_only))
    plan.lo = dates[min(target, lo_pos)]
