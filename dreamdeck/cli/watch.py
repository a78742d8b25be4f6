"""`dreamdeck watch`: the dream watcher without the app, one status line per event."""
from __future__ import annotations

import signal
import sys
import threading
from datetime import datetime
from typing import TextIO

from dreamdeck.cli.stop_signals import stop_signals
from dreamdeck.core.dreaming.watcher import Watcher, format_event
from dreamdeck.core.workspace import Workspace


def run_headless(
    ws: Workspace,
    *,
    dreamer_name: str | None = None,
    review: str | None = None,
    out: TextIO = sys.stdout,
    dreamer=None,
    tick: float = 2.0,
) -> int:
    """`dreamdeck watch`: one status line per event until SIGINT/SIGTERM; then stop cleanly.

    A signal during a dream run lets the run finish (a second signal quits at once). Returns 0,
    or 2 when the watcher could not start (a bad dreamdeck.toml)."""
    write_mu = threading.Lock()

    def write(line: str) -> None:
        with write_mu:
            try:
                out.write(line + "\n")
                out.flush()
            except (OSError, ValueError):
                pass

    watcher = Watcher(
        ws, dreamer=dreamer, dreamer_name=dreamer_name, review=review,
        on_event=lambda ev: write(format_event(ev)), tick=tick,
    )
    with stop_signals() as (done, received):
        try:
            watcher.start()
        except Exception as exc:
            write(f"{datetime.now():%Y-%m-%d %H:%M:%S} error: {exc}")
            return 2
        try:
            while not done.wait(0.5):
                pass
            name = signal.Signals(received[0]).name if received else "signal"
            if watcher.status().in_run:
                write(f"{datetime.now():%Y-%m-%d %H:%M:%S} {name}: waiting for the current dream run to finish "
                      f"(send it again to quit now)")
            watcher.stop(timeout=None)
        except KeyboardInterrupt:
            watcher.stop(timeout=0)
        return 0
