"""Waiting for the app's thread workers in Pilot tests.

`App.workers.wait_for_complete()` raises WorkerCancelled when an exclusive worker (a reload)
was superseded by a newer one; for a test that only wants "everything settled", a cancelled
reload is an expected outcome, not a failure.
"""
from __future__ import annotations

from textual.worker import WorkerCancelled


async def wait_workers(app) -> None:
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


async def wait_for(pilot, predicate, timeout: float = 10.0, what: str = "condition") -> float:
    """Pause until `predicate()` holds; the seconds it took, or AssertionError after `timeout`."""
    import time

    start = time.monotonic()
    while not predicate():
        if time.monotonic() - start > timeout:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await pilot.pause(0.01)
    return time.monotonic() - start


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
