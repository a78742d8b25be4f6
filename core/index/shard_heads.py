"""A persisted projection: the strength head of every shard file of a folder, by the file's stamp.

The strength table needs five values of each shard (heading, cites, days, lastReinforced, and the
days of its own evidence, `citations.active_days`, which a `superseded:` section lowers). Read
from the files, a fresh process opens every shard (100,000 at the top of the range); with this
projection it stats them and reads one file:

    slug -> (size, mtime_ns, ctime_ns, ino) -> heading, cites, days, lastReinforced, active days

A head is taken from the projection only when the file's stamp now is exactly the recorded one
(`core.io.cache` rules: ctime is in the stamp, so an edit that puts size and mtime back is still
seen; an entry is recorded only once the file has settled, `RACY_NS` before the read began; the
stat is taken before the read). Only heads the strict parser accepts are recorded, without their
tags (the table does not read them); any other shard is read whole each time, as before.

The entries are kept in the strength table's order (TypeClaw's, as the last table sorted them),
so a fresh process can paint the top of the table from this one file (`recorded`, the app's
first paint) before the table is proven against the files.

The file lives beside the locks (outside the agent folder), is written with tmp + rename and no
fsync (a cache), and names the folder it describes. It is one compact file rather than JSON per
entry, because a fresh process loads 100,000 entries:

    b"dreamdeck-shard-heads 3\\n"  (1 kept the folder's listing order, 2 had no active days: rebuilt)
    a JSON line: {"folder", "n", "order" (byte order), "sizes" (of the three text parts), "crc"}
    slugs, headings, lastReinforced values: UTF-8, each joined by NUL
    7 × n int64: size, mtime_ns, ctime_ns, ino, cites, days, active days

A missing, unreadable, truncated, corrupt (CRC-32), foreign (another folder or byte order) or
wrong-shaped file counts as empty: it is rebuilt, never an error.
"""
from __future__ import annotations

import json
import os
import sys
import zlib
from array import array
from dataclasses import dataclass
from pathlib import Path

from dreamdeck.core.errors import Refused
from dreamdeck.core.formats.shards import ShardMeta
from dreamdeck.core.io.atomic import replace_projection
from dreamdeck.core.io.cache import MISS, StampCache, file_stamp, settled, stamp_of
from dreamdeck.core.store.shard_files import read_shard_head

MAGIC = b"dreamdeck-shard-heads 3\n"
FIELDS = 7  # ints per entry
_INT64 = range(-(1 << 63), 1 << 63)


Head = tuple[str, int, int, str, int]  # heading, cites, days, lastReinforced, active days: what the strength table reads
Entry = tuple[int, int, int, int, int, int, int]  # size, mtime_ns, ctime_ns, ino, cites, days, active days


@dataclass(frozen=True)
class _Entries:
    """The projection as loaded; built by C-level zips, as a fresh process loads 100,000 entries."""

    index: dict[str, int]  # slug -> its position in the lists below
    slugs: list[str]
    ints: list[Entry]
    headings: list[str]
    lasts: list[str]


_EMPTY = _Entries({}, [], [], [], [])

# projection path -> its entries: the file only ever changes by a rename (a new inode), so an
# unchanged stamp means the entries this process last read or wrote are still the file's.
_LOADED: StampCache[_Entries] = StampCache("shard-heads-file")


class ShardHeads:
    """The projection of one folder's shard heads, for one pass over the folder."""

    def __init__(self, path: Path, folder: Path):
        self.path, self.folder = Path(path), str(folder)
        self._old = self._load()
        self._new: dict[str, tuple[Entry, Head]] = {}  # entries read this pass
        self._kept: dict[str, int] = {}  # slugs whose old entry matched, and where it is
        self.dirty = False
        self.hits = 0  # heads taken from the projection
        self.reads = 0  # shard files opened
        self.linked: list[tuple[str, str]] | None = None  # (path, why) left out for a link, by this pass's listing

    @classmethod
    def of(cls, ws, folder: Path | None = None) -> ShardHeads | None:
        """The projection of `folder` (the topics by default) in the workspace's private folder;
        None when that folder cannot be had (then every shard is read, as without one)."""
        folder = ws.topics_dir if folder is None else folder
        try:
            private = ws.lock_dir
        except (Refused, OSError):
            return None
        return cls(private / f"shard-heads-{Path(folder).name}.bin", folder)

    def __len__(self) -> int:
        """Entries recorded by the last save."""
        return len(self._old.slugs)

    def recorded(self, i: int) -> tuple[str, Head]:
        """The i-th entry of the last save, in its order (the strength table's): (slug, head) as
        recorded then, not proven against the file now (`head` is the proof)."""
        old = self._old
        e = old.ints[i]
        return old.slugs[i], (old.headings[i], e[4], e[5], old.lasts[i], e[6])

    def head(self, slug: str, path: str, started_ns: int) -> Head | None:
        """The strict head of shard `slug` at `path` as `read_shard_head` reads it (heading, cites,
        days, lastReinforced, active days; None when that parse fails), from the projection when the file's
        stamp matches. `started_ns` is when the pass began: the clock the racy rule measures against."""
        try:
            st = os.lstat(path)  # a link has its own stamp: never a match, and never read
        except OSError:
            st = None
        old = self._old
        i = old.index.get(slug)
        if i is not None and st is not None:
            e = old.ints[i]
            if e[0] == st.st_size and e[1] == st.st_mtime_ns and e[2] == st.st_ctime_ns and e[3] == st.st_ino:
                self.hits += 1
                self._kept[slug] = i
                return old.headings[i], e[4], e[5], old.lasts[i], e[6]
        self.reads += 1
        read = read_shard_head(path)  # gone or unreadable: as the file itself answers
        if read is None:
            self.dirty = self.dirty or i is not None  # a stale entry: written out without it
            return None
        meta, active = read
        head = (meta.heading, meta.cites, meta.days, meta.last_reinforced, active)
        if st is not None and settled(stamp_of(st), started_ns) and _recordable(meta):
            self._new[slug] = ((st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, meta.cites, meta.days,
                                active), head)
            self.dirty = True
        elif i is not None:
            self.dirty = True
        return head

    def save(self, names: list[str]) -> None:
        """Write the entries of `names` (every slug of the folder, in the strength table's order)
        when anything changed."""
        old, new, kept = self._old, self._new, self._kept
        if not self.dirty and len(kept) == len(old.index):
            return
        slugs: list[str] = []
        ints: list[Entry] = []
        headings: list[str] = []
        lasts: list[str] = []
        for slug in names:
            if (fresh := new.get(slug)) is not None:
                entry, (heading, _cites, _days, last, _active) = fresh
            elif (i := kept.get(slug)) is not None:
                entry, heading, last = old.ints[i], old.headings[i], old.lasts[i]
            else:
                continue
            slugs.append(slug)
            ints.append(entry)
            headings.append(heading)
            lasts.append(last)
        entries = _Entries(dict(zip(slugs, range(len(slugs)))), slugs, ints, headings, lasts)
        self._write(_encode(self.folder, entries, slugs), entries)

    def _write(self, data: bytes, entries: _Entries) -> None:
        if not replace_projection(self.path, data):
            return  # a projection: next time we read again
        self.dirty = False
        stamp = file_stamp(self.path)
        if stamp is not None:
            _LOADED.put(str(self.path), stamp, entries)

    def _load(self) -> _Entries:
        stamp = file_stamp(self.path)
        if stamp is None:
            return _EMPTY
        hit = _LOADED.get(str(self.path), stamp)
        if hit is not MISS:
            return hit  # type: ignore[return-value]
        try:
            with open(self.path, "rb") as fh:
                entries = _decode(fh.read(), self.folder)
        except OSError:
            return _EMPTY
        if entries is None:
            return _EMPTY
        _LOADED.put(str(self.path), stamp, entries)
        return entries


def _recordable(meta: ShardMeta) -> bool:
    return (meta.cites in _INT64 and meta.days in _INT64 and "\0" not in meta.heading
            and "\0" not in meta.last_reinforced)


def _encode(folder: str, entries: _Entries, slugs: list[str]) -> bytes:
    parts = ["\0".join(p).encode("utf-8", "surrogateescape") for p in (slugs, entries.headings, entries.lasts)]
    ints = array("q", [v for e in entries.ints for v in e])
    body = b"".join(parts) + ints.tobytes()
    header = {"folder": folder, "n": len(slugs), "order": sys.byteorder, "sizes": [len(p) for p in parts],
              "crc": zlib.crc32(body)}
    return MAGIC + json.dumps(header).encode("utf-8") + b"\n" + body


def _decode(data: bytes, folder: str) -> _Entries | None:
    """The entries of a projection file, or None when it is not one of this folder's, intact."""
    if not data.startswith(MAGIC):
        return None
    end = data.find(b"\n", len(MAGIC))
    try:
        header = json.loads(data[len(MAGIC):end]) if end > 0 else None
    except ValueError:
        return None
    if not (isinstance(header, dict) and header.get("folder") == folder and header.get("order") == sys.byteorder):
        return None
    n, sizes, crc = header.get("n"), header.get("sizes"), header.get("crc")
    if type(n) is not int or type(crc) is not int or not (isinstance(sizes, list) and len(sizes) == 3
                                                          and all(type(s) is int and s >= 0 for s in sizes)):
        return None
    body = data[end + 1:]
    if len(body) != sum(sizes) + 8 * FIELDS * n or zlib.crc32(body) != crc:
        return None
    texts, at = [], 0
    for size in sizes:
        chunk = body[at:at + size].decode("utf-8", "surrogateescape")
        texts.append(chunk.split("\0") if n else [])
        at += size
    names, headings, lasts = texts
    if not len(names) == len(headings) == len(lasts) == n:
        return None
    ints = array("q")
    ints.frombytes(body[at:])
    six = [iter(ints)] * FIELDS
    return _Entries(dict(zip(names, range(n))), names, list(zip(*six)), headings, lasts)
