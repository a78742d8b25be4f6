"""The Reflections screen's apply confirm lists what the approval removes from the streams, each
fragment with its reason, and the count in its title: exactly what the apply then removes."""
from __future__ import annotations

from dreamdeck.tui.modals import ConfirmModal
from tests.support.memory import the_next_day, uuid_at
from tests.support.tui import make_app
from tests.support.waits import settle
from tests.tui.test_reflections_screen import SIZE, D, open_reflections, pending


async def test_the_apply_confirm_lists_each_fragment_it_collects_with_its_reason(ws, agent_dir):
    pending(ws, agent_dir)
    ws2 = the_next_day(ws)
    path = agent_dir / "memory" / "streams" / f"{D}.jsonl"
    before = path.read_text().splitlines()
    app = make_app(ws2)
    async with app.run_test(size=SIZE) as pilot:
        await open_reflections(app, pilot)
        await pilot.press("a", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        title = app.screen._title
        body = str(app.screen.query_one("#confirm-body").render())
        assert title.endswith("It collects 1 fragment from the streams.")
        assert f"streams/{D}#{uuid_at(D, 3)}: noise: scripted: not cited" in body
        await pilot.press("y")
        await settle(app, pilot)

    gone = [line for line in before if line not in path.read_text().splitlines()]
    assert len(gone) == 1 and uuid_at(D, 3) in gone[0]
