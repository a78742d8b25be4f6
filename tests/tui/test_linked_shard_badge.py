"""The Dream tab's ⚑ badge for a linked shard: a symbolic or hard link in memory/topics stops
every change and every dream, and the tab bar says so on every screen, not only the Dream
screen's banner; removing the link clears it."""
from __future__ import annotations

import os

from dreamdeck.tui.widgets.tab_bar import TabBar
from tests.support.tui import make_app
from tests.support.waits import settle, wait_for
from tests.tui.apps import topics_app


def bar(app) -> str:
    return str(app.screen.query_one(TabBar).render())


async def test_a_linked_shard_flags_the_dream_tab_until_it_is_removed(ws, tmp_path):
    topics_app.build_topics(ws.root)
    outside = tmp_path / "outside.md"
    outside.write_text("not memory's\n")
    os.symlink(outside, ws.topics_dir / "creds.md")
    app = make_app(ws)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(app, pilot)
        await wait_for(pilot, lambda: "7 Dream⚑1 linked shard" in bar(app), what="the badge")
        await pilot.press("4")  # on every screen
        await settle(app, pilot)
        assert "7 Dream⚑1 linked shard" in bar(app)
        await pilot.press("7")
        await settle(app, pilot)
        assert "memory/topics/creds.md is a symbolic link" in str(app.screen.query_one("#link-alert").render())
        (ws.topics_dir / "creds.md").unlink()
        await pilot.press("1", "ctrl+r")
        await settle(app, pilot)
        await wait_for(pilot, lambda: "⚑1 linked" not in bar(app), what="the badge to clear")
        assert "7 Dream " in bar(app)


async def test_no_link_no_badge_on_the_dream_tab(ws):
    topics_app.build_topics(ws.root)
    app = make_app(ws)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(app, pilot)
        assert "7 Dream  8" in bar(app) and "linked" not in bar(app)
