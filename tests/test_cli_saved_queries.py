"""Saving a question for the recall impact from the command line: `dreamdeck recall --save Q`,
`--saved` (the list), `--unsave Q`, with `--json`. A save or unsave goes through the door: one
commit, one audit line, a plain line in memory/meta/saved-queries.txt; `review r-N --impact`
then replays the saved question."""
from __future__ import annotations

import json

from dreamdeck.core.store.audit import read_log
from dreamdeck.core.store.saved_queries import load_saved_queries
from tests.support.git import git
from tests.support.memory import cite, commit_all, fragment_line, shard_text, write_shard, write_stream
from tests.support.processes import run_cli

D = "2026-05-22"


def seeded(ws, agent_dir):
    write_stream(agent_dir, D, [fragment_line(D, 1, "package manager", "The user uses pnpm")])
    write_shard(agent_dir, "package-manager", shard_text("The user uses pnpm", [cite(D, 1)]))
    commit_all(agent_dir)
    return ws


def commits(root) -> int:
    return int(git(root, "rev-list", "--count", "HEAD").strip())


def test_recall_save_writes_the_question_through_the_door(ws, agent_dir):
    seeded(ws, agent_dir)
    before = commits(agent_dir)
    out = run_cli(ws.root, "recall", "--save", "which  package manager", today=D).stdout
    assert out.strip() == ("saved 'which package manager': `review r-N --impact` replays it "
                           "(memory/meta/saved-queries.txt)")
    assert load_saved_queries(ws) == ["which package manager"]
    assert commits(agent_dir) == before + 1
    assert "saved recall query 'which package manager'" in git(agent_dir, "log", "-1", "--format=%B")
    last = read_log(ws.root)[0][-1]
    assert (last.action, last.file) == ("EDIT", "memory/meta/saved-queries.txt")


def test_saving_the_same_question_twice_changes_nothing_and_says_so(ws, agent_dir):
    seeded(ws, agent_dir)
    run_cli(ws.root, "recall", "which package manager", "--save", today=D)
    before = commits(agent_dir)
    again = run_cli(ws.root, "recall", "--save", "Which Package Manager", "--json", today=D)
    assert json.loads(again.stdout) == {"query": "Which Package Manager", "saved": False,
                                        "saved_queries": ["which package manager"]}
    assert commits(agent_dir) == before


def test_recall_saved_lists_the_questions_in_their_order(ws, agent_dir):
    seeded(ws, agent_dir)
    assert run_cli(ws.root, "recall", "--saved", today=D).stdout.strip().startswith("No saved questions")
    for q in ("which package manager", "deploy day"):
        run_cli(ws.root, "recall", "--save", q, today=D)
    assert run_cli(ws.root, "recall", "--saved", today=D).stdout.splitlines() == [
        "1. which package manager", "2. deploy day"]
    assert json.loads(run_cli(ws.root, "recall", "--saved", "--json", today=D).stdout) == {
        "saved_queries": ["which package manager", "deploy day"]}


def test_recall_unsave_removes_a_question_through_the_door(ws, agent_dir):
    seeded(ws, agent_dir)
    run_cli(ws.root, "recall", "--save", "which package manager", today=D)
    before = commits(agent_dir)
    data = json.loads(run_cli(ws.root, "recall", "--unsave", "WHICH package manager", "--json", today=D).stdout)
    assert data == {"query": "WHICH package manager", "unsaved": True, "saved_queries": []}
    assert commits(agent_dir) == before + 1 and load_saved_queries(ws) == []
    assert read_log(ws.root)[0][-1].summary.startswith("unsaved recall query")
    missing = run_cli(ws.root, "recall", "--unsave", "never saved", today=D)
    assert missing.stdout.strip() == "'never saved' was not saved; nothing changed"


def test_a_bad_question_to_save_is_one_clear_line(ws, agent_dir):
    seeded(ws, agent_dir)
    empty = run_cli(ws.root, "recall", "--save", today=D, check=False)
    assert empty.returncode == 2 and empty.stderr.count("\n") == 1 and "needs some words" in empty.stderr
    both = run_cli(ws.root, "recall", "--save", "--unsave", "x", today=D, check=False)
    assert both.returncode == 2 and both.stderr.count("\n") == 1
    secret = run_cli(ws.root, "recall", "--save", "deploy with ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5b",
                     today=D, check=False)
    assert secret.returncode == 2 and "secret" in secret.stderr
    assert load_saved_queries(ws) == []


def test_a_saved_question_is_replayed_by_review_impact(ws, agent_dir):
    from dreamdeck.core.dreaming.run import run_dream
    from tests.support.dreamers import Scripted, draft

    seeded(ws, agent_dir)
    write_stream(agent_dir, D, [fragment_line(D, 2, "deploys", "Deploys happen on Fridays")])
    commit_all(agent_dir)
    run_dream(ws, dreamer=Scripted(lambda i, s: s.write_shard("deploy-day", draft("Deploys happen on Fridays",
                                                                                   [cite(D, 2)]))), review="all")
    run_cli(ws.root, "recall", "--save", "deploys fridays", today=D)
    data = json.loads(run_cli(ws.root, "review", "r-1", "--impact", "--json", today=D).stdout)
    (q,) = data["queries"]
    assert (q["query"], q["source"]) == ("deploys fridays", "saved")
    assert [c["item"] for c in q["changes"]] == ["topic:deploy-day"]
