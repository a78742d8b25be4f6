"""Hold the dream lock of a workspace until stdin closes (or the process is killed).

    python -m tests.faults.hold_lock <agent folder> <trigger>
Prints "held <pid>" once the lock is taken.
"""
from __future__ import annotations

import os
import sys

from dreamdeck.core.dreaming.lock import DreamLock
from dreamdeck.core.workspace import Workspace


def main() -> None:
    ws = Workspace.open(sys.argv[1])
    lock = DreamLock(ws, sys.argv[2])
    lock.acquire(timeout=10)
    print(f"held {os.getpid()}", flush=True)
    sys.stdin.read()
    lock.release()


if __name__ == "__main__":
    main()
