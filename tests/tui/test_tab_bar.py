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


DEMO = {"reflections": 1, "proposals": 3, "vault": 1, "history": 1, "watcher": "on", "undreamed": 6}
CROWDED = {"reflections": 12, "proposals": 15, "vault": 10, "history": 11, "control": 10, "watcher": "on",
           "undreamed": 66}


@pytest.mark.parametrize("counts", [DEMO, CROWDED], ids=["demo", "five-badges-of-two-digits"])
@pytest.mark.parametrize("current", [mode for mode, _, _ in TABS])
def test_at_120_columns_every_tab_reads_whole_beside_its_badge(current, counts):
    """Badges used to push every tab but the current one to `2 Refl`, `5 Hist` at 120 columns:
    the brand, the name and the watcher's words now give way before any tab's name does."""
    line = tab_line(current, counts, LONG_NAME, 120)
    plain = line.plain
    assert cell_len(plain) <= 120
    for mode, key, label in TABS:
        badge = counts.get(mode)
        assert f"{key} {label}" + (f"⚑{badge}" if badge else "") in plain, (label, plain)
    assert "●" in plain


@pytest.mark.parametrize("counts", [DEMO, CROWDED, {}], ids=["demo", "crowded", "quiet"])
@pytest.mark.parametrize("width", [60, 80, 100, 120])
def test_switching_tabs_moves_only_the_highlight(width, counts):
    """At one width the other tabs are drawn the same way whichever tab is current (at 80 columns
    the bar used to keep the brand on Topics and drop it on Reflections)."""
    lines = [tab_line(mode, counts, LONG_NAME, width) for mode, _, _ in TABS]
    def shape(plain: str) -> str:  # the bar with the tabs' names taken out and spaces folded
        for _mode, _key, label in TABS:
            plain = plain.replace(f" {label}", "")
        return " ".join(plain.split())
    assert len({shape(line.plain) for line in lines}) == 1, [line.plain for line in lines]
    for (_mode, key, label), line in zip(TABS, lines):
        assert f"{key} {label}" in reversed_spans(line)
        assert cell_len(line.plain) <= width


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
