"""A reason modal says how to go on: it has no buttons, so it says enter confirms and esc cancels,
on screen at 80x24 even under a long explanation."""
from __future__ import annotations

from textual.widgets import Static

from dreamdeck.tui.modals import ReasonModal
from tests.support.tui import make_app
from tests.support.waits import settle


async def test_the_reason_modal_says_enter_confirms_and_esc_cancels_within_80x24(ws):
    app = make_app(ws)
    chosen: list[str | None] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        detail = " ".join(["It is hidden everywhere and never comes back."] * 6)
        app.push_screen(ReasonModal("Forget fragment 2026-05-22#019e…?", detail=detail,
                                    placeholder="reason (required)"), chosen.append)
        await pilot.pause()
        hint = app.screen.query_one("#reason-hint", Static)
        assert str(hint.render()) == "enter confirms · esc cancels"
        assert 0 < hint.region.bottom <= 24 and hint.region.height == 1
        await pilot.press("escape")
        await pilot.pause()
        assert chosen == [None]
