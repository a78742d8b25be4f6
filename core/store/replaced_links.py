"""Where a stream rewrite keeps the old inode of a stream it replaced, and how those links are named.

`store.stream_rewrite` links the inode it replaces as `<day>.<inode>.<size>.replaced`, in the
repository's git folder (git never looks there) or else dreamdeck's private folder, to carry
what a writer still holding it open writes later. Appenders need the same knowledge: a rewrite
stopped between the link and the rename leaves the live stream with a second name, which is
dreamdeck's own and not a side door (`drop_unrenamed_links`).
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from dreamdeck.core.git.runner import git_dir
from dreamdeck.core.workspace import Workspace

__all__ = ["LINK_NAME", "link_places", "replaced_links", "drop_unrenamed_links", "same_inode", "unlink_quietly"]

GIT_PLACE = "dreamdeck-replaced-streams"
LINK_NAME = re.compile(r"^([0-9]{4}-[0-9]{2}-[0-9]{2})\.([0-9]+)\.([0-9]+)\.replaced$")


def link_places(ws: Workspace) -> list[Path]:
    """Where replaced inodes may be kept, in order of preference (not created here)."""
    found = git_dir(ws.root)
    return ([found / GIT_PLACE] if found is not None else []) + [ws.lock_dir / "replaced-streams"]


def replaced_links(ws: Workspace) -> list[Path]:
    """Every replaced-inode link kept now, sorted by name within each place."""
    out = []
    for place in link_places(ws):
        try:
            names = os.listdir(place)
        except OSError:
            continue
        out += [place / name for name in sorted(names) if LINK_NAME.match(name)]
    return out


def drop_unrenamed_links(ws: Workspace, path: Path) -> bool:
    """Remove the replaced-inode links that name `path`'s current inode (a rewrite stopped between
    the link and the rename). The caller holds the stream lock. True when one was removed."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    dropped = False
    for link in replaced_links(ws):
        m = LINK_NAME.match(link.name)
        if m is not None and m.group(1) == path.name[:10] and int(m.group(2)) == st.st_ino and same_inode(link, st):
            unlink_quietly(link)
            dropped = True
    return dropped


def same_inode(path: Path, st: os.stat_result) -> bool:
    try:
        now = os.stat(path)
    except OSError:
        return False
    return (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino)


def unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
