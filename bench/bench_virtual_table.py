"""Benchmark: VirtualTable against Textual's DataTable (a script, not a test).

    .venv/bin/python bench/bench_virtual_table.py [--quick]

Times, in one headless run:
  * mounting a VirtualTable over 100 / 10,000 / 100,000 rows until the first
    paint that shows rows;
  * 50 pagedowns at 100,000 rows, each until the screen has been repainted
    (through the Pilot, whose own per-key cost is shown: it dominates), and
    50 more done directly (the action plus rendering every visible line);
  * the same for Textual's DataTable at 10,000 rows (mount + add_rows until the
    first paint with all rows measured, and 50 pagedowns).

Rows are built before the clock starts. A paint is detected by overriding
``render_lines`` (what the compositor calls), so the numbers include layout,
the first render and, for DataTable, its cell measurement.
"""
from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from textual.app import App, ComposeResult  # noqa: E402
from textual.containers import Vertical  # noqa: E402
from textual.geometry import Region  # noqa: E402
from textual.strip import Strip  # noqa: E402
from textual.widgets import DataTable  # noqa: E402

from dreamdeck.tui.widgets.virtual_table import Column, ListRowSource, VirtualTable  # noqa: E402

SIZE = (120, 40)
PAGEDOWNS = 50
TIERS = ("always", "often", "sometimes", "rarely")
COLUMNS = [
    Column("topic", "Topic", width=24),
    Column("tier", "Tier"),
    Column("strength", "Strength", align="right"),
    Column("hits", "Hits", width=7, align="right"),
    Column("updated", "Updated"),
]


def make_rows(count: int) -> list[dict[str, object]]:
    return [
        {
            "topic": f"topic-{i:06d}",
            "tier": TIERS[i % 4],
            "strength": ((i * 37) % 1001) / 1000,
            "hits": (i * 7919) % 100_000,
            "updated": f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}",
        }
        for i in range(count)
    ]


class PaintSignal:
    """An asyncio.Event set when the widget renders with a condition true."""

    def __init__(self) -> None:
        self.event = asyncio.Event()

    async def wait(self, timeout: float = 120.0) -> None:
        await asyncio.wait_for(self.event.wait(), timeout)
        self.event.clear()


class TimedVirtualTable(VirtualTable):
    signal: PaintSignal

    def render_lines(self, crop: Region) -> list[Strip]:
        lines = super().render_lines(crop)
        if self.row_count:
            self.signal.event.set()
        return lines


class TimedDataTable(DataTable):
    signal: PaintSignal
    expected_rows = 0

    def render_lines(self, crop: Region) -> list[Strip]:
        lines = super().render_lines(crop)
        # Painted with every row added and measured.
        if self.row_count == self.expected_rows and not self._new_rows and not self._require_update_dimensions:
            self.signal.event.set()
        return lines


class BenchApp(App):
    def compose(self) -> ComposeResult:
        yield Vertical(id="host")


async def page_down(app: App, pilot, signal: PaintSignal, times: int) -> float:
    start = time.perf_counter()
    for _ in range(times):
        signal.event.clear()
        await pilot.press("pagedown")
        await signal.wait()
    return time.perf_counter() - start


def page_down_direct(table, times: int) -> float:
    """The widget's own work: the pagedown action plus rendering every visible line."""
    height = table.size.height
    start = time.perf_counter()
    for _ in range(times):
        table.action_page_down()
        for y in range(height):
            table.render_line(y)
    return time.perf_counter() - start


async def noop_presses(pilot, times: int) -> float:
    """What the pilot itself costs per key (a key nothing is bound to)."""
    start = time.perf_counter()
    for _ in range(times):
        await pilot.press("x")
    return time.perf_counter() - start


Result = tuple[float, "float | None", "float | None", "float | None"]


async def bench_virtual(count: int, pagedowns: int) -> Result:
    rows = make_rows(count)
    app = BenchApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        signal = PaintSignal()
        table = TimedVirtualTable(COLUMNS, ListRowSource(rows))
        table.signal = signal
        gc.collect()
        start = time.perf_counter()
        await app.query_one("#host").mount(table)
        table.focus()
        await signal.wait()
        mount = time.perf_counter() - start
        paging = direct = overhead = None
        if pagedowns:
            paging = await page_down(app, pilot, signal, pagedowns)
            assert table.cursor_row == pagedowns * (table.size.height - 1)
            direct = page_down_direct(table, pagedowns)
            overhead = await noop_presses(pilot, pagedowns)
        return mount, paging, direct, overhead


async def bench_datatable(count: int, pagedowns: int) -> Result:
    rows = make_rows(count)
    values = [tuple(r[c.key] for c in COLUMNS) for r in rows]
    app = BenchApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        signal = PaintSignal()
        table = TimedDataTable(cursor_type="row")
        table.signal = signal
        table.expected_rows = count
        gc.collect()
        start = time.perf_counter()
        await app.query_one("#host").mount(table)
        table.add_columns(*(c.label for c in COLUMNS))
        table.add_rows(values)
        table.focus()
        await signal.wait()
        mount = time.perf_counter() - start
        paging = direct = overhead = None
        if pagedowns:
            paging = await page_down(app, pilot, signal, pagedowns)
            assert table.cursor_row > 0
            direct = page_down_direct(table, pagedowns)
            overhead = await noop_presses(pilot, pagedowns)
        return mount, paging, direct, overhead


def fmt(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds:8.3f}"


async def main(quick: bool) -> None:
    await bench_virtual(100, 0)  # warm up imports and caches
    results: list[tuple[str, int, Result]] = []
    for count in (100, 10_000, 100_000):
        results.append(("VirtualTable", count, await bench_virtual(count, PAGEDOWNS if count == 100_000 else 0)))
    dt_count = 1_000 if quick else 10_000
    results.append(("DataTable", dt_count, await bench_datatable(dt_count, PAGEDOWNS)))

    textual_version = __import__("textual").__version__
    print(f"terminal {SIZE[0]}x{SIZE[1]}, Textual {textual_version}, Python {sys.version.split()[0]}, seconds")
    print(
        f"{'widget':<13}{'rows':>8}  {'mount→paint':>11}  {f'{PAGEDOWNS}×pagedown+paint':>20}"
        f"  {'widget work':>11}  {'pilot no-op keys':>16}"
    )
    for name, count, (mount, paging, direct, overhead) in results:
        print(f"{name:<13}{count:>8,}  {fmt(mount):>11}  {fmt(paging):>20}  {fmt(direct):>11}  {fmt(overhead):>16}")

    by = {(name, count): result for name, count, result in results}
    vt100 = by[("VirtualTable", 100)][0]
    vt10k = by[("VirtualTable", 10_000)][0]
    vt100k, vt_page, vt_direct, _ = by[("VirtualTable", 100_000)]
    dt_mount, dt_page, dt_direct, _ = by[("DataTable", dt_count)]
    print()
    print(f"VirtualTable mount, 100k rows / 100 rows:             {vt100k / vt100:7.2f}x")
    if dt_count == 10_000:
        print(f"mount at 10k rows, DataTable / VirtualTable:          {dt_mount / vt10k:7.1f}x")
    print(f"mount, DataTable {dt_count:,} / VirtualTable 100k:        {dt_mount / vt100k:7.1f}x")
    print(f"pagedown+paint, DataTable {dt_count:,} / VirtualTable 100k: {dt_page / vt_page:7.2f}x")
    print(f"pagedown widget work, DataTable / VirtualTable:       {dt_direct / vt_direct:7.2f}x")
    print("(pagedown+paint includes the pilot's own per-key cost, shown in the last column)")
    print()
    source = ListRowSource(make_rows(100_000))
    for label, action in (
        ("sort 100k by strength (float)", lambda: source.sort("strength")),
        ("sort 100k by topic (str), reversed", lambda: source.sort("topic", reverse=True)),
        ("filter 100k, all keys ('topic-0999')", lambda: source.filter("topic-0999")),
        ("clear filter and sort", lambda: (source.filter(""), source.sort(None))),
    ):
        start = time.perf_counter()
        action()
        print(f"ListRowSource {label:<38} {time.perf_counter() - start:7.3f} s  ({len(source):,} rows)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="DataTable at 1,000 rows instead of 10,000")
    asyncio.run(main(parser.parse_args().quick))
