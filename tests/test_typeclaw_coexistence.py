"""dreamdeck and TypeClaw's own dreaming on the same folder (issue 10, item 4).

"TypeClaw" here is its dreaming handler's evidence rules, written from the spec in
`tests/support/typeclaw_dream.py`: it dreams whatever its state says is undreamed, and its GC
drops a fragment that is dreamed and not cited by a flat `topics/*.md` on the dates it touched.
"""
from __future__ import annotations

import json

import pytest

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.ops.doctor import examine, fix
from dreamdeck.core.ops.protected import pinned_drift, restore_pinned
from dreamdeck.core.ops.reflections import approve
from dreamdeck.core.ops.vault import pin_topic
from dreamdeck.core.store.reflections import ReflectionError, held_keys, load_reflection
from dreamdeck.core.store.state import load_state, save_state
from tests.support.dreamers import Scripted, draft
from tests.support.git import git
from tests.support.memory import cite, commit_all, fragment_line, shard_text, uuid_at, write_shard, write_stream
from tests.support.typeclaw_dream import cite_new_shard, typeclaw_dream

D1, D = "2026-05-20", "2026-05-22"


def stream_ids(root, day) -> list[str]:
    path = root / "memory/streams" / f"{day}.jsonl"
    return [json.loads(line)["id"] for line in path.read_text().splitlines() if '"fragment"' in line]


def _held_for_review(ws, agent_dir):
    """Shard a cites D1#1 (dreamed); today's #1..#3 go to a dream whose change waits in r-1."""
    write_stream(agent_dir, D1, [fragment_line(D1, 1, "a", "fact a")])
    write_shard(agent_dir, "a", shard_text("Belief a", [cite(D1, 1)]))
    state, _ = load_state(ws.state_path)
    save_state(ws.state_path, state.add_dreamed(D1, {uuid_at(D1, 1)}, "2026-05-20T10:00:00+00:00"))
    write_stream(agent_dir, D, [fragment_line(D, 1, "a", "a again"), fragment_line(D, 2, "n", "something new"),
                                fragment_line(D, 3, "n", "more of it")])
    commit_all(agent_dir)
    r = run_dream(ws, dreamer=Scripted(lambda inp, s: s.write_shard("n", draft("Something new", [cite(D, 2)]))),
                  review="all")
    assert r.status == "pending" and r.reflection == "r-1"


def test_fragments_held_for_review_are_never_dreamed_and_uncited_in_the_state_typeclaw_reads(ws, agent_dir):
    _held_for_review(ws, agent_dir)
    held = {(D, uuid_at(D, n)) for n in (1, 2, 3)}
    assert held_keys(ws) == held
    state, _ = load_state(ws.state_path)
    assert not any(fid in state.dreamed_ids(day) for day, fid in held)
    # dreamdeck's own next run is not shown them again (its record, not the state, says so)
    assert run_dream(ws, dreamer=Scripted(), review="none").status == "skipped"

    # An agent appends; TypeClaw's cron dreams the folder and cites only the new fragment.
    write_stream(agent_dir, D, [fragment_line(D, 4, "tea", "drinks tea")])
    tc = typeclaw_dream(agent_dir, cite_new_shard("tea", "Drinks tea", lambda f: f["id"] == uuid_at(D, 4)))

    # TypeClaw's GC took nothing it did not show its own dreamer first (on today's main it
    # silently dropped the three held fragments it never saw).
    assert held <= set(tc.shown)
    assert set(tc.fragments_dropped) <= set(tc.shown)


def test_a_reflection_typeclaw_consolidated_is_stale_and_its_lost_fragments_come_back_from_git(ws, agent_dir):
    _held_for_review(ws, agent_dir)
    stream = agent_dir / f"memory/streams/{D}.jsonl"
    original = {line for line in stream.read_text().splitlines()}
    write_stream(agent_dir, D, [fragment_line(D, 4, "tea", "drinks tea")])
    typeclaw_dream(agent_dir, cite_new_shard("tea", "Drinks tea", lambda f: f["id"] == uuid_at(D, 4)))
    assert stream_ids(agent_dir, D) == [uuid_at(D, 4)]  # TypeClaw's GC collected the held ones
    topics_before = {p.name: p.read_bytes() for p in (agent_dir / "memory/topics").iterdir()}

    # Not applied blind: TypeClaw dreamed its fragments since.
    with pytest.raises(ReflectionError, match="dreamed outside dreamdeck"):
        approve(ws, "r-1")
    # and the next dream start marks it stale (kept, listed, never applied unless forced)
    assert run_dream(ws, dreamer=Scripted(), review="none").status == "skipped"
    r1 = load_reflection(ws, "r-1")
    assert r1.status == "stale" and r1.decisions[-1]["why"] == "dreamed outside dreamdeck"
    assert {p.name: p.read_bytes() for p in (agent_dir / "memory/topics").iterdir()} == topics_before

    # doctor names each lost fragment the reflection holds, and --fix restores them from git history.
    found = [f for f in examine(ws).findings if f.kind == "missing-fragment"]
    assert sorted(f.detail.split()[1] for f in found) == [cite(D, n) for n in (1, 2, 3)]
    assert all(f.where == "memory/meta/reflections" and f.fixable for f in found)
    report = fix(ws)
    assert "restored 3 protected fragments from git history" in report.fixed
    assert original <= set(stream.read_text().splitlines())  # the exact lines, byte for byte
    assert git(agent_dir, "log", "-1", "--format=%s").strip() == "memory: restore protected fragments"
    assert "| APPEND | memory/streams | system:doctor | auto | restored 3 protected fragments" in (
        agent_dir / "memory/meta/audit.log").read_text()
    assert not [f for f in examine(ws).findings if f.kind == "missing-fragment"]

    # The person may still take it, knowingly: it cites a fragment every stream holds again.
    approve(ws, "r-1", force=True)
    assert cite(D, 2) in (agent_dir / "memory/topics/n.md").read_text()
    assert uuid_at(D, 2) in stream_ids(agent_dir, D)


def test_an_approval_puts_back_a_cited_fragment_typeclaw_collected_before_applying(ws, agent_dir):
    _held_for_review(ws, agent_dir)
    # TypeClaw's GC took #2 (say, a hand-run compaction) without dreaming it: the state is untouched.
    stream = agent_dir / f"memory/streams/{D}.jsonl"
    lines = stream.read_text().splitlines(keepends=True)
    stream.write_text("".join(line for line in lines if uuid_at(D, 2) not in line))

    approve(ws, "r-1")

    assert cite(D, 2) in (agent_dir / "memory/topics/n.md").read_text()
    assert uuid_at(D, 2) in stream_ids(agent_dir, D)  # restored in the same change, never cited blind


def test_an_archived_topics_fragments_typeclaw_collected_are_found_and_restored(ws, agent_dir):
    write_stream(agent_dir, D1, [fragment_line(D1, 1, "old", "an old belief"), fragment_line(D1, 2, "a", "fact a")])
    write_shard(agent_dir, "old", shard_text("An old belief", [cite(D1, 1)]), folder="archive")  # soft-forgotten
    state, _ = load_state(ws.state_path)
    save_state(ws.state_path, state.add_dreamed(D1, {uuid_at(D1, 1)}, "2026-05-20T10:00:00+00:00"))
    commit_all(agent_dir)
    typeclaw_dream(agent_dir, cite_new_shard("a", "Fact a", lambda f: True))  # touches D1; archive never pins
    assert stream_ids(agent_dir, D1) == [uuid_at(D1, 2)]

    (finding,) = [f for f in examine(ws).findings if f.kind == "missing-fragment"]
    assert finding.where == "memory/archive/old.md" and finding.fixable
    fix(ws)
    assert stream_ids(agent_dir, D1) == [uuid_at(D1, 2), uuid_at(D1, 1)]
    assert not [f for f in examine(ws).findings if f.kind == "missing-fragment"]


def test_a_pinned_topic_typeclaw_rewrote_is_reported_and_restored_from_the_vault_or_accepted(ws, agent_dir):
    write_stream(agent_dir, D1, [fragment_line(D1, 1, "a", "fact a")])
    write_shard(agent_dir, "a", shard_text("Belief a", [cite(D1, 1)]))
    commit_all(agent_dir)
    pin_topic(ws, "a")
    pinned = (agent_dir / "memory/vault/a.md").read_bytes()
    assert pinned_drift(ws) == []
    write_stream(agent_dir, D, [fragment_line(D, 1, "a", "a changed")])
    typeclaw_dream(agent_dir, cite_new_shard("a", "Belief a, rewritten by TypeClaw", lambda f: f["date"] == D1))

    (drift,) = pinned_drift(ws)
    assert drift.slug == "a"  # (its commit has no dreamdeck Change-Id, or the change is not committed)
    (finding,) = [f for f in examine(ws).findings if f.kind == "pinned-changed"]
    assert "pin a --restore" in finding.detail and "pin a --refresh" in finding.detail

    restore_pinned(ws, "a", actor="tester")
    assert (agent_dir / "memory/topics/a.md").read_bytes() == pinned
    assert pinned_drift(ws) == []
    assert git(agent_dir, "log", "-1", "--format=%s").strip() == "memory: restore a from the vault"
    assert "| REVERT | memory/topics/a.md | tester |" in (agent_dir / "memory/meta/audit.log").read_text()

    # or, when TypeClaw's version is right: accept it into the vault
    write_stream(agent_dir, D, [fragment_line(D, 2, "a", "a changed again")])
    typeclaw_dream(agent_dir, cite_new_shard("a", "Belief a, rewritten again", lambda f: True,
                                             keep=((D1, uuid_at(D1, 1)),)))
    assert [d.slug for d in pinned_drift(ws)] == ["a"]
    pin_topic(ws, "a", refresh=True)
    assert pinned_drift(ws) == []


def test_unforget_brings_an_archived_topic_back_with_the_fragments_typeclaw_collected(ws, agent_dir):
    from dreamdeck.core.ops.forget import unforget_topic

    write_stream(agent_dir, D1, [fragment_line(D1, 1, "old", "an old belief"), fragment_line(D1, 2, "a", "fact a")])
    write_shard(agent_dir, "old", shard_text("An old belief", [cite(D1, 1)]), folder="archive")
    state, _ = load_state(ws.state_path)
    save_state(ws.state_path, state.add_dreamed(D1, {uuid_at(D1, 1)}, "2026-05-20T10:00:00+00:00"))
    commit_all(agent_dir)
    typeclaw_dream(agent_dir, cite_new_shard("a", "Fact a", lambda f: True))
    assert uuid_at(D1, 1) not in stream_ids(agent_dir, D1)

    unforget_topic(ws, "old")

    assert cite(D1, 1) in (agent_dir / "memory/topics/old.md").read_text()
    assert uuid_at(D1, 1) in stream_ids(agent_dir, D1)  # never a shard citing what no stream holds


def test_review_lists_a_reverted_runs_fragments_as_waiting_for_a_decision(ws, agent_dir):
    import subprocess
    import sys

    write_stream(agent_dir, D1, [fragment_line(D1, 1, "a", "fact a")])
    write_shard(agent_dir, "a", shard_text("Belief a", [cite(D1, 1)]))
    write_stream(agent_dir, D, [fragment_line(D, 1, "a", "a again")])
    state, _ = load_state(ws.state_path)
    save_state(ws.state_path, state.add_dreamed(D1, {uuid_at(D1, 1)}, "2026-05-20T10:00:00+00:00"))
    commit_all(agent_dir)
    r = run_dream(ws, dreamer=Scripted(lambda inp, s: s.delete_shard("a")), review="none")
    assert r.status == "reverted" and r.reflection == "r-1"

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "dreamdeck", *args, "-w", str(agent_dir), "--today", D],
                              capture_output=True, text=True, check=True).stdout

    assert "r-1" in cli("review") and "reverted" in cli("review")
    one = cli("review", "r-1")
    assert f"holds 1 fragment for your decision (kept in the streams, never collected): {cite(D, 1)}" in one
    assert "reject r-1 --release: dream them again" in one


def test_alerts_name_a_pinned_topic_changed_outside_dreamdeck_with_restore_and_accept(ws, agent_dir):
    import subprocess
    import sys

    write_stream(agent_dir, D1, [fragment_line(D1, 1, "a", "fact a")])
    write_shard(agent_dir, "a", shard_text("Belief a", [cite(D1, 1)]))
    commit_all(agent_dir)
    pin_topic(ws, "a")
    write_stream(agent_dir, D, [fragment_line(D, 1, "a", "a changed")])
    typeclaw_dream(agent_dir, cite_new_shard("a", "Belief a, rewritten by TypeClaw", lambda f: f["date"] == D1))

    def alerts(*extra):
        return subprocess.run([sys.executable, "-m", "dreamdeck", "alerts", *extra, "-w", str(agent_dir), "--today", D],
                              capture_output=True, text=True)

    shown = alerts()
    assert shown.returncode == 1
    assert "⚠ memory/topics/a.md: pinned, changed outside dreamdeck" in shown.stdout
    assert "`dreamdeck pin a --restore`" in shown.stdout and "`dreamdeck pin a --refresh`" in shown.stdout
    restored = subprocess.run([sys.executable, "-m", "dreamdeck", "pin", "a", "--restore", "-w", str(agent_dir)],
                              capture_output=True, text=True)
    assert restored.returncode == 0 and restored.stdout.startswith("restored a from the vault → commit ")
    assert "pinned-changed" not in alerts("--json").stdout
