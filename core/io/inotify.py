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
watch limit reached): the caller then does without it. The system calls are inotify_simple's.
"""
from __future__ import annotations

import errno
import os

from inotify_simple import INotify
from inotify_simple import flags as f

WATCHED = (f.MODIFY | f.ATTRIB | f.CLOSE_WRITE | f.MOVED_FROM | f.MOVED_TO | f.CREATE | f.DELETE
           | f.DELETE_SELF | f.MOVE_SELF | f.ONLYDIR | f.DONT_FOLLOW)
# the folder structure changed (or the kernel lost count): the paths seen do not say everything
STRUCTURE = f.Q_OVERFLOW | f.DELETE_SELF | f.MOVE_SELF | f.IGNORED
_FOLDER_MOVES = f.CREATE | f.DELETE | f.MOVED_FROM | f.MOVED_TO


class DirWatch:
    """Every folder under `root` (itself included) watched by one non-blocking inotify queue."""

    def __init__(self, root: str):
        self.root = root
        self._queue, self._dirs = self._watch_tree()

    def _watch_tree(self) -> tuple[INotify, dict[int, str]]:
        try:
            queue = INotify(nonblocking=True)
        except (AttributeError, TypeError) as exc:  # no inotify_init1 in this libc (not Linux)
            raise OSError(f"inotify is not available here ({exc})") from None
        dirs: dict[int, str] = {}
        try:
            for top, _subdirs, _files in os.walk(self.root):
                try:
                    wd = queue.add_watch(top, WATCHED)
                except OSError as exc:
                    if top == self.root or exc.errno not in (errno.ENOENT, errno.ENOTDIR):
                        raise
                    continue  # gone since listed: seen as lost
                dirs[wd] = top  # (os.walk does not go into a link to a folder)
            if not dirs:  # os.walk says nothing of a root that is not there
                raise OSError(errno.ENOENT, f"no folder to watch at {self.root}")
        except BaseException:
            queue.close()
            raise
        return queue, dirs

    def read(self) -> tuple[set[str], bool]:
        """(the paths changed since the last read, lost): `lost` when the folder structure
        changed or the queue overflowed (the paths are then not all there is; the watches are
        laid again over the tree as it stands now)."""
        paths: set[str] = set()
        lost = False
        while events := self._queue.read(timeout=0):
            for event in events:
                if event.mask & STRUCTURE or (event.mask & f.ISDIR and event.mask & _FOLDER_MOVES):
                    lost = True
                folder = self._dirs.get(event.wd)
                if folder is not None:
                    paths.add(os.path.join(folder, event.name) if event.name else folder)
        if lost:
            self._rewatch()
        return paths, lost

    def _rewatch(self) -> None:
        """New watches over the tree as it is now, before the old queue is dropped: a change made
        while they are laid is in one queue or the other, and the caller looks at everything."""
        old = self._queue
        self._queue, self._dirs = self._watch_tree()
        old.close()

    def close(self) -> None:
        self._queue.close()
