"""Benchmark: the dreamdeck app over big memories, headless (a script, not a test).

    .venv/bin/python bench/bench_app.py [--keep DIR] [--big-shards 100000] [--big-cites 5]

Builds, in TypeClaw's formats (bench_memory.build):
  * a year: 10,000 topic shards citing 1,000,000 fragments (the Topics launch at 10k, and the
    Stream screen over the whole year);
  * 100,000 topic shards citing 5 fragments each (the Topics launch and keys at 100k);
  * 100 shards, as the baseline of what Textual itself costs to start.
then, in one run, with the app headless (`run_test(size=(140, 40))`, watcher off unless said,
an empty user config dir); a paint is seen by wrapping `VirtualTable.render_lines` (what the
compositor calls), so each time ends when the table has really been drawn:
  * launch: from constructing the app until the Topics table has painted a row with a slug; and
    cold, from spawning a fresh interpreter (the CLI's and the app's imports included, from a
    bytecode cache as an installed dreamdeck has one) to the same paint, also with the background
    watcher on, as `dreamdeck` starts by default (a fresh app paints the rows the head projection
    recorded, then proves them against the files: see TopicsScreen.load);
  * keys on the Topics screen, sent to the driver as a terminal would (not through the Pilot,
    whose wait for the whole screen after each key is its own cost), each timed from the key
    until the table has repainted in its new state: 50 × `j` back to back (a held key), one `j`
    until the shard pane shows the row, 10 × `j` 0.3 s apart, 20 × pagedown, a click on the
    `score` header, `s` (reverse it), `/`, one filter character, a second one, `escape`;
  * the floor: listing and reading every shard file, and the strength table built in-process;
  * Stream: on the year, pressing 6 until the table has painted its rows with the cursor on the
    newest fragment, and until today's rows are among the painted lines; beside the floor of
    reading every stream file (the view reads only the newest days, by offset);
  * screen switches: number keys through the seven screens, several rounds, each timed from
    the key until a frame of the new screen has been composed (App._display, what the terminal
    would be sent); the first visit of each screen and the p95 of all (target: p95 ≤ 150 ms);
  * the first citation jump: `enter` on a shard's citation until a frame of the Stream screen
    with the cursor on that fragment (target ≤ 200 ms);
  * the first open of a modal (help `?`, the forget reason `f`) until a frame of it (target
    ≤ 100 ms), and the second open of each.
Seconds are the best of --repeat launches (keys: one run). Ratios are what to compare between
machines; nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import asyncio
import gc
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for extra in (ROOT, ROOT / "bench"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from bench_memory import TODAY, build  # noqa: E402

from dreamdeck.core.workspace import Workspace  # noqa: E402

SIZE = (140, 40)
FILTER_KEY = "a filter keystroke ('7') → repaint"

# --- paint detection --------------------------------------------------------------------------
# VirtualTable.render_lines is what the compositor calls to paint the table; wrap it once to
# remember, per table id, the last paint: a sequence number, the table's state and the lines.


class Paints:
    seq = 0
    last: dict[str, tuple] = {}
    event: asyncio.Event | None = None  # set on every paint, so a wait wakes when there is news

    @classmethod
    def install(cls) -> None:
        from dreamdeck.tui.widgets.virtual_table import VirtualTable

        original = VirtualTable.render_lines

        def render_lines(self, crop):
            lines = original(self, crop)
            cls.seq += 1
            cls.last[self.id or ""] = (cls.seq, self.row_count, self.cursor_row, self.sort_key,
                                       self.sort_reverse, self.filter_text, lines)
            if cls.event is not None:
                cls.event.set()
            return lines

        VirtualTable.render_lines = render_lines

    @classmethod
    def since(cls, table_id: str, seq: int):
        paint = cls.last.get(table_id)
        return paint if paint is not None and paint[0] > seq else None


class Frames:
    """Every frame the app composes (App._display is handed each update, headless or not):
    a sequence number and the screen it showed."""

    seq = 0
    screen = None

    @classmethod
    def install(cls) -> None:
        from textual.app import App

        original = App._display  # noqa: SLF001

        def display(app, screen, renderable):
            if renderable is not None:
                cls.seq += 1
                cls.screen = screen
                if Paints.event is not None:
                    Paints.event.set()
            return original(app, screen, renderable)

        App._display = display  # noqa: SLF001

    @classmethod
    def shows(cls, seq: int, predicate) -> bool:
        """A frame after `seq` whose screen satisfies `predicate` (and is still the app's screen)."""
        return cls.seq > seq and cls.screen is not None and predicate(cls.screen)


def painted_text(paint) -> str:
    return "\n".join(strip.text for strip in paint[6])


async def until(predicate, timeout: float = 120.0, what: str = "") -> None:
    """Wake on every paint of a table (and every 10 ms for anything else) until `predicate()`."""
    if Paints.event is None:
        Paints.event = asyncio.Event()
    start = time.perf_counter()
    while not predicate():
        if time.perf_counter() - start > timeout:
            raise TimeoutError(f"timed out after {timeout:.0f}s waiting for {what}")
        Paints.event.clear()
        try:
            await asyncio.wait_for(Paints.event.wait(), 0.01)
        except TimeoutError:
            pass


async def settle(app) -> None:
    """Wait for the app's workers (a superseded exclusive worker counts as done)."""
    from textual.worker import WorkerCancelled

    for _ in range(10):
        try:
            await app.workers.wait_for_complete()
            return
        except WorkerCancelled:
            continue


async def quiet(app, pilot) -> None:
    """Workers done and every queued message handled (a shard's Markdown mounted): one step's
    work does not leak into the next step's time."""
    await settle(app)
    await pilot.pause()
    await settle(app)


async def premounted(app, pilot) -> None:
    """Every screen the app builds in the background after its first load is built and loaded:
    a measure taken before would also time those builds (the Dream screen's load imports the
    dreamer), not only what its key does."""
    from dreamdeck.tui.app import SCREENS

    wanted = list(SCREENS)
    await until(lambda: all(mode in app.mode_screens for mode in wanted), what="every screen premounted")
    await quiet(app, pilot)


def topics_painted(seq: int):
    def ok() -> bool:
        paint = Paints.since("strength", seq)
        return bool(paint and paint[1] and "topic-" in painted_text(paint))
    return ok


# --- the runs --------------------------------------------------------------------------------


def new_app(root: Path, watcher: bool = False):
    from dreamdeck.tui.app import DreamdeckApp

    return DreamdeckApp(Workspace.open(root, today=TODAY), watcher=watcher)


async def launch(root: Path) -> float:
    """Construct the app, run it headless, stop the clock when the Topics table shows rows."""
    gc.collect()
    seq = Paints.seq
    start = time.perf_counter()
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await until(topics_painted(seq), what="the first rows of the Topics table")
        elapsed = time.perf_counter() - start
        await pilot.pause()
    return elapsed


CHARACTERS = {"slash": "/", "escape": "\x1b", "pagedown": None}


def send_key(app, key: str) -> None:
    """What a terminal does: hand the key to the driver (the Pilot also waits for the whole
    screen to settle after each key, which is its own cost, not the app's)."""
    from textual import events

    event = events.Key(key, CHARACTERS.get(key, key if len(key) == 1 else None))
    event.set_sender(app)
    app._driver.send_message(event)  # noqa: SLF001


async def key_latency(app, key: str, done, what: str) -> float:
    """Seconds from sending `key` until `done(seq_before)` holds (checked on every paint)."""
    seq = Paints.seq
    t = time.perf_counter()
    send_key(app, key)
    await until(lambda: done(seq), what=what)
    return time.perf_counter() - t


async def keys_run(root: Path, jumps: int = 50, pages: int = 20) -> dict[str, float]:
    from dreamdeck.tui.screens.topics import TopicsScreen
    from dreamdeck.tui.widgets.virtual_table import VirtualTable

    out: dict[str, float] = {}
    app = new_app(root)
    seq = Paints.seq
    async with app.run_test(size=SIZE) as pilot:
        await until(topics_painted(seq), what="the Topics table")
        screen = app.screen
        assert isinstance(screen, TopicsScreen)
        table = screen.query_one("#strength", VirtualTable)
        await until(lambda: getattr(screen, "current_slug", None) is not None, what="the first shard")
        await quiet(app, pilot)
        rows = table.row_count

        def at(cursor: int):
            return lambda s: bool((p := Paints.since("strength", s)) and p[2] == cursor)

        async def pane_shows(slug: str) -> None:
            await until(lambda: getattr(screen, "current_slug", None) == slug, what="the shard pane")
            await pilot.pause()  # the shard's Markdown and citations mounted, the screen idle

        # Back to back, as when a key is held: each key sent as soon as the last one is painted.
        first = table.cursor_row
        t = time.perf_counter()
        worst = 0.0
        for i in range(jumps):
            worst = max(worst, await key_latency(app, "j", at(first + i + 1), f"j #{i + 1}"))
        out[f"{jumps} × j held (key → repaint, back to back)"] = time.perf_counter() - t
        out["  the slowest of them"] = worst
        await pane_shows(str(table.current_row()["slug"]))
        out["  … until the shard pane shows where it stopped"] = time.perf_counter() - t
        await quiet(app, pilot)

        # One deliberate press: the table at once, the pane after its settle.
        first = table.cursor_row
        t = time.perf_counter()
        out["one j: key → repaint"] = await key_latency(app, "j", at(first + 1), "j")
        await pane_shows(str(table.current_row()["slug"]))
        out["one j: key → the shard pane shows the row"] = time.perf_counter() - t
        await quiet(app, pilot)

        # Deliberate presses, 0.3 s apart: the panes drawn in between are on the UI thread too.
        first = table.cursor_row
        latencies = []
        for i in range(10):
            latencies.append(await key_latency(app, "j", at(first + i + 1), f"j #{i + 1}"))
            await asyncio.sleep(0.3)
        out["10 × j, 0.3 s apart: mean key → repaint"] = sum(latencies) / len(latencies)
        out["10 × j, 0.3 s apart: slowest key → repaint"] = max(latencies)
        await quiet(app, pilot)

        first = table.cursor_row
        body = table._body_height  # noqa: SLF001
        t = time.perf_counter()
        for i in range(pages):
            await key_latency(app, "pagedown", at(min(rows - 1, first + (i + 1) * body)), f"pagedown #{i + 1}")
        out[f"{pages} × pagedown held"] = time.perf_counter() - t
        await quiet(app, pilot)

        left, _ = table._column_span([c.key for c in table.columns].index("score"))  # noqa: SLF001
        seq = Paints.seq
        t = time.perf_counter()
        click = asyncio.create_task(pilot.click("#strength", offset=(left + 1 - round(table.scroll_x), 0)))
        await until(lambda: (p := Paints.since("strength", seq)) and p[3] == "score" and not p[4],
                    what="the sort by score")
        out["click the score header (sort) → repaint"] = time.perf_counter() - t
        await click
        await quiet(app, pilot)

        out["s (reverse the sort) → repaint"] = await key_latency(
            app, "s", lambda s: bool((p := Paints.since("strength", s)) and p[3] == "score" and p[4]),
            "the reversed sort")
        await quiet(app, pilot)
        out["/ → the filter box has focus"] = await key_latency(
            app, "slash", lambda s: screen.query_one("#filter").has_focus, "the filter box")
        out[FILTER_KEY] = await key_latency(
            app, "7", lambda s: bool((p := Paints.since("strength", s)) and p[5] == "7"), "the filter")
        filtered = table.row_count
        out["a second keystroke ('77') → repaint"] = await key_latency(
            app, "7", lambda s: bool((p := Paints.since("strength", s)) and p[5] == "77"), "the filter")
        out["escape (clear the filter) → repaint"] = await key_latency(
            app, "escape", lambda s: bool((p := Paints.since("strength", s)) and p[5] == "" and p[1] == rows),
            "the cleared filter")
        out["_rows"] = rows
        out["_filtered"] = filtered
        await quiet(app, pilot)
    return out


async def stream_run(root: Path) -> tuple[float, float | None, int, int]:
    """On the year: press 6 until the Stream table has painted its rows with the cursor on the
    newest; then (up to 5 s more) until today's rows are among the painted lines."""
    app = new_app(root)
    seq = Paints.seq
    async with app.run_test(size=SIZE) as pilot:
        await until(topics_painted(seq), what="the Topics table")
        await quiet(app, pilot)
        seq = Paints.seq
        t = time.perf_counter()
        await pilot.press("6")

        def loaded() -> bool:
            paint = Paints.since("stream-table", seq)
            return bool(paint and paint[1] and paint[2] == paint[1] - 1)

        def newest_shown() -> bool:
            paint = Paints.last.get("stream-table")
            return bool(loaded() and any(TODAY in strip.text for strip in paint[6][-3:]))

        await until(loaded, what="the stream's rows")
        rows_painted = time.perf_counter() - t
        try:
            await until(newest_shown, timeout=5, what="today's rows at the bottom")
            newest: float | None = time.perf_counter() - t
        except TimeoutError:
            newest = None
        view = app.screen.view
        return rows_painted, newest, len(view), view.loaded_days


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


class Took(tuple):
    """(wall seconds, CPU seconds of this process meanwhile): on a shared, loaded machine the
    CPU time is what the wall time would be on an idle one (the app's threads included). `load`
    is the machine's 1-minute load average (`uptime`) when it was measured."""

    load: float

    def __new__(cls, wall: float, cpu: float):
        took = super().__new__(cls, (wall, cpu))
        took.load = os.getloadavg()[0]
        return took


async def key_to_frame(app, key: str, predicate, what: str) -> Took:
    """From sending `key` until a frame of a screen satisfying `predicate`."""
    seq = Frames.seq
    t, c = time.perf_counter(), time.process_time()
    send_key(app, key)
    await until(lambda: Frames.shows(seq, predicate), what=what)
    return Took(time.perf_counter() - t, time.process_time() - c)


async def switch_run(root: Path, rounds: int = 4) -> dict[str, object]:
    """Number keys through every screen, `rounds` times; each switch from the key to the first
    frame of the new screen, with the app quiet in between (its workers done). Times are
    (wall, CPU) pairs; p95 and the slowest are taken on each separately."""
    from dreamdeck.tui.widgets.tab_bar import TABS

    app = new_app(root)
    seq = Paints.seq
    firsts: dict[str, Took] = {}
    times: list[Took] = []
    worst: dict[str, Took] = {}
    async with app.run_test(size=SIZE) as pilot:
        await until(topics_painted(seq), what="the Topics table")
        await quiet(app, pilot)
        order = [*TABS[1:], TABS[0]]
        for n in range(rounds):
            for mode, key, _label in order:
                took = await key_to_frame(app, key, lambda s, m=mode: getattr(s, "MODE", None) == m,
                                          f"screen {key}")
                if n == 0 and mode not in firsts:
                    firsts[mode] = took
                times.append(took)
                old = worst.get(mode, Took(0.0, 0.0))
                worst[mode] = Took(max(old[0], took[0]), max(old[1], took[1]))
                await quiet(app, pilot)
    return {"firsts": firsts, "p95": Took(p95([t[0] for t in times]), p95([t[1] for t in times])),
            "max": Took(max(t[0] for t in times), max(t[1] for t in times)), "worst": worst, "n": len(times)}


async def jump_run(root: Path) -> tuple[Took, Took]:
    """Topics: the first citation of the selected shard, `enter`, until a frame of the Stream
    screen with the cursor on that fragment; then back to Topics and a second jump."""
    app = new_app(root)
    seq = Paints.seq
    out = []
    async with app.run_test(size=SIZE) as pilot:
        await until(topics_painted(seq), what="the Topics table")
        screen = app.screen
        for _ in range(2):
            await until(lambda: getattr(screen, "current_slug", None) is not None, what="the shard pane")
            await quiet(app, pilot)
            cites = screen.query_one("#citations")
            cites.focus()
            cites.highlighted = 0
            await quiet(app, pilot)
            fid = str(cites.get_option_at_index(0).id).split("#", 1)[1]

            def on_fragment(s, fid=fid) -> bool:
                from textual.css.query import NoMatches

                if getattr(s, "MODE", None) != "stream":
                    return False
                try:
                    row = s.query_one("#stream-table").current_row()
                except NoMatches:
                    return False
                return bool(row) and row.get("id") == fid

            out.append(await key_to_frame(app, "enter", on_fragment, "the Stream screen on the fragment"))
            await quiet(app, pilot)
            await pilot.press("1")
            await quiet(app, pilot)
    return out[0], out[1]


async def modal_run(root: Path) -> dict[str, Took]:
    """On Topics in a fresh app, once its other screens are premounted: `?` until a frame of the
    help modal, escape; `f` until a frame of the forget reason modal, escape; then each a second
    time."""
    from textual.screen import ModalScreen

    app = new_app(root)
    seq = Paints.seq
    out: dict[str, Took] = {}
    async with app.run_test(size=SIZE) as pilot:
        await until(topics_painted(seq), what="the Topics table")
        screen = app.screen
        await until(lambda: getattr(screen, "current_slug", None) is not None, what="the shard pane")
        await premounted(app, pilot)
        for n in ("first", "second"):
            for key, name in (("question_mark", "help (?)"), ("f", "forget reason (f)")):
                out[f"{n} open: {name}"] = await key_to_frame(
                    app, key, lambda s: isinstance(s, ModalScreen), f"the {name} modal")
                await quiet(app, pilot)
                await pilot.press("escape")
                await quiet(app, pilot)
    return out


async def cold_child(root: Path, watcher: bool) -> None:
    """In a fresh interpreter (--cold): launch and print the wall-clock time of the first rows."""
    __import__("dreamdeck.cli.main")  # what `dreamdeck` imports before it opens the app

    Paints.install()
    app = new_app(root, watcher)
    async with app.run_test(size=SIZE):
        await until(topics_painted(0), what="the first rows of the Topics table")
        print(time.time(), time.process_time(), flush=True)
        app.exit()


def cold_launch(root: Path, config_dir: Path, repeat: int, watcher: bool = False) -> float:
    """From spawning `python bench_app.py --cold ROOT` to its first rows: interpreter start,
    every import (the CLI's, the app's, the core modules its workers import), the launch."""
    return cold_launch_cpu(root, config_dir, repeat, watcher)[0]


def cold_launch_cpu(root: Path, config_dir: Path, repeat: int, watcher: bool = False,
                    bytecode: bool = True) -> Took:
    """cold_launch's best wall time, and the best CPU time the child had used by its first rows.

    With `bytecode` the child imports from a bytecode cache (beside `config_dir`, warmed by a first
    launch), as an installed dreamdeck does: a machine that sets PYTHONDONTWRITEBYTECODE (this
    one does) would otherwise compile every dreamdeck module on every launch (~0.3 s)."""
    best, best_cpu = float("inf"), float("inf")
    env = {**os.environ, "DREAMDECK_CONFIG_DIR": str(config_dir)}
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(config_dir.parent / "pycache")
        subprocess.run([sys.executable, "-c", "import dreamdeck.cli.main, dreamdeck.tui.app, dreamdeck.tui.screens.topics"],
                       cwd=ROOT, env=env, check=True)
    flags = ["--watcher"] if watcher else []
    for _ in range(repeat):
        start = time.time()
        out = subprocess.run([sys.executable, __file__, "--cold", str(root), *flags], cwd=ROOT, env=env,
                             check=True, capture_output=True, text=True).stdout
        best = min(best, float(out.split()[0]) - start)
        best_cpu = min(best_cpu, float(out.split()[1]))
    return Took(best, best_cpu)


def import_seconds() -> float:
    """A fresh interpreter importing the app (what `dreamdeck` pays before the first frame)."""
    code = "import dreamdeck.cli.main, dreamdeck.tui.app, dreamdeck.tui.screens.topics"
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
        best = min(best, time.perf_counter() - t)
    return best


def read_floor(folder: Path) -> float:
    """List the folder and read every file's bytes: nothing parsed, no Path objects."""
    def read_all() -> None:
        with os.scandir(folder) as entries:
            for entry in entries:
                with open(entry.path, "rb") as fh:
                    fh.read()
    return min(_timed(read_all) for _ in range(3))


def core_floors(root: Path) -> tuple[float, float]:
    from dreamdeck.core.index.strength import strength_table
    from dreamdeck.core.store.settings import DecaySettings

    ws = Workspace.open(root, today=TODAY)
    floor = read_floor(ws.topics_dir)
    table = min(_timed(lambda: strength_table(ws.topics_dir, TODAY, DecaySettings())) for _ in range(3))
    return floor, table


def stream_floor(root: Path) -> float:
    files = sorted((root / "memory" / "streams").glob("*.jsonl"))
    return min(_timed(lambda: [p.read_bytes() for p in files]) for _ in range(3))


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def ensure(root: Path, shards: int, fragments: int) -> float:
    if (root / "memory" / "topics").is_dir():
        return 0.0
    root.mkdir(parents=True, exist_ok=True)
    return _timed(lambda: build(root, shards, fragments, undreamed=60))


async def screens_only(args) -> None:
    """--screens: only the cold launch at 100k and the screen, jump and modal times (the issue-12
    targets), on workspaces kept in --keep."""
    base = Path(args.keep)
    os.environ["DREAMDECK_CONFIG_DIR"] = str(base / "user-config")
    year, big = base / "year" / "agent", base / "big" / "agent"
    ensure(year, 10_000, args.fragments)
    ensure(big, args.big_shards, args.big_shards * args.big_cites)
    Paints.install()
    cold_big = cold_launch_cpu(big, base / "user-config", args.repeat)
    cold_big_watching = cold_launch_cpu(big, base / "user-config", args.repeat, watcher=True)
    cold_big_compiling = cold_launch_cpu(big, base / "user-config", args.repeat, bytecode=False)
    Frames.install()
    switches = {"year": await switch_run(year), "big": await switch_run(big)}
    jumps = {"year": await jump_run(year), "big": await jump_run(big)}
    modals = {"year": await modal_run(year), "big": await modal_run(big)}
    print(f"terminal {SIZE[0]}x{SIZE[1]}, headless; Python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    print("seconds as wall / CPU of the app's process (on a loaded machine the CPU time is the one to read), "
          "@ the load average (uptime, 1 min) when measured")
    big_k = f"{args.big_shards // 1000}k"

    def pair(t) -> str:
        return f"{t[0]:7.3f} /{t[1]:6.3f} @{t.load:4.1f}"

    print(f"{'cold: a fresh `python` → Topics shows rows at ' + big_k:<52}{pair(cold_big)}  target ≤ 1.5")
    print(f"{'  the same with the background watcher on':<52}{pair(cold_big_watching)}")
    print(f"{'  the same compiling every module (no bytecode cache)':<52}{pair(cold_big_compiling)}")
    print(f"{'':<52}{'10k':>22}   {big_k:>22}")

    def row(label: str, a, b, note: str = "") -> None:
        print(f"{label:<52}{pair(a)}   {pair(b)}  {note}")

    for mode in switches["year"]["firsts"]:
        row(f"first visit of {mode}", switches["year"]["firsts"][mode], switches["big"]["firsts"][mode])
    for mode in switches["year"]["worst"]:
        row(f"slowest switch to {mode}", switches["year"]["worst"][mode], switches["big"]["worst"][mode])
    row(f"screen switch p95 ({switches['year']['n']} switches)", switches["year"]["p95"], switches["big"]["p95"],
        "target ≤ 0.150")
    row("first citation jump → Stream on the fragment", jumps["year"][0], jumps["big"][0], "target ≤ 0.200")
    row("second citation jump", jumps["year"][1], jumps["big"][1])
    for label in modals["year"]:
        row(label, modals["year"][label], modals["big"][label], "target ≤ 0.100" if label.startswith("first") else "")


async def main(args) -> None:
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="dreamdeck-bench-app-"))
    os.environ["DREAMDECK_CONFIG_DIR"] = str(base / "user-config")
    small, year, big = base / "small" / "agent", base / "year" / "agent", base / "big" / "agent"
    try:
        for root, shards, fragments in ((small, 100, 1_000), (year, 10_000, args.fragments),
                                        (big, args.big_shards, args.big_shards * args.big_cites)):
            took = ensure(root, shards, fragments)
            print(f"{shards:>7,} shards citing {fragments:>9,} fragments: "
                  + (f"built in {took:.1f} s" if took else "reused") + f"  ({root})", flush=True)
        Paints.install()
        imports = import_seconds()
        cold = {name: cold_launch(root, base / "user-config", args.repeat)
                for name, root in (("small", small), ("year", year), ("big", big))}
        cold_watching = {name: cold_launch(root, base / "user-config", args.repeat, watcher=True)
                         for name, root in (("year", year), ("big", big))}
        await launch(small)  # warm up: Textual's first app, CSS parsing, lazy imports
        launches = {}
        for name, root in (("small", small), ("year", year), ("big", big)):
            launches[name] = min([await launch(root) for _ in range(args.repeat)])
        floors = {name: core_floors(root) for name, root in (("year", year), ("big", big))}
        keys = {"year": await keys_run(year), "big": await keys_run(big)}
        stream, newest, stream_rows, stream_days = await stream_run(year)
        s_floor = stream_floor(year)
        Frames.install()
        switches = {"year": await switch_run(year), "big": await switch_run(big)}
        jumps = {"year": await jump_run(year), "big": await jump_run(big)}
        modals = {"year": await modal_run(year), "big": await modal_run(big)}
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)

    n_year, n_big = 10_000, args.big_shards
    print()
    print(f"terminal {SIZE[0]}x{SIZE[1]}, headless; seconds (launches: best of {args.repeat}); "
          f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average now {os.getloadavg()[0]:.1f}")
    print(f"{'measure':<58}{'10k':>9}{f'{n_big // 1000}k':>9}")

    def row(label: str, a: float | None, b: float | None, note: str = "") -> None:
        fa = f"{a:9.3f}" if a is not None else f"{'-':>9}"
        fb = f"{b:9.3f}" if b is not None else f"{'-':>9}"
        print(f"{label:<58}{fa}{fb}  {note}")

    row("floor: read every shard file", floors["year"][0], floors["big"][0])
    row("strength table in-process (core)", floors["year"][1], floors["big"][1])
    row("import the CLI and the app in a fresh interpreter", imports, imports)
    row("launch → Topics shows rows (100 shards: Textual's own start)", launches["small"], launches["small"])
    row("launch → Topics shows rows", launches["year"], launches["big"], "target: 10k < 1 s")
    row("cold: a fresh `python` → Topics shows rows (100 shards)", cold["small"], cold["small"])
    row("cold: a fresh `python` → Topics shows rows", cold["year"], cold["big"], "target: 10k < 1 s")
    row("cold, with the background watcher on (the default)", cold_watching["year"], cold_watching["big"])
    for label in keys["big"]:
        if label.startswith("_"):
            continue
        row(label, keys["year"][label], keys["big"][label])
    print(f"(filter '7' kept {keys['year']['_filtered']:,} of {keys['year']['_rows']:,} and "
          f"{keys['big']['_filtered']:,} of {keys['big']['_rows']:,} rows)")
    print()
    print("ratios")
    for name, n in (("year", n_year), ("big", n_big)):
        floor, table = floors[name]
        launch_minus = launches[name] - launches["small"]
        print(f"  {n:>7,} shards: launch / floor {launches[name] / floor:6.1f}   launch / strength table "
              f"{launches[name] / table:5.1f}   (launch - Textual's start) / strength table {launch_minus / table:5.2f}")
    big_k = f"{n_big // 1000}k"
    print(f"  launch {big_k} / launch 10k: {launches['big'] / launches['year']:.2f}   "
          f"(floor {big_k} / floor 10k: {floors['big'][0] / floors['year'][0]:.2f})")
    big = keys["big"]
    print(f"  at {n_big:,}, key → repaint: j {big['50 × j held (key → repaint, back to back)'] / 50 * 1000:.1f} ms, "
          f"pagedown {big['20 × pagedown held'] / 20 * 1000:.1f} ms, "
          f"sort {big['click the score header (sort) → repaint'] * 1000:.0f} ms, "
          f"filter keystroke {big[FILTER_KEY] * 1000:.0f} ms")
    print()
    print(f"Stream (screen 6) on the year ({args.fragments:,} fragments, 366 day files):")
    print(f"  floor: read every stream file                           {s_floor:9.3f}")
    print(f"  press 6 → rows painted, cursor on the newest             {stream:9.3f}   "
          f"floor / this = {s_floor / stream:.1f}; {stream_rows:,} rows in {stream_days} day(s) read")
    if newest is not None:
        print(f"  press 6 → today's rows painted at the bottom             {newest:9.3f}   floor / this = {s_floor / newest:.1f}")
    else:
        print("  press 6 → today's rows painted at the bottom             never (within 5 s): the table stayed "
              "scrolled to the top of the loaded days")
    print()
    print(f"Screens, key → first frame of what it opens (wall / CPU seconds, {'10k':>6} {big_k:>6}):")

    def pairs(label: str, a, b, note: str = "") -> None:
        print(f"{label:<52}{a[0]:7.3f} /{a[1]:6.3f} @{a.load:4.1f}   {b[0]:7.3f} /{b[1]:6.3f} @{b.load:4.1f}  {note}")

    for mode in switches["year"]["firsts"]:
        pairs(f"  first visit of {mode}", switches["year"]["firsts"][mode], switches["big"]["firsts"][mode])
    for mode in switches["year"]["worst"]:
        pairs(f"  slowest switch to {mode}", switches["year"]["worst"][mode], switches["big"]["worst"][mode])
    pairs(f"  screen switch p95 ({switches['year']['n']} switches)", switches["year"]["p95"], switches["big"]["p95"],
          "target ≤ 0.150")
    pairs("  screen switch, the slowest", switches["year"]["max"], switches["big"]["max"])
    pairs("  first citation jump → Stream on the fragment", jumps["year"][0], jumps["big"][0], "target ≤ 0.200")
    pairs("  second citation jump", jumps["year"][1], jumps["big"][1])
    for label in modals["year"]:
        pairs(f"  {label}", modals["year"][label], modals["big"][label],
              "target ≤ 0.100" if label.startswith("first") else "")

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", help="build the workspaces in this folder and keep them (reused when present)")
    parser.add_argument("--fragments", type=int, default=1_000_000, help="fragments in the year (10k shards)")
    parser.add_argument("--big-shards", type=int, default=100_000)
    parser.add_argument("--big-cites", type=int, default=5, help="fragments cited per shard at --big-shards")
    parser.add_argument("--repeat", type=int, default=3, help="launches per workspace (best is shown)")
    parser.add_argument("--screens", action="store_true",
                        help="only the cold launch at --big-shards and the screen, jump and modal times (needs --keep)")
    parser.add_argument("--cold", help=argparse.SUPPRESS)  # the child of cold_launch
    parser.add_argument("--watcher", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.screens and not args.keep:
        parser.error("--screens needs --keep DIR")
    asyncio.run(cold_child(Path(args.cold), args.watcher) if args.cold else
                screens_only(args) if args.screens else main(args))
