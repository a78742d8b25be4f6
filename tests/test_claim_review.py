"""A reflection read claim by claim (`ops.claim_review`): one summary line per held change (new
claim, reinforced, superseded X by Y, duplicates folded), and the mechanical hunks that
`approve r-N --mechanical` and the app's `m` choose."""
from __future__ import annotations

import json

import pytest

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.ops.claim_review import NEW, READING, REINFORCED, REWRITTEN, SUPERSEDED, TASK_DONE, claim_review
from dreamdeck.core.ops.reflections import approve
from dreamdeck.core.store.reflections import load_reflection
from dreamdeck.core.store.state import load_state, save_state
from tests.support.dreamers import Scripted, draft
from tests.support.memory import cite, commit_all, fragment_line, shard_text, uuid_at, write_shard, write_stream
from tests.support.processes import run_cli

D1, D = "2026-05-20", "2026-05-22"


def dreamed_on_d1_then_d(ws, agent_dir, beliefs: dict[str, tuple[str, str, str]], today: list[tuple[str, str]]) -> None:
    """D1's fragments already dreamed into `beliefs` (slug -> (topic, fragment text, belief)),
    fragment k cited by the k-th; then D's `today` fragments ((topic, text)), undreamed; committed."""
    write_stream(agent_dir, D1, [fragment_line(D1, k, topic, text) for k, (topic, text, _b) in enumerate(beliefs.values(), 1)])
    for k, (slug, (_t, _x, belief)) in enumerate(beliefs.items(), 1):
        write_shard(agent_dir, slug, shard_text(belief, [cite(D1, k)]))
    state, _ = load_state(ws.state_path)
    ids = {uuid_at(D1, k) for k in range(1, len(beliefs) + 1)}
    save_state(ws.state_path, state.add_dreamed(D1, ids, "2026-05-20T10:00:00+00:00"))
    write_stream(agent_dir, D, [fragment_line(D, k, topic, text) for k, (topic, text) in enumerate(today, 1)])
    commit_all(agent_dir)


def seed(ws, agent_dir) -> None:
    """Two beliefs from D1 (a habit, a setting); then D brings a reinforcement, its same-day
    duplicate, a changed setting and a new claim, dreamed offline under `judgement`."""
    dreamed_on_d1_then_d(ws, agent_dir, {
        "team-deploys-fridays": ("deploys", "The team deploys on Fridays.", "Mentioned once: The team deploys on Fridays"),
        "retention": ("retention", "retention: 14 days", "Mentioned once: retention: 14 days"),
    }, [("deploys", "The team deploys on Fridays."), ("deploy", "The team deploys on Fridays!"),
        ("retention", "retention: 30 days"), ("editor", "Dana prefers tabs over spaces in Go files.")])


@pytest.fixture
def dreamt(ws, agent_dir):
    seed(ws, agent_dir)
    receipt = run_dream(ws, dreamer_name="offline", review="judgement")
    assert receipt.reflection == "r-1"
    return ws


def by_path(review) -> dict:
    return {c.path: c for c in review.claims}


def test_each_held_claim_gets_one_summary_line_naming_what_happened(dreamt):
    claims = by_path(claim_review(load_reflection(dreamt, "r-1")))
    deploys = claims["topics/team-deploys-fridays.md"]
    assert deploys.kind == REINFORCED
    assert deploys.line == ('reinforced: "The team deploys on Fridays" (+1 citation, 2 days); 1 duplicate folded')
    retention = claims["topics/retention.md"]
    assert retention.kind == SUPERSEDED
    assert retention.line.startswith('superseded "retention: 14 days" by "')
    assert "30 days" in retention.line
    (new,) = [c for c in claims.values() if c.kind == NEW]
    assert new.line == 'new claim: "Dana prefers tabs over spaces in Go files"'


def test_a_folded_duplicate_is_named_with_the_citation_it_repeats(dreamt):
    claims = by_path(claim_review(load_reflection(dreamt, "r-1")))
    assert claims["topics/team-deploys-fridays.md"].folded == ((f"{D}#{uuid_at(D, 2)}", f"{D}#{uuid_at(D, 1)}"),)


def test_mechanical_hunks_are_the_reinforcement_and_the_clean_new_claim_not_the_supersession(dreamt):
    review = claim_review(load_reflection(dreamt, "r-1"))
    claims = by_path(review)
    assert claims["topics/team-deploys-fridays.md"].mechanical
    assert not claims["topics/retention.md"].mechanical
    new = next(c for c in review.claims if c.kind == NEW)
    assert new.mechanical
    assert review.mechanical_hunks == [h for c in review.claims if c.path != "topics/retention.md" for h in c.hunks]


def test_a_new_claim_named_in_a_flagged_contradiction_is_not_mechanical(ws, agent_dir):
    write_stream(agent_dir, D, [fragment_line(D, 1, "n", "something new")])
    commit_all(agent_dir)

    def dream(inp, scratch):
        scratch.write_shard("n", draft("Something new", [cite(D, 1)]))
        scratch.finish("one new claim", contradictions=["n: contradicts the old setup"])

    run_dream(ws, dreamer=Scripted(dream), review="all")
    (claim,) = claim_review(load_reflection(ws, "r-1")).claims
    assert claim.kind == NEW and not claim.mechanical


def test_a_belief_rewritten_in_place_is_not_a_reinforcement(ws, agent_dir):
    dreamed_on_d1_then_d(ws, agent_dir, {"a": ("a", "fact a", "Belief a")}, [("a", "a again")])

    def dream(inp, scratch):
        scratch.write_shard("a", draft("Belief a, quietly changed", [cite(D1, 1), cite(D, 1)]))

    run_dream(ws, dreamer=Scripted(dream), review="all")
    (claim,) = claim_review(load_reflection(ws, "r-1")).claims
    assert claim.kind == REWRITTEN and not claim.mechanical


def test_approving_the_mechanical_hunks_applies_them_and_leaves_the_supersession_out(dreamt):
    review = claim_review(load_reflection(dreamt, "r-1"))
    retention_before = (dreamt.topics_dir / "retention.md").read_text()
    approve(dreamt, "r-1", hunks=review.mechanical_hunks)
    assert (dreamt.topics_dir / "retention.md").read_text() == retention_before
    assert "Observed on 2 days: The team deploys on Fridays." in (dreamt.topics_dir / "team-deploys-fridays.md").read_text()
    # The supersession is left undecided: it waits in the same, still open reflection.
    left = load_reflection(dreamt, "r-1")
    assert left.status == "pending" and [f.path for f in left.files] == ["topics/retention.md"]


def test_review_r_n_prints_the_claim_lines_above_their_hunks(dreamt):
    out = run_cli(dreamt.root, "review", "r-1", today=D).stdout
    assert 'reinforced: "The team deploys on Fridays" (+1 citation, 2 days); 1 duplicate folded' in out
    assert f"duplicate folded: {D}#{uuid_at(D, 2)} = {D}#{uuid_at(D, 1)}" in out
    assert out.index("reinforced:") < out.index("== topics/team-deploys-fridays.md")
    assert "mechanical" in out


def test_review_r_n_json_carries_the_claims_and_the_mechanical_hunks(dreamt):
    data = json.loads(run_cli(dreamt.root, "review", "r-1", "--json", today=D).stdout)
    review = claim_review(load_reflection(dreamt, "r-1"))
    assert data["claims"]["mechanical_hunks"] == review.mechanical_hunks
    assert {c["kind"] for c in data["claims"]["claims"]} == {NEW, REINFORCED, SUPERSEDED}


def test_approve_mechanical_on_the_command_line_applies_only_the_mechanical_hunks(dreamt):
    retention_before = (dreamt.topics_dir / "retention.md").read_text()
    result = run_cli(dreamt.root, "approve", "r-1", "--mechanical", today=D)
    assert result.returncode == 0, result.stderr
    assert "(2 hunks, mechanical)" in result.stdout
    assert (dreamt.topics_dir / "retention.md").read_text() == retention_before
    decision = load_reflection(dreamt, "r-1").decisions[-1]
    assert decision["decision"] == "partial"


def test_approve_mechanical_says_so_in_one_line_when_nothing_is_mechanical(ws, agent_dir):
    write_stream(agent_dir, D1, [fragment_line(D1, 1, "a", "fact a")])
    write_shard(agent_dir, "a", shard_text("Belief a", [cite(D1, 1)]))
    commit_all(agent_dir)

    def dream(inp, scratch):
        scratch.write_shard("a", draft("Belief a, rewritten", [cite(D1, 1)]))

    write_stream(agent_dir, D, [fragment_line(D, 1, "a", "a again")])
    run_dream(ws, dreamer=Scripted(dream), review="all")
    result = run_cli(ws.root, "approve", "r-1", "--mechanical", today=D, check=False)
    assert result.returncode == 2
    assert "no mechanical hunk" in result.stderr and "Traceback" not in result.stderr
    assert load_reflection(ws, "r-1").status == "pending"


@pytest.mark.parametrize(("slug", "label", "before", "belief", "after", "kind", "line"), [
    ("update-on-call-handbook", "Todo", "- [ ] update the on-call handbook",
     "Mentioned once: To do: update the on-call handbook", "- [x] update the on-call handbook",
     TASK_DONE, 'task done: "update the on-call handbook"'),
    ("status", "Status", "disk: 61% used", "Mentioned once: disk: 61% used", "disk: 64% used",
     READING, 'reading updated: "disk: 64% used"'),
], ids=["a ticked task", "a newer reading"])
def test_a_ticked_task_or_a_newer_reading_is_said_so_and_is_mechanical(ws, agent_dir, slug, label, before, belief,
                                                                      after, kind, line):
    dreamed_on_d1_then_d(ws, agent_dir, {
        slug: (label, before, belief),
        "retention": ("retention", "retention: 14 days", "Mentioned once: retention: 14 days"),
    }, [(label, after), ("retention", "retention: 30 days")])
    run_dream(ws, dreamer_name="offline", review="judgement")
    reflection = load_reflection(ws, "r-1")
    claims = by_path(claim_review(reflection))
    claim = claims[f"topics/{slug}.md"]
    assert (claim.kind, claim.line, claim.mechanical) == (kind, line, True)
    retention = claims["topics/retention.md"]  # a setting's new value is still a supersession to judge
    assert retention.kind == SUPERSEDED and not retention.mechanical
    assert len(reflection.contradictions) == 1 and "retention" in reflection.contradictions[0]


def test_a_ticked_task_that_also_rewrites_its_prose_is_not_mechanical(ws, agent_dir):
    dreamed_on_d1_then_d(ws, agent_dir, {"handbook": ("Todo", "- [ ] update the on-call handbook",
                                                      "To do: update the on-call handbook")},
                         [("Todo", "- [x] update the on-call handbook")])

    def dream(inp, scratch):
        scratch.write_shard("handbook", draft("Done: update the on-call handbook", [cite(D, 1)], [cite(D1, 1)])
                            .replace("\nfragments:", "Also, the pager rota moved to Opsgenie.\n\nfragments:"))

    run_dream(ws, dreamer=Scripted(dream), review="all")
    (claim,) = claim_review(load_reflection(ws, "r-1")).claims
    assert claim.kind != TASK_DONE and not claim.mechanical




def test_a_reading_that_flips_back_within_a_run_is_said_so_and_is_mechanical(ws, agent_dir):
    dreamed_on_d1_then_d(ws, agent_dir, {"status": ("Status", "heartbeat: ok", "Mentioned once: heartbeat: ok")},
                         [("Status", "heartbeat: failed"), ("Status", "heartbeat: ok")])
    run_dream(ws, dreamer_name="offline", review="judgement")
    reflection = load_reflection(ws, "r-1")
    (claim,) = claim_review(reflection).claims
    assert (claim.kind, claim.mechanical) == (READING, True)
    # The earlier run's "ok" is read back from its stream and is active again: only "failed" is
    # under superseded (`offline`: a reading back to a value it had).
    assert claim.line == 'reading kept: "heartbeat: ok" (1 earlier reading under superseded)'
    assert reflection.contradictions == []


def test_an_older_reading_from_a_later_run_kept_under_superseded_is_mechanical(ws, agent_dir):
    dreamed_on_d1_then_d(ws, agent_dir, {"status": ("Status", "disk: 61% used", "Mentioned once: disk: 61% used")},
                         [("Status", "disk: 64% used")])
    run_dream(ws, dreamer_name="offline", review="none")
    write_stream(agent_dir, "2026-05-19", [fragment_line("2026-05-19", 1, "Status", "disk: 58% used")])
    commit_all(agent_dir)
    run_dream(ws, dreamer_name="offline", review="judgement")
    (claim,) = claim_review(load_reflection(ws, "r-1")).claims
    assert (claim.kind, claim.mechanical) == (READING, True)
    assert claim.line == 'reading kept: "disk: 64% used" (1 earlier reading under superseded)'


def _buried(heading: str, shown: list[tuple[str, str]]):
    """A scripted dreamer keeps `heading` and files every shown fragment of D under superseded."""
    def dream(inp, scratch):
        keys = [cite(f.date, int(f.id[-12:], 16)) for f in inp.fragments]
        scratch.write_shard("status", draft(heading, [cite(D1, 1)], keys))
    return dream


@pytest.mark.parametrize("today", [
    [("Status", "heartbeat: failed")],  # the newest reading buried: the belief should have been it
    [("Status", "backup cron: 04:00")],  # not a reading of the belief's key
    [("Status", "heartbeat: disabled for good, we moved to Opsgenie")],  # an announced change
], ids=["newest reading buried", "another key", "not a reading"])
def test_evidence_buried_under_a_reading_is_not_mechanical(ws, agent_dir, today):
    dreamed_on_d1_then_d(ws, agent_dir, {"status": ("Status", "heartbeat: ok", "Mentioned once: heartbeat: ok")}, today)
    run_dream(ws, dreamer=Scripted(_buried("Mentioned once: heartbeat: ok", today)), review="all")
    (claim,) = claim_review(load_reflection(ws, "r-1")).claims
    assert claim.kind != READING and not claim.mechanical
