"""What lies in `memory/` that is not memory: symbolic links, hard-linked files, FIFOs, sockets
and devices, and temp files dreamdeck left.

`doctor` reports them all (a FIFO named like a stream or a shard makes TypeClaw's read of it wait
forever; dreamdeck's own reads refuse it). Links are only ever reported: dreamdeck never reads or writes through one
(`core.io.no_links`), and never follows one while looking (the walk does not descend into a
linked folder). A temp file is ours only when its name is one dreamdeck's writers make; any other
`*.tmp` (a reference's, a skill's, a person's) is left alone.
"""
from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

from dreamdeck.core.store.replaced_links import LINK_NAME, replaced_links
from dreamdeck.core.workspace import Workspace

__all__ = ["links_under", "hard_links_under", "linked_files", "own_temp_files", "special_files_under"]

# `core.io.atomic` (mkstemp: `.<name>.<8 random>.tmp`), the stream rewrite (`.<name>.<hex>.tmp`),
# and the fixed name older stream rewrites used (`<day>.jsonl.tmp`, in a stream folder only).
_OWN_TEMP = re.compile(r"^\.[^/]+\.[A-Za-z0-9_]{8,32}\.tmp$")
_OLD_STREAM_TEMP = re.compile(r"^\d{4}-\d{2}-\d{2}\.jsonl\.tmp$")


def links_under(ws: Workspace) -> list[tuple[str, str]]:
    """(path relative to the agent folder, where it points) of every link in `memory/` (itself
    included), sorted; linked folders are listed, never entered."""
    memory = ws.memory
    if memory.is_symlink():
        return [("memory", _target(memory))]
    return sorted((Path(entry.path).relative_to(ws.root).as_posix(), _target(Path(entry.path)))
                  for entry in _entries(str(memory)) if entry.is_symlink())


SHARD_AREAS = ("topics", "vault", "archive")


def hard_links_under(ws: Workspace) -> list[tuple[str, int]]:
    """(path relative to the agent folder, its number of names) of every regular file in `memory/`
    that another name shares, sorted. The name a stream rewrite gives the inode it replaces
    (`store.replaced_links`) is dreamdeck's own and not counted. One lstat per file (the listing
    does not carry the count)."""
    if not ws.memory.is_dir() or ws.memory.is_symlink():
        return []
    found = []
    own = _own_link_counts(ws)
    for entry in _entries(str(ws.memory)):
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if entry.is_file(follow_symlinks=False) and st.st_nlink - own.get(st.st_ino, 0) > 1:
            found.append((Path(entry.path).relative_to(ws.root).as_posix(), st.st_nlink))
    return sorted(found)


def _own_link_counts(ws: Workspace) -> dict[int, int]:
    """inode -> how many names a stream rewrite keeps for it."""
    counts: dict[int, int] = {}
    for link in replaced_links(ws):
        m = LINK_NAME.match(link.name)
        if m is not None:
            counts[int(m.group(2))] = counts.get(int(m.group(2)), 0) + 1
    return counts


def linked_files(ws: Workspace) -> list[str]:
    """Every path in `memory/` (relative to the agent folder, sorted) that is a symbolic link or a
    regular file with a second hard link (not counting dreamdeck's own, as `hard_links_under`);
    linked folders are listed, never entered. Nothing is committed through one of them.
    The shard folders' files come from their listing (`store.shard_files`), which every change
    reads anyway: at 100,000 topics a second lstat of each cost a second per mutation. A hard link
    made to a shard since the listing is refused when the shard is opened, and again at staging."""
    from dreamdeck.core.store.shard_files import linked_shards

    if ws.memory.is_symlink():
        return ["memory"]
    own = _own_link_counts(ws)
    shard_folders = frozenset(str(ws.memory / area) for area in SHARD_AREAS)
    found = set()
    for entry in _entries(str(ws.memory), shard_folders):
        try:
            linked = entry.is_symlink() or (entry.is_file(follow_symlinks=False) and
                                            entry.stat(follow_symlinks=False).st_nlink - own.get(entry.inode(), 0) > 1)
        except OSError:
            continue
        if linked:
            found.add(Path(entry.path).relative_to(ws.root).as_posix())
    for area in SHARD_AREAS:
        found |= {Path(path).relative_to(ws.root).as_posix() for path, _ in linked_shards(ws.memory / area)}
    return sorted(found)


_SPECIAL = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"))


def special_files_under(ws: Workspace) -> list[tuple[str, str]]:
    """(path relative to the agent folder, what it is) of every FIFO, socket or device in `memory/`,
    sorted. The listing's own type says which entries to look at: one lstat for those only."""
    if not ws.memory.is_dir() or ws.memory.is_symlink():
        return []
    found = []
    for entry in _entries(str(ws.memory)):
        if entry.is_file(follow_symlinks=False) or entry.is_dir(follow_symlinks=False) or entry.is_symlink():
            continue
        try:
            mode = entry.stat(follow_symlinks=False).st_mode
        except OSError:
            continue
        kind = next((name for test, name in _SPECIAL if test(mode)), None)
        if kind is not None:
            found.append((Path(entry.path).relative_to(ws.root).as_posix(), kind))
    return sorted(found)


def own_temp_files(ws: Workspace) -> list[Path]:
    """The regular files in `memory/` named as dreamdeck's temp files (links are not among them)."""
    if not ws.memory.is_dir() or ws.memory.is_symlink():
        return []
    found = []
    for entry in _entries(str(ws.memory)):
        name = entry.name
        if _OWN_TEMP.match(name) or (_OLD_STREAM_TEMP.match(name) and
                                     os.path.basename(os.path.dirname(entry.path)) in ("streams", "memory")):
            if entry.is_file(follow_symlinks=False):
                found.append(Path(entry.path))
    return sorted(found)


def _entries(folder: str, shards_listed: frozenset[str] = frozenset()) -> Iterator[os.DirEntry]:
    """Every entry under `folder`, never entering a linked folder; in a folder of `shards_listed`,
    the shard files its listing covers (`store.shard_files`: `*.md`, not hidden) are left out.
    The entry's own type (from the listing, no stat per file) tells links apart: a year of shards
    is 10,000 files."""
    try:
        with os.scandir(folder) as listing:
            entries = list(listing)
    except OSError:
        return
    listed = folder in shards_listed
    for entry in entries:
        if listed and entry.name.endswith(".md") and not entry.name.startswith("."):
            continue
        yield entry
        if entry.is_dir(follow_symlinks=False):
            yield from _entries(entry.path, shards_listed)


def _target(path: Path) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return "?"
