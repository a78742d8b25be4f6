"""The proposals queue (Moltbot §13): propose, list, approve, reject, defer, conflicts — on real git."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from dreamdeck.core.formats.citations import citation_keys
from dreamdeck.core.formats.events import build_fragment, serialize_event
from dreamdeck.core.formats.ids import timestamp_from_id
from dreamdeck.core.formats.shards import parse_shard
from dreamdeck.core.git.commit import Trailers, commit_memory
from dreamdeck.core.ops.proposals import (
    ProposalDecided,
    ProposalError,
    ProposalRefused,
    UnknownProposal,
    approve_proposal,
    defer_proposal,
    get_proposal,
    list_proposals,
    propose,
    reject_proposal,
)
from dreamdeck.core.store.audit import read_entries
from dreamdeck.core.store.proposals_file import pending_path, read_pending
from dreamdeck.core.store.state import DreamingState, load_state, save_state
from dreamdeck.core.store.streams import read_day
from tests.support.git import commit_count, git, head
from tests.support.memory import fragment_line, shard_text, uuid_at, write_shard, write_stream

NOW = datetime(2026, 5, 22, 10, 0, tzinfo=UTC)
TODAY = "2026-05-22"
SOURCES = "User prefers academic sources over blog posts for technical topics"
PENDING = "memory/meta/pending-memories.md"


# ------------------------------------------------------------------------------ helpers

def message(root: Path, rev: str = "HEAD") -> str:
    return git(root, "log", "-1", "--format=%B", rev)


def files_in(root: Path, rev: str = "HEAD") -> set[str]:
    return set(git(root, "show", "--name-only", "--format=", rev).split())


def committed(root: Path, rel: str) -> str:
    return git(root, "show", f"HEAD:{rel}")


def assert_all_committed(root: Path, *rels: str) -> None:
    for rel in rels:
        assert committed(root, rel) == (root / rel).read_text(encoding="utf-8"), rel


def status_of(ws, number: int) -> str:
    p = read_pending(ws.root).get(number)
    assert p is not None
    return p.status


def seed_commit(ws) -> None:
    commit_memory(ws.root, "seed", Trailers("test", "auto", "seed"))


# -------------------------------------------------------------------------------- propose

def test_propose_appends_a_13_2_block_one_audit_line_and_a_commit_with_trailers(ws):
    before = commit_count(ws.root)
    p, created = propose(ws, "researcher", "semantic", SOURCES, entities=["preference--source-quality"],
                         trigger="auto-detect during research task", now=NOW)
    assert created and p.id == "p-1"
    text = pending_path(ws.root).read_text()
    assert text.startswith("# Pending Memory Proposals\n<!-- Sub-agents append proposals here.")
    for line in ("## Proposal #1", "- **From**: researcher", "- **Timestamp**: 2026-05-22T10:00:00Z",
                 "- **Trigger**: auto-detect during research task", "- **Suggested store**: semantic",
                 f"- **Content**: {SOURCES}", "- **Entities**: [preference--source-quality]",
                 "- **Confidence**: medium", "- **Core-worthy**: no", "- **Status**: pending"):
        assert line in text.splitlines()

    [entry] = read_entries(ws.root)
    assert (entry.timestamp, entry.action, entry.file, entry.actor, entry.approval) == (
        "2026-05-22T10:00Z", "PROPOSE", PENDING, "subagent:researcher", "pending")
    assert entry.summary == f'"{SOURCES[:60]}"'

    assert commit_count(ws.root) == before + 1
    msg = message(ws.root)
    assert msg.startswith("memory: proposal p-1 from researcher\n")
    for trailer in ("Actor: subagent:researcher", "Approval: pending", "Trigger: propose", "Proposal: p-1"):
        assert trailer in msg.splitlines()
    assert {PENDING, "memory/meta/audit.log"} <= files_in(ws.root)
    assert_all_committed(ws.root, PENDING, "memory/meta/audit.log")


def test_the_same_content_twice_is_one_proposal_and_one_commit(ws):
    first, _ = propose(ws, "researcher", "semantic", SOURCES, now=NOW)
    count = commit_count(ws.root)
    again, created = propose(ws, "coder", "episodic", "  user PREFERS academic sources over blog posts\n for technical topics ", now=NOW)
    assert not created and again.number == first.number
    assert commit_count(ws.root) == count
    assert len(read_pending(ws.root).proposals) == 1
    assert len(read_entries(ws.root, action="PROPOSE")) == 1


def test_bad_input_and_secrets_are_refused_with_nothing_written(ws):
    with pytest.raises(ValueError, match="store"):
        propose(ws, "researcher", "graph", "x", now=NOW)
    with pytest.raises(ValueError, match="secret"):
        propose(ws, "researcher", "semantic", "the key is AKIAIOSFODNN7EXAMPLE", now=NOW)
    assert not pending_path(ws.root).exists()
    assert read_entries(ws.root) == []


_WORKER = """
from dreamdeck.core.ops.proposals import propose
from dreamdeck.core.workspace import Workspace
ws = Workspace.open({root!r}, today="2026-05-22")
for i in range(10):
    propose(ws, "agent{w}", "episodic", f"Worker {w} observation number {{i}} about the build")
"""


def test_concurrent_proposers_all_land_and_the_file_parses(ws):
    procs = [
        subprocess.Popen([sys.executable, "-c", _WORKER.format(root=str(ws.root), w=w)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ))
        for w in range(4)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
    parsed = read_pending(ws.root)
    assert parsed.problems == []
    assert sorted(p.number for p in parsed.proposals) == list(range(1, 41))
    assert {(p.from_agent, p.content) for p in parsed.proposals} == {
        (f"agent{w}", f"Worker {w} observation number {i} about the build") for w in range(4) for i in range(10)
    }
    assert len(read_entries(ws.root, action="PROPOSE")) == 40
    subjects = git(ws.root, "log", "--format=%s").splitlines()
    for n in range(1, 41):
        assert sum(1 for s in subjects if s.startswith(f"memory: proposal p-{n} from ")) == 1
    assert_all_committed(ws.root, PENDING, "memory/meta/audit.log")


# ---------------------------------------------------------------------------------- queue

def test_list_shows_open_proposals_oldest_first_with_age_and_stale_flag(ws):
    propose(ws, "researcher", "semantic", "Old observation about tabs", now=NOW - timedelta(days=20))
    propose(ws, "coder", "procedural", "When refactoring, write tests first", confidence="high", now=NOW - timedelta(days=2))
    propose(ws, "coder", "episodic", "Deployed the staging build", now=NOW)
    reject_proposal(ws, "p-3", reason="noise", now=NOW)

    items, problems = list_proposals(ws, now=NOW)
    assert problems == []
    assert [(i.id, i.agent, i.store, i.confidence, i.age_days, i.stale) for i in items] == [
        ("p-1", "researcher", "semantic", "medium", 20, True),
        ("p-2", "coder", "procedural", "high", 2, False),
    ]
    assert items[0].slug == "old-observation-about-tabs" and items[1].slug == ""
    everything, _ = list_proposals(ws, include_decided=True, now=NOW)
    assert [(i.id, i.status, i.stale) for i in everything][-1] == ("p-3", "rejected", False)

    one = get_proposal(ws, "p-3", now=NOW)
    assert (one.status, one.reason) == ("rejected", "noise")
    assert one.describe().startswith("p-3 [rejected] from coder at 2026-05-22T10:00:00Z (0d)")

    (ws.root / "dreamdeck.toml").write_text("[review]\nexpire_days = 30\n")
    assert not list_proposals(ws, now=NOW)[0][0].stale


def test_errors_are_one_line_value_errors(ws):
    propose(ws, "researcher", "episodic", "Something happened", now=NOW)
    with pytest.raises(UnknownProposal, match=r"^unknown proposal id p-99$"):
        approve_proposal(ws, "p-99", now=NOW)
    with pytest.raises(UnknownProposal, match="not a proposal id"):
        defer_proposal(ws, "r-1", now=NOW)
    with pytest.raises(ProposalError, match="needs a reason"):
        reject_proposal(ws, "p-1", reason="  ", now=NOW)
    assert status_of(ws, 1) == "pending"
    approve_proposal(ws, "p-1", now=NOW)
    with pytest.raises(ProposalDecided, match=r"^p-1 is already committed;"):
        approve_proposal(ws, "p-1", now=NOW)
    with pytest.raises(ProposalDecided):
        reject_proposal(ws, "p-1", reason="late", now=NOW)
    assert issubclass(ProposalError, ValueError)


# -------------------------------------------------------------------------------- approve

def test_approve_episodic_writes_a_fragment_from_the_subagent_in_one_commit(ws):
    propose(ws, "coder", "episodic", "Deployed the staging build at noon", now=NOW)
    before = commit_count(ws.root)
    result = approve_proposal(ws, "p-1", now=NOW)

    frags, _ = read_day(ws, TODAY)
    [frag] = frags
    assert (frag.source, frag.entry, frag.body) == ("subagent:coder", "p-1", "Deployed the staging build at noon")
    assert frag.topic == "Deployed the staging build at noon"
    assert result.fragment == frag.citation and result.files == []
    assert status_of(ws, 1) == "committed"
    assert not (ws.topics_dir).exists() or not any(ws.topics_dir.iterdir())
    state, _ = load_state(ws.state_path)
    assert frag.id not in state.dreamed_ids(TODAY)  # the next dream consolidates it

    assert commit_count(ws.root) == before + 1
    stream = f"memory/streams/{TODAY}.jsonl"
    assert {stream, PENDING, "memory/meta/audit.log"} <= files_in(ws.root)
    msg = message(ws.root)
    for trailer in ("Actor: bot:commit-from:coder", "Approval: approved", "Trigger: review", "Proposal: p-1"):
        assert trailer in msg.splitlines()
    [commit] = read_entries(ws.root, action="COMMIT")
    assert (commit.file, commit.actor, commit.approval, commit.summary) == (
        stream, "bot:commit-from:coder", "approved", "accepted proposal #1")
    assert_all_committed(ws.root, stream, PENDING, "memory/meta/audit.log")


def test_approve_semantic_creates_a_topic_shard_citing_the_fragment(ws):
    propose(ws, "researcher", "semantic", SOURCES, entities=["preference--source-quality"], now=NOW)
    before = commit_count(ws.root)
    result = approve_proposal(ws, "p-1", now=NOW)

    [frag] = read_day(ws, TODAY)[0]
    assert frag.topic == "preference--source-quality" and frag.source == "subagent:researcher"
    rel = "memory/topics/preference-source-quality.md"
    text = (ws.root / rel).read_text()
    meta, body = parse_shard(text)  # strict
    assert meta.heading == SOURCES and (meta.cites, meta.days, meta.last_reinforced) == (1, 1, TODAY)
    assert body.startswith(SOURCES + ".\n\nfragments:\n")
    assert citation_keys(text) == {frag.key}
    assert result.files == [rel]
    state, _ = load_state(ws.state_path)
    assert frag.id in state.dreamed_ids(TODAY)  # consolidated already: no dream re-reads it

    assert commit_count(ws.root) == before + 1
    assert {rel, f"memory/streams/{TODAY}.jsonl", PENDING, "memory/meta/audit.log"} <= files_in(ws.root)
    assert [e.file for e in read_entries(ws.root, action="COMMIT")] == [rel]
    assert_all_committed(ws.root, rel, PENDING)


def test_approve_semantic_matching_an_existing_topic_adds_the_citation(ws):
    f1 = uuid_at("2026-05-20", 1)
    write_stream(ws.root, "2026-05-20", [fragment_line("2026-05-20", 1, "sources", "Likes papers")])
    old = shard_text("User prefers academic sources", [f"streams/2026-05-20#{f1}"])
    write_shard(ws.root, "preference-source-quality", old)
    seed_commit(ws)
    propose(ws, "researcher", "semantic", "User trusts peer-reviewed papers more than blogs",
            entities=["preference--source-quality"], now=NOW)
    approve_proposal(ws, "p-1", now=NOW)

    [frag] = read_day(ws, TODAY)[0]
    text = (ws.topics_dir / "preference-source-quality.md").read_text()
    meta, body = parse_shard(text)
    assert meta.heading == "User prefers academic sources" and meta.cites == 2 and meta.days == 2
    assert citation_keys(text) == {("2026-05-20", f1), frag.key}
    assert body.split("fragments:\n")[1] == f"- streams/2026-05-20#{f1}\n- {frag.citation}\n"
    assert [p.name for p in ws.topics_dir.iterdir()] == ["preference-source-quality.md"]


def test_approve_vault_writes_the_vault_shard_and_the_topic(ws):
    propose(ws, "reviewer", "vault", "Never deploy on Fridays", core_worthy=True, now=NOW)
    approve_proposal(ws, "p-1", now=NOW)
    [frag] = read_day(ws, TODAY)[0]
    for area in ("vault", "topics"):
        text = (ws.memory / area / "never-deploy-on-fridays.md").read_text()
        meta, _ = parse_shard(text)
        assert meta.heading == "Never deploy on Fridays" and citation_keys(text) == {frag.key}
    [commit] = read_entries(ws.root, action="COMMIT")
    assert commit.file == "memory/vault/never-deploy-on-fridays.md"
    assert {"memory/vault/never-deploy-on-fridays.md", "memory/topics/never-deploy-on-fridays.md"} <= files_in(ws.root)


def test_an_approve_whose_fragment_is_a_duplicate_is_refused_with_nothing_written(ws):
    write_stream(ws.root, TODAY, [fragment_line(TODAY, 1, "preference--source-quality", SOURCES)])
    propose(ws, "researcher", "semantic", SOURCES, entities=["preference--source-quality"], now=NOW)
    snapshot = {p: p.read_bytes() for p in (ws.memory / "streams" / f"{TODAY}.jsonl", pending_path(ws.root),
                                             ws.meta_dir / "audit.log")}
    sha = head(ws.root)
    with pytest.raises(ProposalRefused, match=r"^cannot approve p-1: refused: duplicate of fragment .*nothing was written$"):
        approve_proposal(ws, "p-1", now=NOW)
    assert {p: p.read_bytes() for p in snapshot} == snapshot
    assert head(ws.root) == sha and not ws.topics_dir.exists()
    assert status_of(ws, 1) == "pending"


def test_approving_again_after_an_interrupted_approve_reuses_its_fragment(ws):
    propose(ws, "researcher", "semantic", SOURCES, entities=["preference--source-quality"], now=NOW)
    # What a kill between the door's writes and the status record leaves: the fragment is there.
    fid = uuid_at(TODAY, 7)
    line = serialize_event(build_fragment(fid, timestamp_from_id(fid), source="subagent:researcher", entry="p-1",
                                          topic="preference--source-quality", body=SOURCES))
    write_stream(ws.root, TODAY, [line])
    result = approve_proposal(ws, "p-1", now=NOW)
    assert len(read_day(ws, TODAY)[0]) == 1
    assert result.fragment == f"streams/{TODAY}#{uuid_at(TODAY, 7)}"
    assert status_of(ws, 1) == "committed"


# ------------------------------------------------------------------------- reject, defer

def test_reject_records_the_reason_audit_and_commit(ws):
    propose(ws, "researcher", "semantic", SOURCES, now=NOW)
    before = commit_count(ws.root)
    reject_proposal(ws, "p-1", reason="duplicate of an existing belief", actor="human:ana", now=NOW)
    p = read_pending(ws.root).get(1)
    assert p.status == "rejected" and p.reason == "duplicate of an existing belief"
    assert "- **Reason**: duplicate of an existing belief" in pending_path(ws.root).read_text()
    [entry] = read_entries(ws.root, action="REJECT")
    assert (entry.file, entry.actor, entry.approval, entry.summary) == (
        PENDING, "human:ana", "rejected", "rejected proposal #1 — duplicate of an existing belief")
    assert commit_count(ws.root) == before + 1
    msg = message(ws.root)
    assert msg.startswith("memory: reject proposal p-1\n") and "Approval: rejected" in msg and "Proposal: p-1" in msg
    assert not (ws.memory / "streams").exists()
    assert list_proposals(ws, now=NOW)[0] == []


def test_defer_keeps_it_open_and_audits(ws):
    propose(ws, "coder", "procedural", "When refactoring, write tests first", now=NOW)
    defer_proposal(ws, "p-1", now=NOW)
    assert status_of(ws, 1) == "deferred"
    [entry] = read_entries(ws.root, action="DEFER")
    assert (entry.actor, entry.approval, entry.summary) == ("human:cli", "pending", "deferred proposal #1")
    assert "Proposal: p-1" in message(ws.root) and "memory: defer proposal p-1" in message(ws.root)
    assert [i.status for i in list_proposals(ws, now=NOW)[0]] == ["deferred"]
    with pytest.raises(ProposalDecided, match="already deferred"):
        defer_proposal(ws, "p-1", now=NOW)
    approve_proposal(ws, "p-1", now=NOW)
    assert status_of(ws, 1) == "committed"


# ----------------------------------------------------------------------------- conflicts

def _conflict_pair(ws):
    propose(ws, "researcher", "semantic", "Project deadline is March 15", entities=["project--deadline"], now=NOW)
    propose(ws, "coder", "semantic", "Project deadline is March 30", entities=["project--deadline"], now=NOW)
    items, _ = list_proposals(ws, now=NOW)
    assert [(i.id, i.conflicts_with) for i in items] == [("p-1", ["p-2"]), ("p-2", ["p-1"])]


def test_approving_one_of_a_conflict_pair_rejects_the_other_in_the_same_commit(ws):
    _conflict_pair(ws)
    before = commit_count(ws.root)
    result = approve_proposal(ws, "p-1", now=NOW)
    assert result.also_rejected == ["p-2"]
    assert status_of(ws, 1) == "committed"
    other = read_pending(ws.root).get(2)
    assert other.status == "rejected" and other.reason == "conflict resolved in favour of #1"
    rejects = read_entries(ws.root, action="REJECT")
    assert [(e.actor, e.summary) for e in rejects] == [
        ("human:cli", "rejected proposal #2 — conflict resolved in favour of #1")]
    assert commit_count(ws.root) == before + 1
    assert_all_committed(ws.root, PENDING, "memory/meta/audit.log")
    assert list_proposals(ws, now=NOW)[0] == []


def test_rejecting_one_of_a_conflict_pair_leaves_the_other_pending_without_the_flag(ws):
    _conflict_pair(ws)
    result = reject_proposal(ws, "p-1", reason="the coder checked the calendar", now=NOW)
    assert result.conflicts_cleared == ["p-2"]
    other = read_pending(ws.root).get(2)
    assert other.status == "pending" and other.conflict_with == [] and other.reason is None
    assert "## Proposal #2\n" in pending_path(ws.root).read_text()
    [item] = list_proposals(ws, now=NOW)[0]
    assert (item.id, item.conflicts_with) == ("p-2", [])


def test_a_proposal_contradicting_an_existing_belief_is_flagged(ws):
    write_shard(ws.root, "project-deadline", shard_text("Project deadline is March 15", []))
    write_shard(ws.root, "editor", shard_text("User prefers vim", []))
    propose(ws, "coder", "semantic", "Project deadline is March 30", entities=["project--deadline"], now=NOW)
    propose(ws, "coder", "semantic", "User prefers vim for quick edits", now=NOW)
    items, _ = list_proposals(ws, now=NOW)
    assert [(i.id, i.conflicts_with_topic) for i in items] == [("p-1", ["project-deadline"]), ("p-2", [])]


# ------------------------------------------------------------------- racing with a dream

class _ScriptedDreamer:
    """Rewrites one shard's belief and cites the undreamed fragments (at the top or the end of
    `fragments:`); the first run waits, after its snapshot, until the test has approved a
    proposal touching the same shard."""

    name = "scripted"

    def __init__(self, slug: str, started: threading.Event, go: threading.Event, where: str):
        self.slug, self.started, self.go, self.where, self.calls = slug, started, go, where, 0

    def dream(self, inp, scratch):
        self.calls += 1
        if self.calls == 1:
            self.started.set()
            assert self.go.wait(20)
        lines = scratch.files[self.slug].split("\n")
        body_at = lines.index("---", 1) + 1
        lines[body_at] = "User strongly prefers academic sources."
        at = lines.index("fragments:") + 1
        while self.where == "end" and lines[at].startswith("- streams/"):
            at += 1
        lines[at:at] = [f"- {f.citation}" for f in inp.fragments]
        scratch.write_shard(self.slug, "\n".join(lines))
        scratch.finish("rewrote the belief")
        return scratch.outcome


@pytest.mark.parametrize("where", ["top", "end"])
def test_a_proposal_commit_racing_a_dream_on_the_same_shard_loses_nothing(ws, where):
    from dreamdeck.core.dreaming.run import run_dream

    slug = "preference-source-quality"
    f1, f2 = uuid_at("2026-05-20", 1), uuid_at("2026-05-21", 2)
    write_stream(ws.root, "2026-05-20", [fragment_line("2026-05-20", 1, "sources", "Likes papers")])
    write_stream(ws.root, "2026-05-21", [fragment_line("2026-05-21", 2, "sources", "Reads arXiv daily")])
    write_shard(ws.root, slug, shard_text("User prefers academic sources", [f"streams/2026-05-20#{f1}"]))
    save_state(ws.state_path, DreamingState().add_dreamed("2026-05-20", {f1}, "2026-05-20T09:00:00+00:00"))
    seed_commit(ws)
    propose(ws, "researcher", "semantic", "User trusts peer-reviewed papers more than blogs",
            entities=["preference--source-quality"], now=NOW)

    started, go = threading.Event(), threading.Event()
    dreamer = _ScriptedDreamer(slug, started, go, where)
    receipts = []
    thread = threading.Thread(target=lambda: receipts.append(run_dream(ws, dreamer=dreamer, review="none", now=NOW)))
    thread.start()
    try:
        assert started.wait(20)
        result = approve_proposal(ws, "p-1", now=NOW)  # lands while the dream works on its snapshot
    finally:
        go.set()
        thread.join(30)
    receipt = receipts[0]
    # Citing above the approval's line merges; citing right after it does not, and the door
    # refuses the dream's stale edit cleanly (nothing applied, nothing advanced): dream again.
    assert receipt.status == ("applied" if where == "top" else "failed"), receipt.message
    if receipt.status == "failed":
        assert "does not merge" in receipt.message
        receipt = run_dream(ws, dreamer=dreamer, review="none", now=NOW)
    assert receipt.status == "applied", receipt.message

    text = (ws.topics_dir / f"{slug}.md").read_text()
    meta, body = parse_shard(text)  # strict
    assert body.startswith("User strongly prefers academic sources.\n")
    fp = tuple(result.fragment.removeprefix("streams/").split("#"))
    assert citation_keys(text) == {("2026-05-20", f1), ("2026-05-21", f2), fp}
    assert meta.cites == 3
    assert status_of(ws, 1) == "committed"
    subjects = git(ws.root, "log", "--format=%s").splitlines()
    assert subjects[0].startswith("dream: ") and any(s.startswith("memory: commit proposal p-1") for s in subjects)
    assert_all_committed(ws.root, f"memory/topics/{slug}.md", PENDING, "memory/meta/audit.log")
