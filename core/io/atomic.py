"""Crash-safe file writes: tmp file beside the target, fsync, rename, fsync the folder.

The temp file has a unique name and is created exclusively without following a link
(`mkstemp`: O_CREAT|O_EXCL|O_NOFOLLOW, 0600), so nothing planted at a guessable name is
written through; the target and every folder from `memory/` down must not be a link
(`core.io.no_links`), so the rename never lands outside the agent folder.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from dreamdeck.core.io.no_links import refuse_links


def atomic_write_bytes(path: Path | str, data: bytes | list[bytes], *, sync_dir: bool = True) -> None:
    """Replace `path` with `data` so a reader (or a crash) sees the old bytes or the new, never half.

    `data` may be a list of pieces, written in order (a big file need not be joined first).
    `sync_dir=False` leaves the folder's fsync to the caller (one per folder for a batch)."""
    path = Path(path)
    refuse_links(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    refuse_links(path)  # a folder made meanwhile is checked again, now that it exists
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            if isinstance(data, list):
                fh.writelines(data)
            else:
                fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    if sync_dir:
        fsync_dir(path.parent)


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
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_file(path: Path | str) -> bool:
    """Delete `path` durably; False when it was already gone."""
    path = Path(path)
    refuse_links(path.parent)  # unlinking a link itself is fine; a linked folder is not ours
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    fsync_dir(path.parent)
    return True
