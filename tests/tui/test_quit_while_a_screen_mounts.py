"""Quitting while a screen is still being built in the background (the app premounts every
screen after the first one's load): the app closes cleanly whatever step the build had reached.

Once Textual exits or shuts down, a widget that has not composed yet mounts no children, and its
parent's mount handler then runs over children that are not there: History's tabs raised
"No Tab with id '--content-tab-tab-diff'" (seen twice in the full suite under load, when a test
ended while History was premounting; a person's `q` at that moment did the same)."""
from __future__ import annotations

import asyncio

import pytest

from tests.support.tui import make_app

SIZE = (120, 36)


async def turns(n: int) -> None:
    for _ in range(n):
        await asyncio.sleep(0)


@pytest.mark.parametrize("how", ["the test ends", "q"])
async def test_quitting_at_any_step_of_historys_background_build_closes_cleanly(ws, how):
    mode = "history"
    # Each number of event-loop turns between the start of the build and the quit stops the
    # build at another step (History's tabs broke at turns 1 to 5 with Textual 8.2).
    for before_quit in range(12):
        app = make_app(ws, premount=False)
        try:
            async with app.run_test(size=SIZE) as pilot:  # re-raises any error the app met while closing
                await pilot.pause()
                app._premount(mode)
                await turns(before_quit)
                if how == "q":
                    await app.action_quit()
                    await turns(40)  # Textual's exit runs its course before the test's own end
        except Exception as exc:
            pytest.fail(f"quitting {before_quit} turns into building {mode}: {type(exc).__name__}: {exc}")
        assert app.return_code in (None, 0)  # 1 is Textual's "an error ended the app"
