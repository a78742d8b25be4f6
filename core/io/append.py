"""The one durable appender: O_APPEND writes, fsynced, never truncating.

Streams, the audit log, tombstones and the proposals file are append-only logs that other
processes (the agent's logger, sub-agents, a person with an editor) write too. An append is a
single `O_APPEND` write loop and an fsync, so it never overwrites what someone else wrote, and a
crash leaves the bytes before it untouched.
"""
from __future__ import annotations

import fcntl
import os
from pathlib import Path


def append_durably(path: Path | str, data: bytes, *, own_line: bool = False) -> None:
    """Append `data` to `path` (created if missing) and fsync it.

    `own_line`: if the file does not end with a newline (a hand edit left its last line open),
    start with one, so `data` never glues onto someone else's line. The check and the write
    hold an advisory lock that every dreamdeck appender takes: a write of more than a page
    grows the file page by page, so without it a concurrent appender could see another's line
    half-written and add a stray blank line.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
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
