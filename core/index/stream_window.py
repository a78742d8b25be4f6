"""Installing a scan: the new loaded window of a StreamView, and what moved for a reader.

`merge_plan` is pure bookkeeping over day indexes (no file access), so the view can run it on
the reader's thread under its lock: rows are only ever added at the end (new fragments), at
the start (older days loaded), or the window is *reshaped* (a rewrite, a tombstone, a day
appearing in between), which tells a view to drop what it cached and find its cursor again.
"""
from __future__ import annotations

from dataclasses import dataclass

from dreamdeck.core.index.stream_days import DayIndex, DayScan, same_rows
from dreamdeck.core.index.stream_plan import ScanPlan


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


@dataclass
class Moves:
    """Where a merge put rows, relative to the window that was loaded."""

    first_old: str | None  # oldest and newest date of that window
    last_old: str | None
    appended: int = 0
    prepended: int = 0
    reshaped: bool = False

    def new_day(self, day: DayIndex) -> None:
        if self.last_old is None or day.date > self.last_old:
            self.appended += len(day)
        elif self.first_old is not None and day.date < self.first_old:
            self.prepended += len(day)
        else:
            self.reshaped = True


def merge_plan(loaded: list[DayIndex], plan: ScanPlan) -> tuple[list[DayIndex], Moves]:
    """The window after `plan` (oldest day first) and where its rows moved. Days of `loaded`
    extended by an append are changed in place."""
    old = {d.date: d for d in loaded}
    moves = Moves(loaded[0].date if loaded else None, loaded[-1].date if loaded else None)
    scans = {s.date: s for s in plan.scans}
    window: list[DayIndex] = []
    for date, _path in plan.days:
        if plan.lo is None or date < plan.lo or (plan.hi is not None and date > plan.hi):
            continue
        day, scan = old.get(date), scans.get(date)
        if scan is not None:
            day = _installed(day, scan, moves)
        if day is not None:  # None: a day that could not be read
            window.append(day)
    kept = {d.date for d in window}
    if any(d.date not in kept for d in loaded):
        moves.reshaped = True  # a loaded day vanished
    return window, moves


def _installed(day: DayIndex | None, scan: DayScan, moves: Moves) -> DayIndex:
    """The day's index after its scan: a new one, or `day` extended by the appended lines."""
    if scan.replace or day is None:
        new = scan.as_index()
        if day is None:
            moves.new_day(new)
        elif not same_rows(day, new):
            moves.reshaped = True
        return new
    scan.extend(day)
    if scan.date == moves.last_old:
        moves.appended += scan.count
    elif scan.count:
        moves.reshaped = True
    return day
