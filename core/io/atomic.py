"""Crash-safe file writes: tmp file beside the target, fsync, rename, fsync the folder.

The temp file has a unique name (`.<name>.<8 random>.tmp`) and is created exclusively without
following a link (O_CREAT|O_EXCL|O_NOFOLLOW, 0600), so nothing planted at a guessable name is
written through. Every folder from `memory/` down must not be a link, and the folder is opened
once (`no_links.open_folder`): the temp file is created, renamed and removed relative to that
descriptor, so a folder exchanged for a link after the check cannot carry the write outside.
"""
from __future__ import annotations

import os
import secrets
import tempfile
from pathlib import Path

from dreamdeck.core.io.no_links import open_folder, refuse_link_at

_TEMP_LETTERS = "abcdefghijklmnopqrstuvwxyz0123456789_"
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def atomic_write_bytes(path: Path | str, data: bytes | list[bytes], *, sync_dir: bool = True) -> None:
    """Replace `path` with `data` so a reader (or a crash) sees the old bytes or the new, never half.

    `data` may be a list of pieces, written in order (a big file need not be joined first).
    `sync_dir=False` leaves the folder's fsync to the caller (one per folder for a batch)."""
    path = Path(path)
    folder = open_folder(path.parent, create=True)
    try:
        refuse_link_at(folder, path.name, path)
        tmp, fd = exclusive_temp(folder, path.name)
        try:
            with os.fdopen(fd, "wb") as fh:
                if isinstance(data, list):
                    fh.writelines(data)
                else:
                    fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            unlink_in(folder, tmp)
            raise
        if sync_dir:
            _fsync_fd(folder)
    finally:
        os.close(folder)


def unlink_in(folder: int, name: str) -> None:
    """Remove `name` from the open `folder` if it can be (a failed write's temp file): the
    caller is already failing, and the error it raises is the one that matters."""
    try:
        os.unlink(name, dir_fd=folder)
    except OSError:
        pass


def exclusive_temp(folder: int, name: str, mode: int = 0o600) -> tuple[str, int]:
    """(the name, an open descriptor) of a new temp file beside `name` in the open `folder`,
    created by us alone: a unique name, O_EXCL (never an existing file), O_NOFOLLOW."""
    while True:
        tmp = f".{name}.{''.join(secrets.choice(_TEMP_LETTERS) for _ in range(8))}.tmp"
        try:
            return tmp, os.open(tmp, _CREATE, mode, dir_fd=folder)
        except FileExistsError:
            continue


def replace_projection(path: Path | str, data: bytes) -> bool:
    """Replace a private projection's file (a cache in dreamdeck's own folder): a unique temp
    beside it, then a rename, no fsync (a projection lost in a crash is rebuilt from the truth).
    False, leaving nothing behind, when the machine said no: the next run reads again."""
    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False
    return True


def atomic_write_text(path: Path | str, text: str, *, sync_dir: bool = True) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), sync_dir=sync_dir)


def fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        _fsync_fd(fd)
    finally:
        os.close(fd)


def _fsync_fd(fd: int) -> None:
    try:
        os.fsync(fd)
    except OSError:
        pass


def remove_file(path: Path | str) -> bool:
    """Delete `path` durably; False when it was already gone. The name is unlinked in its folder
    opened without following a link (unlinking a link itself is fine; a linked folder is not ours)."""
    path = Path(path)
    try:
        folder = open_folder(path.parent)
    except FileNotFoundError:
        return False
    try:
        try:
            os.unlink(path.name, dir_fd=folder)
        except FileNotFoundError:
            return False
        _fsync_fd(folder)
    finally:
        os.close(folder)
    return True
