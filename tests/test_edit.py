"""A person's edit of a topic shard (`ops.edit.edit_shard`, the `e` key of the app and
`dreamdeck edit SLUG`): through the one door, audited, committed; refused as the door refuses."""
from __future__ import annotations

import os

import pytest

from dreamdeck.core.errors import BadInput, NotFound, Refused
from dreamdeck.core.formats.shards import parse_shard
from dreamdeck.core.git.runner import head
from dreamdeck.core.ops.edit import edit_shard
from dreamdeck.core.store.audit import read_log
from tests.support.git import git
from tests.support.memory import cite, commit_all, fragment_line, shard_text, uuid_at, write_shard, write_stream
from tests.support.processes import run_cli

D1, D2 = "2026-05-20", "2026-05-21"


@pytest.fixture
def seeded(ws, agent_dir):
    write_stream(agent_dir, D1, [fragment_line(D1, 1, "pnpm", "use pnpm"), fragment_line(D1, 2, "pnpm", "pnpm again")])
    write_shard(agent_dir, "pnpm", shard_text("The user uses pnpm", [cite(D1, 1), cite(D1, 2)]))
    commit_all(agent_dir)
    return ws


def shard_path(ws):
    return ws.topics_dir / "pnpm.md"


def test_an_edit_lands_with_its_frontmatter_recomputed_in_one_audited_commit(seeded):
    ws = seeded
    old = shard_path(ws).read_text()
    new = old.replace("The user uses pnpm.", "The user uses pnpm everywhere.").replace("cites: 2", "cites: 99")
    before = head(ws.root)

    result = edit_shard(ws, "pnpm", new, actor="human:tester")

    meta, body = parse_shard(shard_path(ws).read_text())
    assert body.startswith("The user uses pnpm everywhere.\n") and meta.cites == 2  # recomputed by the door
    assert result.written == ["topics/pnpm.md"] and result.sha == head(ws.root) != before
    message = git(ws.root, "log", "-1", "--format=%B")
    assert message.startswith("memory: edit pnpm") and "Actor: human:tester" in message.splitlines()
    assert "Approval: approved" in message.splitlines() and "Trigger: edit" in message.splitlines()
    entries = [(e.action, e.file, e.actor) for e in read_log(ws.root)[0]]
    assert ("EDIT", "memory/topics/pnpm.md", "human:tester") in entries


def test_an_edit_that_drops_a_citation_is_refused_and_nothing_changes(seeded):
    ws = seeded
    data, before = shard_path(ws).read_bytes(), head(ws.root)
    dropped = data.decode().replace(f"- {cite(D1, 2)}\n", "")

    with pytest.raises(Refused) as err:
        edit_shard(ws, "pnpm", dropped, actor="human:tester")

    assert err.value.missing == [(D1, uuid_at(D1, 2))]
    assert shard_path(ws).read_bytes() == data and head(ws.root) == before


def test_an_edit_made_against_an_older_text_is_rebased_onto_the_current_one(seeded):
    ws = seeded
    base = shard_path(ws).read_text()
    write_stream(ws.root, D2, [fragment_line(D2, 1, "pnpm", "pnpm once more")])
    # meanwhile a dream adds a citation at the end of the shard
    edit_shard(ws, "pnpm", shard_text("The user uses pnpm", [cite(D1, 1), cite(D1, 2), cite(D2, 1)]), actor="system:test")

    result = edit_shard(ws, "pnpm", base.replace("The user uses pnpm.", "The user uses pnpm, never bun."),
                        actor="human:tester", base=base)

    text = shard_path(ws).read_text()
    assert result.rebased == ["topics/pnpm.md"]
    assert "The user uses pnpm, never bun." in text and cite(D2, 1) in text


def test_a_missing_shard_an_invalid_slug_and_an_unchanged_text_are_said_plainly(seeded):
    ws = seeded
    before = head(ws.root)
    with pytest.raises(NotFound, match="no topic nope"):
        edit_shard(ws, "nope", "Anything.\n", actor="human:tester")
    with pytest.raises(BadInput, match="slug"):
        edit_shard(ws, "../SOUL", "Be unkind.\n", actor="human:tester")
    with pytest.raises(BadInput, match="nothing changed"):
        edit_shard(ws, "pnpm", shard_path(ws).read_text(), actor="human:tester")
    assert head(ws.root) == before


def cli_with_editor(root, *args, editor: str):
    env = {k: v for k, v in os.environ.items() if k != "VISUAL"}
    return run_cli(root, *args, check=False, env={**env, "EDITOR": editor})


def editor(tmp_path, body: str) -> str:
    script = tmp_path / "edit.sh"
    script.write_text(f"#!/bin/sh\nset -e\n{body}\n")
    script.chmod(0o755)
    return str(script)


def test_dreamdeck_edit_opens_the_editor_and_saves_through_the_door(seeded, tmp_path):
    ws = seeded
    out = cli_with_editor(ws.root, "edit", "pnpm", "--actor", "human:tester",
                  editor=editor(tmp_path, "sed -i 's/^The user uses pnpm\\./The user uses pnpm only./' \"$1\""))
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("saved pnpm → commit ")
    assert "The user uses pnpm only." in shard_path(ws).read_text()
    assert "Actor: human:tester" in git(ws.root, "log", "-1", "--format=%B").splitlines()


def test_dreamdeck_edit_saves_nothing_when_the_editor_fails_changes_nothing_or_drops_a_citation(seeded, tmp_path):
    ws = seeded
    data, before = shard_path(ws).read_bytes(), head(ws.root)

    failed = cli_with_editor(ws.root, "edit", "pnpm", editor=editor(tmp_path, "sed -i 's/pnpm/npm/' \"$1\"; exit 3"))
    assert (failed.returncode, failed.stderr.strip()) == (1, "dreamdeck: the editor exited with status 3: nothing was saved")

    unchanged = cli_with_editor(ws.root, "edit", "pnpm", editor=editor(tmp_path, "true"))
    assert (unchanged.returncode, unchanged.stdout.strip()) == (0, "edit cancelled: nothing changed")

    dropped = cli_with_editor(ws.root, "edit", "pnpm", editor=editor(tmp_path, f"sed -i '/{uuid_at(D1, 2)}/d' \"$1\""))
    assert dropped.returncode == 1 and "refused: would drop 1 cited fragment" in dropped.stderr

    missing = cli_with_editor(ws.root, "edit", "nope", editor=editor(tmp_path, "true"))
    assert (missing.returncode, missing.stderr.strip()) == (2, "dreamdeck: no topic nope (memory/topics/nope.md)")
    assert shard_path(ws).read_bytes() == data and head(ws.root) == before
