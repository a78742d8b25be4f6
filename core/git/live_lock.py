"""Who holds git's index lock: a live git (or a process holding the file open), or nobody.

git takes `.git/index.lock` for every command that writes the index: a person's `git commit -a`
holds it (closed) while its hooks run for seconds, an editor's `git add` for a moment, and a git
that a killed dreamdeck process had started runs on by itself until it finishes. Such a lock goes
away by itself, so a change that meets it waits for it (`wait_while_held`) instead of being
refused; a lock that nothing alive holds never goes away, so it is not waited for (`stale_lock`
removes the one a kill left inside dreamdeck's own commit; any other is refused, named).
"""
from __future__ import annotations

import os
import time
from pathlib import Path

from dreamdeck.core.io.open_writers import visible_pids, writers_holding

__all__ = ["LOCK", "WAIT_SECONDS", "git_running_in", "held_by_the_living", "wait_while_held"]

LOCK = "index.lock"
# Long enough for a commit's hooks or a large `git add`; short enough that a watcher's dream or a
# person's verb is not held long by a git that hangs (then it is refused, naming the lock).
WAIT_SECONDS = 10.0
_POLL = 0.02
_PROC = "/proc"


def held_by_the_living(root: Path, git_dir: Path) -> bool:
    """The lock exists and a visible process holds it open, or a visible git runs in this
    repository. False without `/proc` (nothing can be proven alive)."""
    lock = git_dir / LOCK
    if not lock.exists():
        return False
    holders = writers_holding([lock])
    return holders is not None and (bool(holders) or git_running_in(root, git_dir))


def wait_while_held(root: Path, git_dir: Path, within: float = WAIT_SECONDS) -> bool:
    """Wait, up to `within` seconds, while a live process holds the index lock; True when no lock
    is left, False when one stays (held too long, or held by nothing alive)."""
    lock = git_dir / LOCK
    deadline = time.monotonic() + within
    while lock.exists():
        if time.monotonic() >= deadline or not held_by_the_living(root, git_dir):
            return not lock.exists()
        time.sleep(_POLL)
    return True


def git_running_in(root: Path, git_dir: Path) -> bool:
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
