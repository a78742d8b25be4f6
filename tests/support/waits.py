"""Waiting, never timing: for a condition (in any test), for the app's thread workers and for
something on screen (in Pilot tests). Every wait has a generous timeout that only keeps a broken
test finite; no helper says how long it took.

`App.workers.wait_for_complete()` raises WorkerCancelled when an exclusive worker (a reload)
was superseded by a newer one; for a test that only wants "everything settled", a cancelled
reload is an expected outcome, not a failure.
"""
from __future__ import annotations

import time


def wait_until(predicate, timeout: float = 5.0, step: float = 0.05, what: str = "condition") -> None:
    """Sleep in `step`s until `predicate()` holds, or AssertionError after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(step)


async def wait_workers(app) -> None:
    from textual.worker import WorkerCancelled

    for _ in range(5):
        try:
            await app.workers.wait_for_complete()
            return
        except WorkerCancelled:
            continue


async def settle(app, pilot, rounds: int = 6) -> None:
    """Until no worker runs: an action's worker, then the reloads it triggers."""
    for _ in range(rounds):
        await wait_workers(app)
        await pilot.pause()
        if not any(w.is_running for w in app.workers):
            await pilot.pause()
            if not any(w.is_running for w in app.workers):
                return


async def wait_for(pilot, predicate, timeout: float = 10.0, what: str = "condition") -> None:
    """Pause until `predicate()` holds, or AssertionError after a generous `timeout`. It does not
    say how long it took: a test asserts what happened, never how fast (speed lives in bench/)."""
    start = time.monotonic()
    while not predicate():
        if time.monotonic() - start > timeout:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await pilot.pause(0.01)


def on_screen(*keys: str):
    """run_before for snap_compare: let the workers finish, press keys, let them finish again."""

    async def before(pilot) -> None:
        from textual.widgets import Input

        await settle(pilot.app, pilot)
        for k in keys:
            await pilot.press(k)
            await settle(pilot.app, pilot)
        for box in pilot.app.screen.query(Input):  # a blinking cursor would make the picture flaky
            box.cursor_blink = False
        await pilot.pause()

    return before
