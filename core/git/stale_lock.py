"""The `.git/index.lock` a kill left inside dreamdeck's own commit, and only that one, removed.

git never removes a lock it did not finish with and refuses every later command while it stays,
so a kill that lands while dreamdeck's commit runs git would leave memory stuck (every verb and
`doctor --fix` refused) until a person deleted the file. The lock is removed only when all hold:
- the caller holds dreamdeck's memory lock and a journal says one of its changes was interrupted
  (so no dreamdeck process is committing now);
- the lock is not older than that journal (it appeared while the interrupted change ran);
- no visible process holds it open, and no visible git process runs in this repository (a git
  running hooks holds the lock with its file closed; a git that ends while it is looked at, or
  has ended and is not yet reaped, runs nothing). Without Linux's `/proc` nothing can be proven,
  and the lock stays.
Any other lock stays, and `busy_reason` names it with what a person should do.
"""
from __future__ import annotations

import os
from pathlib import Path

from dreamdeck.core.git.runner import git_dir
from dreamdeck.core.io.open_writers import visible_pids, writers_holding

__all__ = ["remove_lock_left_by", "LOCK"]

LOCK = "index.lock"
_PROC = "/proc"


def remove_lock_left_by(root: Path, journal: Path) -> Path | None:
    """Remove the repository's `index.lock` when the interrupted change whose `journal` is given
    left it (see the module's rules); the removed path, or None when it stays or there is none."""
    folder = git_dir(root)
    if folder is None:
        return None
    lock = folder / LOCK
    try:
        lock_time = lock.lstat().st_mtime
        journal_time = journal.lstat().st_mtime
    except OSError:
        return None
    if lock_time < journal_time or not lock.is_file():
        return None
    holders = writers_holding([lock])
    if holders is None or holders or _git_running_in(root, folder):
        return None
    try:
        lock.unlink()
    except OSError:
        return None
    return lock


def _git_running_in(root: Path, git_dir: Path) -> bool:
    """A visible git process works in this repository: its folder is inside it, or its command
    line names it. A git whose folder cannot be read (another user's) counts as working here."""
    names = (str(root), str(git_dir), os.path.realpath(root))
    for pid in visible_pids():
        if pid == str(os.getpid()):
            continue
        try:
            with open(os.path.join(_PROC, pid, "comm"), "rb") as fh:
                comm = fh.read().strip()
        except OSError:
            continue
        if not comm.startswith(b"git"):
            continue
        try:
            cwd = os.readlink(os.path.join(_PROC, pid, "cwd"))
            with open(os.path.join(_PROC, pid, "cmdline"), "rb") as fh:
                cmdline = fh.read().decode("utf-8", "replace")
        except FileNotFoundError:
            continue  # it ended while we looked, or it is a zombie: nothing runs any more
        except OSError:
            return True
        if any(cwd == n or cwd.startswith(n + os.sep) or n in cmdline for n in names):
            return True
    return False
