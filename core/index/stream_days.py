"""One stream day file as an index of where its shown fragment lines are.

A day's index is two arrays of byte offsets (start and end of each fragment line) found by
`formats.stream_lines.scan_fragment_lines`: watermarks, legacy prose and blank lines are never
indexed, and no JSON is parsed for the append tool's layout. A tombstoned fragment's line is
left out. `scan_day` reads a day file whole, or only the bytes appended since its index was
built, or only counts its fragment lines (a day a jump passes over: its offsets are built the
first time one of its rows is read, by `materialize`).
"""
from __future__ import annotations

import os
from array import array
from dataclasses import dataclass
from itertools import compress
from pathlib import Path

from dreamdeck.core.formats.stream_lines import count_fragment_lines, scan_fragment_lines

Stamp = tuple[int, int, int]  # (inode, size, mtime_ns)
CHANGED: Stamp = (0, -1, 0)  # a day found changed under its index: no file has this stamp


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
class DayScan:
    """What one read of a day file found: a whole index, an extension, or a count."""

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
    read: int = 0  # bytes read from the file

    @property
    def replace(self) -> bool:
        return self.start == 0

    def as_index(self) -> DayIndex:
        return DayIndex(self.date, self.path, self.stamp, self.scanned, self.count, self.starts,
                        self.ends, self.stones, self.hidden)

    def extend(self, day: DayIndex) -> None:
        """Add this extension's lines to the index it was read after."""
        if day.starts is None or day.ends is None or self.starts is None or self.ends is None:
            raise ValueError("only an indexed day is extended, by an indexed scan")
        day.starts.extend(self.starts)
        day.ends.extend(self.ends)
        day.count += self.count
        day.scanned = self.scanned
        day.stamp = self.stamp
        day.hidden += self.hidden


def stat_stamp(path: Path | str) -> Stamp | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def same_rows(a: DayIndex, b: DayIndex) -> bool:
    if a.count != b.count:
        return False
    if a.starts is None or b.starts is None:
        return a.stamp[0] == b.stamp[0]
    return a.starts == b.starts and a.ends == b.ends


def index_bytes(data: bytes, base: int, stones: frozenset[str] = frozenset()) -> tuple[array, array, int, int]:
    """(starts, ends, scanned, hidden) of the complete fragment lines in `data` read at `base`,
    the tombstoned ones left out (their ids are read only when the day has tombstones)."""
    lines = scan_fragment_lines(data, base, complete=True, with_ids=bool(stones))
    if not stones:
        return lines.starts, lines.ends, lines.scanned, 0
    shown = [fid not in stones for fid in lines.ids]  # type: ignore[union-attr]
    starts = array("q", compress(lines.starts, shown))
    ends = array("q", compress(lines.ends, shown))
    return starts, ends, lines.scanned, len(lines.starts) - len(starts)


def scan_day(date: str, path: str, have: DayIndex | None, stones: frozenset[str],
             count_only: bool = False) -> DayScan | None:
    """A full index of the day (or only its count), an extension of `have`, or None when
    nothing changed (or the file cannot be read)."""
    if have is not None and have.stones == stones and stat_stamp(path) == have.stamp:
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
    stamp = (st.st_ino, start + len(data), st.st_mtime_ns)
    if count_only and not stones and start == 0:
        counted = count_fragment_lines(data)
        if counted is not None:
            return DayScan(date, path, stamp, 0, counted[1], counted[0], None, None, stones, 0, len(data))
    starts, ends, scanned, hidden = index_bytes(data, start, stones)
    return DayScan(date, path, stamp, start, scanned, len(starts), starts, ends, stones, hidden, len(data))


def materialize(day: DayIndex) -> int:
    """Build the offsets of a day that was only counted; the bytes read. When the file changed
    since it was counted, the day's stamp becomes CHANGED and its offsets stay unbuilt (the
    next refresh re-indexes it)."""
    if day.starts is not None or day.stamp == CHANGED:
        return 0
    try:
        with open(day.path, "rb") as fh:
            same = os.fstat(fh.fileno()).st_ino == day.stamp[0]
            data = fh.read(day.scanned) if same else b""
    except OSError:
        same, data = False, b""
    starts, ends, scanned, hidden = index_bytes(data, 0, day.stones)
    if not same or len(starts) != day.count or scanned != day.scanned:
        day.stamp = CHANGED
    else:
        day.starts, day.ends, day.hidden = starts, ends, hidden
    return len(data)
