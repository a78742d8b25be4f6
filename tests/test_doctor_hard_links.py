"""Issue 10 item 7, the attacker's leftover: `doctor` lists every hard-linked file under memory/
(a stream, a shard or a meta file sharing its bytes with a name outside), as it lists symbolic
links, and `--fix` never writes one nor carries it into git. Real hard links, real git."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from dreamdeck.core.ops.doctor import examine, fix
from dreamdeck.core.workspace import Workspace
from tests.support.git import git
from tests.support.memory import cite, commit_all, fragment_line, shard_text, write_shard, write_stream
from tests.support.outside import D, outside_folder

SECRET = b"aws_password=hunter2-outside-secret\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    return outside_folder(tmp_path, SECRET)


def stale(text: str) -> str:
    """The shard with a `cites` count its body disagrees with (doctor --fix recomputes it)."""
    return text.replace("cites: 1\n", "cites: 7\n", 1)


@pytest.fixture
def agent(agent_dir: Path) -> Path:
    """Two fragments on D, a topic citing each (both with stale frontmatter), committed."""
    write_stream(agent_dir, D, [fragment_line(D, 1, "tea", "the user drinks green tea"),
                                fragment_line(D, 2, "tea", "the user drinks oolong")])
    write_shard(agent_dir, "tea", stale(shard_text("The user drinks green tea", [cite(D, 1)])))
    write_shard(agent_dir, "oolong", stale(shard_text("The user drinks oolong", [cite(D, 2)])))
    commit_all(agent_dir)
    return agent_dir


def found(ws: Workspace, kind: str) -> dict[str, str]:
    return {f.where: f.detail for f in examine(ws).findings if f.kind == kind}


def test_doctor_lists_a_hard_linked_stream_shard_and_meta_file_naming_each(agent, outside):
    memory = agent / "memory"
    os.link(memory / "streams" / f"{D}.jsonl", outside / "stream-copy")
    os.link(memory / "topics" / "tea.md", outside / "tea-copy")
    (memory / "meta").mkdir(exist_ok=True)
    os.link(outside / "passwd", memory / "meta" / "audit.log")
    ws = Workspace.open(agent, today=D)

    links = found(ws, "hard-link")

    assert set(links) == {f"memory/streams/{D}.jsonl", "memory/topics/tea.md", "memory/meta/audit.log"}
    assert all("has 2 hard links" in detail for detail in links.values())


def test_a_hard_linked_shard_is_read_by_nobody_and_every_other_finding_stays_in_place(agent, outside):
    os.link(agent / "memory" / "topics" / "tea.md", outside / "tea-copy")
    ws = Workspace.open(agent, today=D)

    stale_found = found(ws, "stale-frontmatter")

    assert set(stale_found) == {"memory/topics/oolong.md"}  # tea.md is left out of every read, and listed
    assert set(found(ws, "hard-link")) == {"memory/topics/tea.md"}


def test_fix_writes_and_commits_nothing_while_a_shard_is_hard_linked_and_says_why(agent, outside):
    tea = agent / "memory" / "topics" / "tea.md"
    oolong = agent / "memory" / "topics" / "oolong.md"
    os.link(tea, outside / "tea-copy")
    linked_before, oolong_before = tea.read_bytes(), oolong.read_bytes()
    head = git(agent, "rev-parse", "HEAD")
    ws = Workspace.open(agent, today=D)

    report = fix(ws)

    assert tea.read_bytes() == linked_before == (outside / "tea-copy").read_bytes()
    assert oolong.read_bytes() == oolong_before  # a change reads every shard: refused until the link goes
    assert git(agent, "rev-parse", "HEAD") == head
    assert any("tea.md has 2 hard links" in line and "nothing was written" in line for line in report.fixed)
    assert any(f.kind == "hard-link" and f.where == "memory/topics/tea.md" for f in report.findings)


def test_a_file_with_one_name_is_no_hard_link_finding(agent):
    ws = Workspace.open(agent, today=D)

    assert found(ws, "hard-link") == {}
