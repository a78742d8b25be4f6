"""Prose cut to the room it has ends at a word (`The user always…`, not `The user always u…`),
in a table's cells and in each screen's purpose line; a path, an id or Chinese text, which has no
word to end at, is cut where the room ends."""
from __future__ import annotations

import pytest
from rich.cells import cell_len

from dreamdeck.tui.widgets.virtual_table import _fit
from dreamdeck.tui.widgets.word_cut import cut_at_word
from tests.support.tui import make_app
from tests.support.waits import settle


def test_prose_is_cut_after_its_last_whole_word():
    assert cut_at_word("The user always uses pnpm", 18) == "The user always…"
    assert _fit("The user always uses pnpm", 18, "left") == "The user always…  "


def test_a_cut_at_a_space_keeps_every_word_it_can():
    assert cut_at_word("deploy process notes", 15) == "deploy process…"


@pytest.mark.parametrize("text", ["streams/2026-11-03#01a1a17f-906c-7e8e", "memory: forget streams/2026-11-23#01a2"])
def test_a_path_or_an_id_is_cut_where_the_room_ends_rather_than_lose_most_of_it(text):
    assert cut_at_word(text, 30) == text[:29] + "…"


def test_chinese_text_is_cut_where_the_room_ends():
    cut = cut_at_word("用户总是在这个仓库里使用 pnpm 而不是 bun", 12)
    assert cut.endswith("…") and cell_len(cut) <= 12 and cut.startswith("用户总是")


def test_what_fits_is_left_whole():
    assert cut_at_word("short", 5) == "short"


async def test_at_80_columns_each_purpose_line_ends_at_a_word(ws):
    app = make_app(ws)
    async with app.run_test(size=(80, 24)) as pilot:
        for key in "125":
            await pilot.press(key)
            await settle(app, pilot)
            purpose = app.screen.query_one(".purpose")
            shown = str(purpose.render_line(0).text).strip()
            assert cell_len(shown) <= 78
            if shown.endswith("…"):
                cut = shown[:-1]
                assert (app.screen.PURPOSE + " ").startswith(cut) and app.screen.PURPOSE[len(cut)] == " ", shown
