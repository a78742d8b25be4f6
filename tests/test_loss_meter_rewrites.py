"""The loss meter counts a belief as rewritten only when its claim's text changes: the strength
ladder re-wording a belief as its support grows ("Mentioned once: …" → "Observed on 2 days: …",
"always" → "consistently") is a reinforcement, not a rewrite. Real shard texts, from a real
offline dream and from beliefs worded the way a person or an LLM words them."""
from __future__ import annotations

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.ops.reflections import loss_meter, render_pending_markdown
from dreamdeck.core.store.reflections import ProposedFile, load_reflection
from dreamdeck.core.store.state import load_state, save_state
from tests.support.memory import cite, commit_all, fragment_line, shard_text, uuid_at, write_shard, write_stream

D1, D2, D = "2026-05-18", "2026-05-20", "2026-05-22"


def test_an_offline_dream_that_only_reinforces_a_belief_rewrites_none(ws, agent_dir):
    write_stream(agent_dir, D1, [fragment_line(D1, 1, "deploys", "The team deploys on Fridays.")])
    write_shard(agent_dir, "team-deploys-fridays", shard_text("Mentioned once: The team deploys on Fridays", [cite(D1, 1)]))
    state, _ = load_state(ws.state_path)
    save_state(ws.state_path, state.add_dreamed(D1, {uuid_at(D1, 1)}, f"{D1}T10:00:00+00:00"))
    write_stream(agent_dir, D, [fragment_line(D, 1, "deploys", "The team deploys on Fridays.")])
    commit_all(agent_dir)

    run_dream(ws, dreamer_name="offline", review="all")
    r = load_reflection(ws, "r-1")
    (held,) = r.files
    assert "Observed on 2 days: The team deploys on Fridays" in (held.proposed or "")

    assert loss_meter(r.files).beliefs_removed == []
    assert "0 beliefs rewritten" in render_pending_markdown([r])


def test_a_ladder_prefix_moving_up_a_tier_is_not_a_rewrite():
    old = shard_text("Observed on 2 days: Dana reviews every migration before it ships", [cite(D1, 1), cite(D2, 1)])
    new = shard_text("Consistently (3 days): Dana reviews every migration before it ships",
                     [cite(D1, 1), cite(D2, 1), cite(D, 1)])
    assert loss_meter([ProposedFile("topics/dana-reviews-migrations.md", old, new)]).beliefs_removed == []


def test_an_inline_strength_word_swapped_by_the_ladder_is_not_a_rewrite():
    old = shard_text("The user has been observed running the linter before each commit", [cite(D1, 1), cite(D2, 1)])
    new = shard_text("The user consistently runs the linter before each commit", [cite(D1, 1), cite(D2, 1), cite(D, 1)])
    always = shard_text("The user always pins dependency versions", [cite(D1, n) for n in range(1, 8)])
    consistently = shard_text("The user consistently pins dependency versions", [cite(D1, 1), cite(D2, 1), cite(D, 1)])
    meter = loss_meter([ProposedFile("topics/linter.md", old, new), ProposedFile("topics/pins.md", always, consistently)])
    assert meter.beliefs_removed == []


def test_a_change_of_the_claims_text_is_still_a_rewrite_even_with_a_new_tier():
    old = shard_text("Observed on 2 days: The team deploys on Fridays", [cite(D1, 1), cite(D2, 1)])
    new = shard_text("Consistently (3 days): The team deploys on Thursdays", [cite(D1, 1), cite(D2, 1), cite(D, 1)])
    inline = shard_text("The user always pins dependency versions", [cite(D1, 1)])
    changed = shard_text("The user consistently floats dependency versions", [cite(D1, 1), cite(D, 1)])
    meter = loss_meter([ProposedFile("topics/deploys.md", old, new), ProposedFile("topics/pins.md", inline, changed)])
    assert meter.beliefs_removed == ["topics/deploys.md", "topics/pins.md"]
