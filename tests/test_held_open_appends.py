"""Invariant 8 (a stream a writer may hold open is never replaced): agents that keep today's stream
open with one O_APPEND descriptor (a logging handler, `tee -a`, a Node write stream) and agents that
open it per line keep writing while dreams run back to back. Every line any of them wrote is, exactly
once, either in a stream file or collected by a run that dreamed it and left it uncited: 0 lost,
0 duplicated. Real processes writing real files; counted, never timed (tests/faults/appender.py).
"""
from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.store.compaction_backlog import BACKLOG, load_backlog
from dreamdeck.core.store.stream_rewrite import carry_replaced_streams, rewrite_stream
from dreamdeck.core.store.streams import read_stream_lines
from dreamdeck.core.workspace import Workspace
from tests.faults.appender import append_held, append_per_line
from tests.support.dreamers import Scripted, citations_in, cites_half, draft
from tests.support.lockstep import counting_dreamer, dream_in_lockstep
from tests.support.memory import fragment_line, the_next_day, uuid_at, watermark_line, write_stream

D = "2026-05-22"  # the day the agents started writing
T = "2026-05-23"  # the workspace's today while they write (D's writers kept their file past midnight)


@pytest.fixture
def fast_root(tmp_path, monkeypatch):
    """An agent folder (no git: this is about stream bytes) in RAM when there is some, with
    dreamdeck's private folder on the same file system (a replaced inode is kept there by a hard
    link). The spawned writers inherit the environment."""
    shm = Path("/dev/shm")
    base = Path(tempfile.mkdtemp(prefix="dreamdeck-held-", dir=shm)) if shm.is_dir() and os.access(shm, os.W_OK) \
        else tmp_path
    monkeypatch.setenv("DREAMDECK_CACHE_DIR", str(base / "cache"))
    root = base / "agent"
    (root / "memory" / "streams").mkdir(parents=True)
    try:
        yield root
    finally:
        if base != tmp_path:
            shutil.rmtree(base, ignore_errors=True)


def _race(tmp_path: Path, root: Path, today: str, writers: list, per_writer: int, batch: int) -> tuple[list, dict]:
    """Start the writers (day, source, how), run a dream each time every writer has written a batch
    more, until they are done, then one more. (receipts, day -> ids appended)."""
    ws = Workspace.open(root, today=today)
    ctx = multiprocessing.get_context("spawn")
    ready, start, abort = ctx.Queue(), ctx.Event(), ctx.Event()
    reads = ctx.Value("i", 0)
    procs, outs, counts = [], [], []
    for day, source, how in writers:
        out, appended = tmp_path / f"{source}.json", ctx.Value("i", 0)
        outs.append((day, out))
        counts.append(appended)
        procs.append(ctx.Process(target=how, args=(str(root), day, source, per_writer, batch, str(out),
                                                   ready, start, reads, appended, abort)))

    receipts = dream_in_lockstep(ws, counting_dreamer(reads), procs, ready, start, abort, counts,
                                 runs=per_writer // batch, batch=batch)
    appended: dict[str, list[str]] = {}
    for day, out in outs:
        appended.setdefault(day, []).extend(json.loads(out.read_text()))
    return receipts, appended


def _exactly_once(root: Path, appended: dict[str, list[str]], receipts: list) -> list[tuple[str, str]]:
    """Every appended line is in its day's file or was collected, once; returns what was collected."""
    collected = [tuple(k.split("#", 1)) for r in receipts for k in r.fragments_dropped]
    assert len(collected) == len(set(collected)), "a fragment was collected twice"
    in_stream = []
    for day in appended:
        lines = read_stream_lines(root / "memory" / "streams" / f"{day}.jsonl")
        assert [ln for ln in lines if ln.error] == [], "a line was torn or interleaved"
        in_stream += [(day, ln.event["id"]) for ln in lines if ln.kind == "fragment"]
    assert len(in_stream) == len(set(in_stream)), "a line was duplicated"
    wrote = [(day, i) for day, ids in appended.items() for i in ids]
    lost = set(wrote) - set(in_stream) - set(collected)
    assert not lost, f"{len(lost)} line(s) lost: {sorted(lost)[:5]}"
    assert sorted(in_stream + collected) == sorted(wrote)
    return collected


def _cited(root: Path) -> set[tuple[str, str]]:
    cited = set()
    for path in (root / "memory" / "topics").glob("*.md"):
        cited |= {tuple(c.split("/", 1)[1].split("#", 1)) for c in citations_in(path.read_text())}
    return cited


@pytest.mark.slow
def test_ten_thousand_lines_from_writers_holding_the_file_open_or_opening_per_line_lose_and_duplicate_nothing(
        tmp_path, fast_root):
    root = fast_root
    for day in (D, T):
        (root / "memory" / "streams" / f"{day}.jsonl").touch()
    inodes = {day: os.stat(root / "memory" / "streams" / f"{day}.jsonl").st_ino for day in (D, T)}
    writers = [
        (D, "logger-a", append_held), (D, "logger-b", append_held), (D, "cron", append_per_line),
        (T, "tee", append_held), (T, "agent", append_per_line),
    ]

    receipts, appended = _race(tmp_path, root, T, writers, per_writer=2000, batch=20)

    assert sum(len(ids) for ids in appended.values()) == 10_000
    assert sum(r.status == "applied" for r in receipts) >= 100  # dreams ran back to back throughout
    # Neither file was replaced while its writers had it: yesterday's was written to within the
    # quiet period, today's is today's. Their compaction waits in the backlog, committed with it.
    assert {d: os.stat(root / "memory" / "streams" / f"{d}.jsonl").st_ino for d in (D, T)} == inodes
    assert _exactly_once(root, appended, receipts) == []
    backlog, _ = load_backlog(Workspace.open(root, today=T))
    assert sorted(backlog) == [D, T] and all(w.fragment_gc for w in backlog.values())

    # The writers are gone and the files quiet: the next run does the compaction that waited.
    later = run_dream(the_next_day(Workspace.open(root, today=T)), dreamer=Scripted(cites_half), review="none")

    collected = _exactly_once(root, appended, receipts + [later])
    assert len(collected) > 1000 and not (root / "memory" / BACKLOG).exists()
    assert not set(collected) & _cited(root) and _cited(root)


@pytest.mark.slow
def test_lines_written_per_line_while_yesterdays_file_is_rewritten_again_and_again_are_all_carried(tmp_path, fast_root):
    """No quiet period: yesterday's file is rewritten whenever no writer has it open at that
    instant, so lines land on replaced inodes (opened just before a rename) and are carried."""
    root = fast_root
    (root / "dreamdeck.toml").write_text("[streams]\nquiet_minutes = 0\n")
    (root / "memory" / "streams" / f"{D}.jsonl").touch()
    writers = [(D, "cron-a", append_per_line), (D, "cron-b", append_per_line), (D, "cron-c", append_per_line)]

    receipts, appended = _race(tmp_path, root, T, writers, per_writer=600, batch=6)
    carry_replaced_streams(Workspace.open(root, today=T))

    collected = _exactly_once(root, appended, receipts)
    assert len(collected) > 200  # the file really was compacted while they wrote
    assert not set(collected) & _cited(root)


def test_lines_a_process_writes_through_a_descriptor_it_kept_across_rewrites_are_carried_once(ws, agent_dir):
    """The store's own guarantee, beneath the door's guards: a writer holding the old inode keeps
    writing after each rename; every line reaches the current file exactly once."""
    path = write_stream(agent_dir, D, [watermark_line(D, 1)])
    child = subprocess.Popen([sys.executable, "-c", _HOLDER, str(path)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    written = []
    try:
        for round_ in range(30):
            child.stdin.write(f"{round_}\n")
            child.stdin.flush()
            written += child.stdout.readline().split()  # this round's ids, written before the rewrite
            carry_replaced_streams(ws)
            rewrite_stream(ws, path, keep=lambda ln: ln.kind != "watermark")
        child.stdin.write("end\n")
        child.stdin.flush()
        written += child.stdout.readline().split()
    finally:
        child.stdin.close()
        child.wait(timeout=30)
    carry_replaced_streams(ws)

    ids = [ln.event["id"] for ln in read_stream_lines(path) if ln.kind == "fragment"]
    assert len(written) == 31 * 4 and sorted(ids) == sorted(written)
    assert [ln.kind for ln in read_stream_lines(path)].count("watermark") <= 4 * 2


_HOLDER = r"""
import os, sys
from dreamdeck.core.formats.events import build_fragment, build_watermark, serialize_event
from dreamdeck.core.formats.ids import new_event_id, timestamp_from_id
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
for cmd in sys.stdin:
    ids = []
    for _ in range(4):
        fid = new_event_id()
        os.write(fd, (serialize_event(build_fragment(fid, timestamp_from_id(fid), source="held", entry="e",
                                                     topic="t", body="b " + fid)) + "\n").encode())
        wid = new_event_id()
        os.write(fd, (serialize_event(build_watermark(wid, timestamp_from_id(wid), source="held", entry="e")) + "\n").encode())
        ids.append(fid)
    print(" ".join(ids), flush=True)
    if cmd.strip() == "end":
        break
"""


def test_a_quiet_file_a_process_still_holds_open_for_writing_is_not_rewritten(ws, agent_dir):
    (agent_dir / "dreamdeck.toml").write_text("[streams]\nquiet_minutes = 0\n")
    path = write_stream(agent_dir, D, [fragment_line(D, 1, "t", "kept"), watermark_line(D, 2), watermark_line(D, 3)])
    holder = subprocess.Popen([sys.executable, "-c", "import os,sys; fd=os.open(sys.argv[1], os.O_WRONLY|os.O_APPEND); "
                               "print('open', flush=True); sys.stdin.read()", str(path)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        before = (path.read_bytes(), os.stat(path).st_ino)
        later = the_next_day(ws)

        r = run_dream(later, dreamer=Scripted(), review="none")

        assert (path.read_bytes(), os.stat(path).st_ino) == before and r.watermarks_dropped == 0
        assert f"held open for writing by process {holder.pid}" in r.message
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)

    r = run_dream(later, dreamer=Scripted(), review="none")  # the writer is gone

    assert r.watermarks_dropped == 1 and path.read_text().count('"watermark"') == 1


def test_todays_compaction_waits_in_the_committed_backlog_and_a_later_run_with_nothing_to_dream_does_it(ws, agent_dir):
    from tests.support.git import git

    write_stream(agent_dir, D, [fragment_line(D, 1, "pm", "uses pnpm"), fragment_line(D, 2, "x", "noise"),
                                watermark_line(D, 3), watermark_line(D, 4)])
    path = agent_dir / "memory" / "streams" / f"{D}.jsonl"
    before = path.read_bytes()

    first = run_dream(ws, dreamer=Scripted(lambda inp, s: s.write_shard("pm", draft("Uses pnpm", [f"streams/{D}#{uuid_at(D, 1)}"]))),
                      review="none")

    assert first.status == "applied" and first.fragments_dropped == [] and path.read_bytes() == before
    committed = json.loads(git(agent_dir, "show", f"HEAD:memory/{BACKLOG}"))
    # (with the reason its dream gave for the fragment it will take, for the compaction that waits)
    assert committed["days"] == {D: {"fragmentGc": True, "purge": [], "reasons": {uuid_at(D, 2): "noise: scripted: not cited"}}}

    second = run_dream(the_next_day(ws), dreamer=Scripted(), review="none")

    assert second.fragments_dropped == [f"{D}#{uuid_at(D, 2)}"] and second.watermarks_dropped == 1
    assert path.read_text().splitlines() == [fragment_line(D, 1, "pm", "uses pnpm"), watermark_line(D, 4)]
    assert git(agent_dir, "ls-tree", "HEAD", f"memory/{BACKLOG}") == ""
    assert second.commit and "compact" in git(agent_dir, "log", "-1", "--format=%s")


def test_a_rewrite_never_writes_through_a_link_planted_at_a_temp_name(ws, agent_dir, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    path = write_stream(agent_dir, D, [fragment_line(D, 1, "t", "kept"), watermark_line(D, 2), watermark_line(D, 3)])
    (path.parent / f"{D}.jsonl.tmp").symlink_to(outside)

    rewrite_stream(ws, path, keep=lambda ln: ln.kind != "watermark" or ln.event["id"] == uuid_at(D, 3))

    assert outside.read_text() == "precious\n"
    assert not path.is_symlink() and path.read_text().splitlines() == [fragment_line(D, 1, "t", "kept"), watermark_line(D, 3)]
    assert sorted(p.name for p in path.parent.iterdir()) == [f"{D}.jsonl", f"{D}.jsonl.tmp"]  # no temp file of ours left


def test_fragment_gc_keeps_a_cited_fragment_a_planted_projection_says_nothing_cites(ws, agent_dir):
    from dreamdeck.core.index.citation_ranges import FILENAME
    from dreamdeck.core.index.evidence import cited_on_days
    from dreamdeck.core.io.cache import clear_all
    from tests.support.memory import shard_text, write_shard

    write_stream(agent_dir, D, [fragment_line(D, 1, "a", "cited evidence"), fragment_line(D, 2, "b", "noise")])
    write_shard(agent_dir, "a", shard_text("Belief a", [f"streams/{D}#{uuid_at(D, 1)}"]))
    later = the_next_day(ws)
    clear_all()
    cited_on_days(later, {D}, now_ns=10**20)  # the projection is built and trusted
    projection = later.lock_dir / FILENAME
    data = json.loads(projection.read_text())
    for entry in data["files"].values():
        entry[4] = entry[5] = "2019-01-01"  # planted: no file cites D
    projection.write_text(json.dumps(data))
    clear_all()

    r = run_dream(later, dreamer=Scripted(lambda inp, s: s.write_shard("b", draft("Belief b", []))), review="none")

    assert r.status == "applied" and r.fragments_dropped == [f"{D}#{uuid_at(D, 2)}"]
    assert [ln.event["id"] for ln in read_stream_lines(agent_dir / "memory" / "streams" / f"{D}.jsonl")] == [uuid_at(D, 1)]


def test_doctor_reports_a_compaction_that_waited_once_it_is_due_and_fix_does_it(ws, agent_dir):
    from dreamdeck.core.ops.doctor import examine, fix

    path = write_stream(agent_dir, D, [fragment_line(D, 1, "x", "noise"), watermark_line(D, 2), watermark_line(D, 3)])
    run_dream(ws, dreamer=Scripted(lambda inp, s: s.write_shard("y", draft("Other", []))), review="none")
    assert [f.kind for f in examine(ws).findings if f.kind.startswith("compaction")] == []  # today's: no finding

    later = the_next_day(ws)
    assert [(f.kind, f.where) for f in examine(later).findings if f.kind.startswith("compaction")] == [
        ("compaction-due", f"memory/streams/{D}.jsonl")]

    report = fix(later)

    assert any(f"compacted memory/streams/{D}.jsonl" in line for line in report.fixed)
    assert path.read_text() == watermark_line(D, 3) + "\n" and not (agent_dir / "memory" / BACKLOG).exists()
