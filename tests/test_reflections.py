"""Deciding a pending reflection: approve all or some hunks, rebase, refuse, reject, release, expire."""
from __future__ import annotations

import json
import re
from datetime import datetime, timedelta

import pytest

from dreamdeck.core.door.apply import apply_changeset
from dreamdeck.core.door.changeset import ChangeSet, Commit, FileEdit, Writes
from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.errors import Refused
from dreamdeck.core.formats.shards import parse_shard
from dreamdeck.core.git.commit import DREAM_EMOJI
from dreamdeck.core.git.runner import head
from dreamdeck.core.ops.reflections import approve, loss_meter, mark_stale, reject
from dreamdeck.core.store.audit import read_log
from dreamdeck.core.store.reflections import ProposedFile, ReflectionError, list_reflections, load_reflection
from dreamdeck.core.store.state import load_state, save_state
from tests.support.dreamers import Scripted, citations_in, draft, merge_into
from tests.support.git import git, trailer_lines
from tests.support.memory import (
    cite,
    commit_all,
    fragment_line,
    shard_text,
    the_next_day,
    topics,
    uuid_at,
    write_shard,
    write_stream,
)

D1, D = "2026-05-20", "2026-05-22"
EMOJI = "|".join(map(re.escape, DREAM_EMOJI))


def fragment_ids(root, day):
    path = root / "memory" / "streams" / f"{day}.jsonl"
    return [json.loads(l)["id"] for l in path.read_text().splitlines() if json.loads(l)["type"] == "fragment"]


def status_of(ws, rid="r-1"):
    return json.loads((ws.meta_dir / "reflections" / f"{rid}.json").read_text())["status"]


def hunk_ids(ws, rid="r-1") -> dict[str, list[str]]:
    return {f.path: [h.id for h in d.hunks] for f, d in load_reflection(ws, rid).hunks()}


def _seed(ws, agent_dir):
    """Shards a (cites D1#1) and b (cites D1#2); today: D#1 for a, D#2 new, D#3 noise."""
    write_stream(agent_dir, D1, [fragment_line(D1, 1, "a", "fact a"), fragment_line(D1, 2, "b", "fact b")])
    write_shard(agent_dir, "a", shard_text("Belief a", [cite(D1, 1)]))
    write_shard(agent_dir, "b", shard_text("Belief b", [cite(D1, 2)]))
    state, _ = load_state(ws.state_path)
    save_state(ws.state_path, state.add_dreamed(D1, {uuid_at(D1, 1), uuid_at(D1, 2)}, "2026-05-20T10:00:00+00:00"))
    write_stream(agent_dir, D, [
        fragment_line(D, 1, "a", "a again"), fragment_line(D, 2, "n", "something new"),
        fragment_line(D, 3, "noise", "cold coffee"),
    ])
    return commit_all(agent_dir)


def _two_files(inp, scratch):
    scratch.write_shard("a", draft("Belief a", [cite(D1, 1), cite(D, 1)]))
    scratch.write_shard("n", draft("Something new", [cite(D, 2)]))


def _pending(ws, agent_dir, script=_two_files):
    seeded = _seed(ws, agent_dir)
    r = run_dream(ws, dreamer=Scripted(script, summary="two changes"), review="all")
    assert r.status == "pending" and r.reflection == "r-1"
    return seeded


# --- approve ---------------------------------------------------------------------------------------
def test_approve_all_applies_every_file_through_the_door(ws, agent_dir):
    _pending(ws, agent_dir)
    proposed = {f.path: f.proposed for f in load_reflection(ws, "r-1").files}

    result = approve(the_next_day(ws), "r-1")  # D is over and quiet: its stream may be compacted

    assert topics(agent_dir)["a.md"].decode() == proposed["topics/a.md"]
    assert topics(agent_dir)["n.md"].decode() == proposed["topics/n.md"]
    assert parse_shard(proposed["topics/n.md"])[0].cites == 1
    assert status_of(ws) == "approved"
    assert "No reflection is pending." in (ws.meta_dir / "pending-reflection.md").read_text()
    log = (ws.meta_dir / "reflection-log.md").read_text().splitlines()
    assert re.fullmatch(r"- \S+ r-1 approved by human:cli: 2/2 hunks", log[-1])
    subject = git(agent_dir, "log", "-1", "--format=%s").strip()
    assert re.fullmatch(rf"dream: approved r-1 \(2/2 hunks\) ({EMOJI})", subject)
    trailers = trailer_lines(agent_dir)
    assert trailers == ["Actor: human:cli", "Approval: approved", "Trigger: review", "Reflection: r-1"]
    assert result.sha == head(agent_dir)
    entries, problems = read_log(agent_dir)
    assert not problems
    mine = [(e.action, e.file, e.approval) for e in entries if e.actor == "human:cli"]
    assert ("EDIT", "memory/topics/a.md", "approved") in mine and ("CREATE", "memory/topics/n.md", "approved") in mine
    # the decision is a fresh citation judgment: the noise shown to r-1 is collected now
    assert fragment_ids(agent_dir, D) == [uuid_at(D, 1), uuid_at(D, 2)]



def test_a_partial_approvals_audit_line_says_what_it_applied_not_the_dreams_counts(ws, agent_dir):
    """The dream's summary ("two changes", or "1 new topic, 3 reinforced") is the whole dream's;
    an approval of one new claim records that it applied one new claim."""
    _pending(ws, agent_dir)
    ids = hunk_ids(ws)

    approve(ws, "r-1", hunks=ids["topics/n.md"])
    (line,) = [e for e in read_log(agent_dir)[0] if e.file == "memory/topics/n.md"]
    assert line.approval == "partial"
    assert line.summary == "partial r-1: 1 of 2 hunks applied (1 new claim)"

    approve(ws, "r-1")  # the rest: what is left is the reinforcement of a
    (line,) = [e for e in read_log(agent_dir)[0] if e.file == "memory/topics/a.md"]
    assert line.summary == "approved r-1: 1 of 1 hunk applied (1 reinforced)"


def test_approving_one_files_hunk_applies_it_and_keeps_the_undecided_hunk_pending_with_its_fragments(ws, agent_dir):
    _pending(ws, agent_dir)
    before = topics(agent_dir)
    ids = hunk_ids(ws)
    assert len(ids["topics/n.md"]) == 1

    approve(ws, "r-1", hunks=ids["topics/n.md"])

    after = topics(agent_dir)
    assert after["a.md"] == before["a.md"]
    assert citations_in(after["n.md"].decode()) == [cite(D, 2)]
    assert re.fullmatch(rf"dream: partial r-1 \(1/2 hunks\) ({EMOJI})", git(agent_dir, "log", "-1", "--format=%s").strip())
    decision = json.loads((ws.meta_dir / "reflections/r-1.json").read_text())["decisions"][-1]
    assert decision["decision"] == "partial" and decision["hunks"] == ids["topics/n.md"]
    # The undecided hunk waits in the same, still open reflection; its fragment stays in the stream
    # and undreamed (only what the applied text cites is marked dreamed).
    assert status_of(ws) == "pending" and hunk_ids(ws) == {"topics/a.md": ids["topics/a.md"]}
    assert fragment_ids(agent_dir, D) == [uuid_at(D, n) for n in (1, 2, 3)]
    assert load_state(ws.state_path)[0].dreamed_ids(D) == {uuid_at(D, 2)}
    # and deciding the rest finishes it
    approve(ws, "r-1")
    assert status_of(ws) == "approved" and topics(agent_dir)["a.md"].decode() == load_reflection(ws, "r-1").files[0].proposed


def test_a_partial_approval_keeps_the_fragments_of_undecided_and_rejected_hunks_through_later_dreams(ws, agent_dir):
    def three_files(inp, scratch):
        scratch.write_shard("a", draft("Belief a", [cite(D1, 1), cite(D, 1)]))
        scratch.write_shard("n", draft("Something new", [cite(D, 2)]))
        scratch.write_shard("c", draft("Cold coffee", [cite(D, 3)]))

    _pending(ws, agent_dir, script=three_files)
    ids = hunk_ids(ws)

    approve(ws, "r-1", hunks=ids["topics/n.md"], rejected=ids["topics/c.md"])  # a.md left undecided

    r = load_reflection(ws, "r-1")
    assert r.status == "pending" and [f.path for f in r.files] == ["topics/a.md"]
    assert r.decisions[-1]["rejected_hunks"] == ids["topics/c.md"]
    assert r.held_keys() == {(D, uuid_at(D, 1)), (D, uuid_at(D, 3))}
    # A later, unrelated dream on the same day compacts it: nothing held is collected or shown.
    write_stream(agent_dir, D, [fragment_line(D, 4, "tea", "drinks tea")])
    later = Scripted(lambda inp, s: s.write_shard("tea", draft("Drinks tea", [cite(D, 4)])))
    assert run_dream(ws, dreamer=later, review="none").status == "applied"
    assert later.seen == [[cite(D, 4)]]
    assert fragment_ids(agent_dir, D) == [uuid_at(D, n) for n in (1, 2, 3, 4)]
    # Rejecting the rest keeps what it held until the person releases it.
    reject(ws, "r-1", reason="not now")
    assert load_reflection(ws, "r-1").holds
    assert run_dream(ws, dreamer=Scripted(), review="none").status == "skipped"
    reject(ws, "r-1", reason="dream them again", release=True)
    again = Scripted()
    run_dream(ws, dreamer=again, review="none")
    assert again.seen == [[cite(D, 1), cite(D, 3)]]


def test_an_unknown_hunk_id_is_refused_before_anything_happens(ws, agent_dir):
    _pending(ws, agent_dir)
    before = head(agent_dir)
    with pytest.raises(ReflectionError, match="no hunk h-nope"):
        approve(ws, "r-1", hunks=["h-nope"])
    assert head(agent_dir) == before and status_of(ws) == "pending"


def _rewrite_a(inp, scratch):
    scratch.write_shard("a", draft("Belief a, rewritten", [cite(D1, 1)]))


def test_a_stale_base_changed_elsewhere_is_rebased_and_both_changes_are_kept(ws, agent_dir):
    _pending(ws, agent_dir, script=_rewrite_a)
    current = (agent_dir / "memory/topics/a.md").read_text()
    # meanwhile a later, mechanical change adds a citation at the end of the same shard
    apply_changeset(ws, ChangeSet(
        Commit("edit", "human:cli", "approved", "test", "reinforce a"),
        Writes([FileEdit("topics/a.md", current, shard_text("Belief a", [cite(D1, 1), cite(D, 1)]))]),
    ))

    result = approve(ws, "r-1")

    assert result.rebased == ["topics/a.md"]
    text = (agent_dir / "memory/topics/a.md").read_text()
    meta, body = parse_shard(text)
    assert meta.heading == "Belief a, rewritten" and body.startswith("Belief a, rewritten.\n")
    assert citations_in(text) == sorted([cite(D1, 1), cite(D, 1)])
    assert (meta.cites, meta.days) == (2, 2)


def test_an_overlapping_change_since_the_proposal_is_refused_as_a_conflict(ws, agent_dir):
    _pending(ws, agent_dir, script=_rewrite_a)
    current = (agent_dir / "memory/topics/a.md").read_text()
    apply_changeset(ws, ChangeSet(
        Commit("edit", "human:cli", "approved", "test", "human rewrite"),
        Writes([FileEdit("topics/a.md", current, shard_text("Belief a, said differently", [cite(D1, 1)]))]),
    ))
    edited = (agent_dir / "memory/topics/a.md").read_bytes()
    before = head(agent_dir)

    with pytest.raises(Refused) as err:
        approve(ws, "r-1")

    assert err.value.conflicts == ["topics/a.md"]
    assert (agent_dir / "memory/topics/a.md").read_bytes() == edited
    assert head(agent_dir) == before and status_of(ws) == "pending"


def test_a_partial_approval_that_would_lose_a_citation_is_refused_naming_ids_and_hunks(ws, agent_dir):
    _pending(ws, agent_dir, script=merge_into("ab", ["a", "b"], "Beliefs a and b", extra=lambda inp: [cite(D, 1)]))
    ids = hunk_ids(ws)
    before_topics, before_head = topics(agent_dir), head(agent_dir)
    audit_before = (ws.meta_dir / "audit.log").read_bytes() if (ws.meta_dir / "audit.log").exists() else b""
    delete_a, create_ab = ids["topics/a.md"][0], ids["topics/ab.md"][0]

    with pytest.raises(Refused) as err:
        approve(ws, "r-1", hunks=[delete_a])

    lost = (D1, uuid_at(D1, 1))
    assert err.value.missing == [lost]
    message = str(err.value)
    assert f"{D1}#{uuid_at(D1, 1)}" in message
    assert f"{delete_a} (topics/a.md) removes {cite(D1, 1)}" in message
    assert f"{create_ab} (topics/ab.md) would keep {cite(D1, 1)} but is not chosen" in message
    assert topics(agent_dir) == before_topics and head(agent_dir) == before_head
    assert status_of(ws) == "pending"
    assert ((ws.meta_dir / "audit.log").read_bytes() if (ws.meta_dir / "audit.log").exists() else b"") == audit_before
    assert not (ws.memory / "meta/.journal.json").exists()
    # choosing the hunk that carries the citation makes the same partial approval fine
    approve(ws, "r-1", hunks=[delete_a, create_ab])
    assert sorted(topics(agent_dir)) == ["ab.md", "b.md"]


def test_an_edited_text_is_recomputed_and_applied_as_partial(ws, agent_dir):
    _pending(ws, agent_dir)
    edited = "---\nheading: Something new, in my words\ncites: 0\ndays: 0\nlastReinforced: 2000-01-01\n---\n" \
             f"Something new, in my words.\n\nfragments:\n- {cite(D, 2)}\n"

    approve(ws, "r-1", edited={"topics/n.md": edited})

    meta, _ = parse_shard((agent_dir / "memory/topics/n.md").read_text())
    assert (meta.heading, meta.cites, meta.last_reinforced) == ("Something new, in my words", 1, D)
    assert status_of(ws) == "partial"


# --- reject ----------------------------------------------------------------------------------------
def test_reject_with_a_reason_applies_nothing_and_keeps_the_ids_held_undreamed(ws, agent_dir):
    _pending(ws, agent_dir)
    before = topics(agent_dir)

    reject(ws, "r-1", reason="not what I said")

    assert topics(agent_dir) == before
    assert status_of(ws) == "rejected"
    last = (ws.meta_dir / "reflection-log.md").read_text().splitlines()[-1]
    assert re.fullmatch(r"- \S+ r-1 rejected by human:cli: not what I said", last)
    state, _ = load_state(ws.state_path)
    assert state.dreamed_ids(D) == set()  # never "dreamed and uncited" for TypeClaw's GC
    assert load_reflection(ws, "r-1").held_keys() == {(D, uuid_at(D, n)) for n in (1, 2, 3)}
    assert git(agent_dir, "log", "-1", "--format=%s").strip() == "memory: reject r-1"
    entries, _ = read_log(agent_dir)
    assert (entries[-1].action, entries[-1].file, entries[-1].approval, entries[-1].summary) == (
        "REJECT", "memory/meta/reflections/r-1.json", "rejected", "not what I said")
    again = Scripted()
    assert run_dream(ws, dreamer=again, review="none").status == "skipped"
    with pytest.raises(ReflectionError):
        approve(ws, "r-1")
    with pytest.raises(ReflectionError, match="reason"):
        reject(ws, "r-1", reason="  ")


def test_reject_with_release_returns_the_ids_to_the_undreamed_tail(ws, agent_dir):
    _pending(ws, agent_dir)

    reject(ws, "r-1", reason="dream these again", release=True)

    state, _ = load_state(ws.state_path)
    assert state.dreamed_ids(D) == set()
    assert state.dreamed_ids(D1) == {uuid_at(D1, 1), uuid_at(D1, 2)}
    assert "(fragments released)" in (ws.meta_dir / "reflection-log.md").read_text()
    redream = Scripted()
    run_dream(ws, dreamer=redream, review="none")
    assert redream.seen == [[cite(D, 1), cite(D, 2), cite(D, 3)]]


# --- loss meter and expiry ----------------------------------------------------------------------------
def test_the_loss_meter_counts_dropped_citations_rewritten_beliefs_deletions_and_supersessions():
    a = shard_text("Belief a", [cite(D1, 1), cite(D1, 2)])
    b = shard_text("Belief b", [cite(D1, 3)])
    files = [
        ProposedFile("topics/a.md", a, shard_text("Belief a, corrected", [cite(D, 1)], superseded=[cite(D1, 1)])),
        ProposedFile("topics/b.md", b, None),
        ProposedFile("topics/c.md", None, shard_text("Belief c", [cite(D1, 3)])),
    ]

    meter = loss_meter(files)

    assert meter.citations_dropped == [(D1, uuid_at(D1, 2))]
    assert meter.beliefs_removed == ["topics/a.md"]
    assert meter.shards_deleted == ["topics/b.md"]
    assert meter.superseded_added == [(D1, uuid_at(D1, 1))]
    assert meter.to_json()["citations_dropped"] == [f"{D1}#{uuid_at(D1, 2)}"]


def test_the_pending_markdown_shows_the_loss_meter_of_a_merge(ws, agent_dir):
    _pending(ws, agent_dir, script=merge_into("ab", ["a", "b"], "Beliefs a and b", extra=lambda inp: [cite(D, 1)]))
    md = (ws.meta_dir / "pending-reflection.md").read_text()
    assert "**Loss meter**: 0 citations dropped, 0 beliefs rewritten, 2 shards deleted, 0 superseded" in md
    meter = loss_meter(load_reflection(ws, "r-1").files)
    assert meter.citations_dropped == [] and meter.shards_deleted == ["topics/a.md", "topics/b.md"]


def test_expiry_marks_old_reflections_stale_and_approve_then_refuses(ws, agent_dir):
    _pending(ws, agent_dir)
    before = topics(agent_dir)
    created = datetime.fromisoformat(load_reflection(ws, "r-1").created)

    assert mark_stale(ws, now=created + timedelta(days=3)) == []
    assert mark_stale(ws, now=created + timedelta(days=15)) == ["r-1"]

    assert status_of(ws) == "stale"
    assert list_reflections(ws)[0] == []
    assert "No reflection is pending." in (ws.meta_dir / "pending-reflection.md").read_text()
    with pytest.raises(ReflectionError, match="stale"):
        approve(ws, "r-1")
    assert topics(agent_dir) == before
    approve(ws, "r-1", force=True)  # a person who looked again may still take it
    assert "n.md" in topics(agent_dir)


def test_approve_judges_expiry_at_the_time_it_is_given(ws, agent_dir):
    _pending(ws, agent_dir)
    created = datetime.fromisoformat(load_reflection(ws, "r-1").created)
    with pytest.raises(ReflectionError, match="stale"):
        approve(ws, "r-1", now=created + timedelta(days=20))
    assert status_of(ws) == "pending"


def test_listing_open_reflections_reads_only_the_head_of_decided_ones(ws, agent_dir):
    """Months of decided reflections (each holding whole shard texts) must not be parsed on every
    apply: a decided file is told from its head. Proof: a decided file damaged past its head is
    skipped when listing open ones, and still reported when the history asks for everything."""
    from dreamdeck.core.index.evidence import pending_reflection_keys
    from dreamdeck.core.store.reflections import Reflection

    folder = ws.meta_dir / "reflections"
    folder.mkdir(parents=True)
    done = Reflection(id="r-1", created="2026-05-20T10:00:00+00:00", status="approved",
                      fragments=[{"date": D1, "id": uuid_at(D1, 7), "topic": "t", "body": "b"}])
    (folder / "r-1.json").write_text(done.to_json()[:-40])  # truncated after the head
    open_ = Reflection(id="r-2", created="2026-05-21T10:00:00+00:00", status="pending",
                       fragments=[{"date": D1, "id": uuid_at(D1, 8), "topic": "t", "body": "b"}])
    (folder / "r-2.json").write_text(open_.to_json())
    listed, problems = list_reflections(ws)
    assert [r.id for r in listed] == ["r-2"] and problems == []
    assert pending_reflection_keys(ws) == {(D1, uuid_at(D1, 8))}
    everything, problems = list_reflections(ws, include_decided=True)
    assert [r.id for r in everything] == ["r-2"] and len(problems) == 1 and "r-1.json" in problems[0]


def test_a_hand_edited_reflection_laid_out_differently_is_still_parsed_whole(ws, agent_dir):
    """The head peek only skips files laid out as dreamdeck writes them; any other layout (keys
    reordered, status last) is parsed in full, so a pending one still lists and protects."""
    from dreamdeck.core.index.evidence import pending_reflection_keys
    from dreamdeck.core.store.reflections import Reflection

    folder = ws.meta_dir / "reflections"
    folder.mkdir(parents=True)
    r = Reflection(id="r-3", created="2026-05-21T10:00:00+00:00", status="pending",
                   fragments=[{"date": D1, "id": uuid_at(D1, 9), "topic": "t", "body": "b"}])
    data = json.loads(r.to_json())
    status = data.pop("status")
    data["status"] = status  # moved to the end
    (folder / "r-3.json").write_text(json.dumps(data))
    assert [x.id for x in list_reflections(ws)[0]] == ["r-3"]
    assert pending_reflection_keys(ws) == {(D1, uuid_at(D1, 9))}
