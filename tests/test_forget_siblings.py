"""A statement forgotten through one fragment is forgotten under every topic (its tombstone holds
the body), so the same statement's other fragments, its siblings, are hidden from views and the
dreamer. A shard that already cites a sibling still says the forgotten thing: `forget` names
each such sibling and the shards citing it, in its answer and its JSON, with the command that
strips it too (issue 10, item 2's leftover)."""
from __future__ import annotations

import json
import shlex

from dreamdeck.core.formats.citations import citation_keys
from dreamdeck.core.ops.forget import forget_fragment
from dreamdeck.core.workspace import Workspace
from tests.support.memory import commit_all, fragment_line, shard_text, uuid_at, write_shard, write_stream
from tests.support.processes import run_cli

TODAY, OLD = "2026-05-22", "2026-05-20"
BODY = "The staging database moves to Frankfurt on Tuesday"


def _seed(root) -> Workspace:
    write_stream(root, OLD, [
        fragment_line(OLD, 1, "infra", BODY),
        fragment_line(OLD, 2, "deploy notes", "  the STAGING database moves to frankfurt on tuesday. "),
        fragment_line(OLD, 3, "misc", "Lunch is at noon."),
        fragment_line(OLD, 4, "status", "heartbeat ok"),
        fragment_line(OLD, 5, "cron", "heartbeat ok"),
    ])
    write_shard(root, "infra", shard_text("Infra", [f"streams/{OLD}#{uuid_at(OLD, 1)}"]))
    write_shard(root, "deploy", shard_text("Deploy", [f"streams/{OLD}#{uuid_at(OLD, 2)}", f"streams/{OLD}#{uuid_at(OLD, 3)}"]))
    write_shard(root, "old-deploy", shard_text("Old deploy", [f"streams/{OLD}#{uuid_at(OLD, 2)}"]), folder="archive")
    write_shard(root, "cron", shard_text("Cron", [f"streams/{OLD}#{uuid_at(OLD, 5)}"]))
    commit_all(root)
    return Workspace.open(root, today=TODAY)


SIBLING = f"{OLD}#{uuid_at(OLD, 2)}"


def test_forget_names_each_sibling_still_cited_with_its_shards_and_the_command_that_strips_it(agent_dir):
    ws = _seed(agent_dir)

    result = forget_fragment(ws, OLD, uuid_at(OLD, 1), "wrong: it moved to Paris")

    [sibling] = result.siblings
    assert sibling.fragment == SIBLING and sibling.topic == "deploy notes"
    assert sibling.shards == ["memory/archive/old-deploy.md", "memory/topics/deploy.md"]
    assert sibling.command == f"dreamdeck forget {SIBLING} --reason {shlex.quote('wrong: it moved to Paris')}"
    said = "\n".join(result.warnings)
    assert SIBLING in said and "memory/topics/deploy.md" in said and sibling.command in said


def test_a_short_body_under_another_topic_is_no_sibling(agent_dir):
    ws = _seed(agent_dir)

    result = forget_fragment(ws, OLD, uuid_at(OLD, 4), "noise")

    assert result.siblings == []  # "heartbeat ok" under another topic is not forgotten with it


def test_the_offered_command_strips_the_sibling_and_then_no_shard_says_the_forgotten_statement(agent_dir):
    ws = _seed(agent_dir)
    first = forget_fragment(ws, OLD, uuid_at(OLD, 1), "wrong", hard=True)
    assert first.siblings[0].command == f"dreamdeck forget {SIBLING} --reason wrong --hard"

    proc = run_cli(agent_dir, *shlex.split(first.siblings[0].command)[1:], "--json", today=TODAY)

    assert json.loads(proc.stdout)["siblings"] == []
    for rel in ("topics/deploy.md", "archive/old-deploy.md", "topics/infra.md"):
        keys = citation_keys((agent_dir / "memory" / rel).read_text(encoding="utf-8"))
        assert not keys & {(OLD, uuid_at(OLD, 1)), (OLD, uuid_at(OLD, 2))}, rel


def test_the_cli_says_the_siblings_on_stderr_and_in_its_json(agent_dir):
    _seed(agent_dir)

    text = run_cli(agent_dir, "forget", f"{OLD}#{uuid_at(OLD, 1)}", "--reason", "wrong", today=TODAY)
    stone = json.loads(run_cli(agent_dir, "tombstones", "--json", today=TODAY).stdout)

    assert f"still cited as streams/{SIBLING}" in text.stderr and "memory/topics/deploy.md" in text.stderr
    assert f"dreamdeck forget {SIBLING} --reason wrong" in text.stderr
    assert len(stone) == 1


def test_the_json_answer_lists_the_siblings(agent_dir):
    _seed(agent_dir)

    out = json.loads(run_cli(agent_dir, "forget", f"{OLD}#{uuid_at(OLD, 1)}", "--reason", "wrong", "--json",
                             today=TODAY).stdout)

    assert out["siblings"] == [{
        "fragment": SIBLING, "topic": "deploy notes",
        "shards": ["memory/archive/old-deploy.md", "memory/topics/deploy.md"],
        "command": f"dreamdeck forget {SIBLING} --reason wrong",
    }]


def test_forgetting_a_topic_with_its_fragments_names_the_siblings_other_shards_cite(agent_dir):
    from dreamdeck.core.ops.forget import forget_topic

    ws = _seed(agent_dir)

    result = forget_topic(ws, "infra", "wrong", fragments=True)

    assert [(s.fragment, s.shards) for s in result.siblings] == [
        (SIBLING, ["memory/archive/old-deploy.md", "memory/topics/deploy.md"])]
    assert result.to_json()["siblings"][0]["command"] == f"dreamdeck forget {SIBLING} --reason wrong"
