"""The memory lock: one mutation at a time across processes (the dream lock is separate and outer)."""
from __future__ import annotations

from filelock import FileLock

from dreamdeck.core.workspace import Workspace


def memory_lock(ws: Workspace, timeout: float = 60.0) -> FileLock:
    return FileLock(str(ws.lock_dir / "memory.lock"), timeout=timeout)
