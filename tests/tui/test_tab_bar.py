"""The tab bar at every width: every tab's number, the current tab's name, badges that read as
badges, and the watcher's dot always shown; the workspace name is what gives way first."""
from __future__ import annotations

import pytest
from rich.cells import cell_len

from dreamdeck.tui.app import DreamdeckApp
from dreamdeck.tui.config import UserConfig
from dreamdeck.tui.widgets.tab_bar import TABS, TabBar, tab_line
from tests.support.waits import settle

LONG_NAME = "dreamdeck-demo-8f3k2j1q-a-very-long-generated-folder-name"
BUSY = {"reflections": 2, "proposals": 5, "history": 1, "watcher": "on", "undreamed": 6}


def reversed_spans(text) -> list[str]:
    return [text.plain[s.start:s.end].strip() for s in text.spans if "reverse" in str(s.style)]


@pytest.mark.parametrize("width", [60, 80, 100, 120, 160, 200])
@pytest.mark.parametrize("current", [mode for mode, _, _ in TABS])
def test_every_number_the_current_name_the_badges_and_the_dot_fit_at_every_width(width, current):
    line = tab_line(current, BUSY, LONG_NAME, width)
    plain = line.plain
    assert cell_len(plain) <= width
    label = dict((m, f"{k} {lab}") for m, k, lab in TABS)[current]
    assert label in reversed_spans(line)
    for _mode, key, _label in TABS:
        assert f" {key} " in plain or f" {key}⚑" in plain
    assert "●" in plain
    for count in ("⚑2", "⚑5", "⚑1"):
        assert count in plain


def test_a_badge_is_a_flagged_pill_with_words_when_there_is_room_never_a_bare_number():
    line = tab_line("topics", BUSY, "agent", 200)
    assert "2 Reflections⚑2 to review  3" in line.plain
    assert "3 Proposals⚑5 open  4" in line.plain
    assert "5 History⚑1 alert  6" in line.plain
    assert "⚑2 to review" in reversed_spans(line)
    assert "● watching · 6 undreamed" in line.plain
    assert line.plain.startswith(" dreamdeck · agent │")


def test_the_workspace_name_is_shortened_before_anything_else_gives_way():
    plain = tab_line("topics", {"watcher": "on"}, LONG_NAME, 140).plain
    assert "7 Dream" in plain and "8 Forgotten" in plain and "● watching" in plain and "1 Topics" in plain
    assert "dreamdeck · dreamdeck-de" in plain and "… │" in plain and LONG_NAME not in plain
    # at 120 the name is cut to its shortest, then the other tabs' names are shortened: the brand
    # and the watcher's word stay
    plain = tab_line("topics", {"watcher": "on"}, LONG_NAME, 120).plain
    assert plain.startswith(" dreamdeck · dreamde") and "… │" in plain and LONG_NAME not in plain
    assert "1 Topics" in plain and "2 Refl " in plain and "8 Forg " in plain and "Reflections" not in plain
    assert plain.rstrip().endswith("● watching")


@pytest.mark.parametrize("current", [mode for mode, _, _ in TABS])
def test_at_120_columns_the_brand_and_the_watchers_word_fit_beside_short_tab_names(current):
    demo = {"reflections": 1, "proposals": 3, "history": 1, "watcher": "on", "undreamed": 6}
    line = tab_line(current, demo, "pico", 120)
    plain = line.plain
    assert cell_len(plain) <= 120
    assert plain.startswith(" dreamdeck · pico │") and "● watching" in plain
    assert dict((m, f"{k} {lab}") for m, k, lab in TABS)[current] in reversed_spans(line)
    assert all(f" {key} " in plain or f" {key}⚑" in plain for _mode, key, _label in TABS)


def test_at_80_columns_the_other_tabs_keep_their_numbers_and_the_current_one_its_name():
    plain = tab_line("vault", BUSY, "al-demo", 80).plain
    assert "4 Vault" in plain and "Topics" not in plain
    assert " 1  2⚑2  3" in plain or " 1  2⚑2 to review  3" in plain
    assert "●" in plain


def test_a_paused_or_stopped_watcher_has_its_own_mark():
    assert "⏸ paused" in tab_line("topics", {"watcher": "paused"}, "agent", 200).plain
    assert "○ watcher off" in tab_line("topics", {}, "agent", 200).plain
    assert "○" in tab_line("topics", {}, LONG_NAME, 60).plain


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_the_app_draws_the_fitted_bar_at_its_width(ws, size):
    app = DreamdeckApp(ws, watcher=False, user_config=UserConfig())
    app.workspace_name = LONG_NAME
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        for _mode, key, label in TABS:
            await pilot.press(key)
            await settle(app, pilot)
            bar = app.screen.query_one(TabBar)
            line = bar.render()
            assert f"{key} {label}" in reversed_spans(line)
            assert cell_len(line.plain) <= size[0]
            assert "○" in line.plain
            if size[0] >= 120:
                assert "7 Dream" in line.plain


def test_a_badge_sits_against_its_own_tab_so_it_never_reads_as_the_next_ones():
    """At 80 and 120 columns '2 Refl ⚑1 3 Prop' read as well as a badge of tab 3: the pill now
    touches its tab and the space goes after it."""
    for width in (80, 120):
        plain = tab_line("topics", {"reflections": 1, "proposals": 3, "history": 1}, "pico", width).plain
        assert "⚑1  3" in plain and "⚑3  4" in plain and "⚑1  6" in plain, plain
        assert " ⚑" not in plain, plain
