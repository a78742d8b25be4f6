"""The one durable appender: O_APPEND writes, fsynced, never truncating.

Streams, the audit log, tombstones and the proposals file are append-only logs that other
processes (the agent's logger, sub-agents, a person with an editor) write too. An append is a
single `O_APPEND` write loop and an fsync, so it never overwrites what someone else wrote, and a
crash leaves the bytes before it untouched. Only a regular file with no other hard link is
appended to (`no_links.refuse_unusual`).

A long-lived caller that appends on every request (a `dreamdeck.api.Memory` recording what each
recall returned) may pass a `Flusher`: the write is still made before the call returns (every
process sees the line at once; a crash of this process loses nothing), and the fsync follows on
the flusher's thread, one per file for all the appends pending (under a loaded disk an fsync
took 4–9 ms of a 1 ms recall). Only a crash of the machine in those milliseconds can lose the
last lines; `Flusher.close()` returns once everything appended is synced.
"""
from __future__ import annotations

import errno
import fcntl
import os
import threading
from pathlib import Path

from dreamdeck.core.errors import BadFile
from dreamdeck.core.io.no_links import LinkRefused, open_folder, refuse_unusual, shown_path


def append_durably(path: Path | str, data: bytes, *, own_line: bool = False, flusher: Flusher | None = None) -> None:
    """Append `data` to `path` (created if missing) and fsync it (with `flusher`, soon after).

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
        if flusher is None:
            os.fsync(fd)
        else:
            flusher.sync_later(fd)
    finally:
        os.close(fd)


class Flusher:
    """fsyncs appended files on a thread of its own (module docstring)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._pending: dict[tuple[int, int], int] = {}  # (device, inode) -> a descriptor of it to fsync
        self._syncing = 0
        self._closed = False
        self._thread: threading.Thread | None = None

    def sync_later(self, fd: int) -> None:
        """fsync the file open as `fd` soon (a descriptor of its own is kept; `fd` may be closed)."""
        st = os.fstat(fd)
        with self._cond:
            if self._closed:
                os.fsync(fd)
                return
            dup = os.dup(fd)
            old = self._pending.pop((st.st_dev, st.st_ino), None)
            self._pending[(st.st_dev, st.st_ino)] = dup
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="dreamdeck-fsync", daemon=True)
                self._thread.start()
            self._cond.notify_all()
        if old is not None:
            os.close(old)  # the same file: one fsync covers both appends

    @property
    def pending(self) -> int:
        """Files appended to whose fsync has not finished."""
        with self._cond:
            return len(self._pending) + self._syncing

    def _loop(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._pending or self._closed)
                if not self._pending:
                    return
                fds, self._pending = list(self._pending.values()), {}
                self._syncing = len(fds)
            for fd in fds:
                try:
                    os.fsync(fd)
                except OSError:
                    pass  # as a crash would: the line was written, the next append syncs again
                finally:
                    os.close(fd)
            with self._cond:
                self._syncing = 0
                self._cond.notify_all()

    def close(self) -> None:
        """Return once every append so far is synced; later ones are synced at once."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join()
