"""The shard files a link keeps out of memory, for the Dream tab's ⚑ badge, from the listings.

A shard file that is a symbolic link or has a second hard link stops every change and every
dream (`store.shard_files`, the door). The badge is recomputed after every change, so it must not
cost a stat of each of 100,000 topics: it reads what the folders' listings already hold (one
`os.scandir` pass per folder, each entry's `is_symlink()` and `st_nlink` from that pass, kept by
the folder's stamp), the listing the strength table, the shard-heads projection and the door read.
The topics folder is never listed here: until something lists it (the Topics screen, a change, a
dream) the answer is None, "not known now". The vault and the archive, a person's pins and
forgotten topics, are listed when needed (the same cached listing).
"""
from __future__ import annotations

import os
from pathlib import Path

from dreamdeck.core.store.shard_files import linked_shards, listed_links

AREAS = ("archive", "topics", "vault")


def listed_linked_shards(memory: Path, topics: list[tuple[str, str]] | None = None) -> list[tuple[str, str]] | None:
    """(path under the agent folder, why) of each linked shard file in memory/topics, vault and
    archive, and of a shard folder that is itself a symbolic link, sorted. `topics`: the topics
    folder's links as a pass over it just listed them (`ShardHeads.linked`); without it, the
    listing kept for the folder's stamp now, and None when there is none."""
    found: list[tuple[str, str]] = []
    for area in AREAS:
        folder = Path(memory) / area
        if os.path.islink(folder):
            found.append((f"memory/{area}", "a symbolic link"))
            continue
        if area == "topics":
            links = topics if topics is not None else listed_links(folder)
        else:
            links = linked_shards(folder)
        if links is None:
            return None
        found += [(f"memory/{area}/{Path(path).name}", why) for path, why in links]
    return sorted(found)
