"""The one durable appender: O_APPEND writes, fsynced, never truncating.

Streams, the audit log, tombstones and the proposals file are append-only logs that other
processes (the agent's logger, sub-agents, a person with an editor) write too. An append is a
single `O_APPEND` write loop and an fsync, so it never overwrites what someone else wrote, and a
crash leaves the bytes before it untouched. Only a regular file with no other hard link is
appended to (`no_links.refuse_unusual`).
"""
from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

from dreamdeck.core.errors import BadFile
from dreamdeck.core.io.no_links import LinkRefused, open_folder, refuse_unusual, shown_path


def append_durably(path: Path | str, data: bytes, *, own_line: bool = False) -> None:
    """Append `data` to `path` (created if missing) and fsync it.

    `own_line`: if the file does not end with a newline (a hand edit left its last line open),
    start with one, so `data` never glues onto someone else's line. The check and the write
    hold an advisory lock that every dreamdeck appender takes: a write of more than a page
    grows the file page by page, so without it a concurrent appender could see another's line
    half-written and add a stray blank line.
    """
    path = Path(path)
    folder = open_folder(path.parent, create=True)  # held: a folder swapped for a link later is not followed
    try:  # O_NOFOLLOW: a link at the name is refused by the kernel
        fd = os.open(path.name, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644, dir_fd=folder)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise LinkRefused(f"refused: {path} is a symbolic link; dreamdeck never reads or writes memory through a link "
                              "— replace it with the real file") from None
        if exc.errno == errno.EISDIR:
            raise BadFile(f"{shown_path(path)} is not a regular file (a folder); remove it or move it out of memory/") from None
        raise
    finally:
        os.close(folder)
    try:
        refuse_unusual(fd, path)  # a FIFO, or a second hard link: the bytes would land elsewhere
        if own_line:
            fcntl.flock(fd, fcntl.LOCK_EX)  # released by close
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = b"\n" + data
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
