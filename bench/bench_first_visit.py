"""Benchmark: each screen's first visit, on the demo and on bench_app's 10k-topic year (a script).

    .venv/bin/python bench/bench_first_visit.py ROOT [ROOT ...]

For each agent folder, one app, headless at 120×36, watcher off; once Topics has painted and the
screens built in the background are built (see bench_app.premounted), the number keys visit
every other screen once, each timed from the key until
  * paint: the first frame of the new screen (what the person sees first), and
  * data: its load shown (`MemoryScreen.show` returned), then the next frame; the same as paint
    for a screen built and loaded in the background before the key.
Times are (wall, CPU of this process) pairs with the 1-minute load average: the machine is shared.
Open a copy of a workspace you must not change: the app writes its private projections.
"""
from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for extra in (ROOT, ROOT / "bench"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from bench_app import Frames, Paints, Took, premounted, quiet, send_key, until  # noqa: E402

from dreamdeck.core.workspace import Workspace  # noqa: E402

SIZE = (120, 36)


class Shown:
    """When each screen's load was last shown, by mode."""

    at: dict[str, float] = {}

    @classmethod
    def install(cls) -> None:
        from dreamdeck.tui.screens.base import MemoryScreen

        original = MemoryScreen.on_memory_screen_loaded

        def loaded(self, message):
            original(self, message)
            cls.at[self.MODE] = time.perf_counter()

        MemoryScreen.on_memory_screen_loaded = loaded  # type: ignore[method-assign]


async def visit_all(root: Path) -> dict[str, tuple[Took, Took]]:
    from dreamdeck.tui.app import DreamdeckApp
    from dreamdeck.tui.widgets.tab_bar import TABS

    app = DreamdeckApp(Workspace.open(root), watcher=False)
    out: dict[str, tuple[Took, Took]] = {}
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: "topics" in Shown.at, what="Topics loaded")
        await premounted(app, pilot)
        for mode, key, _label in TABS[1:]:
            seq, t, c = Frames.seq, time.perf_counter(), time.process_time()
            prebuilt = Shown.at.pop(mode, None) is not None  # built and loaded in the background
            send_key(app, key)
            await until(lambda m=mode, n=seq: Frames.shows(n, lambda s: getattr(s, "MODE", None) == m), what=key)
            paint = Took(time.perf_counter() - t, time.process_time() - c)
            if prebuilt:
                out[mode] = (paint, paint)
                await quiet(app, pilot)
                continue
            await until(lambda m=mode: m in Shown.at, what=f"{mode} loaded")
            seq = Frames.seq
            await until(lambda n=seq: Frames.seq > n, timeout=5, what="a frame after the load")
            out[mode] = (paint, Took(time.perf_counter() - t, time.process_time() - c))
            await quiet(app, pilot)
    return out


def main() -> None:
    Paints.install()
    Frames.install()
    Shown.install()
    for arg in sys.argv[1:]:
        Paints.event = None  # bound to the previous run's loop
        times = asyncio.run(visit_all(Path(arg)))
        print(f"{arg}  (first visits; wall s / CPU s; load {times[next(iter(times))][0].load:.1f})")
        for mode, (paint, data) in times.items():
            print(f"  {mode:12} first paint {paint[0]:.3f} / {paint[1]:.3f}   data shown {data[0]:.3f} / {data[1]:.3f}")


if __name__ == "__main__":
    main()
