"""A folder exchanged for a link *between* the link check and the write never carries the write
outside (core.io.no_links.open_folder): the attacker's swap is made at the exact instant the
file is opened, by a Python audit hook on `open`, so the race is won every time on purpose."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from dreamdeck.core.errors import DreamdeckError
from dreamdeck.core.io.append import append_durably
from dreamdeck.core.io.atomic import atomic_write_bytes, remove_file
from dreamdeck.core.io.no_links import read_bytes_nofollow

# The hook can never be removed from the process: it acts only while a test arms it.
_ARMED: list[tuple[str, Path, Path]] = []  # (name opened, real folder, link to put in its place)


def _swap_on_open(event: str, args: tuple) -> None:
    if event not in ("open", "os.remove") or not _ARMED or not isinstance(args[0], (str, bytes, os.PathLike)):
        return
    name, folder, link = _ARMED[0]
    if name in os.path.basename(os.fsdecode(args[0])):
        _ARMED.clear()
        os.rename(folder, folder.with_name(folder.name + ".real"))
        os.rename(link, folder)  # the folder is now a link to the outside one


sys.addaudithook(_swap_on_open)


@pytest.fixture
def planted(tmp_path):
    """(memory/topics, the outside folder, arm(name)): a link to the outside waits beside the
    workspace, and takes the folder's place when a file whose name holds `name` is opened or
    removed."""
    topics = tmp_path / "agent" / "memory" / "topics"
    topics.mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    link = tmp_path / "waiting-link"
    link.symlink_to(outside)

    def arm(name: str) -> None:
        _ARMED[:] = [(name, topics, link)]

    yield topics, outside, arm
    _ARMED.clear()


def _run(work) -> str:
    try:
        work()
    except (DreamdeckError, OSError) as exc:
        return str(exc)
    return "done"


def test_an_atomic_write_never_lands_in_a_folder_swapped_for_a_link_after_the_check(planted):
    topics, outside, arm = planted
    arm(".creds.md.")  # the temp file's open
    _run(lambda: atomic_write_bytes(topics / "creds.md", b"secret shard\n"))
    assert os.listdir(outside) == []
    assert (topics.with_name("topics.real") / "creds.md").read_bytes() == b"secret shard\n"


def test_an_append_never_lands_in_a_folder_swapped_for_a_link_after_the_check(planted):
    topics, outside, arm = planted
    arm("today.jsonl")
    _run(lambda: append_durably(topics / "today.jsonl", b'{"line":1}\n'))
    assert os.listdir(outside) == []
    assert (topics.with_name("topics.real") / "today.jsonl").read_bytes() == b'{"line":1}\n'


def test_a_read_never_takes_bytes_from_a_folder_swapped_for_a_link_after_the_check(planted):
    topics, outside, arm = planted
    (topics / "a.md").write_bytes(b"ours\n")
    (outside / "a.md").write_bytes(b"AWS_SECRET\n")
    arm("a.md")
    assert read_bytes_nofollow(topics / "a.md") == b"ours\n"


def test_a_remove_never_deletes_in_a_folder_swapped_for_a_link_after_the_check(planted):
    topics, outside, arm = planted
    (topics / "a.md").write_bytes(b"ours\n")
    (outside / "a.md").write_bytes(b"theirs\n")
    arm("a.md")  # its unlink
    _run(lambda: remove_file(topics / "a.md"))
    assert (outside / "a.md").read_bytes() == b"theirs\n"


def test_a_link_met_while_opening_the_folders_is_refused_naming_it(planted):
    topics, outside, _arm = planted
    os.rename(topics, topics.with_name("topics.real"))
    topics.symlink_to(outside)
    with pytest.raises(DreamdeckError, match="memory/topics is a symbolic link"):
        atomic_write_bytes(topics / "x.md", b"x")
    with pytest.raises(DreamdeckError, match="memory/topics is a symbolic link"):
        append_durably(topics / "x.jsonl", b"x\n")
    assert os.listdir(outside) == []


def test_a_read_stops_at_the_size_the_file_had_when_it_was_opened(tmp_path):
    """A writer that keeps growing a stream (`yes >> day.jsonl`) must not keep a reader (doctor's
    worker, a view) reading forever: the read takes the bytes the file held when stat'ed."""
    from dreamdeck.core.io.no_links import read_fd

    path = tmp_path / "memory" / "day.jsonl"
    path.parent.mkdir()
    path.write_bytes(b"a\n" * 10)
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        with open(path, "ab") as writer:
            writer.write(b"b\n" * 10)
        assert read_fd(fd, size) == b"a\n" * 10
    finally:
        os.close(fd)


def test_a_stream_rewrite_never_writes_into_a_streams_folder_swapped_for_a_link(agent_dir):
    """A compaction's temp file (the whole stream's bytes) and its rename stay in the real
    `streams/` even when the folder becomes a link to the outside as the temp file is made."""
    from dreamdeck.core.store.stream_rewrite import rewrite_stream
    from dreamdeck.core.workspace import Workspace
    from tests.support.memory import fragment_line, uuid_at, write_stream

    day = "2026-05-20"
    write_stream(agent_dir, day, [fragment_line(day, 1, "a", "Kept."), fragment_line(day, 2, "b", "Dropped.")])
    streams = agent_dir / "memory" / "streams"
    outside = agent_dir.parent / "outside"
    outside.mkdir()
    link = agent_dir.parent / "waiting-link"
    link.symlink_to(outside)
    ws = Workspace.open(agent_dir, today="2026-05-22")
    _ARMED[:] = [(f".{day}.jsonl.", streams, link)]
    try:
        _run(lambda: rewrite_stream(ws, streams / f"{day}.jsonl", keep=lambda ln: ln.event["id"] != uuid_at(day, 2),
                                    grace_seconds=0))
    finally:
        _ARMED.clear()
    assert os.listdir(outside) == []
    assert b"Dropped." not in (agent_dir / "memory" / "streams.real" / f"{day}.jsonl").read_bytes()
