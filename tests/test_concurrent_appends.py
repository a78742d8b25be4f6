"""Invariant 7 (no lost appends): agents keep appending to today's stream while dreamdeck dreams
(and, once the day is over, compacts it), hundreds of times. Every fragment an agent wrote is, exactly once, either still
in the stream or collected by a run that had dreamed it and left it uncited. Zero lost.

Counted, never timed: three appenders write a fixed number of fragments each, a batch after each
dream has read the stream (tests/faults/appender.py), so their appends race that dream's apply,
compaction and commit; the next dream starts once every appender has written something the
previous one could not have seen. So the test makes the same RUNS dreams, each with new fragments
and each raced by appends, on a fast machine or a loaded one.
"""
from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.store.streams import read_stream_lines
from dreamdeck.core.workspace import Workspace
from tests.faults.appender import append_many, append_raw
from tests.support.dreamers import citations_in
from tests.support.lockstep import counting_dreamer, dream_in_lockstep
from tests.support.memory import the_next_day

pytestmark = pytest.mark.slow

D = "2026-05-22"
RUNS = 200  # dreams while the agents append, every one with new fragments to dream
BATCH = 2  # appends per appender released each time a dream has read the stream
PER_APPENDER = RUNS * BATCH


@pytest.fixture
def fast_dir(tmp_path, monkeypatch):
    """A RAM-backed folder when there is one: this test is about interleavings, not fsync latency.

    The cross-process locks live under the temp dir, so TMPDIR moves there too (the spawned
    appenders inherit it and so take the very same stream lock as this process).
    """
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="dreamdeck-appends-", dir=shm))
    monkeypatch.setenv("TMPDIR", str(folder))
    # dreamdeck's private folder on the streams' file system: a rewrite keeps the replaced inode
    # there by a hard link (this folder has no git folder to keep it in).
    monkeypatch.setenv("DREAMDECK_CACHE_DIR", str(folder / "cache"))
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_no_append_is_lost_while_hundreds_of_dreams_compact_the_stream(tmp_path, fast_dir):
    root = fast_dir / "agent"  # no git: the invariant is about stream bytes, and it keeps 200 runs fast
    (root / "memory" / "streams").mkdir(parents=True)
    ws = Workspace.open(root, today=D)
    ctx = multiprocessing.get_context("spawn")
    ready, start, abort = ctx.Queue(), ctx.Event(), ctx.Event()
    reads = ctx.Value("i", 0)  # dreams that have read the stream (the dreamer was called)
    writers = [  # (source, how)
        ("agent-a", append_many),
        ("agent-b", append_many),
        ("logger", append_raw),  # TypeClaw's appendFile: no dreamdeck lock at all
    ]
    procs, outs, counts = [], [], []
    for source, fn in writers:
        out, appended = tmp_path / f"{source}.json", ctx.Value("i", 0)
        outs.append(out)
        counts.append(appended)
        procs.append(ctx.Process(target=fn, args=(str(root), D, source, PER_APPENDER, BATCH, str(out),
                                                  ready, start, reads, appended, abort)))

    # Dream `run` waits for append number (run-1)*BATCH from every appender: released only once
    # dream run-1 had read, so it is new to this one.
    dreamer = counting_dreamer(reads)
    receipts = dream_in_lockstep(ws, dreamer, procs, ready, start, abort, counts, runs=RUNS, batch=BATCH)
    # Today's stream is never rewritten (invariant 8): its compaction waited in the backlog, and
    # the first run once the day is over and the file quiet does it.
    assert sum(len(r.fragments_dropped) for r in receipts) == 0
    receipts.append(run_dream(the_next_day(ws), dreamer=dreamer, review="none"))

    worked = [r for r in receipts if r.status != "skipped"]
    assert len(worked) >= RUNS, f"only {len(worked)} of the runs had fragments to dream"
    assert sum(len(r.fragments_dropped) for r in receipts) > 0 and any(r.watermarks_dropped for r in receipts)

    appended = [(D, i) for out in outs for i in json.loads(out.read_text())]
    assert len(appended) == len(set(appended)) == len(writers) * PER_APPENDER
    lines = read_stream_lines(root / "memory" / "streams" / f"{D}.jsonl")
    assert [ln for ln in lines if ln.error] == [], "a line was torn or interleaved"
    in_stream = [(D, ln.event["id"]) for ln in lines if ln.kind == "fragment"]
    assert len(in_stream) == len(set(in_stream)), "a line was duplicated"
    collected = [tuple(k.split("#", 1)) for r in receipts for k in r.fragments_dropped]
    assert len(collected) == len(set(collected))

    lost = set(appended) - set(in_stream) - set(collected)
    assert not lost, f"{len(lost)} appended fragment(s) lost: {sorted(lost)[:5]}"
    # every appended fragment exactly once: in the stream or collected, never both, nothing else
    assert sorted(in_stream + collected) == sorted(appended)
    # what was collected had been dreamed and was never cited; what is cited is still there
    cited = set()
    for path in (root / "memory" / "topics").glob("*.md"):
        cited |= {tuple(c.split("/", 1)[1].split("#", 1)) for c in citations_in(path.read_text())}
    assert not cited & set(collected)
    assert cited <= set(in_stream)
    assert len(cited) > 0
