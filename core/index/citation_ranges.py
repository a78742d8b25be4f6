"""A persisted projection: for each shard file, the range of stream dates it cites.

Fragment GC asks "which fragments of these days (almost always today) are cited?". Only a file
whose citations reach one of those days can answer yes, and after a day has passed only files
written since can cite it. So for every flat shard file of the areas we keep

    relpath -> [size, mtime_ns, ctime_ns, ino, min_date, max_date]

where [min_date, max_date] holds every date `core.citations.citation_keys` finds in the file
(exact when its keys were computed, else from a cheaper superset scan, `_DATE_HINT`; both null
when it cites nothing). A query reads only the files whose stamp changed or whose range holds an
asked day, and takes their keys from `citation_keys`; the rest are stat()ed, never opened.

Safety, since a wrong skip would let the GC delete cited evidence:
- ctime is in the stamp: `touch -d`, `os.utime`, `cp -p` or `rsync -t` can put mtime back, but
  every change of a file's bytes or inode sets its ctime to now, and nothing sets it back.
- Racy-timestamp rule (git's "racy git"): an entry is recorded only if the file's mtime and
  ctime were more than `RACY_NS` older than the moment the query began. A change made after
  that moment gets a ctime after it, so it can never carry the recorded stamp; a file changed
  inside the window is simply read again next time.
- The stat is taken before the read: a change racing the read leaves bytes newer than the stamp,
  and the file's next stamp differs from the recorded one, so it is read again.

The file lives beside the locks (outside the agent folder), is written with tmp + rename and no
fsync (a cache), and a missing, unreadable, truncated or wrong-shaped file, or a wrong-shaped
entry, just counts as absent: it is rebuilt, never an error.
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from dreamdeck.core.formats.citations import Key, citation_keys
from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.io.atomic import replace_projection
from dreamdeck.core.io.cache import MISS, Stamp, StampCache, clock, file_stamp, settled, stamp_of

FILENAME = "citation-ranges.json"
VERSION = 1

# path -> citation keys of the whole shard file: a run that already read every shard, or a
# second scan in the same process, re-reads only files that changed (`core.io.cache` policy).
SHARD_KEYS: StampCache[frozenset[Key]] = StampCache("shard-citation-keys")

# Every match of `core.citations.CITATION` contains "/DATE#" and one id character, all ASCII
# (so the same bytes in the raw file as in its decoded text). Such pieces cannot overlap (none
# holds a second "/"), so this finds every one of them: its dates are a superset of the dates
# `citation_keys` finds, which is all a range needs. It runs several times faster than the full
# pattern, which matters when 10,000 files are first read; the keys themselves always come
# from `citation_keys`.
_DATE_HINT = re.compile(rb"/([0-9]{4}-[0-9]{2}-[0-9]{2})#[A-Za-z0-9_-]")


def file_keys(path, text: str | None = None) -> frozenset[Key]:
    """Citation keys of one shard file, from the cache when the file is unchanged."""
    started = clock()
    stamp = file_stamp(path)
    if stamp is not None:
        hit = SHARD_KEYS.get(str(path), stamp)
        if hit is not MISS:
            return hit  # type: ignore[return-value]
    if text is None:
        try:
            with open(path, "rb") as fh:
                text = fh.read().decode("utf-8", "replace")
        except FileNotFoundError:
            return frozenset()
    keys = frozenset(citation_keys(text))
    if stamp is not None:
        SHARD_KEYS.put_if_settled(str(path), stamp, keys, started)
    return keys


def _valid_entry(value: object) -> bool:
    """Four ints (not bools or floats, which would compare equal to a stamp) and two dates or
    two nulls. Written out flat: it runs for each of 10,000 entries in every query."""
    if type(value) is not list or len(value) != 6:
        return False
    size, mtime, ctime, ino, lo, hi = value
    if type(size) is not int or type(mtime) is not int or type(ctime) is not int or type(ino) is not int:
        return False
    if lo is None:
        return hi is None
    return type(lo) is str and type(hi) is str and lo <= hi


# projection path -> its entries: the app and the watcher query again and again, and the file
# only ever changes by a rename (a new inode), so an unchanged stamp means the entries this
# process last read or wrote are still the file's (`put`, no racy check).
_LOADED: StampCache[dict[str, list]] = StampCache("citation-ranges-file")


class CitationRanges:
    """The projection file of one workspace, loaded once per query."""

    def __init__(self, path):
        self.path = path
        self.entries: dict[str, list] = {}
        self.dirty = False
        stamp = file_stamp(path)
        hit = _LOADED.get(str(path), stamp) if stamp is not None else MISS
        if hit is not MISS:
            self.entries = dict(hit)  # type: ignore[call-overload]  # the file as this process last read or wrote it
            return
        try:
            with open(path, "rb") as fh:
                data = load_json(fh.read())
        except (OSError, ValueError):  # missing, unreadable, truncated, not UTF-8
            return
        if not (isinstance(data, dict) and data.get("version") == VERSION and isinstance(data.get("files"), dict)):
            return
        for rel, value in data["files"].items():
            if isinstance(rel, str) and _valid_entry(value):
                self.entries[rel] = value
            else:
                self.dirty = True  # rewrite without it
        if stamp is not None and not self.dirty:
            _LOADED.put(str(path), stamp, dict(self.entries))

    @classmethod
    def of(cls, ws) -> CitationRanges:
        return cls(ws.lock_dir / FILENAME)

    def may_cite(self, rel: str, stamp: Stamp, days: Iterable[str]) -> bool:
        """False only when a trusted entry with this exact stamp cites none of `days`."""
        entry = self.entries.get(rel)
        if entry is None or entry[0] != stamp[0] or entry[1] != stamp[1] or entry[2] != stamp[2] or entry[3] != stamp[3]:
            return True
        lo, hi = entry[4], entry[5]
        if lo is None:
            return False
        return any(lo <= d <= hi for d in days)

    def record(self, rel: str, stamp: Stamp, lo: str | None, hi: str | None, started_ns: int) -> None:
        """Remember the date range a read found, if the file had settled; else forget the file."""
        if not settled(stamp, started_ns):
            # Not trusted yet: read again next time. An old entry may stay (its stamp can never
            # match this file again), which spares rewriting the projection for every fresh write.
            return
        entry = [*stamp, lo, hi]
        if self.entries.get(rel) != entry:
            self.entries[rel] = entry
            self.dirty = True

    def prune(self, areas: Iterable[str], seen: set[str]) -> None:
        """Drop entries of the areas for files that are no longer there."""
        prefixes = tuple(f"{a}/" for a in areas)
        gone = [rel for rel in self.entries if rel.startswith(prefixes) and rel not in seen]
        for rel in gone:
            del self.entries[rel]
        if gone:
            self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        # dumps, not dump: the C encoder builds the string; dump's chunked path is slower.
        data = json.dumps({"version": VERSION, "files": self.entries}, separators=(",", ":"))
        if not replace_projection(self.path, data.encode("utf-8")):
            return  # a projection: next time we read again
        self.dirty = False
        stamp = file_stamp(self.path)
        if stamp is not None:
            _LOADED.put(str(self.path), stamp, dict(self.entries))


def shard_stats(memory: str, areas: Iterable[str]):
    """(relpath, path string, stamp) of every flat shard file in the areas: `*.md`, not
    dot-named, a regular file (as `core.shards.list_shard_files` selects). Strings, not Paths:
    10,000 Path objects cost more than the stats."""
    for area in areas:
        try:
            it = os.scandir(os.path.join(memory, area))
        except (FileNotFoundError, NotADirectoryError):
            continue
        with it:
            for entry in it:
                name = entry.name
                if not name.endswith(".md") or name.startswith("."):
                    continue
                try:
                    if not entry.is_file():
                        continue
                    st = entry.stat()
                except FileNotFoundError:
                    continue
                yield f"{area}/{name}", entry.path, stamp_of(st)


@dataclass
class DayScan:
    """The answer to one day-scoped query, with how it was reached."""

    keys: set[Key] = field(default_factory=set)
    files: int = 0  # shard files listed
    skipped: int = 0  # ruled out by the projection, never opened
    read: int = 0  # bytes read from disk
    cached: int = 0  # keys taken from the in-process cache (stamp unchanged)


_last: DayScan | None = None


def last_scan() -> DayScan | None:
    """The most recent `cited_on` result in this process (for tests and the benchmark)."""
    return _last


def date_range(data: bytes) -> tuple[str, str] | tuple[None, None]:
    """(min, max) of a range holding every date `citation_keys` finds in `data` decoded."""
    dates = _DATE_HINT.findall(data)
    if not dates:
        return None, None
    return min(dates).decode("ascii"), max(dates).decode("ascii")


def cited_on(ws, days: set[str], areas: Iterable[str], now_ns: int | None = None) -> DayScan:
    """Every (date, id) under `days` cited by a shard file of the areas.

    Whole files' keys come from (and go to) `SHARD_KEYS`; `now_ns` is the query's start time,
    the clock the racy rule measures against."""
    global _last
    started = clock() if now_ns is None else now_ns
    areas = tuple(areas)
    days = set(days)
    ranges = CitationRanges.of(ws)
    scan = DayScan()
    seen: set[str] = set()
    for rel, path, stamp in shard_stats(str(ws.memory), areas):
        scan.files += 1
        seen.add(rel)
        if not ranges.may_cite(rel, stamp, days):
            scan.skipped += 1
            continue
        hit = SHARD_KEYS.get(path, stamp)
        if hit is not MISS:
            scan.cached += 1
            keys = hit  # type: ignore[assignment]
            assert isinstance(keys, frozenset)
            lo, hi = _bounds(keys)
        else:
            try:
                with open(path, "rb") as fh:
                    data = fh.read()
            except FileNotFoundError:  # removed since the listing
                seen.discard(rel)
                continue
            scan.read += 1
            lo, hi = date_range(data)
            if lo is None or hi is None or not any(lo <= d <= hi for d in days):
                ranges.record(rel, stamp, lo, hi, started)
                continue
            keys = frozenset(citation_keys(data.decode("utf-8", "replace")))
            SHARD_KEYS.put_if_settled(path, stamp, keys, started)
            lo, hi = _bounds(keys)
        scan.keys.update(k for k in keys if k[0] in days)
        ranges.record(rel, stamp, lo, hi, started)
    ranges.prune(areas, seen)
    ranges.save()
    _last = scan
    return scan


def _bounds(keys: Iterable[Key]) -> tuple[str, str] | tuple[None, None]:
    dates = [d for d, _ in keys]
    return (min(dates), max(dates)) if dates else (None, None)
