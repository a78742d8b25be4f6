"""Shard files on disk: the flat `*.md` files of a folder (topics/, vault/, archive/), read.

Listing follows TypeClaw's `listShardSlugs`: every `*.md` directly in the folder, sorted;
nested files are ignored. A shard file that is a symbolic link or has a second hard link is
left out of the listing, one rule for both (its bytes may be a file's outside the folder): a
read view shows the rest and says which it skipped (`linked_shards`, one warning each); a
mutation refuses while one is there (`door.apply.refuse_linked_changes`). The open itself
refuses both (`io.no_links`), so a link made after the listing is never read either.
"""
from __future__ import annotations

import os
from pathlib import Path

from dreamdeck.core.errors import DreamdeckError
from dreamdeck.core.formats.citations import active_days
from dreamdeck.core.formats.shards import HEAD_BYTES, Shard, ShardMeta, meta_from_head
from dreamdeck.core.io.cache import MISS, StampCache, clock, file_stamp
from dreamdeck.core.io.no_links import read_bytes_nofollow, real_folder


def read_shard_meta(path: str | Path) -> ShardMeta | None:
    """The strict frontmatter of a shard file from its first bytes only, as `parse_shard` would
    read it from the whole file; None when that cannot be told from the head (no closing `---`
    in it, a CR before it) or the strict parse fails: then read the whole shard instead.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)  # no file object: at 100,000 shards the wrapper costs more than the read
    try:
        head = os.read(fd, HEAD_BYTES)
    finally:
        os.close(fd)
    return meta_from_head(head)


def read_shard_head(path: str | Path) -> tuple[ShardMeta, int] | None:
    """`read_shard_meta` and the days of the belief's own evidence (`citations.active_days`): the
    rest of the file is read only when the head is not the whole of it, and searched only when
    it names a superseded section."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        data = os.read(fd, HEAD_BYTES)
        meta = meta_from_head(data)
        if meta is None:
            return None
        if len(data) == HEAD_BYTES:
            rest = [data]
            while chunk := os.read(fd, 1 << 16):
                rest.append(chunk)
            data = b"".join(rest)
    finally:
        os.close(fd)
    if b"superseded" not in data.lower():  # ASCII case-blind, as TypeClaw's section heading is
        return meta, meta.days
    after_close = data.find(b"\n", data.find(b"\n---", 4) + 4)  # meta_from_head found that line
    body = b"" if after_close < 0 else data[after_close + 1:]
    active = active_days(body.decode("utf-8", "replace"))
    return meta, meta.days if active is None else active


class _Listing:
    __slots__ = ("names", "paths", "linked")

    def __init__(self, names: list[tuple[str, str]], linked: list[tuple[str, str]]):
        self.names = names  # (slug, path string), sorted
        self.paths: list[tuple[str, Path]] | None = None  # the same as Paths, built when asked
        self.linked = linked  # (path string, why) of the shard files left out for a link


def _link_of(entry: os.DirEntry) -> str | None:
    """Why a shard file's entry is left out (a symbolic link, a second hard link), or None."""
    if entry.is_symlink():
        return "a symbolic link"
    if not entry.is_file(follow_symlinks=False):
        return None
    links = entry.stat(follow_symlinks=False).st_nlink
    return f"{links} hard links" if links > 1 else None


# folder -> its listing: adding, removing or renaming a file changes the folder's stamp, so a
# run that lists topics/ five times builds its 10,000 Paths once.
_LISTINGS: StampCache[_Listing] = StampCache("folder-listings")


def _listing(folder: Path) -> _Listing | None:
    if not real_folder(folder):  # a linked folder is refused, one line naming it
        return None
    started = clock()
    stamp = file_stamp(folder)
    if stamp is None:
        return None
    key = str(folder)
    hit = _LISTINGS.get(key, stamp)
    if hit is not MISS:
        return hit  # type: ignore[return-value]
    names, linked = [], []
    with os.scandir(folder) as entries:
        for entry in entries:
            if not entry.name.endswith(".md") or entry.name.startswith("."):
                continue
            try:
                why = _link_of(entry)
            except OSError:
                continue  # gone since the listing
            if why is not None:
                linked.append((entry.path, why))  # never read (doctor reports it)
            elif entry.is_file(follow_symlinks=False):
                names.append((entry.name[:-3], entry.path))
    names.sort()
    listing = _Listing(names, sorted(linked))
    _LISTINGS.put_if_settled(key, stamp, listing, started)
    return listing


def list_shard_files(folder: Path) -> list[tuple[str, Path]]:
    """(slug, path) of every flat `*.md` in `folder`, sorted; nested files are ignored."""
    listing = _listing(folder)
    if listing is None:
        return []
    if listing.paths is None:
        listing.paths = [(slug, Path(path)) for slug, path in listing.names]
    return list(listing.paths)


def list_shard_paths(folder: Path) -> list[tuple[str, str]]:
    """`list_shard_files` with each path as a string: 100,000 Path objects cost a second."""
    listing = _listing(folder)
    return [] if listing is None else list(listing.names)


def shard_listing(folder: Path) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """`list_shard_paths` and `linked_shards` of one and the same listing (one scandir pass)."""
    listing = _listing(folder)
    return ([], []) if listing is None else (list(listing.names), list(listing.linked))


def linked_shards(folder: Path) -> list[tuple[str, str]]:
    """(path, why) of the shard files in `folder` left out for a link (see the module docstring)."""
    try:
        listing = _listing(folder)
    except DreamdeckError:
        return []  # the folder itself is a link: every read of it says so
    return [] if listing is None else list(listing.linked)


def listed_links(folder: Path) -> list[tuple[str, str]] | None:
    """`linked_shards` as the folder's kept listing holds it, without listing the folder: None
    when no listing is kept for the folder's stamp now. One stat of the folder, none of a shard."""
    stamp = file_stamp(folder)
    if stamp is None:
        return []
    hit = _LISTINGS.get(str(folder), stamp)
    return None if hit is MISS else list(hit.linked)  # type: ignore[union-attr]


def read_shard(slug: str, path: Path) -> Shard:
    return Shard.from_text(slug, path, read_bytes_nofollow(path).decode("utf-8", "replace"))


def load_shards(folder: Path) -> list[Shard]:
    return [read_shard(slug, path) for slug, path in list_shard_files(folder)]
