"""Issue 10 item 7, by the other side doors: hard links and files that are not files.

A hard link is a second name for the same bytes: today's stream hard-linked to a file outside
the folder makes an append land outside, and a shard hard-linked to a credentials file carries
its bytes into git as surely as a symbolic link does. A FIFO named like a stream blocks any
reader forever; a folder named like today's stream fails an append. Each is refused with one
line naming it; nothing is written outside and no verb hangs or prints a traceback.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from dreamdeck.core.errors import BadFile, Refused
from dreamdeck.core.io.append import append_durably
from dreamdeck.core.io.no_links import read_bytes_nofollow
from tests.support.git import git
from tests.support.memory import commit_all, fragment_line, make_quiet, uuid_at, write_stream
from tests.support.outside import D, one_line_refusal, outside_folder, run_cli, seeded_agent

SECRET = b"aws_password=hunter2-outside-secret\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    return outside_folder(tmp_path, SECRET)


@pytest.fixture
def seeded(agent_dir: Path) -> Path:
    return seeded_agent(agent_dir)


def test_an_append_to_a_hard_linked_file_is_refused_and_the_outside_file_is_unchanged(seeded, outside):
    stream = seeded / "memory" / "streams" / "2026-05-23.jsonl"
    os.link(outside / "passwd", stream)

    with pytest.raises(Refused, match="2026-05-23.jsonl has 2 hard links"):
        append_durably(stream, b"{}\n")

    assert (outside / "passwd").read_bytes() == SECRET


def test_remember_into_a_hard_linked_todays_stream_writes_nothing_outside(seeded, outside):
    today = seeded / "memory" / "streams" / f"{D}.jsonl"
    today.unlink()
    os.link(outside / "passwd", today)

    proc = run_cli(seeded, "remember", "--topic", "tea", "the user switched to black tea")

    one_line_refusal(proc, f"{D}.jsonl has 2 hard links")
    assert (outside / "passwd").read_bytes() == SECRET


def test_a_hard_linked_shard_is_never_read_into_git(seeded, outside):
    os.link(outside / "passwd", seeded / "memory" / "topics" / "creds.md")

    fixed = run_cli(seeded, "doctor", "--fix")

    assert "Traceback" not in fixed.stderr
    assert "hard-link: memory/topics/creds.md: has 2 hard links" in fixed.stdout  # listed, never read
    assert "hunter2" not in git(seeded, "log", "-p", "--all")
    assert (outside / "passwd").read_bytes() == SECRET


def test_a_memory_read_refuses_a_hard_linked_file(seeded, outside):
    shard = seeded / "memory" / "topics" / "creds.md"
    os.link(outside / "passwd", shard)

    with pytest.raises(Refused, match="creds.md has 2 hard links"):
        read_bytes_nofollow(shard)


def test_a_fifo_named_like_a_stream_is_one_line_never_a_hang(seeded):
    fifo = seeded / "memory" / "streams" / "2026-05-21.jsonl"
    os.mkfifo(fifo)

    with pytest.raises(BadFile, match="2026-05-21.jsonl is not a regular file"):
        read_bytes_nofollow(fifo)
    with pytest.raises(BadFile, match="2026-05-21.jsonl is not a regular file"):
        append_durably(fifo, b"{}\n")
    doctor = run_cli(seeded, "doctor")
    assert doctor.returncode != 70 and "Traceback" not in doctor.stderr, doctor.stderr


def test_a_folder_named_like_todays_stream_is_one_line_naming_it(seeded):
    today = seeded / "memory" / "streams" / f"{D}.jsonl"
    today.unlink()
    today.mkdir()

    proc = run_cli(seeded, "remember", "--topic", "tea", "the user switched to black tea")

    one_line_refusal(proc, f"{D}.jsonl is not a regular file")


def test_a_rewrites_own_link_left_by_a_crash_before_its_rename_does_not_block_remember(seeded):
    from dreamdeck.core.git.runner import git_dir
    from dreamdeck.core.store.replaced_links import GIT_PLACE

    today = seeded / "memory" / "streams" / f"{D}.jsonl"
    place = git_dir(seeded) / GIT_PLACE
    place.mkdir(mode=0o700, exist_ok=True)
    st = os.stat(today)
    os.link(today, place / f"{D}.{st.st_ino}.{st.st_size}.replaced")  # the rewrite stopped right here

    proc = run_cli(seeded, "remember", "--topic", "tea", "the user switched to black tea")

    assert proc.returncode == 0, proc.stderr
    assert b"black tea" in today.read_bytes()
    assert os.stat(today).st_nlink == 1


def test_a_hard_forget_in_a_stream_hard_linked_outside_never_writes_the_outside_file(agent_dir, outside):
    day = "2026-05-20"
    write_stream(agent_dir, day, [fragment_line(day, 1, "tea", "the user drinks green tea"),
                                  fragment_line(day, 2, "tea", "the user drinks oolong")])
    commit_all(agent_dir)
    os.link(agent_dir / "memory" / "streams" / f"{day}.jsonl", outside / "copy.jsonl")
    before = (outside / "copy.jsonl").read_bytes()
    make_quiet(agent_dir)

    proc = run_cli(agent_dir, "forget", f"{day}#{uuid_at(day, 1)}", "--reason", "private", "--hard")

    assert proc.returncode == 0, proc.stderr
    assert (outside / "copy.jsonl").read_bytes() == before  # not blanked through the shared inode
    assert "has 2 hard links" in proc.stderr and "waits in the stream" in proc.stdout


def objects_hold(root: Path, needle: bytes) -> bool:
    """Does any object in the repository (committed, staged or loose) hold `needle`?"""
    import subprocess

    out = subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch"], cwd=root,
                         capture_output=True, check=True).stdout
    return needle in out


def test_a_stream_hard_linked_to_an_outside_file_never_has_its_bytes_committed(seeded, outside):
    day = "2026-05-21"
    log = outside / "app.jsonl"
    log.write_text(fragment_line(day, 1, "tea", "the user drinks oolong") + "\n")
    os.link(log, seeded / "memory" / "streams" / f"{day}.jsonl")
    with open(log, "ab") as fh:  # the outside program keeps writing its own file
        fh.write(SECRET)
    head = git(seeded, "rev-parse", "HEAD")

    proc = run_cli(seeded, "pin", "tea")

    one_line_refusal(proc, f"memory/streams/{day}.jsonl")
    assert len(proc.stderr.strip().splitlines()) == 1
    assert git(seeded, "rev-parse", "HEAD") == head
    assert not objects_hold(seeded, b"hunter2")
    assert not (seeded / "memory" / "vault" / "tea.md").exists()  # refused before anything was written


def test_a_symbolic_link_in_memory_is_never_staged(seeded, outside):
    os.symlink(outside / "passwd", seeded / "memory" / "notes.md")
    head = git(seeded, "rev-parse", "HEAD")

    proc = run_cli(seeded, "pin", "tea")

    one_line_refusal(proc, "memory/notes.md")
    assert git(seeded, "rev-parse", "HEAD") == head
    assert "notes.md" not in git(seeded, "ls-files", "--stage")


def test_the_staging_step_itself_refuses_a_hard_linked_file_before_staging_anything(seeded, outside):
    from dreamdeck.core.git.commit import Trailers, commit_memory

    os.link(outside / "passwd", seeded / "memory" / "topics" / "creds.md")
    (seeded / "memory" / "topics" / "tea.md").write_text("edited\n")

    with pytest.raises(Refused, match="memory/topics/creds.md has 2 hard links"):
        commit_memory(seeded, "memory: test", Trailers("test", "approved", "test"))

    assert git(seeded, "diff", "--cached", "--name-only") == ""
    assert not objects_hold(seeded, b"hunter2") and not objects_hold(seeded, b"edited")


def link_shard(seeded: Path, outside: Path, kind: str, name: str = "creds.md") -> None:
    target = outside / "passwd"
    if kind == "hard":
        os.link(target, seeded / "memory" / "topics" / name)
    else:
        (seeded / "memory" / "topics" / name).symlink_to(target)


@pytest.mark.parametrize("kind", ["hard", "symbolic"])
@pytest.mark.parametrize("verb", [("topics",), ("show", "tea"), ("verify",)], ids=["topics", "show", "verify"])
def test_a_read_view_skips_a_linked_shard_with_one_warning_naming_it(seeded, outside, kind, verb):
    link_shard(seeded, outside, kind)

    proc = run_cli(seeded, *verb)

    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "memory/topics/creds.md" in warnings[0], proc.stderr
    assert "hunter2" not in proc.stdout and "creds" not in proc.stdout
    if verb[0] != "verify":
        assert "green tea" in proc.stdout


@pytest.mark.parametrize("kind", ["hard", "symbolic"])
def test_a_mutation_refuses_while_a_shard_is_linked_even_one_git_already_holds(seeded, outside, kind):
    tea = seeded / "memory" / "topics" / "tea.md"
    (outside / "tea.md").write_bytes(tea.read_bytes())  # the same bytes git holds: nothing to stage
    tea.unlink()
    if kind == "hard":
        os.link(outside / "tea.md", tea)
    else:
        tea.symlink_to(outside / "tea.md")
    write_stream(seeded, D, [fragment_line(D, 2, "tea", "the user likes oolong")])
    head = git(seeded, "rev-parse", "HEAD")

    proc = run_cli(seeded, "dream", "--dreamer", "offline", "--review", "none")

    one_line_refusal(proc, "memory/topics/tea.md")
    assert git(seeded, "rev-parse", "HEAD") == head
    assert (outside / "tea.md").read_bytes() == git(seeded, "show", "HEAD:memory/topics/tea.md").encode()


@pytest.mark.parametrize("kind", ["hard", "symbolic"])
def test_recall_never_indexes_a_linked_shard_and_names_it_in_one_warning(seeded, outside, kind):
    link_shard(seeded, outside, kind)

    proc = run_cli(seeded, "recall", "hunter2 aws password green tea")

    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "memory/topics/creds.md" in warnings[0], proc.stderr
    assert "hunter2" not in proc.stdout and "creds" not in proc.stdout
    assert "green tea" in proc.stdout.lower()
