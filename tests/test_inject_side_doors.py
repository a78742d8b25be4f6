"""`inject` (TypeClaw's per-turn memory block as dreamdeck renders it) reads memory by the same
rule as every other view: never through a symbolic or hard link, never from a FIFO or a device.

Found by the attacker round: `inject` printed "skipped memory/topics/creds.md (a symbolic link)"
and then put the outside file's text into the block anyway; a FIFO named like a shard hung it, a
character device (`/dev/zero`) read until the process was killed for memory.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.support.outside import outside_folder, run_cli, seeded_agent

SECRET_SHARD = (b"---\nheading: creds\ntags: []\ncites: 1\ndays: 1\nlastReinforced: 2026-05-20\n---\n"
                b"hunter2-outside-secret about green tea\n")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = outside_folder(tmp_path, SECRET_SHARD)
    (folder / "notes.jsonl").write_bytes(
        b'{"type":"fragment","id":"0190f2a0-0000-7000-8000-0000000000aa","ts":"2026-05-21T10:00:00Z",'
        b'"source":"s","text":"hunter2-outside-stream about green tea"}\n')
    return folder


@pytest.fixture
def seeded(agent_dir: Path) -> Path:
    return seeded_agent(agent_dir)


@pytest.mark.parametrize("kind", ["hard", "symbolic"])
def test_inject_never_puts_a_linked_shards_outside_text_into_the_block(seeded, outside, kind):
    shard = seeded / "memory" / "topics" / "creds.md"
    if kind == "hard":
        os.link(outside / "passwd", shard)
    else:
        shard.symlink_to(outside / "passwd")

    proc = run_cli(seeded, "inject", "--query", "green tea")

    assert proc.returncode == 0, proc.stderr
    assert "hunter2" not in proc.stdout
    assert "memory/topics/creds.md" in proc.stderr
    assert "green tea" in proc.stdout


def test_inject_never_reads_a_stream_linked_to_a_file_outside(seeded, outside):
    (seeded / "memory" / "streams" / "2026-05-21.jsonl").symlink_to(outside / "notes.jsonl")

    proc = run_cli(seeded, "inject", "--query", "green tea")

    assert "Traceback" not in proc.stderr
    assert "hunter2" not in proc.stdout


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_inject_never_hangs_on_a_shard_that_is_not_a_file(seeded, kind):
    shard = seeded / "memory" / "topics" / "odd.md"
    if kind == "fifo":
        os.mkfifo(shard)
    else:
        try:
            os.mknod(shard, 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero: endless bytes
        except PermissionError:
            pytest.skip("making a device node needs root")

    proc = run_cli(seeded, "inject", "--query", "green tea")  # run_cli fails the test on a hang

    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "green tea" in proc.stdout


def test_inject_refuses_a_topics_folder_that_is_a_link(seeded, outside):
    topics = seeded / "memory" / "topics"
    (outside / "topics").mkdir()
    (outside / "topics" / "creds.md").write_bytes(SECRET_SHARD)
    for f in topics.iterdir():
        f.unlink()
    topics.rmdir()
    topics.symlink_to(outside / "topics")

    proc = run_cli(seeded, "inject", "--query", "green tea")

    assert "hunter2" not in proc.stdout
    assert "Traceback" not in proc.stderr
    assert proc.returncode != 0 and "memory/topics" in proc.stderr


def test_inject_never_hangs_on_a_memory_md_that_is_a_fifo(seeded):
    os.mkfifo(seeded / "MEMORY.md")

    proc = run_cli(seeded, "inject", "--query", "green tea")  # run_cli fails the test on a hang

    assert proc.returncode not in (0, 70) and "Traceback" not in proc.stderr, proc.stderr
    assert "MEMORY.md is not a regular file (a FIFO)" in proc.stderr
