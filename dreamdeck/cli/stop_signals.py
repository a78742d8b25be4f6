"""SIGINT and SIGTERM as a flag a long-running verb polls, never as an exception.

A KeyboardInterrupt raised by Python's own SIGINT handler lands wherever the main thread is: in a
finalizer or a garbage collection it is printed as "Exception ignored" and swallowed, and the
loop goes on forever (`stream --follow` once ignored a SIGINT that way under load). A flag cannot be
swallowed. A second signal still raises KeyboardInterrupt, so a person can always quit at once.
"""
from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["stop_signals"]


@contextmanager
def stop_signals() -> Iterator[tuple[threading.Event, list[int]]]:
    """(set when SIGINT or SIGTERM arrives, the signals received) while the block runs; the
    previous handlers are put back after it. Outside the main thread nothing is caught."""
    stop = threading.Event()
    received: list[int] = []

    def on_signal(signum, _frame) -> None:
        received.append(signum)
        if len(received) > 1:
            raise KeyboardInterrupt
        stop.set()

    previous = {}
    if threading.current_thread() is threading.main_thread():  # signals can only be caught there
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, on_signal)
    try:
        yield stop, received
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
