"""The review policy between the dreamer and the apply: none, all, judgement."""
from __future__ import annotations

import json

import pytest

from dreamdeck.core.dreaming.policy import is_mechanical, needs_review
from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.formats.shards import ShardMeta, parse_shard, render_shard
from dreamdeck.core.ops.reflections import reject
from dreamdeck.core.store.reflections import load_reflection
from dreamdeck.core.store.state import load_state, save_state
from tests.support.dreamers import Scripted, body, citations_in, draft
from tests.support.memory import (
    cite,
    commit_all,
    fragment_line,
    shard_text,
    the_next_day,
    topics,
    uuid_at,
    watermark_line,
    write_shard,
    write_stream,
)

D1, D = "2026-05-20", "2026-05-22"


def fragment_ids(root, day):
    path = root / "memory" / "streams" / f"{day}.jsonl"
    return [json.loads(l)["id"] for l in path.read_text().splitlines() if json.loads(l)["type"] == "fragment"]


PM = shard_text("The user uses pnpm", [cite(D1, 1)], tags=("tooling",))


# --- the rule itself --------------------------------------------------------------------------------
@pytest.mark.parametrize("after", [
    shard_text("The user uses pnpm", [cite(D1, 1), cite(D, 1)], tags=("tooling",)),
    shard_text("The user uses pnpm", [cite(D1, 1), cite(D, 1), cite(D, 2)], tags=("tooling",)),
    render_shard(ShardMeta("The user uses pnpm", 99, 99, "2000-01-01", ("tooling",)),
                 body("The user uses pnpm.", [cite(D1, 1)])),  # a frontmatter recompute
], ids=["one-citation", "two-citations", "recompute"])
def test_judgement_applies_a_pure_citation_addition_or_recompute_by_itself(after):
    assert is_mechanical(PM, after)
    assert not needs_review("judgement", PM, after, pinned=False)


@pytest.mark.parametrize("before,after", [
    (None, PM),  # a new shard
    (PM, None),  # a deletion
    (PM, shard_text("The user switched to bun", [cite(D1, 1), cite(D, 1)], tags=("tooling",))),  # rewritten belief
    (PM, shard_text("The user uses pnpm", [cite(D, 1)], superseded=[cite(D1, 1)], tags=("tooling",))),  # supersession
    (PM, shard_text("The user uses pnpm", [cite(D1, 1)], superseded=[cite(D, 1)], tags=("tooling",))),  # new superseded id
    (PM, shard_text("The user uses pnpm", [cite(D1, 1), cite(D, 1)], tags=("tooling", "js"))),  # tags
    (PM, PM.replace("The user uses pnpm.\n", "The user uses pnpm, always.\n")),  # prose, same heading
    (PM, shard_text("The user uses pnpm", [cite(D, 1)], tags=("tooling",))),  # a citation swapped out
], ids=["new", "deleted", "rewritten", "supersession", "superseded-added", "tags", "prose", "citation-dropped"])
def test_judgement_holds_every_change_that_needs_a_person(before, after):
    assert needs_review("judgement", before, after, pinned=False)
    assert not needs_review("none", before, after, pinned=False)
    assert needs_review("all", before, after, pinned=False)


def test_any_change_to_a_pinned_topic_is_held_even_a_citation_addition():
    after = shard_text("The user uses pnpm", [cite(D1, 1), cite(D, 1)], tags=("tooling",))
    assert not needs_review("judgement", PM, after, pinned=False)
    assert needs_review("judgement", PM, after, pinned=True)
    assert needs_review("all", PM, PM, pinned=False)


# --- whole runs -------------------------------------------------------------------------------------
def _seed(ws, agent_dir):
    """Five shards on D1 and three new fragments today; `p` is pinned (memory/vault/p.md)."""
    write_stream(agent_dir, D1, [fragment_line(D1, n, f"t{n}", f"old fact {n}") for n in range(1, 6)])
    for n, slug in enumerate(["a", "b", "s", "e", "p"], start=1):
        write_shard(agent_dir, slug, shard_text(f"Belief {slug}", [cite(D1, n)]))
    write_shard(agent_dir, "p", shard_text("Belief p", [cite(D1, 5)]), folder="vault")
    state, _ = load_state(ws.state_path)
    save_state(ws.state_path, state.add_dreamed(D1, {uuid_at(D1, n) for n in range(1, 6)}, "2026-05-20T10:00:00+00:00"))
    write_stream(agent_dir, D, [
        fragment_line(D, 1, "a", "a again"), fragment_line(D, 2, "n", "something new"),
        fragment_line(D, 3, "s", "s is wrong now"), watermark_line(D, 4), watermark_line(D, 5),
        fragment_line(D, 6, "noise", "nothing to keep"),
    ])
    return commit_all(agent_dir)


def _unpinned(inp, scratch):
    """One of each kind of change to unpinned topics."""
    scratch.write_shard("a", draft("Belief a", [cite(D1, 1), cite(D, 1), cite(D1, 4)]))  # + moved-in e's citation
    scratch.write_shard("n", draft("Something new", [cite(D, 2)]))  # new
    scratch.write_shard("b", draft("Belief b, rewritten", [cite(D1, 2)]))  # rewritten belief
    scratch.write_shard("s", draft("Belief s, corrected", [cite(D, 3)], superseded=[cite(D1, 3)]))  # supersession
    scratch.delete_shard("e")  # deletion (its citation moved into a)


def _everything(inp, scratch):
    """One of each kind of change, a pinned topic included."""
    _unpinned(inp, scratch)
    scratch.write_shard("p", draft("Belief p", [cite(D1, 5), cite(D, 1)]))  # pinned topic, citation added


def test_review_none_applies_everything(ws, agent_dir):
    _seed(ws, agent_dir)
    vault = (agent_dir / "memory/vault/p.md").read_bytes()

    r = run_dream(the_next_day(ws), dreamer=Scripted(_unpinned), review="none")

    assert r.status == "applied" and r.pending == [] and r.reflection is None
    assert sorted(topics(agent_dir)) == ["a.md", "b.md", "n.md", "p.md", "s.md"]
    assert "Belief b, rewritten" in (agent_dir / "memory/topics/b.md").read_text()
    assert not (agent_dir / "memory/meta/reflections").exists()
    assert (agent_dir / "memory/vault/p.md").read_bytes() == vault
    assert fragment_ids(agent_dir, D) == [uuid_at(D, n) for n in (1, 2, 3)]  # only the noise was collected


def test_review_all_holds_everything_in_a_pending_reflection(ws, agent_dir):
    seeded = _seed(ws, agent_dir)
    before = topics(agent_dir)

    r = run_dream(the_next_day(ws), dreamer=Scripted(_everything, summary="one of each"), review="all")

    assert r.status == "pending" and r.auto_applied == [] and r.reflection == "r-1"
    assert topics(agent_dir) == before
    data = json.loads((agent_dir / "memory/meta/reflections/r-1.json").read_text())
    assert data["status"] == "pending" and data["summary"] == "one of each"
    files = {f["path"]: f for f in data["files"]}
    assert sorted(files) == ["topics/a.md", "topics/b.md", "topics/e.md", "topics/n.md", "topics/p.md", "topics/s.md"]
    assert files["topics/n.md"]["base"] is None and files["topics/e.md"]["proposed"] is None
    assert files["topics/a.md"]["base"] == before["a.md"].decode()
    assert cite(D, 1) in files["topics/a.md"]["proposed"]
    assert files["topics/p.md"]["pinned"] is True and files["topics/a.md"]["pinned"] is False
    assert {(f["date"], f["id"]) for f in data["fragments"]} == {(D, uuid_at(D, n)) for n in (1, 2, 3, 6)}
    assert data["receipt"]["id"] == r.id and data["receipt"]["status"] == "pending"
    md = (agent_dir / "memory/meta/pending-reflection.md").read_text()
    for heading in ("# Reflection Summary", "## 🧠 New Knowledge Extracted", "## 🔗 New Connections",
                    "## 📦 Proposed Archival", "## ⚠️ Contradictions Detected", "## ✏️ Core Memory Changes",
                    "## ❓ Questions for You"):
        assert heading in md
    assert "(📌 pinned)" in md and "r-1" in md
    state, _ = load_state(ws.state_path)
    assert state.dreamed_ids(D) == set()  # held for the person, never "dreamed and uncited" for TypeClaw
    assert set(data["held"]) == {f"{D}#{uuid_at(D, n)}" for n in (1, 2, 3, 6)}
    # no fragment GC without an applied citation judgment; the watermark duplicate still goes
    assert fragment_ids(agent_dir, D) == [uuid_at(D, n) for n in (1, 2, 3, 6)]
    assert r.watermarks_dropped == 1
    assert git_parent(agent_dir) == seeded
    # The commit applied no belief: it parked the reflection, and says so.
    assert trailer_values(agent_dir) == {"Actor": "dreamer:scripted", "Approval": "pending", "Trigger": "manual",
                                         "Reflection": "r-1"}


def trailer_values(root) -> dict[str, str]:
    from tests.support.git import trailer_lines

    return dict(line.split(": ", 1) for line in trailer_lines(root))


def git_parent(root):
    from tests.support.git import git

    return git(root, "rev-parse", "HEAD~1").strip()


def test_fragments_held_by_a_pending_reflection_survive_later_gc_and_are_not_shown_again(ws, agent_dir):
    write_stream(agent_dir, D, [fragment_line(D, 1, "pm", "uses pnpm"), fragment_line(D, 2, "noise", "cold coffee")])
    first = Scripted(lambda inp, s: s.write_shard("pm", draft("Uses pnpm", [cite(D, 1)])))
    assert run_dream(the_next_day(ws), dreamer=first, review="all").status == "pending"

    write_stream(agent_dir, D, [fragment_line(D, 3, "os", "uses linux"), fragment_line(D, 4, "noise", "rain")])
    second = Scripted(lambda inp, s: s.write_shard("os", draft("Runs Linux", [cite(D, 3)])))
    r2 = run_dream(the_next_day(ws), dreamer=second, review="none")

    assert second.seen == [[cite(D, 3), cite(D, 4)]]  # r-1's fragments are not dreamed twice
    assert r2.status == "applied" and r2.fragments_dropped == [f"{D}#{uuid_at(D, 4)}"]
    # f1 is cited only by the pending proposal; f2 was shown to it. Both wait for the human.
    assert fragment_ids(agent_dir, D) == [uuid_at(D, n) for n in (1, 2, 3)]
    assert not (agent_dir / "memory/topics/pm.md").exists()

    reject(ws, "r-1", reason="re-dream these", release=True)
    third = Scripted(lambda inp, s: s.write_shard("pm", draft("Uses pnpm", [cite(D, 1)])))
    run_dream(the_next_day(ws), dreamer=third, review="none")
    assert third.seen == [[cite(D, 1), cite(D, 2)]]


def test_review_judgement_applies_the_mechanical_part_and_holds_the_rest(ws, agent_dir):
    _seed(ws, agent_dir)
    before = topics(agent_dir)
    vault = (agent_dir / "memory/vault/p.md").read_bytes()

    r = run_dream(ws, dreamer=Scripted(_everything), review="judgement")

    assert r.status == "mixed"
    assert r.auto_applied == ["topics/a.md"]
    assert r.pending == ["topics/b.md", "topics/e.md", "topics/n.md", "topics/p.md", "topics/s.md"]
    after = topics(agent_dir)
    assert citations_in(after["a.md"].decode()) == sorted([cite(D1, 1), cite(D1, 4), cite(D, 1)])
    parse_shard(after["a.md"].decode())
    for name in ("b.md", "e.md", "p.md", "s.md"):
        assert after[name] == before[name]
    assert "n.md" not in after
    assert (agent_dir / "memory/vault/p.md").read_bytes() == vault
    refl = load_reflection(ws, "r-1")
    assert [f.path for f in refl.files] == r.pending
    assert [f.path for f in refl.files if f.pinned] == ["topics/p.md"]
    # its summary is the whole dream's; it says what of that was applied already, and where
    assert refl.summary.endswith(" · 1 applied already"), refl.summary
    # the noise fragment was shown to r-1, so it waits for the decision instead of being collected
    assert fragment_ids(agent_dir, D) == [uuid_at(D, n) for n in (1, 2, 3, 6)]
    assert trailer_values(agent_dir)["Approval"] == "auto"  # what it applied, it applied on its own


def test_review_judgement_with_only_mechanical_changes_creates_no_reflection(ws, agent_dir):
    _seed(ws, agent_dir)

    r = run_dream(the_next_day(ws), dreamer=Scripted(lambda inp, s: s.write_shard(
        "a", draft("Belief a", [cite(D1, 1), cite(D, 1)]))), review="judgement")

    assert r.status == "applied" and r.reflection is None
    assert not (agent_dir / "memory/meta/reflections").exists()
    assert fragment_ids(agent_dir, D) == [uuid_at(D, 1)]


def test_a_pinned_topic_is_never_auto_applied_even_with_review_none(ws, agent_dir):
    # Invariant 2: "A dream that touches a pinned topic is flagged and never auto-applied."
    _seed(ws, agent_dir)
    before = topics(agent_dir)

    r = run_dream(ws, dreamer=Scripted(_everything), review="none")

    assert r.status == "mixed" and r.pending == ["topics/p.md"] and "topics/p.md" not in r.auto_applied
    assert topics(agent_dir)["p.md"] == before["p.md"]
    assert [(f.path, f.pinned) for f in load_reflection(ws, "r-1").files] == [("topics/p.md", True)]
    assert needs_review("none", PM, PM + "x", pinned=True)
