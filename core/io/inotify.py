"""Linux inotify over a folder tree, read without waiting: what changed under it so far.

The kernel queues an inotify event inside the system call that made the change (a write, a
rename, an unlink, by any process), before that call returns. So a reader that drains the queue
knows every change made before it started reading: no thread, no debounce, no barrier file. An
empty queue costs one `read` that fails with EAGAIN (microseconds).

inotify watches one folder at a time, so every folder of the tree is watched. A folder created,
moved or removed inside it, a watched folder itself moved or deleted, or a queue that overflowed
makes `read` report the batch as `lost` (which paths changed is then not known) and the watches
are laid again over the tree as it now stands; the caller must then look at everything (the
changes inside a new folder made before its watch was laid are not reported).

`DirWatch(root)` raises OSError where inotify is not available (not Linux, no libc symbol, the
watch limit reached): the caller then does without it.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import struct

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF = 0x400, 0x800
IN_Q_OVERFLOW, IN_IGNORED, IN_ISDIR = 0x4000, 0x8000, 0x40000000
IN_ONLYDIR, IN_DONT_FOLLOW = 0x01000000, 0x02000000
IN_NONBLOCK, IN_CLOEXEC = os.O_NONBLOCK, 0o2000000
WATCHED = (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
           | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW)
# the folder structure changed (or the kernel lost count): the paths seen do not say everything
STRUCTURE = IN_Q_OVERFLOW | IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len (then len bytes of NUL-padded name)
_libc: ctypes.CDLL | None = None


def _lib() -> ctypes.CDLL:
    global _libc
    if _libc is None:
        lib = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        if not hasattr(lib, "inotify_init1"):
            raise OSError("inotify is not available here")
        lib.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        _libc = lib
    return _libc


class DirWatch:
    """Every folder under `root` (itself included) watched by one non-blocking inotify queue."""

    def __init__(self, root: str):
        self.root = root
        self._fd, self._dirs = self._watch_tree()

    def _watch_tree(self) -> tuple[int, dict[int, str]]:
        lib = _lib()
        fd = lib.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        dirs: dict[int, str] = {}
        try:
            for top, _subdirs, _files in os.walk(self.root):
                wd = lib.inotify_add_watch(fd, os.fsencode(top), WATCHED)
                if wd < 0:
                    errno = ctypes.get_errno()
                    if top == self.root or errno not in (2, 20):  # ENOENT, ENOTDIR: gone since listed (seen as lost)
                        raise OSError(errno, f"inotify_add_watch failed for {top}")
                    continue
                dirs[wd] = top  # (os.walk does not go into a link to a folder)
            if not dirs:  # os.walk says nothing of a root that is not there
                raise OSError(2, f"no folder to watch at {self.root}")
        except BaseException:
            os.close(fd)
            raise
        return fd, dirs

    def read(self) -> tuple[set[str], bool]:
        """(the paths changed since the last read, lost): `lost` when the folder structure
        changed or the queue overflowed (the paths are then not all there is; the watches are
        laid again over the tree as it stands now)."""
        paths: set[str] = set()
        lost = False
        while True:
            try:
                data = os.read(self._fd, 64 * 1024)
            except BlockingIOError:
                break
            offset = 0
            while offset < len(data):
                wd, mask, _cookie, size = _EVENT.unpack_from(data, offset)
                name = data[offset + _EVENT.size:offset + _EVENT.size + size].rstrip(b"\0")
                offset += _EVENT.size + size
                if mask & STRUCTURE or (mask & IN_ISDIR and mask & (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)):
                    lost = True
                folder = self._dirs.get(wd)
                if folder is not None:
                    paths.add(os.path.join(folder, os.fsdecode(name)) if name else folder)
        if lost:
            self._rewatch()
        return paths, lost

    def _rewatch(self) -> None:
        """New watches over the tree as it is now, before the old queue is dropped: a change made
        while they are laid is in one queue or the other, and the caller looks at everything."""
        old = self._fd
        self._fd, self._dirs = self._watch_tree()
        os.close(old)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
