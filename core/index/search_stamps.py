"""What the search index knows of its source files, and which of them changed.

The index records, per source file (a shard or reference, as a path under memory/ such as
"topics/x.md"), the stamp it was indexed under (`io.cache`: size, mtime, ctime, inode; None when
it was read within the racy window: read it again) in its `files` table. This module holds the
bookkeeping around that table, kept out of `index.search` so its one class stays about the index:
- `diff`: what a sweep of every shard folder found changed or gone;
- `named_diff`: the same for named files only — those the door wrote (`SearchIndex.update`) or a
  change feed saw (`feed_rels`) —, one lstat each, by the sweep's rule for links;
- `stored_stamps` / `save_stamps`: the table as one marshalled value in `meta`, written in every
  transaction that writes the table, so a fresh process reads one value (5 ms at 10,000 files)
  instead of 10,000 rows (22 ms) before its sweep; the rows remain the fallback;
- `digest`: of the bytes indexed, so a file read again with the same bytes keeps its documents.
"""
from __future__ import annotations

import hashlib
import marshal
import os
import sqlite3
from collections.abc import Iterable

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


def stored_stamps(conn: sqlite3.Connection, areas: Iterable[str]) -> Known:
    """The files table as `Known`: its marshalled copy, or the rows when the copy is missing or
    unreadable."""
    row = conn.execute("SELECT v FROM meta WHERE k='stamps'").fetchone()
    if row is not None and isinstance(row[0], bytes):
        try:
            known = marshal.loads(row[0])
        except (ValueError, EOFError, TypeError):
            known = None
        if isinstance(known, dict):
            return known
    known = {area: {} for area in areas}
    for rel, size, mtime, ctime, ino in conn.execute("SELECT path, size, mtime, ctime, ino FROM files"):
        area, _, name = rel.partition("/")
        known.setdefault(area, {})[name] = None if size is None else (size, mtime, ctime, ino)
    return known


def save_stamps(conn: sqlite3.Connection, known: Known, rows: list[tuple], dropped: list[str]) -> None:
    """Apply to `known` (the table as the transaction found it) the `files` rows it wrote and the
    paths it dropped, and store its marshalled copy in the same transaction."""
    for rel in dropped:
        area, _, name = rel.partition("/")
        known.get(area, {}).pop(name, None)
    for rel, size, mtime, ctime, ino, _ in rows:
        area, _, name = rel.partition("/")
        known.setdefault(area, {})[name] = None if size is None else (size, mtime, ctime, ino)
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('stamps', ?)", (marshal.dumps(known),))


def digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()
