"""Which processes hold a file open for writing, read from Linux's `/proc/<pid>/fd`.

A compaction must not replace a stream file a writer still holds open (its later writes would go
to the replaced inode). This is one of three guards, and the weakest; what it can and cannot see:

- It sees every process of this user on this machine in this PID namespace (all of them as
  root) that has the file open with write access (`O_WRONLY` or `O_RDWR`, read from
  `/proc/<pid>/fdinfo/<fd>`), matched by device and inode, so any name or link to it counts.
  Readers (`tail -f`, an editor's view) are not writers and are left out.
- It cannot see processes of other users (their `fd` folders are closed to us), processes in
  another PID namespace (a container, a sandboxed agent runtime: their `/proc` is not ours),
  processes on another machine writing over a network file system, or a writer that opens the
  file per line and happens to have it closed at the moment of the scan. Without `/proc` (macOS,
  BSD) it sees nothing and says so (`None`).

So it can only ever add a reason to wait. The quiet period and today's date keep long-lived
writers away too, and whatever still lands on a replaced inode is carried over from the hard link
a rewrite keeps (`store.stream_rewrite`).
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

__all__ = ["visible_pids", "writers_holding"]

_PROC = "/proc"
_WRITE_ACCESS = os.O_WRONLY | os.O_RDWR


def writers_holding(paths: Iterable[Path | str]) -> dict[str, list[int]] | None:
    """path -> pids of the visible processes holding it open for writing (paths nobody holds are
    left out); None when this system has no `/proc` to look in. One scan for all the paths."""
    targets: dict[tuple[int, int], str] = {}
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            continue
        targets[(st.st_dev, st.st_ino)] = str(path)
    if not os.path.isdir(os.path.join(_PROC, "self", "fd")):
        return None
    found: dict[str, list[int]] = {}
    if not targets:
        return found
    for pid in visible_pids():
        for fd in _fds(pid):
            try:
                st = os.stat(os.path.join(_PROC, pid, "fd", fd))
            except OSError:  # closed meanwhile, or not ours to look at
                continue
            held = targets.get((st.st_dev, st.st_ino))
            if held is not None and _opened_for_writing(pid, fd):
                found.setdefault(held, []).append(int(pid))
    return found


def visible_pids() -> list[str]:
    """The ids of the processes this one can see in `/proc` (none without it)."""
    try:
        return [name for name in os.listdir(_PROC) if name.isdigit()]
    except OSError:
        return []


def _fds(pid: str) -> list[str]:
    try:
        return os.listdir(os.path.join(_PROC, pid, "fd"))
    except OSError:  # another user's process, or it ended
        return []


def _opened_for_writing(pid: str, fd: str) -> bool:
    """The fd's open flags (octal, `flags:` in fdinfo) allow writing; True when they cannot be read."""
    try:
        with open(os.path.join(_PROC, pid, "fdinfo", fd), "rb") as fh:
            for line in fh:
                if line.startswith(b"flags:"):
                    return bool(int(line.split()[1], 8) & _WRITE_ACCESS)
    except (OSError, ValueError, IndexError):
        pass
    return True  # unsure: count it as a writer (it only makes a compaction wait)
