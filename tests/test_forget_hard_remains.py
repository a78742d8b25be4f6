"""A hard forget leaves none of the text in the access record, and a topic's hard forget says
what remains elsewhere exactly as a fragment's does (issue 10, item 3).

Found by the attacker round (session 10, attacker-8): `forget TOPIC --hard` printed no "still
holds it" line at all (git history holds the shard's words in every commit that had it), where a
fragment's hard forget names git history, the GC notes and the command that would remove them.
And a recall query recorded in `memory/meta/access.jsonl` that quoted the forgotten text stayed
there, unreported, and was staged into the forget's own commit.

The access record keeps what the agent was shown as item names (`stream:DATE#ID`, `topic:SLUG`:
ids, which the tombstone keeps too) and the query asked. A query quoting the forgotten text
becomes `[forgotten]`; every other record, and every item name, is kept (decay still counts).
"""
from __future__ import annotations

import json
import subprocess
from functools import partial
from pathlib import Path

from tests.support.memory import cite, commit_all, fragment_line, make_quiet, shard_text, uuid_at, write_shard, write_stream
from tests.support.processes import run_cli

TODAY = "2026-05-22"
D = "2026-05-20"
BODY = "The staging database moves to Frankfurt on Tuesday."
run = partial(run_cli, today=TODAY)


def seeded(root: Path) -> Path:
    write_stream(root, D, [fragment_line(D, 1, "infra", BODY), fragment_line(D, 2, "misc", "Lunch is at noon.")])
    write_shard(root, "staging", shard_text("Staging lives in Frankfurt now", [cite(D, 1)]))
    write_shard(root, "lunch", shard_text("Lunch is at noon", [cite(D, 2)]))
    commit_all(root)
    make_quiet(root)
    return root


def access_lines(root: Path) -> list[dict]:
    path = root / "memory" / "meta" / "access.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_topics_hard_forget_says_git_history_still_holds_its_words_and_how_to_remove_them(agent_dir):
    root = seeded(agent_dir)

    proc = run(root, "forget", "staging", "--reason", "private", "--hard")

    assert proc.returncode == 0, proc.stderr
    still = [line for line in proc.stderr.splitlines() if "still holds it" in line]
    assert any("git history still holds the text" in line for line in still), proc.stderr
    assert any("git filter-repo" in line for line in still), proc.stderr
    as_json = json.loads(run(root, "forget", "lunch", "--reason", "x", "--hard", "--json").stdout)
    assert any("git history" in line for line in as_json["remains"])


def test_a_topics_hard_forget_with_fragments_names_both_the_shard_and_the_fragments_history(agent_dir):
    root = seeded(agent_dir)
    from dreamdeck.core.ops.forget import forget_topic
    from dreamdeck.core.workspace import Workspace

    result = forget_topic(Workspace.open(root, today=TODAY), "staging", "private", hard=True, fragments=True)

    history = [line for line in result.remains if line.startswith("git history")]
    assert history and len([r for r in result.remains if "git filter-repo" in r]) == 1


def test_a_hard_forget_takes_a_quoting_query_out_of_the_access_record_and_keeps_the_rest(agent_dir):
    root = seeded(agent_dir)
    run(root, "recall", "staging database moves to Frankfurt")  # quotes part of the fragment
    run(root, "recall", "lunch")
    before = access_lines(root)
    assert any("Frankfurt" in r["query"] for r in before)

    proc = run(root, "forget", f"{D}#{uuid_at(D, 1)}", "--reason", "private", "--hard")

    assert proc.returncode == 0, proc.stderr
    after = access_lines(root)
    assert len(after) == len(before)
    assert not [r for r in after if "Frankfurt" in r["query"]]
    assert [r["query"] for r in after] == ["[forgotten]", "lunch"]
    assert [r["items"] for r in after] == [r["items"] for r in before]  # what was shown still counts
    assert "access.jsonl" not in proc.stderr  # nothing to report: it is gone
    committed = subprocess.run(["git", "grep", "-F", "-l", "Frankfurt", "HEAD", "--", "memory/meta"], cwd=root,
                               capture_output=True, text=True)
    assert committed.stdout == ""  # the forget's own commit stages the record without the text


def test_an_unrelated_query_and_a_short_common_word_are_not_scrubbed(agent_dir):
    root = seeded(agent_dir)
    run(root, "recall", "Tuesday")  # a word of it, shorter than a piece: too common to call a quote
    run(root, "recall", "where does prod live")

    run(root, "forget", f"{D}#{uuid_at(D, 1)}", "--reason", "private", "--hard")

    assert [r["query"] for r in access_lines(root)] == ["Tuesday", "where does prod live"]


def test_a_hard_forget_drops_a_saved_recall_query_that_quotes_the_text(agent_dir):
    root = seeded(agent_dir)
    run(root, "recall", "--save", "The staging database moves to Frankfurt on Tuesday.")
    run(root, "recall", "--save", "when is lunch")

    run(root, "forget", f"{D}#{uuid_at(D, 1)}", "--reason", "private", "--hard")

    saved = (root / "memory" / "meta" / "saved-queries.txt").read_text()
    assert "Frankfurt" not in saved and "when is lunch" in saved
    committed = subprocess.run(["git", "show", "HEAD:memory/meta/saved-queries.txt"], cwd=root,
                               capture_output=True, text=True).stdout
    assert "Frankfurt" not in committed and "when is lunch" in committed


def test_the_access_record_keeps_every_other_lines_bytes_and_replay_skips_a_forgotten_query(agent_dir):
    root = seeded(agent_dir)
    run(root, "recall", "staging database moves to Frankfurt")
    record = root / "memory" / "meta" / "access.jsonl"
    stray = b"not json \xff\xfe a hand-edited line\n"
    with record.open("ab") as f:
        f.write(stray)

    run(root, "forget", f"{D}#{uuid_at(D, 1)}", "--reason", "private", "--hard")

    assert record.read_bytes().endswith(stray)  # not UTF-8, not the text: left byte for byte
    from dreamdeck.core.ops.recall_impact import replay_queries
    from dreamdeck.core.workspace import Workspace

    assert "[forgotten]" not in [q.query for q in replay_queries(Workspace.open(root, today=TODAY))]
