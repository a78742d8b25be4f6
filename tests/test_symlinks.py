"""Issue 10 item 7: nothing under memory/ is read or written through a symbolic link.

Hostile links, planted for real: a shard linked to a credentials file outside the folder, today's
stream linked to an outside file, `memory/meta` and `memory/topics` linked to outside folders, a
dangling link and a link loop named like stream files. Every write is refused with one line
naming the link, the outside bytes never change and never reach git, and `doctor` lists every
link while `--fix` follows none.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from dreamdeck.core.errors import Refused
from dreamdeck.core.io.append import append_durably
from dreamdeck.core.io.atomic import atomic_write_bytes
from tests.support.git import git
from tests.support.memory import fragment_line, write_stream
from tests.support.outside import D, one_line_refusal, outside_folder, run_cli, seeded_agent

SECRET = b"root:x:0:0:hunter2-outside-secret\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    return outside_folder(tmp_path, SECRET)


@pytest.fixture
def seeded(agent_dir: Path) -> Path:
    return seeded_agent(agent_dir)


def test_an_atomic_write_onto_a_link_is_refused_and_the_outside_file_is_unchanged(seeded, outside):
    link = seeded / "memory" / "topics" / "x.md"
    link.symlink_to(outside / "passwd")

    with pytest.raises(Refused, match="x.md is a symbolic link"):
        atomic_write_bytes(link, b"overwritten")

    assert (outside / "passwd").read_bytes() == SECRET
    assert link.is_symlink()


def test_an_atomic_write_into_a_linked_folder_is_refused(seeded, outside):
    meta = seeded / "memory" / "meta"
    meta.symlink_to(outside, target_is_directory=True)

    with pytest.raises(Refused, match="meta is a symbolic link"):
        atomic_write_bytes(meta / "reflections" / "r-1.json", b"{}")

    assert sorted(p.name for p in outside.iterdir()) == ["passwd"]


def test_an_append_through_a_linked_file_is_refused_and_the_outside_file_is_unchanged(seeded, outside):
    stream = seeded / "memory" / "streams" / "2026-05-23.jsonl"
    stream.symlink_to(outside / "passwd")

    with pytest.raises(Refused, match="2026-05-23.jsonl is a symbolic link"):
        append_durably(stream, b"{}\n")

    assert (outside / "passwd").read_bytes() == SECRET


def test_remember_into_a_linked_todays_stream_is_one_line_and_writes_nothing_outside(seeded, outside):
    today = seeded / "memory" / "streams" / f"{D}.jsonl"
    today.unlink()
    today.symlink_to(outside / "passwd")

    proc = run_cli(seeded, "remember", "--topic", "tea", "the user switched to black tea")

    one_line_refusal(proc, f"{D}.jsonl is a symbolic link")
    assert (outside / "passwd").read_bytes() == SECRET


def test_a_linked_meta_folder_refuses_forget_and_nothing_lands_outside(seeded, outside):
    (seeded / "memory" / "meta").symlink_to(outside, target_is_directory=True)
    head = git(seeded, "rev-parse", "HEAD")

    proc = run_cli(seeded, "forget", "tea", "--reason", "test")

    one_line_refusal(proc, "meta is a symbolic link")
    assert sorted(p.name for p in outside.iterdir()) == ["passwd"]
    assert git(seeded, "rev-parse", "HEAD") == head


def test_a_linked_topics_folder_is_refused_by_a_read_and_a_dream(seeded, outside):
    topics = seeded / "memory" / "topics"
    (topics / "tea.md").rename(outside / "tea.md")
    topics.rmdir()
    topics.symlink_to(outside, target_is_directory=True)
    write_stream(seeded, D, [fragment_line(D, 2, "tea", "the user likes oolong")])

    one_line_refusal(run_cli(seeded, "topics"), "topics is a symbolic link")
    one_line_refusal(run_cli(seeded, "dream", "--dreamer", "offline"), "topics is a symbolic link")
    assert sorted(p.name for p in outside.iterdir()) == ["passwd", "tea.md"]


def test_a_linked_shard_is_never_read_into_the_topics_or_git(seeded, outside):
    (seeded / "memory" / "topics" / "creds.md").symlink_to(outside / "passwd")

    topics = run_cli(seeded, "topics", "--json")
    fixed = run_cli(seeded, "doctor", "--fix")

    assert topics.returncode == 0 and "creds" not in topics.stdout
    assert "hunter2" not in git(seeded, "log", "-p", "--all")
    assert "link: memory/topics/creds.md" in fixed.stdout + fixed.stderr
    assert (outside / "passwd").read_bytes() == SECRET
    assert (seeded / "memory" / "topics" / "creds.md").is_symlink()


def test_doctor_reports_every_link_under_memory_and_fix_leaves_them_alone(seeded, outside):
    streams = seeded / "memory" / "streams"
    (streams / "2026-05-20.jsonl").symlink_to(seeded / "memory" / "streams" / "gone.jsonl")  # dangling
    (streams / "2026-05-21.jsonl").symlink_to(streams / "2026-05-21.jsonl")  # a loop
    (seeded / "memory" / "topics" / "x.md").symlink_to(outside / "passwd")
    (seeded / "memory" / "references").mkdir()
    (seeded / "memory" / "references" / "docs").symlink_to(outside, target_is_directory=True)

    report = run_cli(seeded, "doctor", "--json")
    fixed = run_cli(seeded, "doctor", "--fix")

    assert report.returncode == 1 and "Traceback" not in report.stderr
    links = {f["where"] for f in __import__("json").loads(report.stdout)["findings"] if f["kind"] == "link"}
    assert links == {"memory/streams/2026-05-20.jsonl", "memory/streams/2026-05-21.jsonl",
                     "memory/topics/x.md", "memory/references/docs"}
    assert "Traceback" not in fixed.stderr
    assert all(p.is_symlink() for p in [streams / "2026-05-20.jsonl", streams / "2026-05-21.jsonl"])
    assert (outside / "passwd").read_bytes() == SECRET
    assert sorted(p.name for p in outside.iterdir()) == ["passwd"]


def test_a_dangling_link_and_a_loop_named_like_streams_never_crash_the_read_verbs(seeded):
    streams = seeded / "memory" / "streams"
    (streams / "2026-05-20.jsonl").symlink_to(streams / "nowhere.jsonl")
    (streams / "2026-05-21.jsonl").symlink_to(streams / "2026-05-21.jsonl")

    for verb in (("stream", "--all"), ("topics",), ("show", "tea"), ("verify",), ("stream", "--date", "2026-05-21")):
        proc = run_cli(seeded, *verb)
        assert proc.returncode != 70 and "Traceback" not in proc.stderr, (verb, proc.stderr)
    assert "the user drinks green tea" in run_cli(seeded, "stream", "--all").stdout


def test_a_memory_folder_that_is_itself_a_link_is_refused_for_writes(tmp_path, outside):
    from tests.support.agent import agent_folder

    root = agent_folder(tmp_path / "a")
    (root / "memory").symlink_to(outside, target_is_directory=True)

    proc = run_cli(root, "remember", "--topic", "tea", "the user drinks tea")

    one_line_refusal(proc, "memory is a symbolic link")
    assert sorted(p.name for p in outside.iterdir()) == ["passwd"]
    assert not os.path.exists(outside / "streams")


@pytest.mark.parametrize("verb", [("review",), ("review", "--json"), ("alerts",)])
def test_a_memory_folder_that_is_a_link_is_one_line_for_the_review_queue(seeded, tmp_path, verb):
    """Found by the attacker round: `review` crashed (a traceback from `Workspace.rel`, which
    resolved the reflection's path through the link) instead of refusing."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (seeded / "memory" / "meta" / "reflections").mkdir(parents=True, exist_ok=True)
    (seeded / "memory" / "meta" / "reflections" / "r-1.json").write_text("{not json", encoding="utf-8")
    os.rename(seeded / "memory", elsewhere / "memory")
    (seeded / "memory").symlink_to(elsewhere / "memory", target_is_directory=True)

    proc = run_cli(seeded, *verb)

    assert "Traceback" not in proc.stderr
    if verb[0] == "review":
        one_line_refusal(proc, "memory is a symbolic link")
