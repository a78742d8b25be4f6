"""Nothing under `memory/` is read or written through a symbolic link.

A link planted in the agent folder (`topics/creds.md -> ~/.aws/credentials`, `memory/meta ->
/elsewhere`, a stream's temp name pointing at a file outside) would let a write land outside the
folder or a read carry an outside file's bytes into git. So every path dreamdeck writes, and every
memory file it reads, is checked component by component from the `memory` folder down (the
folder itself included); a link anywhere there is refused with one line naming it.

Above `memory/` nothing is checked: a workspace's root is resolved when it is opened, so the
paths built from it hold no link there, and dreamdeck's private folder (`core.io.private`) checks
its own. A check by path alone would leave a race: a folder exchanged for a link between the check
and the write (a loop in another process doing `renameat2(RENAME_EXCHANGE)`) would send the write
outside. So the folder a file is read or written in is opened once, component by component from
`memory/` down, each with `O_NOFOLLOW` (`open_folder`), and the file is then opened, created,
renamed or unlinked relative to that descriptor: whatever is swapped in later, the kernel keeps
using the real folder that was checked, and a link met on the way is refused.

The same holds for the other side doors, checked on the opened file (`refuse_unusual`): a FIFO,
a folder or a device named like a memory file is one BadFile naming it (a FIFO is opened
non-blocking, so a reader never waits on it forever), and a file with a second hard link is
refused where its bytes are written in place (an append to today's stream hard-linked to a file
outside would land there) or read to be written back (a shard hard-linked to a credentials file
would carry its bytes into git). Stream reads allow a second name: a stream rewrite links the
old inode for a moment to carry late appends (`store.stream_rewrite`).
"""
from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from dreamdeck.core.errors import BadFile, Refused

__all__ = ["LinkRefused", "refuse_links", "refuse_unusual", "real_folder", "read_bytes_nofollow", "read_text_nofollow",
           "shown_path", "MEMORY", "OpenFolder", "open_folder", "read_fd", "refuse_link_at"]

MEMORY = "memory"


class LinkRefused(Refused):
    """A symbolic link sits where dreamdeck would read or write; nothing was done."""


def _checked_parts(path: str) -> list[str]:
    """`path` (absolute, normalized) and its ancestors from the first `memory` component down
    (the final one last); only `path` itself when it is not under a `memory` folder. Strings, not
    Paths: doctor's first run checks 10,000 shard files."""
    parts = path.split(os.sep)
    try:
        start = parts.index(MEMORY)
    except ValueError:
        return [path]
    return [os.sep.join(parts[: i + 1]) for i in range(start, len(parts))]


def _refuse(link: Path, folder: int | None = None) -> LinkRefused:
    try:
        target = os.readlink(link.name, dir_fd=folder) if folder is not None else os.readlink(link)
    except OSError:
        target = "?"
    return LinkRefused(
        f"refused: {link} is a symbolic link (to {target}); dreamdeck never reads or writes "
        "memory through a link — replace it with the real file or folder")


def refuse_links(path: Path | str) -> None:
    """LinkRefused if `path`, or a folder between `memory/` and it, is a symbolic link.
    Missing components are fine (they will be created as real ones)."""
    for part in _checked_parts(os.path.abspath(path)):
        try:
            st = os.lstat(part)
        except FileNotFoundError:
            return
        except OSError:
            return  # a loop or a permission problem shows at the open, as one line there
        if stat.S_ISLNK(st.st_mode):
            raise _refuse(Path(part))


_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def open_folder(folder: Path | str, *, create: bool = False) -> int:
    """A descriptor of `folder`, opened from the `memory` component down one component at a time,
    each with `O_NOFOLLOW` (a folder not under `memory/` is opened as it is): LinkRefused naming
    a link met on the way, FileNotFoundError for a missing folder unless `create` makes it (0777
    less the umask, like `mkdir -p`). The caller closes it."""
    parts = os.path.abspath(folder).split(os.sep)
    try:
        start = parts.index(MEMORY)
    except ValueError:
        if create:
            os.makedirs(folder, exist_ok=True)
        return os.open(folder, _FOLDER_FLAGS & ~os.O_NOFOLLOW)
    fd = os.open(os.sep.join(parts[:start]) or os.sep, _FOLDER_FLAGS & ~os.O_NOFOLLOW)
    try:
        for i in range(start, len(parts)):
            child = _open_child(fd, parts[i], os.sep.join(parts[: i + 1]), create)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_child(parent: int, name: str, shown: str, create: bool) -> int:
    """The folder `name` inside the open `parent`, never through a link."""
    try:
        try:
            return os.open(name, _FOLDER_FLAGS, dir_fd=parent)
        except FileNotFoundError:
            if not create:
                raise
            try:
                os.mkdir(name, dir_fd=parent)
            except FileExistsError:
                pass  # made meanwhile by another process: opened (and checked) below
            return os.open(name, _FOLDER_FLAGS, dir_fd=parent)
    except OSError as exc:
        # ELOOP (or, with O_DIRECTORY, ENOTDIR) under O_NOFOLLOW: a link at the time of the open,
        # whatever is there now — or, for ENOTDIR, a file where a folder must be
        if exc.errno == errno.ELOOP or (exc.errno == errno.ENOTDIR and not _is_file_at(parent, name)):
            raise _refuse(Path(shown)) from None
        if exc.errno == errno.ENOTDIR:
            raise BadFile(f"{shown_path(shown)} is not a folder; remove it or move it out of memory/") from None
        raise


def _is_link_at(folder: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)
    except OSError:
        return False


def refuse_link_at(folder: int, name: str, shown: Path | str) -> None:
    """LinkRefused when `name` in the open `folder` is a symbolic link (a rename over it would
    replace the link, not write through it, but a link there is never ours to drop silently)."""
    if _is_link_at(folder, name):
        raise _refuse(Path(shown), folder)


def _is_file_at(folder: int, name: str) -> bool:
    """Something other than a folder or a link is at `name` now (a folder there now was a link
    at the instant an O_DIRECTORY|O_NOFOLLOW open said ENOTDIR: it was swapped since)."""
    try:
        mode = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
    except OSError:
        return False
    return not (stat.S_ISLNK(mode) or stat.S_ISDIR(mode))


def real_folder(path: Path | str) -> bool:
    """True for an existing real folder, False when missing or not a folder; LinkRefused for a
    link (there, or between `memory/` and it)."""
    refuse_links(path)
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"))


def refuse_unusual(fd: int, path: Path | str, *, sole_name: bool = True) -> os.stat_result:
    """BadFile when the opened `fd` is not a regular file; with `sole_name`, LinkRefused when the
    file has another hard link (its bytes are shared with a name dreamdeck does not own). The
    file's stat otherwise."""
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        kind = next((name for test, name in _KINDS if test(st.st_mode)), "not a file")
        raise BadFile(f"{shown_path(path)} is not a regular file ({kind}); remove it or move it out of memory/")
    if sole_name and st.st_nlink > 1:
        raise LinkRefused(
            f"refused: {path} has {st.st_nlink} hard links; dreamdeck never reads or writes memory through a "
            "file another name shares — replace it with a copy of its own (cp, then mv over it)")
    return st


def read_bytes_nofollow(path: Path | str, *, sole_name: bool = True) -> bytes:
    """The bytes of a memory file, refusing a link anywhere from `memory/` down, and anything
    `refuse_unusual` refuses (`sole_name=False`: a second hard link is allowed)."""
    folder = open_folder(os.path.dirname(os.path.abspath(path)))
    try:
        fd = _open_file_at(folder, os.path.basename(path), path)
    finally:
        os.close(folder)
    try:
        return read_fd(fd, refuse_unusual(fd, path, sole_name=sole_name).st_size)
    finally:
        os.close(fd)


def _open_file_at(folder: int, name: str, shown: Path | str) -> int:
    """`name` in the open `folder`, for reading: never through a link, never waiting on a FIFO."""
    try:
        return os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), dir_fd=folder)
    except OSError as exc:
        if exc.errno == errno.ELOOP or (exc.errno == errno.ENOTDIR and _is_link_at(folder, name)):
            raise _refuse(Path(shown)) from None
        raise


def read_fd(fd: int, size: int) -> bytes:
    """The first `size` bytes of the open file (fewer if it is shorter now): the file as it was
    when it was stat'ed. Never more: a file a writer keeps growing (`yes >> day.jsonl`) would
    otherwise be read forever, into memory, and the stamp taken before the read would no longer
    describe what was read."""
    parts: list[bytes] = []  # no file object: at 10,000 files the wrapper costs more than the read
    left = size
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 24) if parts else left)
        if not chunk:
            break
        parts.append(chunk)
        left -= len(chunk)
    return parts[0] if len(parts) == 1 else b"".join(parts)


class OpenFolder:
    """A memory folder checked for links once and held open; its files are read by name relative
    to it (`read`), each opened with `O_NOFOLLOW`, so no path is checked again per file (doctor's
    first run reads 10,000 shards) and a link swapped in for the folder later changes nothing."""

    def __init__(self, folder: Path | str):
        self.folder = str(folder)
        self.fd = open_folder(self.folder)

    def __enter__(self) -> OpenFolder:
        return self

    def __exit__(self, *_exc) -> None:
        os.close(self.fd)

    def read(self, name: str, *, sole_name: bool = True) -> tuple[os.stat_result, bytes]:
        """(the file's stat, taken on the open file before reading it, and its bytes): what
        `read_bytes_nofollow` refuses is refused the same way."""
        path = os.path.join(self.folder, name)
        fd = _open_file_at(self.fd, name, path)
        try:
            st = refuse_unusual(fd, path, sole_name=sole_name)
            data = read_fd(fd, st.st_size)
        finally:
            os.close(fd)
        return st, data


def shown_path(path: Path | str) -> str:
    """`path` as a person finds it: from `memory/` on when it is under one, else whole."""
    parts = Path(path).parts
    return "/".join(parts[parts.index(MEMORY):]) if MEMORY in parts else str(path)


def read_text_nofollow(path: Path | str) -> str:
    """`read_bytes_nofollow` decoded as UTF-8; bytes that are not UTF-8 are one BadFile naming
    the file and the byte, never a traceback and never a silent replacement."""
    data = read_bytes_nofollow(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadFile(f"{shown_path(path)}: not UTF-8 text (byte {exc.start}); fix or remove that file") from None
