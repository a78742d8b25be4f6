"""Dream gates: cron schedule, undreamed count, quiet interval, the lock; and each one's reason line."""
from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta

import pytest

from dreamdeck.core.dreaming.gates import GateDecision, evaluate_gates, last_run_time, next_run
from dreamdeck.core.dreaming.lock import DreamLock
from dreamdeck.core.store.settings import DreamingSettings, Settings
from dreamdeck.core.store.state import DreamingState, save_state
from tests.support.memory import fragment_line, shard_text, uuid_at, write_stream

DAY = "2026-05-22"
NOW = datetime(2026, 5, 22, 10, 30)  # naive = local wall-clock time


def settings(**kw) -> Settings:
    return Settings(dreaming=DreamingSettings(**kw))


def add_fragments(ws, n: int, start: int = 1) -> list[str]:
    write_stream(ws.root, DAY, [fragment_line(DAY, i, f"topic-{i}", f"body number {i}") for i in range(start, start + n)])
    return [uuid_at(DAY, i) for i in range(start, start + n)]


def gate(ws, trigger="watch", *, now=NOW, last_run_at=None, s=None, **kw) -> GateDecision:
    return evaluate_gates(ws, now=now, last_run_at=last_run_at, trigger=trigger, settings=s or settings(), **kw)


# --- next_run ------------------------------------------------------------------------------
def test_next_run_crosses_the_hour_boundary():
    assert next_run("*/30 * * * *", datetime(2026, 5, 22, 10, 45)) == datetime(2026, 5, 22, 11, 0)
    assert next_run("0 * * * *", datetime(2026, 5, 22, 10, 59, 59)) == datetime(2026, 5, 22, 11, 0)
    assert next_run("*/30 * * * *", datetime(2026, 5, 22, 23, 45)) == datetime(2026, 5, 23, 0, 0)


def test_next_run_is_strictly_after():
    assert next_run("*/30 * * * *", datetime(2026, 5, 22, 11, 0)) == datetime(2026, 5, 22, 11, 30)


def test_next_run_aware_input_is_local_wall_clock():
    after_local = datetime(2026, 5, 22, 10, 45)
    after_utc = after_local.astimezone(UTC)
    got = next_run("*/30 * * * *", after_utc)
    assert got.tzinfo is not None
    assert got == datetime(2026, 5, 22, 11, 0).astimezone()
    assert got.astimezone().replace(tzinfo=None) == datetime(2026, 5, 22, 11, 0)


# --- count gate ----------------------------------------------------------------------------
def test_watch_with_nothing_undreamed_skips(ws):
    d = gate(ws)
    assert (d.run, d.reason, d.gate) == (False, "skip: 0 undreamed (< min_fragments 1)", "undreamed")


def test_watch_below_min_fragments_skips(ws):
    add_fragments(ws, 4)
    d = gate(ws, s=settings(min_fragments=5))
    assert (d.run, d.reason, d.undreamed) == (False, "skip: 4 undreamed (< min_fragments 5)", 4)


def test_watch_with_enough_fragments_runs(ws):
    add_fragments(ws, 4)
    d = gate(ws, s=settings(min_fragments=4))
    assert (d.run, d.reason, d.gate) == (True, "run: 4 undreamed fragments (watch)", "")
    assert gate(ws, s=settings(min_fragments=0)).run


def test_singular_reason(ws):
    add_fragments(ws, 1)
    assert gate(ws).reason == "run: 1 undreamed fragment (watch)"


def test_dreamed_fragments_do_not_count(ws):
    ids = add_fragments(ws, 3)
    save_state(ws.state_path, DreamingState().add_dreamed(DAY, ids[:2], "2026-05-22T09:00:00+00:00"))
    assert gate(ws).reason == "run: 1 undreamed fragment (watch)"
    save_state(ws.state_path, DreamingState().add_dreamed(DAY, ids, "2026-05-22T09:00:00+00:00"))
    assert gate(ws).reason == "skip: 0 undreamed (< min_fragments 1)"


def test_min_fragments_zero_still_needs_something(ws):
    assert gate(ws, s=settings(min_fragments=0)).reason == "skip: 0 undreamed (nothing to dream)"


# --- interval gate -------------------------------------------------------------------------
def test_watch_inside_min_interval_skips(ws):
    add_fragments(ws, 2)
    d = gate(ws, last_run_at=NOW - timedelta(minutes=3), s=settings(min_interval_minutes=10))
    assert (d.run, d.reason, d.gate) == (False, "skip: last run 3 min ago (< min_interval 10 min)", "interval")
    d = gate(ws, last_run_at=NOW - timedelta(seconds=40), s=settings(min_interval_minutes=10))
    assert d.reason == "skip: last run 40 s ago (< min_interval 10 min)"


def test_watch_after_min_interval_runs(ws):
    add_fragments(ws, 2)
    d = gate(ws, last_run_at=NOW - timedelta(minutes=10), s=settings(min_interval_minutes=10))
    assert (d.run, d.reason) == (True, "run: 2 undreamed fragments (watch)")


def test_interval_mixes_naive_now_and_aware_receipt_times(ws):
    add_fragments(ws, 2)
    last = (NOW - timedelta(minutes=3)).astimezone(UTC)  # receipts store UTC
    d = gate(ws, last_run_at=last, s=settings(min_interval_minutes=10))
    assert d.reason == "skip: last run 3 min ago (< min_interval 10 min)"


def test_no_interval_by_default(ws):
    add_fragments(ws, 1)
    assert gate(ws, last_run_at=NOW - timedelta(seconds=1)).run


# --- manual --------------------------------------------------------------------------------
def test_manual_ignores_count_and_interval(ws):
    add_fragments(ws, 1)
    d = gate(ws, "manual", last_run_at=NOW - timedelta(minutes=1), s=settings(min_fragments=10, min_interval_minutes=60))
    assert (d.run, d.reason) == (True, "run: 1 undreamed fragment (manual)")


def test_manual_with_nothing_undreamed_skips(ws):
    d = gate(ws, "manual")
    assert (d.run, d.reason) == (False, "skip: nothing undreamed (manual)")


# --- schedule ------------------------------------------------------------------------------
def test_schedule_not_due_since_last_check(ws):
    add_fragments(ws, 3)
    d = gate(ws, "schedule", now=datetime(2026, 5, 22, 10, 29, 59), last_check=datetime(2026, 5, 22, 10, 29, 57))
    assert (d.run, d.reason, d.gate) == (False, "skip: schedule not due (next 10:30)", "schedule")


def test_schedule_due_runs(ws):
    add_fragments(ws, 3)
    d = gate(ws, "schedule", now=datetime(2026, 5, 22, 10, 30, 1), last_check=datetime(2026, 5, 22, 10, 29, 59))
    assert (d.run, d.reason) == (True, "run: 3 undreamed fragments (schedule)")


def test_schedule_due_still_needs_fragments_and_interval(ws):
    due = dict(now=datetime(2026, 5, 22, 10, 30, 1), last_check=datetime(2026, 5, 22, 10, 29, 59))
    assert gate(ws, "schedule", **due).reason == "skip: 0 undreamed (< min_fragments 1)"
    add_fragments(ws, 1)
    d = gate(ws, "schedule", last_run_at=datetime(2026, 5, 22, 10, 25), s=settings(min_interval_minutes=15), **due)
    assert d.reason == "skip: last run 5 min ago (< min_interval 15 min)"


def test_schedule_uses_its_own_cron(ws):
    add_fragments(ws, 1)
    s = settings(schedule="0 3 * * *")
    d = gate(ws, "schedule", now=datetime(2026, 5, 22, 10, 30, 1), last_check=datetime(2026, 5, 22, 10, 29, 59), s=s)
    assert d.reason == "skip: schedule not due (next 03:00)"
    d = gate(ws, "schedule", now=datetime(2026, 5, 23, 3, 0, 5), last_check=datetime(2026, 5, 22, 10, 29, 59), s=s)
    assert d.run


def test_schedule_falls_back_to_last_run_and_never_fires_without_either(ws):
    add_fragments(ws, 1)
    assert gate(ws, "schedule", last_run_at=datetime(2026, 5, 22, 9, 0)).run  # 09:30 and 10:00 passed
    assert gate(ws, "schedule").gate == "schedule"


def test_unknown_trigger_is_refused(ws):
    with pytest.raises(ValueError):
        gate(ws, "cron")


# --- lock ----------------------------------------------------------------------------------
def test_lock_held_skips_with_holder(ws):
    add_fragments(ws, 2)
    lock = DreamLock(ws, "manual")
    lock.acquire()
    try:
        for trigger in ("watch", "manual"):
            d = gate(ws, trigger)
            assert not d.run and d.gate == "lock"
            assert d.reason.startswith(f"skip: dream lock held by pid {os.getpid()} on ")
            assert "(manual, " in d.reason
        assert gate(ws, "manual", check_lock=False).run  # dry runs take no lock
    finally:
        lock.release()
    assert gate(ws).run


def test_count_is_reported_before_the_lock(ws):
    lock = DreamLock(ws)
    lock.acquire()
    try:
        assert gate(ws).reason == "skip: 0 undreamed (< min_fragments 1)"
    finally:
        lock.release()


# --- last_run_time -------------------------------------------------------------------------
def test_last_run_time_none_without_receipts(ws):
    assert last_run_time(ws) is None
    (ws.meta_dir / "receipts").mkdir(parents=True)
    assert last_run_time(ws) is None


def test_last_run_time_from_newest_receipt(ws):
    folder = ws.meta_dir / "receipts"
    folder.mkdir(parents=True)
    (folder / "d-20260522-090000-aaaa.json").write_text(json.dumps({"started": "2026-05-22T09:00:00+00:00"}))
    (folder / "d-20260522-100000-bbbb.json").write_text(json.dumps({"started": "2026-05-22T10:00:00+00:00"}))
    (folder / "d-20260522-110000-cccc.json").write_text("{not json")
    (folder / "notes.json").write_text(json.dumps({"started": "2030-01-01T00:00:00+00:00"}))
    assert last_run_time(ws) == datetime(2026, 5, 22, 10, 0, tzinfo=UTC)


def test_last_run_time_after_a_real_run(ws):
    from dreamdeck.core.dreaming.run import run_dream

    add_fragments(ws, 2)

    class Scripted:
        name = "scripted"

        def dream(self, inp, scratch):
            scratch.write_shard("gated", shard_text("Gated", [f.citation for f in inp.fragments]))
            scratch.finish(summary="ok")
            return scratch.outcome

    before = datetime.now(UTC).replace(microsecond=0)
    receipt = run_dream(ws, dreamer=Scripted(), review="none", trigger="watch")
    assert receipt.status == "applied"
    got = last_run_time(ws)
    assert got is not None and before <= got <= datetime.now(UTC)
    d = gate(ws, now=datetime.now(), last_run_at=got, s=settings(min_interval_minutes=10))
    assert d.reason == "skip: 0 undreamed (< min_fragments 1)"
    add_fragments(ws, 1, start=10)
    d = gate(ws, now=datetime.now(), last_run_at=got, s=settings(min_interval_minutes=10))
    assert d.gate == "interval" and d.reason.endswith("(< min_interval 10 min)")
