"""The stamps of a folder's files in one pass, and a stamp as text (how the search index stores them)."""
from __future__ import annotations

import os
from pathlib import Path

from dreamdeck.core.errors import BadFile
from dreamdeck.core.io.cache import Stamp
from dreamdeck.core.io.no_links import open_folder


def stamp_text(stamp: Stamp | None) -> str:
    return "" if stamp is None else ":".join(map(str, stamp))


def parse_stamp(text: str) -> Stamp | None:
    try:
        a, b, c, d = (int(x) for x in text.split(":"))
    except ValueError:
        return None
    return (a, b, c, d)


def entry_of(st: os.stat_result) -> tuple[Stamp | None, str | None]:
    """One lstat result as `scan_folder` judges a shard folder's entry (with `linked`): (stamp,
    None) for a regular file with one link; (None, why) for a symbolic link or a file with a
    second hard link, as it names them; (None, None) for anything else."""
    kind = st.st_mode & 0o170000
    if kind == 0o120000:
        return None, "a symbolic link"
    if kind != 0o100000:
        return None, None
    if st.st_nlink > 1:
        return None, f"{st.st_nlink} hard links"
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino), None


def scan_folder(folder: Path, pattern=None, linked: list[tuple[str, str]] | None = None) -> dict[str, Stamp]:
    """name -> stamp of the regular files of `folder` named `*.md` (not dot-named), or matching
    `pattern`; symlinks are not followed. One listdir and one stat per file, nothing else: this
    runs before every query. With `linked` (shard folders), a file that is a symbolic link or
    has a second hard link is left out and named there with why, as `store.shard_files` does.
    The folder is opened by the no-links rule (`io.no_links.open_folder`): a shard folder that is
    a link to a folder outside is LinkRefused naming it, never swept (its files are not memory)."""
    try:
        fd = open_folder(folder)
    except (FileNotFoundError, NotADirectoryError, BadFile):
        return {}
    try:
        out: dict[str, Stamp] = {}
        stat = os.stat
        for name in os.listdir(fd):
            if (not name.endswith(".md") or name[0] == ".") if pattern is None else not pattern.match(name):
                continue
            try:
                st = stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            kind = st.st_mode & 0o170000
            if linked is not None and (kind == 0o120000 or (kind == 0o100000 and st.st_nlink > 1)):
                linked.append((name, entry_of(st)[1] or ""))
            elif kind == 0o100000:
                out[name] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
        return out
    finally:
        os.close(fd)
