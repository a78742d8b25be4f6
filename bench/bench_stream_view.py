"""Benchmark: StreamView over a year of streams (a script, not a test).

    .venv/bin/python bench/bench_stream_view.py [--fragments N] [--days D] [--keep DIR]

Builds a year of `memory/streams/YYYY-MM-DD.jsonl` (default 1,000,000 fragments over 365 days,
plus a watermark every 100 lines) with plain file writes in TypeClaw's exact line format, then
times, with the files in the page cache (as after any recent read):
  * the floor of any naive approach: reading every stream file's bytes (nothing parsed);
  * what a naive viewer really does: parsing every line (core.streams.read_stream_lines),
    measured on 10 days and extrapolated to the year;
  * StreamView: open + the first screen (len() and the last 40 rows);
  * a citation jump to a random old day on a freshly opened view: find(date, id), which opens
    the view's window at that day (the days between it and today are not read), plus the 40
    rows around it;
  * scrolling up one step (load_older) and the 50 ms poll (changed()) and refresh after an append.
Each timing is the best of 3 runs.
"""
from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from dreamdeck.core.formats.events import build_fragment, serialize_event  # noqa: E402
from dreamdeck.core.formats.ids import iso_from_ms  # noqa: E402
from dreamdeck.core.index.stream_view import StreamView  # noqa: E402
from dreamdeck.core.store.streams import read_stream_lines  # noqa: E402
from dreamdeck.core.workspace import Workspace  # noqa: E402

TOPICS = ("deploys", "editor", "coffee", "testing", "reviews", "oncall", "travel", "music")
WORDS = ("the agent noticed that", "the user prefers", "during the standup", "after the deploy",
         "a reviewer asked whether", "for the quarter close", "in the incident review", "on Tuesdays")


def fragment_id(ms: int, n: int) -> str:
    """A UUIDv7-shaped id for millisecond `ms` (n keeps ids unique and ordered within it)."""
    h = f"{ms:012x}"
    return f"{h[:8]}-{h[8:12]}-7{n % 4096:03x}-8{n % 4096:03x}-{n:012x}"


def line(ms: int, n: int) -> str:
    fid = fragment_id(ms, n)
    topic = TOPICS[n % len(TOPICS)]
    body = f"{WORDS[n % len(WORDS)]} {topic} item {n} needs attention; noted for later consolidation."
    return (f'{{"type":"fragment","id":"{fid}","ts":"{iso_from_ms(ms)}","source":"sess-{n % 7}",'
            f'"entry":"{fid[-8:]}","topic":"{topic}","body":"{body}"}}')


def watermark(ms: int, n: int) -> str:
    fid = fragment_id(ms, n)
    return f'{{"type":"watermark","id":"{fid}","ts":"{iso_from_ms(ms)}","source":"sess-{n % 7}","entry":"{fid[-8:]}"}}'


def build_year(root: Path, fragments: int, days: int, today: date) -> list[tuple[str, int, int]]:
    """Write the streams; returns (day, first n, count) per day."""
    folder = root / "memory" / "streams"
    folder.mkdir(parents=True)
    per_day = fragments // days
    layout = []
    n = 0
    for d in range(days):
        day = today - timedelta(days=days - 1 - d)
        count = per_day + (1 if d < fragments % days else 0)
        start_ms = int(datetime(day.year, day.month, day.day, 6, tzinfo=UTC).timestamp() * 1000)
        out = []
        for k in range(count):
            out.append(line(start_ms + k * 30, n + k))
            if k % 100 == 99:
                out.append(watermark(start_ms + k * 30 + 1, n + k))
        (folder / f"{day.isoformat()}.jsonl").write_text("\n".join(out) + "\n", encoding="utf-8")
        layout.append((day.isoformat(), n, count))
        n += count
    # The template is TypeClaw's exact serialization.
    ms = start_ms
    fid = fragment_id(ms, 0)
    ev = build_fragment(fid, iso_from_ms(ms), source="sess-0", entry=fid[-8:], topic=TOPICS[0],
                        body=f"{WORDS[0]} {TOPICS[0]} item 0 needs attention; noted for later consolidation.")
    assert serialize_event(ev) == line(ms, 0)
    return layout


def best(fn, repeat: int = 3):
    times, result = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return min(times), result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fragments", type=int, default=1_000_000)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--keep", type=Path, help="build in this folder and keep it")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    root = args.keep or Path(tempfile.mkdtemp(prefix="dreamdeck-bench-"))
    today = date(2026, 5, 22)
    try:
        t = time.perf_counter()
        layout = build_year(root, args.fragments, args.days, today)
        files = sorted((root / "memory/streams").glob("*.jsonl"))
        size = sum(p.stat().st_size for p in files)
        print(f"built {args.fragments:,} fragments in {len(files)} day files, {size / 1e6:,.0f} MB, "
              f"in {time.perf_counter() - t:.1f} s ({root})")
        ws = Workspace.open(root, today=today.isoformat())

        floor, _ = best(lambda: sum(len(p.read_bytes()) for p in files))
        sample = files[:10]
        parse10, _ = best(lambda: sum(len(read_stream_lines(p)) for p in sample), repeat=1)
        parse_year = parse10 * len(files) / len(sample)

        def open_first_screen():
            view = StreamView(ws)
            n = len(view)
            rows = [view.row(i) for i in range(n - 40, n)]
            assert rows[-1]["date"] == today.isoformat()
            return view

        t_open, view = best(open_first_screen)

        rng = random.Random(args.seed)
        day, first, count = layout[rng.randrange(0, len(layout) // 2)]  # somewhere in the older half
        k = rng.randrange(count)
        start_ms = int(datetime.fromisoformat(day).replace(hour=6, tzinfo=UTC).timestamp() * 1000)
        target = fragment_id(start_ms + k * 30, first + k)

        def jump():
            v = StreamView(ws)
            t0 = time.perf_counter()
            index = v.find(day, target)
            rows = [v.row(i) for i in range(max(0, index - 20), min(len(v), index + 20))]
            assert v.row(index)["id"] == target and len(rows) == 40
            return time.perf_counter() - t0, v

        t_jump, (jump_only, jumped) = best(jump)
        jump_only = min(jump_only, t_jump)

        def older():
            v = StreamView(ws)
            t0 = time.perf_counter()
            delta = v.load_older(500)
            [v.row(i) for i in range(40)]
            return time.perf_counter() - t0, delta.prepended

        _, (t_older, prepended) = best(older)

        poll, _ = best(lambda: [view.changed() for _ in range(100)])
        with open(files[-1], "a", encoding="utf-8") as fh:
            fh.write(line(start_ms, 10**9) + "\n")
        t_refresh, delta = best(view.refresh, repeat=1)
        assert delta.appended == 1

        def row(label: str, seconds: float, note: str = "") -> None:
            print(f"  {label:<52} {seconds * 1000:10.1f} ms  {note}")

        print(f"\nStreamView over {args.fragments:,} fragments / {len(files)} days (best of 3):")
        row("naive floor: read every stream file (no parsing)", floor)
        row("naive viewer: parse every line (10 days, extrapolated)", parse_year)
        row("StreamView open + first screen (len + last 40 rows)", t_open,
            f"floor / this = {floor / t_open:,.0f}; {view.loaded_days} day(s) indexed, "
            f"{view.bytes_scanned / 1e6:.1f} MB scanned, {len(view):,} rows loaded")
        row(f"jump to {day} (find + 40 rows), fresh view", jump_only,
            f"floor / this = {floor / jump_only:,.2f}; {jumped.loaded_days} days loaded, "
            f"{jumped.indexed_days} indexed, the rest counted; {jumped.bytes_scanned / 1e6:,.1f} MB read "
            f"({len(jumped):,} rows)")
        row("scroll up one step (load_older(500) + 40 rows)", t_older, f"{prepended:,} rows prepended")
        row("poll: changed() (stat calls)", poll / 100, f"{len(view._loaded)} day file(s) + folder + tombstones")
        row("refresh after a one-line append", t_refresh)
        print(f"\n  ratios: floor / open = {floor / t_open:,.0f}   parse-all / open = {parse_year / t_open:,.0f}   "
              f"floor / jump = {floor / jump_only:,.2f}   parse-all / jump = {parse_year / jump_only:,.0f}")
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
