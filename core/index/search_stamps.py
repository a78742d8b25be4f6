"""What the search index knows of its source files, and which of them changed.

The index records, per source file (a shard or reference, as a path under memory/ such as
"topics/x.md"), the stamp it was indexed under (`io.cache`: size, mtime, ctime, inode; None when
it was read within the racy window: read it again) in its `files` table. This module holds the
bookkeeping around that table, kept out of `index.search` so its one class stays about the index:
- `diff`: what a sweep of every shard folder found changed or gone;
- `named_diff`: the same for named files only — those the door wrote (`SearchIndex.update`) or a
  change feed saw (`feed_rels`) —, one lstat each, by the sweep's rule for links;
- `stored_stamps` / `save_stamps`: the table as one packed value in `meta` (`pack`), written in
  every transaction that writes the table, so a fresh process reads one value (5 ms at 10,000
  files) instead of 10,000 rows (22 ms) before its sweep; the rows remain the fallback. The value
  is plain names and integers checked as they are unpacked, never `marshal` (not safe against
  crafted bytes): a copy that is torn, truncated, of another shape or of another length than the
  table is not used, and only costs the read of the rows;
- `digest`: of the bytes indexed, so a file read again with the same bytes keeps its documents.
"""
from __future__ import annotations

import hashlib
import os
import sqlite3
import struct
from array import array
from collections.abc import Iterable
from itertools import islice

from dreamdeck.core.io.cache import Stamp
from dreamdeck.core.io.folder_stamps import entry_of

Known = dict[str, dict[str, Stamp | None]]  # area -> file name -> stamp indexed (None: read again)
Changes = tuple[list[tuple[str, Stamp]], list[str]]  # (changed paths with their stamps now, removed paths)


def diff(current: dict[str, dict[str, Stamp]], known: Known) -> Changes:
    """A sweep's changes: `current` is every shard folder's stamps now."""
    changed: list[tuple[str, Stamp]] = []
    removed: list[str] = []
    for area, now in current.items():
        before = known.get(area, {})
        if now == before:  # one C-level comparison: nothing in this area changed
            continue
        changed += [(f"{area}/{n}", st) for n, st in now.items() if before.get(n) != st]
        removed += [f"{area}/{n}" for n in before if n not in now]
    return changed, removed


def named_diff(memory: str, rels: Iterable[str], known: Known, areas: Iterable[str],
               linked: list[tuple[str, str]]) -> Changes:
    """`diff` for the named files only. A named file that is a link is left out, as the sweep
    leaves it out, and named in `linked` (updated in place) for the warning."""
    changed: list[tuple[str, Stamp]] = []
    removed: list[str] = []
    areas = set(areas)
    for rel in dict.fromkeys(rels):
        area, _, name = rel.partition("/")
        if area not in areas or "/" in name or not name.endswith(".md") or name[:1] in ("", "."):
            continue
        try:
            stamp, why = entry_of(os.lstat(f"{memory}/{rel}"))
        except (FileNotFoundError, NotADirectoryError):
            stamp, why = None, None
        linked[:] = sorted([*(e for e in linked if e[0] != rel), *([(rel, why)] if why else [])])
        before = known.get(area, {})
        if stamp is not None:
            if before.get(name) != stamp:
                changed.append((rel, stamp))
        elif name in before:  # gone, or now a link
            removed.append(rel)
    return changed, removed


def feed_rels(memory: str, paths: set[str] | None, areas: Iterable[str]) -> list[str] | None:
    """The shard-folder files among the absolute paths a change feed saw under `memory` (the
    others the index does not read, or covers by the stream signature every refresh computes);
    None — sweep — when the feed lost count or a shard folder itself moved, appeared or went."""
    if paths is None:
        return None
    root = memory + os.sep
    areas = set(areas)
    rels = []
    for path in paths:
        if not path.startswith(root):
            return None  # memory/ itself
        area, _, name = path[len(root):].partition(os.sep)
        if area in areas:
            if not name:
                return None  # the folder itself: its files are not named
            rels.append(f"{area}/{name}")
    return rels


STAMPS_KEY = "stamps-packed"  # (the key "stamps" held a marshalled copy: never read again)
_MAGIC = b"DDS2"
_HEAD = struct.Struct("<4sIII")  # magic, areas, files, bytes of names
_NONE = -1  # the size of a file to read again (its stamp None)


def pack(known: Known) -> bytes | None:
    """`known` as bytes: a count per area, then each area's name and its file names (NUL-
    separated text), then four signed 64-bit integers per file (size -1: read again). None when a
    value does not fit or a name holds a NUL (no copy is kept then)."""
    parts: list[str] = []
    counts = array("I")
    flat = array("q")
    try:
        for area, files in known.items():
            parts.append(area)
            parts += files
            counts.append(len(files))
            for st in files.values():
                flat.extend(st if st is not None else (_NONE, 0, 0, 0))
    except (OverflowError, TypeError):
        return None
    if any("\0" in p for p in parts) or flat.itemsize != 8 or counts.itemsize != 4:
        return None
    text = "\0".join(parts).encode("utf-8", "surrogateescape")
    return _HEAD.pack(_MAGIC, len(counts), len(flat) // 4, len(text)) + counts.tobytes() + text + flat.tobytes()


def unpack(data: object, rows: int) -> Known | None:
    """The copy `pack` made, when it is whole and holds `rows` files; None otherwise."""
    if not isinstance(data, bytes) or len(data) < _HEAD.size:
        return None
    magic, areas, files, size = _HEAD.unpack_from(data)
    at = _HEAD.size + 4 * areas
    if magic != _MAGIC or files != rows or len(data) != at + size + 32 * files:
        return None
    counts, flat = array("I"), array("q")
    counts.frombytes(data[_HEAD.size:at])
    flat.frombytes(data[at + size:])
    parts = data[at:at + size].decode("utf-8", "surrogateescape").split("\0")
    if sum(counts) != files or len(parts) != areas + files or flat.itemsize != 8 or counts.itemsize != 4:
        return None
    values = iter(flat)
    stamps = zip(values, values, values, values)
    known: Known = {}
    i = 0
    for count in counts:
        known[parts[i]] = dict(zip(parts[i + 1:i + 1 + count], islice(stamps, count)))
        i += 1 + count
    if _NONE in flat[0::4]:  # files to read again (rare): their stamp is None
        for names in known.values():
            names.update({n: None for n, st in names.items() if st is not None and st[0] == _NONE})
    return known


def stored_stamps(conn: sqlite3.Connection, areas: Iterable[str]) -> Known:
    """The files table as `Known`: its packed copy, or the rows when the copy is missing, torn
    or not the table's (`unpack`)."""
    row = conn.execute("SELECT v FROM meta WHERE k=?", (STAMPS_KEY,)).fetchone()
    if row is not None:
        known = unpack(row[0], conn.execute("SELECT count(*) FROM files").fetchone()[0])
        if known is not None:
            for area in areas:
                known.setdefault(area, {})
            return known
    known = {area: {} for area in areas}
    for rel, size, mtime, ctime, ino in conn.execute("SELECT path, size, mtime, ctime, ino FROM files"):
        area, _, name = rel.partition("/")
        known.setdefault(area, {})[name] = None if size is None else (size, mtime, ctime, ino)
    return known


def save_stamps(conn: sqlite3.Connection, known: Known, rows: list[tuple], dropped: list[str]) -> None:
    """Apply to `known` (the table as the transaction found it) the `files` rows it wrote and the
    paths it dropped, and store its packed copy in the same transaction."""
    for rel in dropped:
        area, _, name = rel.partition("/")
        known.get(area, {}).pop(name, None)
    for rel, size, mtime, ctime, ino, _ in rows:
        area, _, name = rel.partition("/")
        known.setdefault(area, {})[name] = None if size is None else (size, mtime, ctime, ino)
    packed = pack(known)
    conn.execute("DELETE FROM meta WHERE k IN ('stamps', ?)", (STAMPS_KEY,))
    if packed is not None:
        conn.execute("INSERT INTO meta VALUES (?, ?)", (STAMPS_KEY, packed))


def digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()
