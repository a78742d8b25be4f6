"""VirtualTable: renders only visible rows, keyboard/mouse navigation, sort, filter, refresh, follow."""
from __future__ import annotations

from collections.abc import Mapping

import pytest
from textual import events
from textual.app import App, ComposeResult

from dreamdeck.tui.widgets.virtual_table import Column, ListRowSource, VirtualTable, _fit, cell_text
from tests.tui.apps import table_app

SIZE = (100, 30)

COLUMNS = [
    Column("id", "Id", width=6, align="right"),  # ids grow past the first page
    Column("name", "Name"),
    Column("score", "Score", align="right"),
]


def make_row(i: int) -> dict[str, object]:
    return {"id": i, "name": f"row {i}", "score": (i * 7919) % 1000}


class CountingSource:
    """A lazy RowSource that records which rows were asked for."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.calls: list[int] = []

    def __len__(self) -> int:
        return self.count

    def row(self, index: int) -> Mapping[str, object]:
        assert 0 <= index < self.count
        self.calls.append(index)
        return make_row(index)


class TableApp(App):
    def __init__(self, source, **table_kwargs) -> None:
        super().__init__()
        self.source = source
        self.table_kwargs = table_kwargs
        self.highlighted: list[VirtualTable.RowHighlighted] = []
        self.selected: list[VirtualTable.RowSelected] = []
        self.sorts: list[VirtualTable.SortChanged] = []

    def compose(self) -> ComposeResult:
        yield VirtualTable(COLUMNS, self.source, id="table", **self.table_kwargs)

    def on_mount(self) -> None:
        self.query_one(VirtualTable).focus()

    def on_virtual_table_row_highlighted(self, message: VirtualTable.RowHighlighted) -> None:
        self.highlighted.append(message)

    def on_virtual_table_row_selected(self, message: VirtualTable.RowSelected) -> None:
        self.selected.append(message)

    def on_virtual_table_sort_changed(self, message: VirtualTable.SortChanged) -> None:
        self.sorts.append(message)


def body_lines(table: VirtualTable) -> list[str]:
    """Texts of the rendered body lines (below the header)."""
    height = table.scrollable_content_region.height
    return [table.render_line(y).text for y in range(1, height)]


def visible_ids(table: VirtualTable) -> list[int]:
    ids = []
    for line in body_lines(table):
        first = line.split()
        if first and first[0].isdigit():
            ids.append(int(first[0]))
    return ids


async def wheel_down(pilot, widget, offset: tuple[int, int], times: int) -> None:
    """Pilot has no wheel helper: post the wheel events the terminal driver would, at `offset`
    inside `widget`, to the app (which forwards them to the widget under the pointer)."""
    x, y = widget.region.x + offset[0], widget.region.y + offset[1]
    for _ in range(times):
        pilot.app.post_message(events.MouseScrollDown(None, x, y, 0, 1, 0, False, False, False, screen_x=x, screen_y=y))
        await pilot.pause()


def body_height(table: VirtualTable) -> int:
    return table.scrollable_content_region.height - 1


def assert_cursor_visible(table: VirtualTable) -> None:
    top = round(table.scroll_y)
    assert top <= table.cursor_row < top + body_height(table)
    line = table.render_line(table.cursor_row - top + 1).text
    assert line.split()[0] == str(table.current_row()["id"])


# ---------------------------------------------------------------------------
# Rendering only what is visible
# ---------------------------------------------------------------------------


@pytest.mark.perf_contract(reason="the table asks its row source for the visible rows only, at 100,000 rows")
async def test_mounting_100k_rows_reads_only_the_visible_rows():
    source = CountingSource(100_000)
    app = TableApp(source)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one(VirtualTable)
        assert table.virtual_size.height == 100_001
        visible = body_height(table)
        assert visible == SIZE[1] - 1
        assert source.calls, "nothing was rendered"
        assert set(source.calls) <= set(range(visible))
        lines = body_lines(table)
        assert lines[0].split()[:3] == ["0", "row", "0"]
        assert lines[visible - 1].split()[:3] == [str(visible - 1), "row", str(visible - 1)]
        assert "Id" in table.render_line(0).text and "Score" in table.render_line(0).text

        # Jumping to the end reads the last page, not the rows in between.
        source.calls.clear()
        await pilot.press("G")
        await pilot.pause()
        assert source.calls
        assert min(source.calls) >= 100_000 - visible
        assert visible_ids(table)[-1] == 99_999


async def test_header_stays_on_top_while_scrolling():
    app = TableApp(ListRowSource([make_row(i) for i in range(1000)]))
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.press("pagedown", "pagedown")
        await pilot.pause()
        assert table.scroll_y > 0
        assert table.render_line(0).text.split()[:3] == ["Id", "Name", "Score"]
        assert visible_ids(table)[0] == round(table.scroll_y)


async def test_auto_widths_come_from_label_and_first_page_and_cells_are_cut_with_ellipsis():
    rows = [{"id": i, "name": "x" * (5 if i < 100 else 200), "score": 1} for i in range(1000)]
    app = TableApp(ListRowSource(rows))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one(VirtualTable)
        assert table.column_widths == (6, len("Name") + 2, len("Score") + 2)
        await pilot.press("G")
        await pilot.pause()
        line = table.render_line(body_height(table)).text
        assert "xxxxx…" in line
        assert "x" * 7 not in line


def test_fit_cuts_with_ellipsis_and_aligns():
    assert _fit("abcdef", 4, "left") == "abc…"
    assert _fit("ab", 4, "left") == "ab  "
    assert _fit("42", 5, "right") == "   42"
    assert _fit("日本語", 4, "left") == "日… "  # a wide character is not split; the … follows what is kept
    assert cell_text(None) == "" and cell_text(0.5) == "0.500" and cell_text("a\tb") == "a b"


async def test_empty_source_shows_the_empty_message():
    app = TableApp(ListRowSource([]), empty_message="Nothing here")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one(VirtualTable)
        assert table.current_row() is None
        assert any("Nothing here" in line for line in body_lines(table))
        await pilot.press("j", "G", "enter")  # no crash, no messages
        assert app.selected == []


# ---------------------------------------------------------------------------
# Keyboard
# ---------------------------------------------------------------------------


async def test_keys_move_the_cursor_and_keep_it_visible():
    source = ListRowSource([make_row(i) for i in range(10_000)])
    app = TableApp(source)
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(VirtualTable)
        page = body_height(table)

        await pilot.press("j", "j", "j", "down")
        assert table.cursor_row == 4
        await pilot.press("k", "up")
        assert table.cursor_row == 2
        await pilot.pause()
        assert app.highlighted[-1].index == 2
        assert app.highlighted[-1].row["id"] == 2
        assert app.highlighted[-1].table is table

        await pilot.press("pagedown")
        await pilot.pause()
        assert table.cursor_row == 2 + page
        assert_cursor_visible(table)
        assert app.highlighted[-1].row["name"] == f"row {2 + page}"

        await pilot.press("ctrl+d")
        assert table.cursor_row == 2 + page + page // 2
        await pilot.press("ctrl+u", "pageup")
        assert table.cursor_row == 2

        await pilot.press("G")
        await pilot.pause()
        assert table.cursor_row == 9_999
        assert table.scroll_y == table.max_scroll_y
        assert_cursor_visible(table)
        assert app.highlighted[-1].row["id"] == 9_999

        await pilot.press("j")  # stays on the last row
        assert table.cursor_row == 9_999

        await pilot.press("g")
        await pilot.pause()
        assert table.cursor_row == 0
        assert table.scroll_y == 0
        assert_cursor_visible(table)

        await pilot.press("end")
        assert table.cursor_row == 9_999
        await pilot.press("home")
        assert table.cursor_row == 0

        await pilot.press("j", "enter")
        await pilot.pause()
        assert [(m.index, m.row["id"]) for m in app.selected] == [(1, 1)]


async def test_bindings_have_ids_and_movement_is_hidden():
    bindings = {b.id: b for b in VirtualTable.BINDINGS}
    for binding_id in ("cursor_down", "cursor_up", "cursor_top", "cursor_bottom", "page_down", "page_up"):
        assert bindings[f"virtual_table.{binding_id}"].show is False
    assert "virtual_table.select" in bindings and "virtual_table.sort" in bindings


# ---------------------------------------------------------------------------
# Mouse
# ---------------------------------------------------------------------------


async def test_clicking_a_header_sorts_and_clicking_again_reverses():
    source = ListRowSource([make_row(i) for i in range(1000)])
    app = TableApp(source)
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.pause()
        before = body_lines(table)
        score_x = table.render_line(0).text.index("Score")  # a click on the header's label

        await pilot.click("#table", offset=(score_x, 0))
        await pilot.press("g")
        await pilot.pause()
        assert table.sort_key == "score" and table.sort_reverse is False
        assert "Score ▲" in table.render_line(0).text
        assert body_lines(table) != before
        scores = [source.row(i)["score"] for i in range(body_height(table))]
        assert scores == sorted(scores)
        assert [int(line.split()[-1]) for line in body_lines(table)] == scores

        await pilot.click("#table", offset=(score_x, 0))
        await pilot.press("g")
        await pilot.pause()
        assert table.sort_reverse is True
        assert "Score ▼" in table.render_line(0).text
        top = [int(line.split()[-1]) for line in body_lines(table)]
        assert top == sorted(top, reverse=True) and top[0] == 999
        assert [(m.key, m.reverse) for m in app.sorts] == [("score", False), ("score", True)]


async def test_sort_keeps_the_cursor_on_the_same_row():
    source = ListRowSource([make_row(i) for i in range(1000)])
    app = TableApp(source)
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.press("j", "j", "j")
        row = table.current_row()
        table.sort_by("score", reverse=True)
        await pilot.pause()
        assert table.current_row() == row
        assert_cursor_visible(table)


async def test_left_right_choose_the_column_that_s_sorts_by():
    source = ListRowSource([make_row(i) for i in range(100)])
    app = TableApp(source)
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.press("right", "s")
        assert table.cursor_column == 1
        assert table.sort_key == "name" and not table.sort_reverse
        await pilot.press("s")
        assert table.sort_reverse
        await pilot.press("left", "left", "left")
        assert table.cursor_column == 0


async def test_clicking_a_row_moves_the_cursor_and_wheel_scrolls():
    source = ListRowSource([make_row(i) for i in range(1000)])
    app = TableApp(source)
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.click("#table", offset=(5, 6))
        await pilot.pause()
        assert table.cursor_row == 5
        assert app.highlighted[-1].row["id"] == 5

        await wheel_down(pilot, table, offset=(5, 5), times=2)
        await pilot.pause()
        assert table.scroll_y > 0
        top = round(table.scroll_y)
        assert visible_ids(table)[0] == top
        await pilot.click("#table", offset=(5, 1))
        assert table.cursor_row == top
        await pilot.double_click("#table", offset=(5, 2))
        await pilot.pause()
        assert [m.row["id"] for m in app.selected] == [top + 1]


async def test_new_rows_do_not_pull_the_view_back_to_an_off_screen_cursor():
    rows = [make_row(i) for i in range(1000)]
    app = TableApp(ListRowSource(rows))
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(VirtualTable)
        await wheel_down(pilot, table, offset=(5, 5), times=20)
        scrolled = table.scroll_y
        assert scrolled > body_height(table)  # the cursor (row 0) is off screen
        rows.append(make_row(1000))
        table.refresh_rows()
        await pilot.pause()
        assert table.scroll_y == scrolled and table.cursor_row == 0
        await pilot.press("j")  # a key brings the cursor back into view
        assert_cursor_visible(table)


# ---------------------------------------------------------------------------
# Filter, refresh, follow
# ---------------------------------------------------------------------------


async def test_set_filter_narrows_the_rows_and_clearing_restores():
    source = ListRowSource([make_row(i) for i in range(1000)], filter_keys=["name"])
    app = TableApp(source)
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(VirtualTable)
        table.set_filter("ROW 99")
        await pilot.pause()
        assert table.row_count == 11  # 99, 990..999
        assert visible_ids(table) == [99, *range(990, 1000)]
        assert table.current_row()["id"] == 99

        table.set_filter("no such row")
        await pilot.pause()
        assert table.row_count == 0 and table.current_row() is None
        assert any("No rows" in line for line in body_lines(table))

        table.set_filter("")
        await pilot.pause()
        assert table.row_count == 1000
        assert visible_ids(table)[:3] == [0, 1, 2]


async def test_filter_and_sort_combine():
    source = ListRowSource([make_row(i) for i in range(1000)], filter_keys=["name"])
    app = TableApp(source)
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(VirtualTable)
        table.set_filter("row 99")
        table.sort_by("id", reverse=True)
        await pilot.press("g")
        await pilot.pause()
        assert visible_ids(table) == [*range(999, 989, -1), 99]


async def test_set_source_with_keep_cursor_key_keeps_the_same_row_under_the_cursor():
    rows = [make_row(i) for i in range(5000)]
    app = TableApp(ListRowSource(rows))
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.press("pagedown", "j", "j")
        await pilot.pause()
        row = table.current_row()
        screen_line = table.cursor_row - round(table.scroll_y)

        # Refreshed data: new scores (so a different order), rows inserted before it.
        refreshed = [{"id": -i, "name": f"new {i}", "score": 0} for i in range(1, 300)]
        refreshed += [{**r, "score": (r["score"] + 500) % 1000} for r in rows]
        new_source = ListRowSource(refreshed)
        new_source.sort("score")
        table.set_source(new_source, keep_cursor_key="id")
        await pilot.pause()
        assert table.current_row()["id"] == row["id"]
        assert table.cursor_row - round(table.scroll_y) == screen_line
        assert_cursor_visible(table)

        # The table's own sort is re-applied to a new source.
        table.sort_by("score", reverse=True)
        row = table.current_row()
        table.set_source(ListRowSource(list(refreshed)), keep_cursor_key="id")
        await pilot.pause()
        assert table.current_row()["id"] == row["id"]
        scores = [table.source.row(i)["score"] for i in range(50)]
        assert scores == sorted(scores, reverse=True)


async def test_set_source_keep_cursor_key_works_with_a_plain_row_source():
    source = CountingSource(100_000)
    app = TableApp(source)
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(VirtualTable)
        table.move_cursor(50_000)
        await pilot.pause()
        shifted = CountingSource(100_010)
        shifted.row = lambda i: make_row(i - 10)  # ten rows inserted at the top
        table.set_source(shifted, keep_cursor_key="id")
        await pilot.pause()
        assert table.cursor_row == 50_010
        assert table.current_row()["id"] == 50_000


async def test_follow_mode_sticks_to_the_last_row_when_rows_are_appended():
    rows = [make_row(i) for i in range(100)]
    source = ListRowSource(rows)
    app = TableApp(source, follow=True)
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.pause()
        assert table.cursor_row == 99
        assert table.scroll_y == table.max_scroll_y

        rows.extend(make_row(i) for i in range(100, 150))
        table.refresh_rows()
        await pilot.pause()
        assert table.cursor_row == 149
        assert table.scroll_y == table.max_scroll_y
        assert visible_ids(table)[-1] == 149
        assert app.highlighted[-1].row["id"] == 149

        # set_source on the same source counts as a refresh too.
        source.append(make_row(150))
        table.set_source(source)
        await pilot.pause()
        assert table.cursor_row == 150

        # Moving up pauses following; new rows no longer move the cursor.
        await pilot.press("k")
        assert table.follow is False
        source.extend([make_row(151), make_row(152)])
        table.refresh_rows()
        await pilot.pause()
        assert table.cursor_row == 149

        # Going back to the bottom resumes.
        await pilot.press("G")
        assert table.follow is True
        source.append(make_row(153))
        table.refresh_rows()
        await pilot.pause()
        assert table.cursor_row == 153


async def test_without_follow_appended_rows_do_not_move_the_cursor():
    rows = [make_row(i) for i in range(100)]
    app = TableApp(ListRowSource(rows))
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.press("j")
        rows.extend(make_row(i) for i in range(100, 200))
        table.refresh_rows()
        await pilot.pause()
        assert table.cursor_row == 1 and table.row_count == 200
        assert table.virtual_size.height == 201


async def test_cell_style_is_applied_per_cell():
    def style(key: str, row) -> str | None:
        return "green" if key == "name" and row["id"] % 2 == 0 else None

    app = TableApp(ListRowSource([make_row(i) for i in range(10)]), cell_style=style)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one(VirtualTable)
        even = [seg for seg in table.render_line(3) if seg.text.startswith("row")]
        odd = [seg for seg in table.render_line(4) if seg.text.startswith("row")]
        assert even[0].style.color.name == "green"
        assert odd[0].style.color is None or odd[0].style.color.name != "green"


# ---------------------------------------------------------------------------
# ListRowSource
# ---------------------------------------------------------------------------


def test_list_row_source_sorts_by_one_key_with_missing_and_mixed_values():
    rows = [{"k": 3}, {"k": None}, {"k": 1}, {}, {"k": 2}]
    source = ListRowSource(rows)
    source.sort("k")
    assert [source.row(i).get("k") for i in range(len(source))] == [1, 2, 3, None, None]
    source.sort("k", reverse=True)
    assert [source.row(i).get("k") for i in range(3)] == [3, 2, 1]
    mixed = ListRowSource([{"k": "b"}, {"k": 2}, {"k": "A"}, {"k": 1.5}])
    mixed.sort("k")
    assert [mixed.row(i)["k"] for i in range(4)] == [1.5, 2, "A", "b"]
    source.sort(None)
    assert source.row(0) is rows[0]


def test_list_row_source_filter_sees_appended_rows():
    rows = [{"msg": "error: disk"}, {"msg": "ok"}]
    source = ListRowSource(rows)
    source.filter("ERROR")
    assert len(source) == 1
    rows.append({"msg": "another Error"})
    assert len(source) == 2 and source.row(1)["msg"] == "another Error"
    source.sort("msg")
    rows.append({"msg": "a first error"})
    assert [source.row(i)["msg"] for i in range(len(source))] == ["a first error", "another Error", "error: disk"]
    assert source.find("msg", "ok") is None
    assert source.view_index(source.source_index(1)) == 1


# ---------------------------------------------------------------------------
# Snapshots
# ---------------------------------------------------------------------------


def test_snapshot_shard_table(snap_compare):
    app = table_app.TableApp()
    assert snap_compare(app, terminal_size=(100, 20), press=["j", "j", "right", "right", "s"])


def test_snapshot_empty_table(snap_compare):
    app = table_app.EmptyTableApp()
    assert snap_compare(app, terminal_size=(100, 20))
