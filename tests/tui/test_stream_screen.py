"""Stream screen (6): the live tail over StreamView, driven with Pilot; files on disk are the truth."""
from __future__ import annotations

from pathlib import Path

from dreamdeck.core.formats.events import fragment_content_hash
from dreamdeck.core.store.stream_rewrite import rewrite_stream
from dreamdeck.core.store.streams import append_fragment
from dreamdeck.core.store.tombstones import Tombstone, record
from dreamdeck.core.workspace import Workspace
from tests.support.memory import fragment_line, shard_text, uuid_at, write_shard, write_stream
from tests.support.tui import Notes, make_app
from tests.support.waits import wait_for
from tests.tui.apps import stream_app

SIZE = (140, 40)
TODAY = stream_app.TODAY


def open_app(agent_dir: Path):
    return make_app(Workspace.open(agent_dir, today=TODAY))


async def open_stream(pilot):
    await pilot.press("6")
    app = pilot.app
    await wait_for(pilot, lambda: type(app.screen).__name__ == "StreamScreen" and app.screen.view is not None,
                   what="the stream view")
    screen = app.screen
    await wait_for(pilot, lambda: not screen.table.row_count or str(screen.query_one("#detail-meta").render()),
                   what="the selected fragment's detail")
    await pilot.pause()
    return screen


def keys(screen) -> list[str]:
    table = screen.table
    return [table.source.row(i)["key"] for i in range(table.row_count)]


def purpose(screen) -> str:
    return screen.query_one(".purpose").line  # the whole state line, however much of it fits


# --- the tail ---------------------------------------------------------------------------------
async def test_fragments_across_days_newest_at_the_bottom_and_forgotten_hidden(agent_dir):
    ws = stream_app.build(agent_dir)
    async with open_app(agent_dir).run_test(size=SIZE) as pilot:
        screen = await open_stream(pilot)
        table = screen.table
        shown = keys(screen)
        on_disk = [f"{d}#{stream_app.fragment_id(d, n)}" for d, items in stream_app.FRAGMENTS.items()
                   for n in range(len(items))]
        forgotten = f"{stream_app.FORGOTTEN[0]}#{stream_app.fragment_id(*stream_app.FORGOTTEN)}"
        assert shown == [k for k in on_disk if k != forgotten]
        assert forgotten.split("#")[1] in (agent_dir / "memory/streams/2026-05-21.jsonl").read_text()  # still on disk
        assert table.follow and table.cursor_row == len(shown) - 1
        assert table.current_row()["key"] == shown[-1]
        assert stream_app.fragment_id(TODAY, 3) in str(screen.query_one("#detail-meta").render())
        assert '"topic": "reviews"' in str(screen.query_one("#detail-json").render())
        assert "following" in purpose(screen) and "1 forgotten hidden" in purpose(screen)
        assert ws.root == agent_dir


async def test_following_shows_an_append_at_once_and_pausing_counts_them(agent_dir):
    ws = stream_app.build(agent_dir)
    async with open_app(agent_dir).run_test(size=SIZE) as pilot:
        screen = await open_stream(pilot)
        table = screen.table
        count = table.row_count
        frag = append_fragment(ws, "news", "a fragment appended by the agent", event_id=uuid_at(TODAY, 9_000_000))
        await wait_for(pilot, lambda: table.row_count == count + 1, what="the appended fragment")
        assert table.cursor_row == count and table.current_row()["id"] == frag.id
        await wait_for(pilot, lambda: frag.id in str(screen.query_one("#detail-meta").render()), what="the detail")
        assert screen.new_count == 0
        count += 1

        await pilot.press("k", "k")  # moving up pauses following
        assert not table.follow and "paused" in purpose(screen)
        cursor, key = table.cursor_row, table.current_row()["key"]
        append_fragment(ws, "news", "arrived while paused", event_id=uuid_at(TODAY, 9_100_000))
        await wait_for(pilot, lambda: table.row_count == count + 1, what="the second fragment")
        assert table.cursor_row == cursor and table.current_row()["key"] == key
        assert screen.new_count == 1 and "1 new" in purpose(screen)
        await pilot.press("F")
        assert table.follow and table.cursor_row == count
        assert screen.new_count == 0 and "new" not in purpose(screen)
        await pilot.press("F")
        assert not table.follow and table.cursor_row == count


async def test_a_rewrite_or_a_new_tombstone_while_paused_keeps_the_cursor_on_its_fragment(agent_dir):
    ws = stream_app.build(agent_dir)
    async with open_app(agent_dir).run_test(size=SIZE) as pilot:
        screen = await open_stream(pilot)
        table = screen.table
        await pilot.press("k")
        key, cursor = table.current_row()["key"], table.cursor_row
        path = agent_dir / "memory/streams" / f"{TODAY}.jsonl"
        first = stream_app.fragment_id(TODAY, 0)
        assert rewrite_stream(ws, path, lambda ln: ln.event.get("id") != first, grace_seconds=0).changed
        await wait_for(pilot, lambda: table.row_count == 9, what="the re-indexed day (compaction)")
        assert table.current_row()["key"] == key and table.cursor_row == cursor - 1
        assert f"{TODAY}#{first}" not in keys(screen)

        fid = stream_app.fragment_id("2026-05-20", 0)
        topic, body, _ = stream_app.FRAGMENTS["2026-05-20"][0]
        record(ws, "forget", Tombstone("2026-05-20", fid, fragment_content_hash(topic, body), "r", "human:test",
                                       "2026-05-22T12:00:00Z"))
        await wait_for(pilot, lambda: table.row_count == 8, what="the hidden fragment")
        assert f"2026-05-20#{fid}" not in keys(screen) and fid in (path.parent / "2026-05-20.jsonl").read_text()
        assert table.current_row()["key"] == key and table.cursor_row == cursor - 2
        assert "2 forgotten hidden" in purpose(screen) and not table.follow


# --- citation jump ----------------------------------------------------------------------------
async def test_a_citation_opened_on_topics_selects_its_fragment_pauses_and_marks_it(agent_dir):
    stream_app.build(agent_dir)
    target = ("2026-05-20", stream_app.fragment_id("2026-05-20", 1))
    write_shard(agent_dir, "editor", shard_text("Uses Helix", [f"streams/{target[0]}#{target[1]}"]))
    app = open_app(agent_dir)
    notes = Notes()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        topics = app.screen
        citations = topics.query_one("#citations")
        await wait_for(pilot, lambda: citations.option_count == 1, what="the shard's citations")
        citations.focus()
        await pilot.press("down", "enter")  # Topics sets app.pending_jump and switches to Stream
        await wait_for(pilot, lambda: type(app.screen).__name__ == "StreamScreen", what="the Stream screen")
        screen = app.screen
        await wait_for(pilot, lambda: screen.jumped_key is not None, what="the jump")
        table = screen.table
        assert table.current_row()["key"] == "#".join(target) and table.cursor_row == 1
        assert not table.follow and app.pending_jump is None
        assert "← citation" in str(screen.query_one("#detail-title").render())
        # the Stream screen exists now: the next jump is taken when it is shown again
        await pilot.press("1")
        app.pending_jump = (TODAY, stream_app.fragment_id(TODAY, 0))
        await pilot.press("6")
        await wait_for(pilot, lambda: screen.jumped_key == f"{TODAY}#{stream_app.fragment_id(TODAY, 0)}",
                       what="the second jump")
        assert table.current_row()["id"] == stream_app.fragment_id(TODAY, 0)
        # a forgotten fragment cannot be jumped to: the cursor stays and a toast says why
        cursor = table.cursor_row
        await pilot.press("1")
        app.pending_jump = stream_app.FORGOTTEN[0], stream_app.fragment_id(*stream_app.FORGOTTEN)
        await pilot.press("6")
        await wait_for(pilot, lambda: any("not in the stream" in n.message for n in notes.raised),
                       what="the toast")
        assert table.cursor_row == cursor


def five_days_of_300(agent_dir) -> None:
    """2026-05-18 … 2026-05-22, each day 300 fragments whose body names its day and number."""
    for day in ["2026-05-18", "2026-05-19", "2026-05-20", "2026-05-21", "2026-05-22"]:
        write_stream(agent_dir, day, [fragment_line(day, n, "t", f"{day} fragment {n}") for n in range(300)])


async def test_older_days_load_when_scrolled_to_or_jumped_to(agent_dir):
    five_days_of_300(agent_dir)
    app = open_app(agent_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_stream(pilot)
        view, table = screen.view, screen.table
        assert view.oldest_loaded == "2026-05-21" and view.older_days == 3 and table.row_count == 600
        assert "2 of 5 days" in purpose(screen)
        await pilot.press("g")  # the top of the loaded window: the day before loads
        await wait_for(pilot, lambda: table.row_count >= 900, what="the older day")
        assert table.current_row()["body"] == "2026-05-21 fragment 0" and table.cursor_row == 600
        assert view.oldest_loaded <= "2026-05-20"
        app.pending_jump = ("2026-05-18", uuid_at("2026-05-18", 7))
        await pilot.press("1", "6")
        await wait_for(pilot, lambda: screen.jumped_key is not None, what="the jump")
        assert view.oldest_loaded == "2026-05-18" and table.row_count == 1500 and view.older_days == 0
        assert table.cursor_row == 7 and table.current_row()["body"] == "2026-05-18 fragment 7"
        assert table.scroll_y <= 7 < table.scroll_y + table.size.height - 1  # the row is on screen


async def test_a_jump_to_a_far_day_opens_there_and_scrolling_shows_its_neighbours_in_order(agent_dir, monkeypatch):
    from dreamdeck.core.index import stream_view

    monkeypatch.setattr(stream_view, "JUMP_BYTES", 0)  # every day counts as far: the window reopens
    five_days_of_300(agent_dir)
    app = open_app(agent_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_stream(pilot)
        view, table = screen.view, screen.table
        app.pending_jump = ("2026-05-19", uuid_at("2026-05-19", 150))
        await pilot.press("1", "6")
        await wait_for(pilot, lambda: screen.jumped_key is not None, what="the jump")
        assert table.current_row()["body"] == "2026-05-19 fragment 150" and not table.follow
        assert (view.oldest_loaded, view.older_days, view.newer_days) == ("2026-05-19", 1, 2)
        assert "▼ 2 newer" in purpose(screen)
        await pilot.press("G")  # the end of the window: the next day loads below it
        await wait_for(pilot, lambda: table.row_count >= 900, what="the newer day")
        assert table.cursor_row == 599 and table.current_row()["body"] == "2026-05-20 fragment 299"
        await pilot.press("g")  # the top: the day before loads above, the cursor stays on its row
        await wait_for(pilot, lambda: table.row_count >= 1200, what="the older day")
        assert table.cursor_row == 300 and table.current_row()["body"] == "2026-05-19 fragment 0"
        assert [table.source.row(i)["body"] for i in (0, 299, 300, 600, 1199)] == [
            "2026-05-18 fragment 0", "2026-05-18 fragment 299", "2026-05-19 fragment 0",
            "2026-05-20 fragment 0", "2026-05-21 fragment 299"]
        await pilot.press("F")  # following goes back to today
        await wait_for(pilot, lambda: view.at_tail and table.current_row()["body"] == "2026-05-22 fragment 299",
                       what="the tail")
        assert table.follow and "newer" not in purpose(screen)


# --- snapshot -----------------------------------------------------------------------------------
def test_snapshot_stream_screen(snap_compare, agent_dir, utc):
    stream_app.build(agent_dir)

    async def run_before(pilot):
        await open_stream(pilot)

    assert snap_compare(open_app(agent_dir), terminal_size=SIZE, run_before=run_before)


def test_snapshot_stream_screen_paused_after_a_jump(snap_compare, agent_dir, utc):
    ws = stream_app.build(agent_dir)

    async def run_before(pilot):
        pilot.app.pending_jump = ("2026-05-21", stream_app.fragment_id("2026-05-21", 1))
        screen = await open_stream(pilot)
        await wait_for(pilot, lambda: screen.jumped_key is not None, what="the jump")
        append_fragment(ws, "news", "arrived after the jump", event_id=uuid_at(TODAY, 9_000_000))
        await wait_for(pilot, lambda: screen.new_count == 1, what="the new fragment")

    assert snap_compare(open_app(agent_dir), terminal_size=SIZE, run_before=run_before)
