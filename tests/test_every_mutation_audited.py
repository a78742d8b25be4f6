"""Invariant 11: every mutation is one commit and at least one audit line; read-only verbs write
nothing; bad dates are rejected."""
from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from dreamdeck.core.dreaming.run import run_dream
from tests.support.dreamers import Scripted, draft
from tests.support.git import git
from tests.support.memory import commit_all, fragment_line, shard_text, uuid_at, write_shard, write_stream

D0, D = "2026-05-20", "2026-05-22"


def run_cli(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dreamdeck", "-w", str(root), "--today", D, *args],
                          capture_output=True, text=True)


def test_a_dream_that_parks_everything_for_review_commits_with_an_audit_line(ws, agent_dir):
    write_stream(agent_dir, D, [fragment_line(D, 1, "new", "a new fact")])
    commit_all(agent_dir)

    def script(inp, scratch):
        scratch.write_shard("new", draft("A new fact", [f.citation for f in inp.fragments]))

    receipt = run_dream(ws, dreamer=Scripted(script), review="all")

    assert receipt.status == "pending" and receipt.commit
    lines = (ws.meta_dir / "audit.log").read_text().splitlines()
    assert len(lines) == 2  # the dream's line, and its stream's compaction deferred (today's file)
    assert " | DREAM | memory/meta/reflections/r-1.json | dreamer:scripted | pending | held 1 change for review in r-1" in lines[0]
    assert f"compaction deferred for 1 day: {D}: today's stream" in lines[1]
    assert "memory/meta/audit.log" in git(agent_dir, "show", "--name-only", "--format=", receipt.commit).split()


def tree_digest(root: Path) -> str:
    """Every file under the agent folder (bytes and modes), .git included: what a write would change."""
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "objects" not in p.parts):
        if path.name in ("index",) or path.suffix == ".lock":
            continue
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


READ_VERBS = [
    ("topics",), ("topics", "--json"), ("show", "a"), ("stream",), ("stream", "--all"), ("dreams",), ("log",),
    ("audit",), ("verify",), ("doctor",), ("review",), ("vault",), ("tombstones",), ("collected",),
    ("alerts",), ("alerts", "--json"),
]


@pytest.mark.parametrize("args", READ_VERBS)
def test_read_only_verbs_write_nothing_in_the_agent_folder(ws, agent_dir, args):
    write_stream(agent_dir, D0, [fragment_line(D0, 1, "a", "fact a")])
    write_shard(agent_dir, "a", shard_text("Belief a", [f"streams/{D0}#{uuid_at(D0, 1)}"]))
    commit_all(agent_dir)
    before = tree_digest(agent_dir)

    proc = run_cli(agent_dir, *args)

    assert proc.returncode in (0, 1), proc.stderr
    assert tree_digest(agent_dir) == before, f"{' '.join(args)} wrote into the agent folder"


@pytest.mark.parametrize("bad", ["2026-13-45", "2026-02-30", "0000-00-00"])
def test_a_rollback_to_an_impossible_date_is_rejected_in_one_line(ws, agent_dir, bad):
    write_shard(agent_dir, "a", shard_text("Belief a", []))
    commit_all(agent_dir)
    proc = run_cli(agent_dir, "rollback", "--to", bad, "--preview")
    assert proc.returncode == 2 and "bad date" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_alerts_ack_records_the_first_baseline_with_an_audit_line(ws, agent_dir):
    (agent_dir / "SOUL.md").write_text("# Soul\nBe kind.\n")
    assert "No critical-file baseline yet" in run_cli(agent_dir, "alerts").stdout
    assert not (ws.meta_dir / "critical-baseline.json").exists()

    proc = run_cli(agent_dir, "alerts", "--ack")

    assert proc.returncode == 0 and "recorded the critical-file baseline" in proc.stdout
    assert (ws.meta_dir / "critical-baseline.json").is_file()
    (line,) = (ws.meta_dir / "audit.log").read_text().splitlines()
    assert " | BASELINE | memory/meta/critical-baseline.json | manual | — | Critical-file baseline recorded" in line


def test_a_changed_soul_is_shown_by_alerts_without_writing_and_acknowledged_by_ack(ws, agent_dir):
    (agent_dir / "SOUL.md").write_text("# Soul\nBe kind.\n")
    run_cli(agent_dir, "alerts", "--ack")
    (agent_dir / "SOUL.md").write_text("# Soul\nBe ruthless.\n")
    before = tree_digest(agent_dir)

    shown = run_cli(agent_dir, "alerts")
    assert shown.returncode == 1 and "SOUL.md: changed" in shown.stdout
    assert tree_digest(agent_dir) == before

    acked = run_cli(agent_dir, "alerts", "--ack")
    assert "acknowledged 1 alert" in acked.stdout
    actions = [line.split(" | ")[1] for line in (ws.meta_dir / "audit.log").read_text().splitlines()]
    assert actions == ["BASELINE", "ALERT", "ACK"]
    assert run_cli(agent_dir, "alerts").returncode == 0


def test_doctor_fix_removes_only_our_temp_files_each_with_an_audit_line_in_one_commit(ws, agent_dir):
    write_shard(agent_dir, "a", shard_text("Belief a", []))
    ours = [ws.topics_dir / ".a.md.k3j4h5g6.tmp", ws.memory / "streams" / f"{D}.jsonl.tmp",
            ws.meta_dir / ".state.0123456789abcdef.tmp"]
    for path in ours:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("half-written\n")
    theirs = [ws.references_dir / "notes.tmp", ws.skills_dir / "build" / "cache.tmp"]
    for path in theirs:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("a person's file\n")
    commit_all(agent_dir)  # swept into git by an earlier commit, as issue 10 found

    proc = run_cli(agent_dir, "doctor", "--fix")

    assert "Traceback" not in proc.stderr
    assert not any(p.exists() for p in ours)
    assert all(p.read_text() == "a person's file\n" for p in theirs)
    deletes = [line for line in (ws.meta_dir / "audit.log").read_text().splitlines() if " | DELETE | " in line]
    assert sorted(line.split(" | ")[2] for line in deletes) == sorted(ws.rel(p) for p in ours)
    shown = git(agent_dir, "show", "--name-status", "--format=%s", "HEAD").splitlines()
    assert shown[0] == "memory: doctor --fix temp files"
    assert {f"D\t{ws.rel(p)}" for p in ours} <= set(shown)
