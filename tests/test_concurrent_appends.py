"""Invariant 7 (no lost appends): agents keep appending to today's stream while dreamdeck dreams
and compacts it, hundreds of times. Every fragment an agent wrote is either still in the stream
or was collected by a run that had dreamed it and left it uncited. Zero lost.
"""
from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import tempfile
import time
import zlib
from pathlib import Path

import pytest

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.store.streams import read_stream_lines
from dreamdeck.core.workspace import Workspace
from tests.faults.appender import append_many, append_raw
from tests.support.dreamers import Scripted, citations_in, draft

pytestmark = pytest.mark.slow

D = "2026-05-22"
RUNS = 200


def _cites_half(inp, scratch) -> None:
    """Cite roughly half of what it sees (by a hash of the id), one shard per source."""
    by_source: dict[str, list[str]] = {}
    for f in inp.fragments:
        if zlib.crc32(f.id.encode()) % 2 == 0:
            by_source.setdefault(f.source, []).append(f.citation)
    for source, new in by_source.items():
        slug = "from-" + source
        old = citations_in(scratch.files.get(slug, ""))
        scratch.write_shard(slug, draft(f"Things {source} observed", old + new))


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
    ready, start, stop = ctx.Queue(), ctx.Event(), ctx.Event()
    writers = [  # (source, how, pause between appends)
        ("agent-a", append_many, 0.05),
        ("agent-b", append_many, 0.06),
        ("logger", append_raw, 0.05),  # TypeClaw's appendFile: no dreamdeck lock at all
    ]
    procs, outs = [], []
    for source, fn, pause in writers:
        out = tmp_path / f"{source}.json"
        outs.append(out)
        procs.append(ctx.Process(target=fn, args=(str(root), D, source, 5000, pause, str(out), ready, start, stop)))
    for p in procs:
        p.start()
    for _ in procs:
        ready.get(timeout=60)

    dreamer = Scripted(_cites_half)
    receipts = []
    start.set()
    deadline = time.monotonic() + 50
    # Count only runs that had fragments to dream: a fast run that finds nothing new proves
    # nothing about compaction racing the appenders.
    while sum(r.status != "skipped" for r in receipts) < RUNS and time.monotonic() < deadline:
        receipts.append(run_dream(ws, dreamer=dreamer, review="none"))
    stop.set()
    for p in procs:
        p.join(timeout=20)
        assert p.exitcode == 0
    receipts.append(run_dream(ws, dreamer=dreamer, review="none"))  # whatever arrived last

    worked = [r for r in receipts if r.status != "skipped"]
    assert len(worked) >= RUNS, f"only {len(worked)} of the runs had fragments to dream"
    assert sum(len(r.fragments_dropped) for r in receipts) > 0 and any(r.watermarks_dropped for r in receipts)

    appended = [(D, i) for out in outs for i in json.loads(out.read_text())]
    assert len(appended) > RUNS
    lines = read_stream_lines(root / "memory" / "streams" / f"{D}.jsonl")
    assert [ln for ln in lines if ln.error] == [], "a line was torn or interleaved"
    in_stream = [(D, ln.event["id"]) for ln in lines if ln.kind == "fragment"]
    assert len(in_stream) == len(set(in_stream)), "a line was duplicated"
    collected = [tuple(k.split("#", 1)) for r in receipts for k in r.fragments_dropped]
    assert len(collected) == len(set(collected))

    lost = set(appended) - set(in_stream) - set(collected)
    assert not lost, f"{len(lost)} appended fragment(s) lost: {sorted(lost)[:5]}"
    # what was collected had been dreamed and was never cited; what is cited is still there
    cited = set()
    for path in (root / "memory" / "topics").glob("*.md"):
        cited |= {tuple(c.split("/", 1)[1].split("#", 1)) for c in citations_in(path.read_text())}
    assert not cited & set(collected)
    assert cited <= set(in_stream)
    assert len(cited) > 0
