"""Invariant 7 (crash safety): SIGKILL at every step of the one door, then recover as
`dreamdeck doctor --fix` does (`recover_journal`), and check that nothing cited was lost.

Each case runs tests/faults/dream_with_fault.py in another process against a workspace built
here; the subprocess kills itself with SIGKILL when the door announces the step.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from dreamdeck.core.door.apply import recover_journal
from dreamdeck.core.door.journal import JOURNAL
from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.formats.citations import citation_keys
from dreamdeck.core.formats.events import fragment_content_hash
from dreamdeck.core.formats.shards import parse_shard
from dreamdeck.core.git.blobs import read_blobs, tree_files
from dreamdeck.core.index.evidence import shard_area_files
from dreamdeck.core.store.reflections import load_reflection
from dreamdeck.core.store.state import load_state, save_state
from dreamdeck.core.store.streams import append_fragment, iter_fragments
from tests.support.dreamers import Scripted, cite_all
from tests.support.git import git
from tests.support.memory import (
    cite,
    commit_all,
    fragment_line,
    shard_text,
    the_next_day,
    uuid_at,
    watermark_line,
    write_shard,
    write_stream,
)
from tests.support.processes import run_program

pytestmark = pytest.mark.slow

D1, D = "2026-05-20", "2026-05-22"

CASES = [
    *[("dream", s) for s in ("journal", "write:topics/a.md", "write:topics/ab.md", "write:topics/b.md",
                              "write:topics/n.md", "state", "gc-planned", "gc", "audit", "journal-removed", "commit")],
    ("mixed", "journal"), ("mixed", "write:topics/a.md"), ("mixed", "gc"),
    ("forget", "tombstones"), ("forget", "gc"),
    ("restore", "restore"), ("restore", "audit"),
]


def _prepare(tmp_path: Path, agent_dir: Path, ws) -> tuple[str, Path]:
    """A small workspace: a and b cite D1#1/#2; today brings #1 (a again), #2 (new), #3 (noise)."""
    write_stream(agent_dir, D1, [fragment_line(D1, 1, "a", "fact a"), fragment_line(D1, 2, "b", "fact b")])
    write_stream(agent_dir, D, [
        fragment_line(D, 1, "a", "a again"), watermark_line(D, 4, "s1"), fragment_line(D, 2, "n", "something new"),
        fragment_line(D, 3, "noise", "cold coffee"), watermark_line(D, 5, "s1"),
    ])
    a = shard_text("Belief a", [cite(D1, 1)])
    b = shard_text("Belief b", [cite(D1, 2)])
    write_shard(agent_dir, "a", a)
    write_shard(agent_dir, "b", b)
    state, _ = load_state(ws.state_path)
    save_state(ws.state_path, state.add_dreamed(D1, {uuid_at(D1, 1), uuid_at(D1, 2), uuid_at(D1, 3)}, "2026-05-20T10:00:00+00:00"))
    plan = {
        "b": b,
        "tombstone": {"date": D1, "id": uuid_at(D1, 2), "hash": fragment_content_hash("b", "fact b"),
                      "reason": "test", "actor": "human:cli", "ts": "2026-05-22T10:00:00+00:00",
                      "hard": False, "topic": "b"},
        "r": shard_text("Belief r", [cite(D1, 3)]),
        "restore_day": D1,
        "restore_line": fragment_line(D1, 3, "r", "collected once, wanted back"),
    }
    plan_path = tmp_path / "plan.json"
    plan_path.write_text(json.dumps(plan))
    return commit_all(agent_dir), plan_path


def _cited(texts) -> set:
    keys: set = set()
    for text in texts:
        keys |= citation_keys(text)
    return keys


def _cited_at(root: Path, rev: str) -> set:
    paths = tree_files(root, rev, "memory/topics", "memory/vault")
    return _cited(b.decode("utf-8") for b in read_blobs(root, rev, paths).values())


def _check_invariants(ws, agent_dir: Path, pre: str, allowed_drop: set) -> None:
    assert not (ws.memory / JOURNAL).exists()
    assert not [p for p in ws.memory.rglob("*.tmp")], "a temporary file was left behind"
    texts = []
    for _rel, path in shard_area_files(ws):
        text = path.read_text(encoding="utf-8")
        parse_shard(text)  # strict: raises on anything TypeClaw would skip
        texts.append(text)
    now_cited = _cited(texts)
    assert _cited_at(agent_dir, pre) - allowed_drop <= now_cited
    present = {f.key for f in iter_fragments(ws)}
    assert now_cited <= present, f"cited but gone from the streams: {sorted(now_cited - present)}"


def _check_completed(ws, agent_dir: Path, scenario: str) -> set:
    """The interrupted change was finished, not half-applied; returns the ids it dropped on purpose."""
    names = sorted(p.name for p in (agent_dir / "memory/topics").glob("*.md") if p.name != "later.md")
    fragments = {f.key for f in iter_fragments(ws)}
    state, problem = load_state(ws.state_path)
    assert problem is None
    if scenario == "dream":
        assert names == ["ab.md", "n.md"]
        assert {uuid_at(D, n) for n in (1, 2, 3)} <= state.dreamed_ids(D)
        assert (D, uuid_at(D, 3)) not in fragments  # the noise was collected, by the run or the recovery
        lines = (agent_dir / "memory/streams" / f"{D}.jsonl").read_text()
        assert uuid_at(D, 4) not in lines and uuid_at(D, 5) in lines
    elif scenario == "mixed":
        assert names == ["a.md", "b.md"]
        assert cite(D, 1) in (agent_dir / "memory/topics/a.md").read_text()
        assert load_reflection(ws, "r-1").status == "pending"
        assert {(D, uuid_at(D, n)) for n in (1, 2, 3)} <= fragments  # held by the pending reflection
    elif scenario == "forget":
        assert names == ["a.md"]
        records = (ws.meta_dir / "tombstones.jsonl").read_text().splitlines()
        assert len(records) == 1 and json.loads(records[0])["id"] == uuid_at(D1, 2)
        return {(D1, uuid_at(D1, 2))}
    elif scenario == "restore":
        assert names == ["a.md", "b.md", "r.md"]
        lines = (agent_dir / "memory/streams" / f"{D1}.jsonl").read_text().splitlines()
        assert sum(uuid_at(D1, 3) in line for line in lines) == 1
    return set()


@pytest.mark.parametrize("scenario,step", CASES, ids=[f"{s}-{t}" for s, t in CASES])
def test_a_kill_at_any_step_is_recovered_with_nothing_cited_lost(tmp_path, agent_dir, ws, scenario, step):
    pre, plan = _prepare(tmp_path, agent_dir, ws)
    ws = the_next_day(ws)  # D's stream is over and quiet: the change may compact it

    proc = run_program("dream_with_fault", str(agent_dir), ws.today(), scenario, step, str(plan),
                       capture_output=True, text=True, timeout=120)
    assert proc.returncode == -9, f"step {step!r} was never reached (exit {proc.returncode}): {proc.stderr[-2000:]}"

    recover_journal(ws)

    allowed = _check_completed(ws, agent_dir, scenario)
    _check_invariants(ws, agent_dir, pre, allowed)
    audit = (ws.meta_dir / "audit.log").read_text().splitlines()
    assert audit and len(audit) == len(set(audit)), f"audit lines written twice: {audit}"

    # and dreaming goes on: a new fragment is dreamed and committed on top
    append_fragment(ws, "later", "a later fact", day=D)
    r = run_dream(ws, dreamer=Scripted(cite_all("later", "A later fact")), review="none")
    assert r.status in ("applied", "mixed") and r.commit, r.message
    _check_invariants(ws, agent_dir, pre, allowed)
    assert _cited_at(agent_dir, pre) - allowed <= _cited_at(agent_dir, "HEAD")
    assert git(agent_dir, "status", "--porcelain").strip() == ""


@pytest.mark.parametrize("step", ["write:topics/a.md", "state", "audit"])
def test_the_next_dream_finishes_an_interrupted_one_without_doctor(tmp_path, agent_dir, ws, step):
    pre, plan = _prepare(tmp_path, agent_dir, ws)
    ws = the_next_day(ws)  # D's stream is over and quiet: the change may compact it
    proc = run_program("dream_with_fault", str(agent_dir), ws.today(), "dream", step, str(plan),
                       capture_output=True, text=True, timeout=120)
    assert proc.returncode == -9, proc.stderr[-2000:]

    append_fragment(ws, "later", "a later fact")  # today's stream: D's stays quiet for the recovery's GC
    later = Scripted(cite_all("later", "A later fact"))
    r = run_dream(ws, dreamer=later, review="none")

    assert r.status == "applied" and r.commit, r.message
    assert later.seen == [[f"streams/{f.date}#{f.id}" for f in iter_fragments(ws) if f.topic == "later"]]
    _check_completed(ws, agent_dir, "dream")
    _check_invariants(ws, agent_dir, pre, set())
    assert _cited_at(agent_dir, pre) <= _cited_at(agent_dir, "HEAD")
    audit = (ws.meta_dir / "audit.log").read_text().splitlines()
    assert len(audit) == len(set(audit))


@pytest.mark.parametrize("step", ["gc-planned", "gc"])
def test_a_kill_between_the_gc_and_the_commit_leaves_the_collected_line_in_the_commits_note(tmp_path, agent_dir, ws, step):
    """The GC is planned first: the lines it will take are in the journal before any stream is
    rewritten, so the recovered commit's note holds them even when the kill came after the rewrite."""
    from dreamdeck.core.git.notes import read_gc_lines

    pre, plan = _prepare(tmp_path, agent_dir, ws)
    ws = the_next_day(ws)
    noise = fragment_line(D, 3, "noise", "cold coffee")
    proc = run_program("dream_with_fault", str(agent_dir), ws.today(), "dream", step, str(plan),
                       capture_output=True, text=True, timeout=120)
    assert proc.returncode == -9, proc.stderr[-2000:]

    recover_journal(ws)

    head = git(agent_dir, "rev-parse", "HEAD").strip()
    assert head != pre and read_gc_lines(agent_dir, head) == [(D, noise)]
    assert noise not in (agent_dir / "memory" / "streams" / f"{D}.jsonl").read_text()
    assert any("fragment GC collected 1 dreamed, uncited fragment" in line
               for line in (ws.meta_dir / "audit.log").read_text().splitlines())
