"""One dream at a time across processes: an OS file lock plus a holder record for people.

The kernel releases the lock when its holder dies, so the lock itself cannot go stale; the
holder record can, and is cleared when its pid is gone or it is older than the configured age.
"""
from __future__ import annotations

import json
import os
import socket
import time
from dataclasses import dataclass

from filelock import FileLock, Timeout

from dreamdeck.core.errors import Busy
from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.io.atomic import atomic_write_text, remove_file
from dreamdeck.core.workspace import Workspace


class DreamBusy(Busy):
    pass


@dataclass(frozen=True)
class Holder:
    pid: int
    host: str
    trigger: str
    started: float

    def describe(self) -> str:
        age = int(time.time() - self.started)
        return f"pid {self.pid} on {self.host} ({self.trigger}, {age}s ago)"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class DreamLock:
    def __init__(self, ws: Workspace, trigger: str = "manual", stale_minutes: int = 60):
        self.ws = ws
        self.trigger = trigger
        self.stale_seconds = stale_minutes * 60
        self._lock = FileLock(str(ws.lock_dir / "dream.lock"))
        self._info = ws.lock_dir / "dream.holder.json"

    def holder(self) -> Holder | None:
        """Who holds the dream lock now, or None (a stale record is cleared on sight)."""
        try:
            data = load_json(self._info.read_text())
            holder = Holder(int(data["pid"]), str(data["host"]), str(data["trigger"]), float(data["started"]))
        except (FileNotFoundError, ValueError, KeyError, TypeError):
            return None
        same_host = holder.host == socket.gethostname()
        dead = same_host and not _pid_alive(holder.pid)
        old = time.time() - holder.started > self.stale_seconds
        if dead or (old and not self._held_by_anyone()):
            remove_file(self._info)
            return None
        return holder

    def _held_by_anyone(self) -> bool:
        probe = FileLock(self._lock.lock_file)
        try:
            probe.acquire(timeout=0)
        except Timeout:
            return True
        probe.release()
        return False

    def acquire(self, timeout: float = 0) -> None:
        try:
            self._lock.acquire(timeout=timeout)
        except Timeout:
            holder = self.holder()
            who = holder.describe() if holder else "another process"
            raise DreamBusy(f"a dream is already running: {who}") from None
        atomic_write_text(self._info, json.dumps({
            "pid": os.getpid(), "host": socket.gethostname(), "trigger": self.trigger, "started": time.time(),
        }))

    def release(self) -> None:
        remove_file(self._info)
        self._lock.release()

    def __enter__(self) -> DreamLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
