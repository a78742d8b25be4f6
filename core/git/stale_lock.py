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
Any other lock stays: one a live git holds is waited for (`live_lock`), and `busy_reason` names
the rest with what a person should do.
"""
from __future__ import annotations

from pathlib import Path

from dreamdeck.core.git.live_lock import LOCK, git_running_in
from dreamdeck.core.git.runner import git_dir
from dreamdeck.core.io.open_writers import writers_holding

__all__ = ["remove_lock_left_by", "LOCK"]


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
    if holders is None or holders or git_running_in(root, folder):
        return None
    try:
        lock.unlink()
    except OSError:
        return None
    return lock
