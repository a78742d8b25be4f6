"""Recall impact of a reflection: the questions the agent asks (saved, and most frequent in the
access record) answered against memory now and as the approval would leave it — entered, left,
moved, reworded — with nothing on disk or in the real index changed."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.errors import BadInput
from dreamdeck.core.index.search import SearchIndex
from dreamdeck.core.index.search_preview import ScratchIndex
from dreamdeck.core.ops.recall import recall
from dreamdeck.core.ops.recall_impact import ReplayQuery, approval_texts, recall_impact, replay_queries
from dreamdeck.core.ops.reflections import approve
from dreamdeck.core.ops.saved_queries import save_query, unsave_query
from dreamdeck.core.store.access import access_path, record_access
from dreamdeck.core.store.audit import read_log
from dreamdeck.core.store.reflections import load_reflection
from dreamdeck.core.store.saved_queries import load_saved_queries
from dreamdeck.core.store.state import load_state, save_state
from tests.support.dreamers import Scripted, draft
from tests.support.git import git
from tests.support.memory import cite, commit_all, fragment_line, shard_text, uuid_at, write_shard, write_stream

D1, D = "2026-05-20", "2026-05-22"


pytestmark = pytest.mark.usefixtures("fresh_search_indexes")  # tests/conftest.py


def _dream(inp, scratch):
    scratch.write_shard("package-manager", draft("The user uses pnpm", [cite(D, 1)], superseded=[cite(D1, 1)]))
    scratch.write_shard("deploy-day", draft("Deploys happen on Fridays", [cite(D, 2)]))


@pytest.fixture
def pending(ws, agent_dir):
    """bun believed; today pnpm and Friday deploys observed; a dream (r-1) waits for review."""
    write_stream(agent_dir, D1, [fragment_line(D1, 1, "package manager", "The user uses bun")])
    write_shard(agent_dir, "package-manager", shard_text("The user uses bun", [cite(D1, 1)]))
    write_shard(agent_dir, "gliders", shard_text("The user flies gliders on weekends", [cite(D1, 1)]))
    state, _ = load_state(ws.state_path)
    save_state(ws.state_path, state.add_dreamed(D1, {uuid_at(D1, 1)}, "2026-05-20T10:00:00+00:00"))
    write_stream(agent_dir, D, [fragment_line(D, 1, "package manager", "Switched to pnpm"),
                                fragment_line(D, 2, "deploys", "Deploys happen on Fridays")])
    commit_all(agent_dir)
    assert run_dream(ws, dreamer=Scripted(_dream, summary="pnpm and deploys"), review="all").reflection == "r-1"
    return ws


def _asked(ws, query: str, times: int = 1, day: str = D) -> None:
    for _ in range(times):
        record_access(ws.__class__(ws.root, day), "recall", query, [], {"budget": "balanced"})


def _hunks(ws) -> dict[str, list[str]]:
    return {f.path: [h.id for h in d.hunks] for f, d in load_reflection(ws, "r-1").hunks()}


def _changes(impact) -> dict[str, list[tuple[str, str]]]:
    return {q.replay.query: [(c.item, c.change) for c in q.changes] for q in impact.queries}


def test_replay_takes_saved_queries_first_then_the_most_asked_recent_recalls(pending):
    ws = pending
    _asked(ws, "what package manager", 3)
    _asked(ws, "deploy day", 2)
    _asked(ws, "gliders", 5, day="2026-03-01")  # asked often, but long ago
    record_access(ws, "inject", "which package manager", [], {})  # a turn, not a recall
    save_query(ws, "gliders weekend")
    replays = replay_queries(ws)
    assert [(r.query, r.source, r.asked) for r in replays] == [
        ("gliders weekend", "saved", 0), ("what package manager", "frequent", 3), ("deploy day", "frequent", 2)]


def test_two_spellings_of_one_question_are_counted_together(pending):
    _asked(pending, "What  package manager", 1)
    _asked(pending, "what package manager", 2)
    assert [(r.query, r.asked) for r in replay_queries(pending)] == [("what package manager", 3)]


def test_approving_the_whole_reflection_shows_new_beliefs_entering_and_the_superseded_one_leaving(pending):
    ws = pending
    _asked(ws, "pnpm", 2)
    _asked(ws, "bun", 1)
    _asked(ws, "deploys fridays", 1)
    _asked(ws, "gliders", 1)
    impact = recall_impact(ws, "r-1")
    assert impact.paths == ["topics/deploy-day.md", "topics/package-manager.md"]
    assert _changes(impact) == {
        "pnpm": [("topic:package-manager", "entered")],
        "bun": [("topic:package-manager", "left")],
        "deploys fridays": [("topic:deploy-day", "entered")],
        "gliders": [],
    }
    assert [q.replay.query for q in impact.changed] == ["pnpm", "deploys fridays", "bun"]  # a tie: asked last first


def test_only_the_chosen_hunks_change_the_answers(pending):
    ws = pending
    _asked(ws, "pnpm", 2)
    _asked(ws, "deploys fridays", 1)
    [deploy_hunk] = _hunks(ws)["topics/deploy-day.md"]
    impact = recall_impact(ws, "r-1", hunks=[deploy_hunk])
    assert impact.paths == ["topics/deploy-day.md"]
    assert _changes(impact) == {"pnpm": [], "deploys fridays": [("topic:deploy-day", "entered")]}


def test_a_belief_that_keeps_its_rank_but_changes_its_words_is_reworded(pending):
    ws = pending
    _asked(ws, "user uses", 1)
    [pm_hunk] = _hunks(ws)["topics/package-manager.md"]
    [q] = recall_impact(ws, "r-1", hunks=[pm_hunk]).queries
    assert [(c.item, c.change, c.before, c.after) for c in q.changes] == [("topic:package-manager", "reworded", 1, 1)]
    assert q.after[0].heading == "The user uses pnpm" and q.before[0].heading == "The user uses bun"


def test_a_move_in_rank_is_reported_with_both_ranks():
    from dreamdeck.core.ops.recall import RecallBlock
    from dreamdeck.core.ops.recall_impact import compare_answers

    a, b = RecallBlock("topic", "a", "A", "a", 2.0), RecallBlock("topic", "b", "B", "b", 1.0)
    changes = compare_answers([a, b], [b, a])
    assert [(c.item, c.change, c.before, c.after) for c in changes] == [
        ("topic:b", "moved", 2, 1), ("topic:a", "moved", 1, 2)]


def test_the_impact_preview_changes_nothing_on_disk_in_the_index_or_the_access_record(pending):
    ws = pending
    _asked(ws, "pnpm", 2)
    files = {p: p.read_bytes() for p in ws.memory.rglob("*") if p.is_file()}
    head = git(ws.root, "rev-parse", "HEAD").strip()
    assert recall_impact(ws, "r-1").changed
    assert {p: p.read_bytes() for p in ws.memory.rglob("*") if p.is_file()} == files
    assert git(ws.root, "rev-parse", "HEAD").strip() == head
    assert recall(ws, "pnpm", record=False) == []  # the real index still answers for memory as it is
    assert access_path(ws.memory).read_bytes() == files[access_path(ws.memory)]


def test_the_after_answers_are_exactly_what_recall_gives_once_the_approval_is_applied(pending):
    ws = pending
    questions = ["pnpm", "bun", "deploys fridays", "user uses", "gliders weekends"]
    impact = recall_impact(ws, "r-1", queries=[ReplayQuery(q, "saved", 0) for q in questions])
    approve(ws, "r-1")
    for q in impact.queries:  # same items, same order, same BM25 (the after-state's own statistics)
        assert [(b.kind, b.key, b.score) for b in q.after] == \
            [(b.kind, b.key, b.score) for b in recall(ws, q.replay.query, record=False)]


def test_while_a_preview_is_open_every_other_reader_sees_memory_as_it_is(pending):
    ws = pending
    texts = approval_texts(ws, load_reflection(ws, "r-1"), None)
    with ScratchIndex(ws, texts) as scratch:
        assert [h.key for h in scratch.search("pnpm")] == ["package-manager"]
        assert SearchIndex(ws).query("pnpm") == []  # another connection to the same file
    assert recall(ws, "pnpm", record=False) == []
    assert [b.key for b in recall(ws, "bun", record=False)] == ["package-manager"]


def test_a_refresh_that_must_write_while_a_preview_holds_the_index_is_busy_and_keeps_the_index(pending, monkeypatch):
    """A locked index is not a corrupt one: the refresh used to wait 30 s, then delete the index
    files under the preview and rebuild them."""
    import os

    from dreamdeck.core.errors import Busy
    from dreamdeck.core.index import search
    from dreamdeck.core.index.search import index_path

    ws = pending
    texts = approval_texts(ws, load_reflection(ws, "r-1"), None)
    monkeypatch.setattr(search, "BUSY_TIMEOUT", 0.05)
    with ScratchIndex(ws, texts) as scratch:
        inode = os.stat(index_path(ws)).st_ino
        write_shard(ws.root, "late", shard_text("A belief written while the preview is open", []))
        with pytest.raises(Busy, match="being updated by another process"):
            recall(ws, "belief", record=False)
        assert os.stat(index_path(ws)).st_ino == inode  # the same file: not thrown away
        assert [h.key for h in scratch.search("pnpm")] == ["package-manager"]  # the preview goes on
    assert [b.key for b in recall(ws, "written while the preview", record=False)] == ["late"]


def test_a_preview_that_cannot_get_the_index_says_so_in_one_line(pending, monkeypatch):
    import sqlite3

    from dreamdeck.core.errors import Busy
    from dreamdeck.core.index import search_preview
    from dreamdeck.core.index.search import index_path

    ws = pending
    texts = approval_texts(ws, load_reflection(ws, "r-1"), None)
    recall(ws, "pnpm", record=False)  # the index exists
    other = sqlite3.connect(index_path(ws), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process writing the index
    monkeypatch.setattr(search_preview, "BUSY_TIMEOUT", 0.05)
    try:
        with pytest.raises(Busy, match="being updated by another process"):
            ScratchIndex(ws, texts, refresh=False)
    finally:
        other.execute("ROLLBACK")
        other.close()


def test_a_fragment_the_approval_cites_leaves_the_undreamed_tail_in_the_after_state(ws, agent_dir):
    write_stream(agent_dir, D, [fragment_line(D, 1, "standup", "Standup moved to 10am")])
    commit_all(agent_dir)
    run_dream(ws, dreamer=Scripted(lambda i, s: s.write_shard("standup", draft("Standup is at 10am", [cite(D, 1)]))),
              review="all")
    write_stream(agent_dir, D, [fragment_line(D, 2, "standup", "Standup in room 4")])  # undreamed
    r = load_reflection(ws, "r-1")
    r.files[0].proposed = draft("Standup is at 10am in room 4", [cite(D, 1), cite(D, 2)])
    (ws.meta_dir / "reflections" / "r-1.json").write_text(r.to_json())
    [q] = recall_impact(ws, "r-1", queries=[ReplayQuery("standup room", "saved", 0)]).queries
    assert [(b.kind, b.key) for b in q.before] == [("stream", f"{D}#{uuid_at(D, 2)}")]
    assert [(b.kind, b.key) for b in q.after] == [("topic", "standup")]


def test_impact_of_an_unknown_hunk_is_one_clear_error(pending):
    with pytest.raises(BadInput, match="r-1 has no hunk h-nope"):
        recall_impact(pending, "r-1", hunks=["h-nope"])


# --- saved queries ------------------------------------------------------------------------------
def test_saving_a_query_is_a_commit_with_an_audit_line_and_a_plain_line_in_meta(pending):
    ws = pending
    head = git(ws.root, "rev-parse", "HEAD").strip()
    assert save_query(ws, "  which   package manager ") is True
    assert save_query(ws, "Which package manager") is False  # the same question
    assert load_saved_queries(ws) == ["which package manager"]
    text = (ws.meta_dir / "saved-queries.txt").read_text()
    assert text.splitlines()[-1] == "which package manager" and text.startswith("# ")
    assert git(ws.root, "rev-list", "--count", f"{head}..HEAD").strip() == "1"
    last = read_log(ws.root)[0][-1]
    assert (last.action, last.file, last.summary) == ("EDIT", "memory/meta/saved-queries.txt",
                                                      "saved recall query 'which package manager'")
    assert unsave_query(ws, "WHICH package manager") is True
    assert load_saved_queries(ws) == [] and read_log(ws.root)[0][-1].summary.startswith("unsaved recall query")


def test_a_query_holding_a_secret_is_not_saved(pending):
    with pytest.raises(BadInput, match="secret"):
        save_query(pending, "deploy with ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5b")
    assert not (pending.meta_dir / "saved-queries.txt").exists()


# --- the command line ---------------------------------------------------------------------------
def _cli(ws, *args):
    return subprocess.run([sys.executable, "-m", "dreamdeck", "-w", str(ws.root), "--today", D, *args],
                          capture_output=True, text=True)


def test_review_impact_on_the_command_line_lists_the_answers_that_change(pending):
    _asked(pending, "pnpm", 2)
    _asked(pending, "gliders", 1)
    out = _cli(pending, "review", "r-1", "--impact")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "r-1 (all hunks): 1 of 2 replayed queries change"
    assert "  'pnpm'  (asked 2×)" in lines
    assert "    + topic:package-manager  The user uses pnpm  (new at 1)" in lines
    assert not any("gliders" in ln for ln in lines[1:])


def test_review_impact_json_and_chosen_hunks(pending):
    _asked(pending, "pnpm", 1)
    [deploy_hunk] = _hunks(pending)["topics/deploy-day.md"]
    out = _cli(pending, "review", "r-1", "--impact", "--hunk", deploy_hunk, "--json")
    data = json.loads(out.stdout)
    assert (data["hunks"], data["changed"], data["replayed"]) == ([deploy_hunk], 0, 1)
    bad = _cli(pending, "review", "r-1", "--impact", "--hunk", "h-nope")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "no hunk h-nope" in bad.stderr


def test_review_impact_with_nothing_to_replay_says_how_to_get_questions(pending):
    out = _cli(pending, "review", "r-1", "--impact")
    assert out.returncode == 0
    assert "no queries to replay" in out.stdout
