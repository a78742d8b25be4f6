"""The dream watcher with real files, real threads and real watchfiles events (nothing mocked)."""
from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from dreamdeck.core.dreaming.watcher import Watcher, WatchEvent, format_event
from dreamdeck.core.store.streams import append_fragment
from tests.support import REPO
from tests.support.memory import fragment_line, shard_text, write_stream
from tests.support.waits import wait_until

DAY = "2026-05-22"


class Scripted:
    """A dreamer that cites every fragment it is shown in one new shard, after `delay` seconds."""

    name = "scripted"

    def __init__(self, delay: float = 0.0, fail_first: bool = False):
        self.delay = delay
        self.fail_first = fail_first
        self.calls: list[list[str]] = []
        self.started = threading.Event()

    def dream(self, inp, scratch):
        self.calls.append([f.id for f in inp.fragments])
        self.started.set()
        if self.fail_first and len(self.calls) == 1:
            raise RuntimeError("scripted failure")
        time.sleep(self.delay)
        n = len(self.calls)
        scratch.write_shard(f"watched-{n}", shard_text(f"Run {n}", [f.citation for f in inp.fragments]))
        scratch.finish(summary=f"run {n}")
        return scratch.outcome


class Events:
    def __init__(self):
        self.items: list[WatchEvent] = []
        self.cond = threading.Condition()

    def __call__(self, ev: WatchEvent) -> None:
        with self.cond:
            self.items.append(ev)
            self.cond.notify_all()

    def wait_for(self, pred, timeout: float = 5.0) -> WatchEvent:
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for ev in self.items:
                    if pred(ev):
                        return ev
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no matching event within {timeout}s; got:\n" + self.dump())
                self.cond.wait(left)

    def count(self, kind: str) -> int:
        with self.cond:
            return sum(1 for ev in self.items if ev.kind == kind)

    def messages(self, kind: str | None = None) -> list[str]:
        with self.cond:
            return [ev.message for ev in self.items if kind is None or ev.kind == kind]

    def dump(self) -> str:
        return "\n".join(f"  {ev.kind}: {ev.message}" for ev in self.items)


def settle(w: Watcher, quiet: float = 1.0, timeout: float = 8.0) -> None:
    """Wait until no run is in progress and no event arrived for `quiet` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        before = len(w.events)
        time.sleep(quiet)
        if len(w.events) == before and not w.status().in_run:
            return
    raise AssertionError("watcher never settled")


@pytest.fixture
def make_watcher(ws):
    made: list[Watcher] = []

    def make(dreamer=None, **kw) -> tuple[Watcher, Events]:
        events = Events()
        w = Watcher(ws, dreamer=dreamer or Scripted(), review="none", on_event=events, tick=0.3, **kw)
        made.append(w)
        return w, events

    yield make
    for w in made:
        w.stop(timeout=5)


def streams_dir(ws) -> Path:
    path = ws.memory / "streams"
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_an_append_triggers_a_dream(ws, make_watcher):
    streams_dir(ws)
    dreamer = Scripted()
    w, ev = make_watcher(dreamer)
    w.start()
    assert ev.items[0].kind == "started" and "memory/streams/" in ev.items[0].message
    frag = append_fragment(ws, "coffee", "Ana takes her coffee black")
    done = ev.wait_for(lambda e: e.kind == "run-done", timeout=30)
    assert ev.messages("decision")[0] == "run: 1 undreamed fragment (watch)"
    assert dreamer.calls == [[frag.id]]
    assert done.receipt["status"] == "applied" and done.receipt["trigger"] == "watch"
    assert done.message.startswith("dream applied: 1 fragment")
    assert (ws.topics_dir / "watched-1.md").is_file()
    s = w.status()
    assert s.running and not s.paused and s.runs == 1 and s.undreamed == 0
    assert s.last_receipt["id"] == done.receipt["id"]
    assert s.lock_holder is None
    assert s.watching == "memory/streams/"


def test_flat_layout_and_memory_created_after_start(ws, make_watcher):
    # A schedule that is never due while the test runs: at :00 and :30 the default one ticked in
    # the middle of the last check and added its own decision event.
    (ws.root / "dreamdeck.toml").write_text('[dreaming]\nschedule = "0 0 29 2 1"\n')
    dreamer = Scripted()
    w, ev = make_watcher(dreamer)
    w.start()
    assert "memory/ (not there yet)" in ev.items[0].message
    time.sleep(0.2)
    write_stream(ws.root, DAY, [fragment_line(DAY, 1, "tea", "Bo drinks green tea")], layout="flat")
    ev.wait_for(lambda e: e.kind == "run-done", timeout=6)
    assert len(dreamer.calls) == 1
    # Later appends to the flat file are seen through the memory/ watch.
    write_stream(ws.root, DAY, [fragment_line(DAY, 2, "tea", "Bo switched to oolong")], layout="flat")
    wait_until(lambda: len(dreamer.calls) == 2, timeout=5)
    # Files that are not day streams never trigger anything.
    settle(w, quiet=0.6)
    n = len(w.events)
    (ws.memory / "notes.jsonl").write_text("{}\n")
    (ws.memory / "topics" / "x.md").write_text("hi\n")
    time.sleep(1.0)
    assert len(w.events) == n


def test_triggers_during_a_slow_run_coalesce_into_one_more(ws, make_watcher):
    streams_dir(ws)
    dreamer = Scripted(delay=1.0)
    w, ev = make_watcher(dreamer)
    w.start()
    append_fragment(ws, "walks", "Ana walks the dog at 7")
    assert dreamer.started.wait(5)
    for i in range(5):
        append_fragment(ws, "walks", f"Ana walked the dog, day {i}")
        time.sleep(0.05)
    wait_until(lambda: w.status().runs >= 2, timeout=8)
    settle(w, quiet=1.2)
    assert w.status().runs == 2
    assert [len(c) for c in dreamer.calls] == [1, 5]
    assert ev.count("run-start") == 2
    assert w.status().undreamed == 0


def test_pause_stops_runs_and_resume_restarts(ws, make_watcher):
    streams_dir(ws)
    dreamer = Scripted()
    w, ev = make_watcher(dreamer)
    w.start()
    w.pause()
    assert w.status().paused
    append_fragment(ws, "music", "Bo plays the cello")
    ev.wait_for(lambda e: e.message == "skip: paused (watch)", timeout=5)
    time.sleep(0.8)
    assert w.status().runs == 0 and dreamer.calls == []
    assert w.status().undreamed == 1
    w.resume()
    ev.wait_for(lambda e: e.kind == "run-done", timeout=5)
    assert w.status().runs == 1 and not w.status().paused
    append_fragment(ws, "music", "Bo also plays piano")
    wait_until(lambda: w.status().runs == 2, timeout=5)


def test_manual_trigger_and_dry_run(ws, make_watcher):
    streams_dir(ws)
    write_stream(ws.root, DAY, [fragment_line(DAY, 1, "books", "Ana reads Le Guin")])  # before start: no event
    dreamer = Scripted()
    w, ev = make_watcher(dreamer)
    w.start()
    time.sleep(0.5)
    assert w.status().runs == 0
    w.trigger_now(dry_run=True)
    done = ev.wait_for(lambda e: e.kind == "run-done", timeout=5)
    assert done.receipt["status"] == "dry-run" and done.receipt["trigger"] == "manual"
    assert "run: 1 undreamed fragment (manual, dry run)" in ev.messages("decision")
    assert w.status().undreamed == 1  # a dry run changes nothing
    assert not (ws.meta_dir / "receipts").exists()
    w.pause()  # a person's "dream now" still runs while automatic triggers are paused
    w.trigger_now()
    ev.wait_for(lambda e: e.kind == "run-done" and e.receipt["status"] == "applied", timeout=5)
    assert w.status().undreamed == 0 and w.status().runs == 2
    w.trigger_now()
    ev.wait_for(lambda e: e.message == "skip: nothing undreamed (manual)", timeout=5)


def test_a_failing_run_is_reported_and_watching_goes_on(ws, make_watcher):
    streams_dir(ws)
    dreamer = Scripted(fail_first=True)
    w, ev = make_watcher(dreamer)
    w.start()
    append_fragment(ws, "garden", "Bo grows tomatoes")
    err = ev.wait_for(lambda e: e.kind == "error", timeout=5)
    assert "scripted failure" in err.message
    assert w.status().running
    append_fragment(ws, "garden", "Bo grows basil too")
    done = ev.wait_for(lambda e: e.kind == "run-done", timeout=5)
    assert done.receipt["fragments_seen"] == 2  # the failed run changed nothing


def test_schedule_fires_when_the_clock_passes_a_cron_time(ws, make_watcher):
    streams_dir(ws)
    write_stream(ws.root, DAY, [fragment_line(DAY, 1, "sleep", "Ana sleeps at 11")])
    offset = [timedelta(0)]
    base = datetime(2026, 5, 22, 10, 29, 58)
    dreamer = Scripted()
    w, ev = make_watcher(dreamer, clock=lambda: base + offset[0])
    w.start()
    assert w.status().next_scheduled == datetime(2026, 5, 22, 10, 30)
    time.sleep(0.8)
    assert w.status().runs == 0 and ev.count("decision") == 0  # not due: no line at all
    offset[0] = timedelta(seconds=5)
    done = ev.wait_for(lambda e: e.kind == "run-done", timeout=5)
    assert done.receipt["trigger"] == "schedule"
    assert "run: 1 undreamed fragment (schedule)" in ev.messages("decision")
    assert w.status().next_scheduled == datetime(2026, 5, 22, 11, 0)
    assert format_event(done).startswith("2026-05-22 10:30:03 dream applied")


def test_stop_ends_the_watcher_and_says_stopped_once(ws, make_watcher):
    streams_dir(ws)
    w, ev = make_watcher()
    w.start()
    time.sleep(0.3)
    assert w.stop(timeout=5) is True
    assert ev.items[-1].kind == "stopped" and ev.items[-1].message == "stopped"
    assert not w.status().running
    assert w.stop() is True and ev.count("stopped") == 1


HOLD_LOCK = (
    "import sys, time\n"
    "from dreamdeck.core.workspace import Workspace\n"
    "from dreamdeck.core.dreaming.lock import DreamLock\n"
    "DreamLock(Workspace.open(sys.argv[1]), 'manual').acquire()\n"
    "print('held', flush=True)\n"
    "time.sleep(60)\n"
)


def _python(code: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", code, *args], cwd=REPO,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def test_lock_held_by_another_process_is_reported_and_not_run(ws, make_watcher):
    streams_dir(ws)
    holder = _python(HOLD_LOCK, str(ws.root))
    try:
        assert holder.stdout.readline().strip() == "held"
        dreamer = Scripted()
        w, ev = make_watcher(dreamer)
        w.start()
        append_fragment(ws, "cats", "Ana has two cats")
        skip = ev.wait_for(lambda e: e.kind == "decision" and "lock" in e.message, timeout=5)
        assert skip.message.startswith(f"skip: dream lock held by pid {holder.pid} on ")
        time.sleep(0.5)
        assert w.status().runs == 0 and dreamer.calls == []
        assert w.status().lock_holder.startswith(f"pid {holder.pid} ")
    finally:
        holder.kill()
        holder.wait()
    # The holder died: its record is cleared on sight and the next trigger runs.
    w.trigger_now()
    ev.wait_for(lambda e: e.kind == "run-done", timeout=5)
    assert w.status().runs == 1 and w.status().lock_holder is None


HEADLESS = (
    "import sys\n"
    "from dreamdeck.core.workspace import Workspace\n"
    "from dreamdeck.cli.watch import run_headless\n"
    "sys.exit(run_headless(Workspace.open(sys.argv[1]), dreamer_name='offline', review='none', tick=0.3))\n"
)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_run_headless_stops_cleanly_on_signal(ws, sig):
    streams_dir(ws)
    proc = _python(HEADLESS, str(ws.root))
    try:
        first = proc.stdout.readline()
        assert " watching memory/streams/: schedule '*/30 * * * *'" in first, first + proc.stderr.read()
        time.sleep(0.3)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=5)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    lines = (first + out).splitlines()
    assert lines[-1].endswith(" stopped")
    datetime.strptime(lines[-1][:19], "%Y-%m-%d %H:%M:%S")
    assert "Traceback" not in err


def test_a_bad_settings_file_is_reported_once_and_watching_goes_on(ws, make_watcher):
    streams_dir(ws)
    w, ev = make_watcher()
    w.start()
    ws.settings_path.write_text("[dreaming]\nschedule = 'every day'\n")
    ev.wait_for(lambda e: e.kind == "error" and "schedule" in e.message, timeout=5)
    time.sleep(1.0)  # several ticks: still one line
    assert ev.count("error") == 1 and w.status().running
    ws.settings_path.write_text("[dreaming]\nmin_fragments = 1\n")
    append_fragment(ws, "fixed", "the settings were fixed")
    ev.wait_for(lambda e: e.kind == "run-done", timeout=5)


def test_run_headless_refuses_to_start_on_bad_settings(ws):
    import io

    from dreamdeck.cli.watch import run_headless

    ws.settings_path.write_text("[dreaming]\nreview = 'sometimes'\n")
    out = io.StringIO()
    assert run_headless(ws, dreamer=Scripted(), review="none", out=out) == 2
    assert " error: dreamdeck.toml [dreaming] review" in out.getvalue()
