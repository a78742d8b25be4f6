"""Stream screen (6) curation and layout: `/` filter (searched day by day), pin and forget of the
selected fragment, and a body column that takes the room that is left at every size.

Asserted on what the screen shows, and on the files and git history an action changes."""
from __future__ import annotations

import json

from dreamdeck.core.formats.citations import citation_keys
from dreamdeck.core.workspace import Workspace
from tests.support.git import git
from tests.support.tui import make_app
from tests.support.waits import settle, wait_for
from tests.tui.apps import stream_app

TODAY = stream_app.TODAY
fid = stream_app.fragment_id


async def open_stream(pilot):
    await pilot.press("6")
    app = pilot.app
    await wait_for(pilot, lambda: type(app.screen).__name__ == "StreamScreen" and app.screen.view is not None,
                   what="the stream view")
    screen = app.screen
    await wait_for(pilot, lambda: screen.table.row_count and str(screen.query_one("#detail-meta").render()),
                   what="the selected fragment's detail")
    await pilot.pause()
    return screen


def shown_keys(screen) -> list[str]:
    table = screen.table
    return [table.source.row(i)["key"] for i in range(table.row_count)]


def purpose(screen) -> str:
    return screen.query_one(".purpose").line  # the whole state line, however much of it fits


async def type_filter(pilot, screen, text: str) -> None:
    await pilot.press("slash")
    box = screen.query_one("#filter")
    assert box.has_focus
    box.value = text
    await wait_for(pilot, lambda: screen.search_done and screen.searched_for == text, what="the search")
    await pilot.pause()


def key(day: str, n: int) -> str:
    return f"{day}#{fid(day, n)}"


# --- filter ------------------------------------------------------------------------------------
async def test_slash_filters_by_words_and_terms_and_esc_returns_to_the_live_tail(agent_dir):
    stream_app.build(agent_dir)
    async with make_app(Workspace.open(agent_dir, today=TODAY)).run_test(size=(140, 40)) as pilot:
        screen = await open_stream(pilot)
        everything = shown_keys(screen)
        await type_filter(pilot, screen, "topic:deploys")
        assert shown_keys(screen) == [key("2026-05-20", 0), key("2026-05-21", 0), key(TODAY, 1)]
        assert "3 matches · searched 3 of 3 days" in purpose(screen)
        assert not screen.table.follow and screen.table.current_row()["key"] == key(TODAY, 1)

        await type_filter(pilot, screen, "helix who:alice to:2026-05-21")
        assert shown_keys(screen) == [key("2026-05-20", 1), key("2026-05-21", 3)]
        assert "2 matches · searched 2 of 2 days" in purpose(screen)

        await type_filter(pilot, screen, "token")  # the forgotten fragment never matches
        assert shown_keys(screen) == [] and "no matches" in purpose(screen)

        await pilot.press("escape")
        await wait_for(pilot, lambda: shown_keys(screen) == everything, what="the live tail")
        assert screen.table.follow and "following" in purpose(screen)
        assert not screen.query_one("#filter").has_class("-visible")


async def test_a_bad_day_in_the_filter_is_said_in_words(agent_dir):
    stream_app.build(agent_dir)
    async with make_app(Workspace.open(agent_dir, today=TODAY)).run_test(size=(140, 40)) as pilot:
        screen = await open_stream(pilot)
        await type_filter(pilot, screen, "from:2026-13-40")
        assert "from:2026-13-40 is not a day (YYYY-MM-DD)" in purpose(screen)


async def test_the_filter_searches_the_older_days_the_tail_has_not_loaded(agent_dir):
    from tests.support.memory import fragment_line, write_stream

    days = [f"2026-04-{d:02d}" for d in range(1, 29)]
    for day in days:
        write_stream(agent_dir, day, [fragment_line(day, n, "t", f"{day} chatter {n}") for n in range(40)])
    write_stream(agent_dir, "2026-04-02", [fragment_line("2026-04-02", 99, "needle", "the one from early April")])
    async with make_app(Workspace.open(agent_dir, today=TODAY)).run_test(size=(140, 40)) as pilot:
        screen = await open_stream(pilot)
        assert screen.view.older_days > 0  # the tail has not read early April
        await type_filter(pilot, screen, "topic:needle")
        assert [screen.table.source.row(i)["body"] for i in range(screen.table.row_count)] == ["the one from early April"]
        assert "1 match · searched 28 of 28 days" in purpose(screen)


# --- pin and forget ----------------------------------------------------------------------------------
async def test_p_pins_the_selected_fragment_to_the_vault(agent_dir):
    stream_app.build(agent_dir)
    async with make_app(Workspace.open(agent_dir, today=TODAY)).run_test(size=(140, 40)) as pilot:
        screen = await open_stream(pilot)
        await pilot.press("k")  # today's decaf, above the newest fragment
        assert screen.table.current_row()["key"] == key(TODAY, 2)
        await pilot.press("p")
        vault = agent_dir / "memory/vault"
        await wait_for(pilot, lambda: vault.is_dir() and list(vault.glob("*.md")), what="the vault file")
        await settle(pilot.app, pilot)
        (pinned,) = vault.glob("*.md")
        assert citation_keys(pinned.read_text()) == {(TODAY, fid(TODAY, 2))}
        assert git(agent_dir, "log", "-1", "--format=%s").startswith("memory: pin")
        assert any(n.title == "Pin" and pinned.stem in n.message for n in pilot.app._notifications)


async def test_f_forgets_the_selected_fragment_with_a_reason_and_says_how_to_undo(agent_dir):
    stream_app.build(agent_dir)
    async with make_app(Workspace.open(agent_dir, today=TODAY)).run_test(size=(140, 40)) as pilot:
        screen = await open_stream(pilot)
        await type_filter(pilot, screen, "decaf")
        await pilot.press("enter")  # keep the filter; the table has focus
        target = screen.table.current_row()["key"]
        assert target == key(TODAY, 2)
        await pilot.press("f")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "ReasonModal", what="the reason dialog")
        dialog = pilot.app.screen
        detail = " ".join(str(s.render()) for s in dialog.query("Static"))
        assert "Forgotten screen (8)" in detail and "dreamdeck unforget" in detail
        dialog.query_one("#reason").value = "not about the user"
        await pilot.press("enter")
        stones = agent_dir / "memory/meta/tombstones.jsonl"
        await wait_for(pilot, lambda: stones.exists(), what="the tombstone")
        await settle(pilot.app, pilot)
        records = [json.loads(line) for line in stones.read_text().splitlines()]
        assert any(r["id"] == fid(TODAY, 2) and r["reason"] == "not about the user" and r["actor"] == "human:tester"
                   for r in records)
        assert git(agent_dir, "log", "-1", "--format=%s").strip() == f"memory: forget streams/{target}"
        await wait_for(pilot, lambda: target not in shown_keys(screen), what="the row to leave the results")
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen.table.follow, what="the live tail")
        await wait_for(pilot, lambda: target not in shown_keys(screen), what="the row hidden in the tail")


# --- layout ----------------------------------------------------------------------------------------
async def test_at_80x24_the_body_takes_the_room_left_and_the_detail_stacks_below(agent_dir):
    stream_app.build(agent_dir)
    async with make_app(Workspace.open(agent_dir, today=TODAY)).run_test(size=(80, 24)) as pilot:
        screen = await open_stream(pilot)
        table = screen.table
        assert [c.key for c in table.columns] == ["date", "time", "topic", "body"]
        assert table.column_widths[-1] >= 30
        detail = screen.query_one("#detail")
        assert detail.region.y > table.region.y and detail.region.width == table.region.width
        assert table.region.height >= 10


async def test_at_120x36_the_body_column_is_most_of_the_width(agent_dir):
    stream_app.build(agent_dir)
    async with make_app(Workspace.open(agent_dir, today=TODAY)).run_test(size=(120, 36)) as pilot:
        screen = await open_stream(pilot)
        assert [c.key for c in screen.table.columns] == ["date", "time", "topic", "who", "body"]
        assert screen.table.column_widths[-1] >= 60


def test_snapshot_stream_80x24(snap_compare, agent_dir, utc):
    stream_app.build(agent_dir)

    async def run_before(pilot):
        await open_stream(pilot)

    assert snap_compare(make_app(Workspace.open(agent_dir, today=TODAY)), terminal_size=(80, 24), run_before=run_before)


def test_snapshot_stream_120x36_filtered(snap_compare, agent_dir, utc):
    stream_app.build(agent_dir)

    async def run_before(pilot):
        screen = await open_stream(pilot)
        await type_filter(pilot, screen, "topic:deploys")
        screen.query_one("#filter").cursor_blink = False
        await pilot.pause()

    assert snap_compare(make_app(Workspace.open(agent_dir, today=TODAY)), terminal_size=(120, 36), run_before=run_before)


def test_snapshot_stream_200x50(snap_compare, agent_dir, utc):
    stream_app.build(agent_dir)

    async def run_before(pilot):
        await open_stream(pilot)

    assert snap_compare(make_app(Workspace.open(agent_dir, today=TODAY)), terminal_size=(200, 50), run_before=run_before)
