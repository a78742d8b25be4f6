"""Reviewing a reflection whose shards moved on since the dream (`ops.review`): which hunks still
apply as made, which rebase onto the new text, which conflict, as the app and `dreamdeck review
r-N` both show it; and the texts a choice of hunks gives (what `E` / `approve --edit` open)."""
from __future__ import annotations

import json
import subprocess

import pytest

from dreamdeck.core.door.apply import apply_changeset
from dreamdeck.core.door.changeset import ChangeSet, Commit, FileEdit, Writes
from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.git.diff import apply_hunks
from dreamdeck.core.git.runner import head
from dreamdeck.core.ops.review import chosen_texts, probe_conflicts
from dreamdeck.core.store.reflections import ReflectionError, load_reflection
from dreamdeck.core.store.state import load_state, save_state
from tests.support.dreamers import Scripted, draft
from tests.support.memory import cite, commit_all, fragment_line, shard_text, uuid_at, write_shard, write_stream
from tests.support.processes import run_cli

D1, D = "2026-05-20", "2026-05-22"


def _rewrite_a(inp, scratch):
    scratch.write_shard("a", draft("Belief a, rewritten", [cite(D1, 1)]))
    scratch.write_shard("n", draft("Something new", [cite(D, 2)]))


@pytest.fixture
def pending(ws, agent_dir):
    """r-1 rewrites a's belief and creates n."""
    write_stream(agent_dir, D1, [fragment_line(D1, 1, "a", "fact a")])
    write_shard(agent_dir, "a", shard_text("Belief a", [cite(D1, 1)]))
    state, _ = load_state(ws.state_path)
    save_state(ws.state_path, state.add_dreamed(D1, {uuid_at(D1, 1)}, "2026-05-20T10:00:00+00:00"))
    write_stream(agent_dir, D, [fragment_line(D, 1, "a", "a again"), fragment_line(D, 2, "n", "something new")])
    commit_all(agent_dir)
    assert run_dream(ws, dreamer=Scripted(_rewrite_a, summary="rewrite"), review="all").reflection == "r-1"
    return ws


def change_a(ws, belief: str, cites: list[str]) -> None:
    current = (ws.topics_dir / "a.md").read_text()
    apply_changeset(ws, ChangeSet(Commit("edit", "human:cli", "approved", "test", "meanwhile"),
                                  Writes([FileEdit("topics/a.md", current, shard_text(belief, cites))])))


def hunk_of(ws, path: str) -> str:
    (hid,) = [h.id for f, d in load_reflection(ws, "r-1").hunks() if f.path == path for h in d.hunks]
    return hid


def test_a_reflection_nobody_overtook_applies_as_made(pending):
    probe = probe_conflicts(pending, "r-1")
    assert [(f.path, f.base_changed, f.state) for f in probe.files] == [
        ("topics/a.md", False, "fresh"), ("topics/n.md", False, "fresh")]
    assert probe.state_of(hunk_of(pending, "topics/a.md")) == "fresh" and probe.conflicts == []


def test_a_shard_rewritten_since_the_dream_makes_its_hunk_a_conflict_and_leaves_the_others(pending):
    ws = pending
    change_a(ws, "Belief a, said differently", [cite(D1, 1)])
    before, on_disk = head(ws.root), (ws.topics_dir / "a.md").read_bytes()

    probe = probe_conflicts(ws, "r-1")

    a, n = probe.files
    assert (a.path, a.base_changed, a.state) == ("topics/a.md", True, "conflict")
    assert (n.path, n.base_changed, n.state) == ("topics/n.md", False, "fresh")
    assert probe.conflicts == [hunk_of(ws, "topics/a.md")]
    assert probe.state_of(hunk_of(ws, "topics/n.md")) == "fresh"
    assert head(ws.root) == before and (ws.topics_dir / "a.md").read_bytes() == on_disk  # a dry run


def test_a_shard_only_reinforced_since_the_dream_rebases(pending):
    ws = pending
    change_a(ws, "Belief a", [cite(D1, 1), cite(D, 1)])

    probe = probe_conflicts(ws, "r-1")

    assert [(f.path, f.state) for f in probe.files] == [("topics/a.md", "rebases"), ("topics/n.md", "fresh")]
    assert probe.state_of(hunk_of(ws, "topics/a.md")) == "rebases" and probe.conflicts == []
    assert probe.to_json()["files"][0] == {"path": "topics/a.md", "base_changed": True, "state": "rebases",
                                          "hunks": {hunk_of(ws, "topics/a.md"): "rebases"}}


def test_chosen_texts_are_the_proposed_texts_or_the_chosen_hunks_applied(pending):
    r = load_reflection(pending, "r-1")
    proposed = {f.path: f.proposed for f in r.files}
    assert chosen_texts(r, None) == proposed
    n = hunk_of(pending, "topics/n.md")
    assert chosen_texts(r, [n]) == {"topics/n.md": proposed["topics/n.md"]}
    with pytest.raises(ReflectionError, match="r-1 has no hunk h-nope"):
        chosen_texts(r, ["h-nope"])
    f = r.files[0]
    (a,) = [h.id for h in f.diff().hunks]
    assert chosen_texts(r, [a]) == {"topics/a.md": apply_hunks(f.base, f.proposed, {a}, f.path)}


def review(root, *args) -> subprocess.CompletedProcess:
    return run_cli(root, "review", *args, today=D)


def test_dreamdeck_review_says_which_hunks_conflict_and_which_rebase(pending):
    ws = pending
    change_a(ws, "Belief a, said differently", [cite(D1, 1)])
    a, n = hunk_of(ws, "topics/a.md"), hunk_of(ws, "topics/n.md")

    text = review(ws.root, "r-1").stdout

    assert "== topics/a.md (modified) · ⚠ changed since the dream: conflicts" in text
    assert f"-- {a} ⚠ conflict: does not merge onto the current text; it cannot be approved" in text
    assert "== topics/n.md (added)\n" in text and f"-- {n}\n" in text
    files = json.loads(review(ws.root, "r-1", "--json").stdout)["files"]
    assert [(f["path"], f["base_changed"], f["state"]) for f in files] == [
        ("topics/a.md", True, "conflict"), ("topics/n.md", False, "fresh")]
    assert [h["state"] for f in files for h in f["hunks"]] == ["conflict", "fresh"]


def test_dreamdeck_review_says_a_hunk_rebases(pending):
    ws = pending
    change_a(ws, "Belief a", [cite(D1, 1), cite(D, 1)])
    text = review(ws.root, "r-1").stdout
    assert "== topics/a.md (modified) · ~ changed since the dream: rebases cleanly" in text
    assert f"-- {hunk_of(ws, 'topics/a.md')} ~ rebases onto the current text\n" in text
