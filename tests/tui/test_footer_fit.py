"""The footer never cuts a key in two: keys that do not fit are left out whole (`?` lists every
key), and `? Help` and `q Quit` always stay, at every width."""
from __future__ import annotations

import pytest
from textual.widgets._footer import FooterKey

from dreamdeck.tui.widgets.footer import DeckFooter
from tests.support.tui import make_app
from tests.support.waits import settle
from tests.tui.test_reflections_screen import open_reflections, pending


def shown_keys(app) -> list[FooterKey]:
    footer = app.screen.query_one(DeckFooter)
    return [k for k in footer.query(FooterKey) if "-command-palette" not in k.classes]


@pytest.mark.parametrize("width", [80, 100, 120])
async def test_every_footer_key_is_whole_and_help_and_quit_stay(ws, agent_dir, width):
    pending(ws, agent_dir)
    app = make_app(ws)
    async with app.run_test(size=(width, 30)) as pilot:
        await open_reflections(app, pilot)
        await settle(app, pilot)
        footer = app.screen.query_one(DeckFooter)
        keys = shown_keys(app)
        right = footer.region.right
        palette = [k for k in footer.query(FooterKey) if "-command-palette" in k.classes]
        if palette:
            right = palette[0].region.x
        assert [k.action for k in keys if k.region.right > right] == []
        assert [k.action for k in keys][-2:] == ["help", "quit"]
        assert keys[0].description == "Approve"  # the screen's own actions first
