"""One navigation model and a layout that fits 80×24: j/k in every list, tab through the panes in
the order they are seen, enter doing what the footer says, J/K between reflections, q asking
before it forgets hunk decisions, text columns that take the room left."""
from __future__ import annotations

from rich.cells import cell_len
from textual.widgets import OptionList

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.tui.modals import ConfirmModal
from dreamdeck.tui.widgets.hunk_view import wrap_words
from tests.support.dreamers import Scripted, draft
from tests.support.memory import cite, commit_all, fragment_line, write_stream
from tests.support.tui import make_app
from tests.support.waits import settle, wait_for
from tests.tui.apps import control_app, proposals_app, topics_app
from tests.tui.test_reflections_screen import D, _seed, open_reflections

SMALL = (80, 24)


def two_reflections(ws, agent_dir) -> None:
    """r-1 (shards a and n) and r-2 (shard m), both pending."""
    _seed(ws, agent_dir)

    def first(inp, scratch):
        scratch.write_shard("a", draft("Belief a", [cite("2026-05-20", 1), cite(D, 1)]))
        scratch.write_shard("n", draft("Something new", [cite(D, 2)]))

    def second(inp, scratch):
        scratch.write_shard("m", draft("Another belief", [cite(D, 4)]))

    assert run_dream(ws, dreamer=Scripted(first, summary="first"), review="all").reflection == "r-1"
    write_stream(agent_dir, D, [fragment_line(D, 4, "m", "another thing")])
    commit_all(agent_dir)
    assert run_dream(ws, dreamer=Scripted(second, summary="second"), review="all").reflection == "r-2"


def shown_id(screen) -> str:
    return screen._current().id  # the reflection the right-hand pane shows


async def test_j_k_move_in_the_reflections_list_and_J_K_from_the_hunks(ws, agent_dir):
    two_reflections(ws, agent_dir)
    app = make_app(ws)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_reflections(app, pilot)
        listing = screen.query_one("#reflection-list", OptionList)
        listing.focus()
        await pilot.pause()
        first = shown_id(screen)
        await pilot.press("j")
        await settle(app, pilot)
        assert listing.highlighted == 1 and shown_id(screen) != first
        await pilot.press("k")
        await settle(app, pilot)
        assert listing.highlighted == 0 and shown_id(screen) == first
        screen.query_one("#hunks").focus()
        await pilot.press("J")
        await settle(app, pilot)
        assert listing.highlighted == 1 and app.focused is screen.query_one("#hunks")
        await pilot.press("K")
        await settle(app, pilot)
        assert listing.highlighted == 0


async def test_enter_in_the_reflections_list_applies_as_the_footer_says(ws, agent_dir):
    two_reflections(ws, agent_dir)
    app = make_app(ws)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_reflections(app, pilot)
        screen.query_one("#reflection-list").focus()
        await pilot.press("a", "enter")  # approve every hunk, then enter: the apply confirm
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal) and "Apply" in app.screen._confirm


async def test_q_asks_before_forgetting_hunk_decisions_and_quits_at_once_without_any(ws, agent_dir):
    two_reflections(ws, agent_dir)
    app = make_app(ws)
    async with app.run_test(size=SMALL) as pilot:
        await open_reflections(app, pilot)
        await pilot.press("space", "q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal) and "not applied" in app.screen._body
        assert "r-1: 1 approved, 0 rejected" in app.screen._body
        await pilot.press("escape")
        await pilot.pause()
        assert app.is_running and app.current_mode == "reflections"
        await pilot.press("u", "q")  # choices cleared: nothing to lose
        await pilot.pause()
        assert not app.is_running


async def test_tab_and_shift_tab_go_through_the_topics_panes_in_the_order_they_are_seen(tmp_path):
    app = topics_app.snapshot_app(parent=tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        order = []
        for _ in range(3):
            order.append(app.focused.id)
            await pilot.press("tab")
        assert order == ["strength", "shard-body", "citations"] and app.focused.id == "strength"
        await pilot.press("shift+tab")
        assert app.focused.id == "citations"


async def test_the_topics_slug_stays_in_view_when_right_scrolls_the_other_columns(tmp_path):
    app = topics_app.snapshot_app(parent=tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#strength")
        await pilot.press(*["right"] * 8)
        await pilot.pause()
        header = table.render_line(0).text
        assert header.lstrip().startswith("slug") and "heading" in header
        assert table.render_line(1).text.lstrip().startswith("package-manager")


async def test_at_80_columns_the_proposals_content_takes_the_room_left(tmp_path):
    app = proposals_app.snapshot_app(parent=tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        await pilot.press("3")
        await settle(app, pilot)
        table = app.screen.query_one("#proposals")
        widths = dict(zip((c.key for c in table._columns), table._widths))
        assert widths["summary"] >= 30, widths
        assert "Project deadline is March 30" in table.render_line(1).text


async def test_the_dream_screens_last_dreams_keeps_a_usable_height_at_80x24(agent_dir):
    control_app.build(agent_dir)
    app = control_app.snapshot_app(agent_dir)
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        await pilot.press("7")
        await wait_for(pilot, lambda: app.current_mode == "control", what="the Dream screen")
        await settle(app, pilot)
        receipts = app.screen.query_one("#receipts")
        assert receipts.region.height >= 6  # a border, the header and at least three receipts


def test_diff_lines_wrap_at_words_and_lose_nothing_but_the_breaking_spaces():
    text = "The user always uses pnpm (not bun) for this repository, with pnpm-lock.yaml as the only lockfile."
    lines = wrap_words(text, 30)
    assert all(cell_len(line) <= 30 for line in lines)
    assert " ".join(lines) == text
    assert lines[0] == "The user always uses pnpm (not"
    assert wrap_words("x" * 65, 30) == ["x" * 30, "x" * 30, "x" * 5]  # a word longer than a line is cut



async def test_no_screen_or_pane_takes_a_global_key_but_a_text_box_being_typed_in(ws):
    """Screen-local keys may mean different verbs on different screens (`d` dreams on Dream, defers
    on Proposals, shows dormant beliefs on Recall: each footer says its own); a global key (a
    number, q, ?, ctrl+p) means the same everywhere, whichever pane has focus."""
    from textual.widgets import Input

    from dreamdeck.tui.app import SCREENS

    global_keys = {**{str(n): "switch_mode" for n in range(1, 10)}, "q": "quit", "question_mark": "help",
                   "ctrl+p": "command_palette"}
    app = make_app(ws)
    taken = []
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        for mode in SCREENS:
            app.switch_mode(mode)
            await settle(app, pilot)
            screen = app.screen
            for pane in [screen.focused, *(w for w in screen.query("*") if w.focusable and not isinstance(w, Input))]:
                if pane is not None:
                    pane.focus()
                    await pilot.pause()
                for key, action in global_keys.items():
                    bound = screen.active_bindings.get(key)
                    if bound is None or not bound.binding.action.removeprefix("app.").startswith(action):
                        taken.append((mode, type(pane).__name__, key, bound and bound.binding.action))
    assert taken == []
