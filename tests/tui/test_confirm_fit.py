"""The confirm dialog (apply, rollback, accept) at the sizes a newcomer has: at 80x24 it fills the
screen it may use and says when there is more below; at 120 columns it is wider than the 80 it
was fixed at, so its lines wrap less. Shown on the demo's real rollback preview (a dream of ten
fragments: thirty-odd lines) and the real apply confirm."""
from __future__ import annotations

import pytest
from textual.widgets import Label, Static

from dreamdeck.core.workspace import Workspace
from dreamdeck.demo.build import build_demo
from dreamdeck.tui.modals import ConfirmModal
from dreamdeck.tui.widgets.virtual_table import VirtualTable
from tests.support.git import git
from tests.support.tui import make_app
from tests.support.waits import settle, wait_for
from tests.tui.apps import reflections_app


async def open_rollback_of_the_biggest_dream(pilot, root) -> ConfirmModal:
    """History, the cursor on the demo's dream of ten fragments, `r`: its preview."""
    app = pilot.app
    subjects = git(root, "log", "--format=%s").splitlines()
    target = next(n for n, s in enumerate(subjects) if s.startswith("dream: 10 fragments"))
    await settle(app, pilot)
    table = app.screen.query_one("#commits", VirtualTable)
    table.move_cursor(target)
    await settle(app, pilot)
    await pilot.press("r")
    await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), what="the rollback preview")
    await pilot.pause()
    return app.screen


@pytest.fixture
def demo(tmp_path) -> Workspace:
    return Workspace.open(build_demo(tmp_path / "demo"))


async def test_at_80x24_the_rollback_preview_shows_most_of_the_screen_and_says_more_is_below(demo):
    app = make_app(demo, "history")
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_rollback_of_the_biggest_dream(pilot, demo.root)
        body = dialog.query_one("#confirm-scroll")
        box = dialog.query_one("#confirm-box")
        assert box.region.y >= 0 and box.region.bottom <= 24 and box.region.right <= 80
        assert body.size.height >= 13, "a third of the screen showed one row of each list"
        assert body.max_scroll_y > 0  # thirty-odd lines: it does not fit
        more = dialog.query_one("#confirm-more", Static)
        assert more.display and "more below" in str(more.render())
        await pilot.press("G")  # the pane's keys, as in every other pane
        await pilot.pause()
        assert body.scroll_y == body.max_scroll_y
        assert not more.display
        buttons = [b.region for b in dialog.query("Button")]
        assert all(0 < r.bottom <= 24 for r in buttons)
        await pilot.press("n")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmModal)


async def test_a_preview_that_fits_says_nothing_about_more(demo):
    app = make_app(demo, "history")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        app.push_screen(ConfirmModal("Roll back abc1234?", "One file.\n\nThis is a new commit.", "Roll back"))
        await pilot.pause()
        assert not app.screen.query_one("#confirm-more", Static).display


async def test_the_apply_confirm_is_wider_at_120_columns_and_whole_at_80(tmp_path):
    widths = {}
    for size in ((80, 24), (120, 36)):
        app = reflections_app.snapshot_app(tmp_path / f"{size[0]}")
        async with app.run_test(size=size) as pilot:
            await settle(app, pilot)
            await pilot.press("2")
            await settle(app, pilot)
            await pilot.press("space", "enter")
            await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmModal), what="the apply confirm")
            await pilot.pause()
            box = app.screen.query_one("#confirm-box")
            assert box.region.x >= 0 and box.region.right <= size[0]
            title = app.screen.query_one(".title", Label)
            assert title.region.right <= box.region.right
            widths[size[0]] = box.region.width
    assert widths[80] >= 76  # nearly the whole screen at 80 columns
    assert widths[120] >= 100  # not the 80 it was fixed at

