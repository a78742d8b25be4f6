"""What the dream watcher reports: its events and its status, as the command line and the app read them."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

EVENT_KINDS = ("decision", "run-start", "run-done", "error", "started", "stopped")


@dataclass(frozen=True)
class WatchEvent:
    kind: str  # one of EVENT_KINDS
    message: str
    receipt: dict | None = None
    at: datetime = field(default_factory=datetime.now)


@dataclass(frozen=True)
class WatcherStatus:
    running: bool
    paused: bool
    next_scheduled: datetime | None  # None only when the settings cannot be read
    undreamed: int
    lock_holder: str | None
    last_receipt: dict | None
    last_decision: str
    runs: int
    in_run: bool = False
    watching: str | None = None  # the folder being watched, relative to the workspace


def format_event(ev: WatchEvent) -> str:
    """One status line: `2026-05-22 10:30:00 run: 3 undreamed fragments (watch)`."""
    return f"{ev.at:%Y-%m-%d %H:%M:%S} {ev.message}"
