"""A hostile or broken dreamer (scripted here) can lose nothing, and the receipt says what happened."""
from __future__ import annotations

import threading

from dreamdeck.core.dreaming.protocol import MAX_SHARD_BYTES
from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.store.reflections import load_reflection
from dreamdeck.core.store.state import load_state
from tests.support.git import git
from tests.support.memory import fragment_line, shard_text, uuid_at, write_shard, write_stream

D0, D = "2026-05-20", "2026-05-21"


class Scripted:
    name = "hostile"

    def __init__(self, act):
        self.act = act

    def dream(self, inp, scratch):
        self.act(inp, scratch)
        scratch.finish("hostile dream")
        return scratch.outcome


def seeded(agent_dir):
    """Two shards citing yesterday's fragments, one undreamed fragment today, all committed."""
    write_stream(agent_dir, D0, [fragment_line(D0, 1, "pm", "uses pnpm"), fragment_line(D0, 2, "tz", "in Berlin")])
    write_stream(agent_dir, D, [fragment_line(D, 1, "ci", "CI on every push")])
    write_shard(agent_dir, "pm", shard_text("The user uses pnpm", [f"streams/{D0}#{uuid_at(D0, 1)}"]))
    write_shard(agent_dir, "tz", shard_text("The user lives in Berlin", [f"streams/{D0}#{uuid_at(D0, 2)}"]))
    from dreamdeck.core.store.state import DreamingState, save_state

    save_state(agent_dir / "memory/.dreaming-state.json",
               DreamingState().add_dreamed(D0, {uuid_at(D0, 1), uuid_at(D0, 2)}, "2026-05-20T23:00:00+00:00"))
    git(agent_dir, "add", "-f", "memory/")
    git(agent_dir, "commit", "-qm", "seed")
    return {p.name: p.read_bytes() for p in (agent_dir / "memory/topics").iterdir()}


def topics(agent_dir):
    return {p.name: p.read_bytes() for p in (agent_dir / "memory/topics").iterdir()}


def test_a_dreamer_that_deletes_everything_is_reverted_and_the_lost_ids_are_named(ws, agent_dir):
    before = seeded(agent_dir)
    head = git(agent_dir, "rev-parse", "HEAD")

    r = run_dream(ws, dreamer=Scripted(lambda inp, s: [s.delete_shard(x) for x in list(s.files)]), review="none")

    assert r.status == "reverted" and r.reverted
    assert r.lost == [f"{D0}#{uuid_at(D0, 1)}", f"{D0}#{uuid_at(D0, 2)}"]
    assert "citation-superset violation" in r.message
    assert topics(agent_dir) == before
    # Nothing applied: one commit that only holds the fragments for a decision (anti-loop),
    # never marking them dreamed for TypeClaw's GC.
    assert git(agent_dir, "rev-parse", "HEAD~1") == head
    assert git(agent_dir, "diff", "--name-only", "HEAD~1", "HEAD").split() == [
        "memory/meta/audit.log", "memory/meta/pending-reflection.md", "memory/meta/receipts/" + r.id + ".json",
        "memory/meta/reflections/r-1.json"]
    assert uuid_at(D, 1) not in load_state(ws.state_path)[0].dreamed_ids(D)
    assert (D, uuid_at(D, 1)) in load_reflection(ws, "r-1").held_keys()


def test_huge_and_binary_writes_are_refused_as_tool_errors_and_reported(ws, agent_dir):
    before = seeded(agent_dir)

    def act(inp, s):
        s.write_shard("huge", "x" * (MAX_SHARD_BYTES + 1))
        s.write_shard("binary", "belief\x00\x01\x02")
        s.write_shard("../../SOUL", "pwned")
        s.write_shard("memory/vault/pm.md", "pinned?")

    r = run_dream(ws, dreamer=Scripted(act), review="none")

    assert topics(agent_dir) == before
    assert len(r.tool_errors) == 4
    joined = " ".join(r.tool_errors)
    assert "exceeds" in joined and "NUL" in joined and "outside memory/topics" in joined and "vault" in joined
    assert (agent_dir / "SOUL.md").read_text() == "# Soul\nBe kind.\n"
    assert not (agent_dir / "memory/vault").exists()


def test_a_dreamer_that_hangs_is_abandoned_after_the_timeout_and_nothing_changes(ws, agent_dir):
    before = seeded(agent_dir)
    head = git(agent_dir, "rev-parse", "HEAD")

    release, came_back = threading.Event(), threading.Event()

    def hang(inp, s):
        s.write_shard("pm", "overwritten while hanging\n")
        release.wait(60)  # hangs until the test lets it go (the cap only keeps a broken test finite)
        came_back.set()

    try:
        r = run_dream(ws, dreamer=Scripted(hang), review="none", dream_timeout=0.5)

        assert not came_back.is_set()  # run_dream returned while the dreamer was still hanging
        assert r.status == "failed" and "did not finish within 0.5 s" in r.message
        assert topics(agent_dir) == before
        assert git(agent_dir, "rev-parse", "HEAD") == head
        assert uuid_at(D, 1) not in load_state(ws.state_path)[0].dreamed_ids(D)  # a failed dreamer advances nothing
    finally:
        release.set()


def test_a_dreamer_that_drops_a_citation_while_rewording_is_reverted(ws, agent_dir):
    before = seeded(agent_dir)

    r = run_dream(ws, dreamer=Scripted(lambda inp, s: s.write_shard("pm", "The user uses pnpm.\n\nfragments:\n")),
                  review="none")

    assert r.status == "reverted" and r.lost == [f"{D0}#{uuid_at(D0, 1)}"]
    assert topics(agent_dir) == before
