"""The Topics table's heading column shows the claim, not the tier prefix the offline dreamer
writes in front of it ("Always (7 days): …"): the tier column already says it, and at 80 or 120
columns the prefix was all the heading cell had room for."""
from __future__ import annotations

from dreamdeck.tui.widgets.virtual_table import VirtualTable
from tests.support.memory import cite, shard_text, write_shard
from tests.support.tui import make_app
from tests.support.waits import settle


async def strength_lines(ws, size: tuple[int, int], ys: tuple[int, ...]) -> list[str]:
    """The Topics table's rendered lines `ys` (0 is the header) once the app has settled at `size`."""
    app = make_app(ws)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#strength", VirtualTable)
        return [table.render_line(y).text for y in ys]


async def test_the_heading_cell_shows_the_claim_without_its_tier_prefix(ws):
    write_shard(ws.root, "release", shard_text("Always (7 days): Dana cuts the release on Thursdays",
                                               [cite("2026-05-20", 1)]))
    write_shard(ws.root, "coffee", shard_text("Always ask Dana before the release", [cite("2026-05-20", 2)]))
    app = make_app(ws)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#strength", VirtualTable)
        lines = [table.render_line(y).text for y in range(1, 3)]
        release = next(line for line in lines if line.lstrip().startswith("release"))
        assert "Dana cuts the release" in release and "Always (7" not in release
        coffee = next(line for line in lines if line.lstrip().startswith("coffee"))
        assert "Always ask Dana" in coffee  # the claim's own words stay
        rows = [table.source.row(i) for i in range(table.row_count)]
        assert {r["heading"] for r in rows} == {"Always (7 days): Dana cuts the release on Thursdays",
                                               "Always ask Dana before the release"}  # the data is the file's


async def test_a_hostile_heading_without_its_prefix_is_still_shown_escaped(ws):
    write_shard(ws.root, "hostile", shard_text("Always (7 days): the \x1b[2J[bold]train\u202e leaves",
                                               [cite("2026-05-20", 1)]))
    (line,) = await strength_lines(ws, (120, 36), (1,))
    assert "the \\x1b[2J[bold]train" in line and "\x1b" not in line and "Always (7" not in line


async def test_at_80_columns_the_heading_takes_the_room_and_the_numbers_headers_are_abbreviated(ws):
    write_shard(ws.root, "release", shard_text("Dana cuts the weekly release on Thursdays after planning",
                                               [cite("2026-05-20", 1)]))
    header, row = await strength_lines(ws, (80, 24), (0, 1))
    assert "cit" in header and "cites" not in header
    assert "release" in row and "Dana cuts the weekly release" in row  # 10 cells before
    (header,) = await strength_lines(ws, (120, 36), (0,))  # wide, the headers are words again
    assert "cites" in header and "days" in header


async def test_at_80_columns_a_heading_beside_a_long_slug_shows_forty_characters_not_seventeen(ws):
    """The heading is what a person reads first. At 80 columns the days and the tier go (the
    shard's meta line says the days; the heading's own words say the tier: "always",
    "consistently"), so a heading beside the demo's longest slug shows a sentence, not a word."""
    heading = "The user always names branches after the ticket, like PLAT-448-retry-queue"
    write_shard(ws.root, "naming-conventions", shard_text(heading, [cite("2026-05-20", 1)]))
    header, row = await strength_lines(ws, (80, 24), (0, 1))
    assert "tier" not in header and "day" not in header and "status" in header
    assert "The user always names branches after the" in row  # 17 characters before
    (header,) = await strength_lines(ws, (120, 36), (0,))
    assert "tier" in header and "days" in header  # wide, every column is back
