"""The search index updated for exactly the files a change wrote (`SearchIndex.update`), as the
door does after every apply: only the named files are read, the rest waits for the next sweep,
and a file read again with the same bytes is not re-indexed."""
from __future__ import annotations

import os

import pytest

from dreamdeck.core.index.search import SearchIndex, close_all, index_path, open_index
from dreamdeck.core.ops.edit import edit_shard
from tests.support.memory import cite, commit_all, fragment_line, shard_text, uuid_at, write_shard, write_stream

D1 = "2026-05-20"


@pytest.fixture
def index(ws):
    close_all()
    yield open_index(ws)
    close_all()


def found(index: SearchIndex, query: str) -> list[tuple[str, str]]:
    """What the index holds as it stands: no refresh, no sweep."""
    return [(h.kind, h.key) for h in index.query(query)]


def test_update_reads_only_the_named_files_and_leaves_the_rest_to_the_next_sweep(ws, index, settled_clock):
    write_shard(ws.root, "sailing", shard_text("The user sails boats", []))
    write_shard(ws.root, "pets", shard_text("The user keeps cats", []))
    index.refresh()
    write_shard(ws.root, "sailing", shard_text("The user sails kayaks", []))
    write_shard(ws.root, "pets", shard_text("The user keeps gliders", []))  # another writer: not named

    report = index.update(["topics/sailing.md"])

    assert (report.swept, report.files_read) == (False, 1)
    assert found(index, "kayaks") == [("topic", "sailing")] and found(index, "boats") == []
    assert found(index, "gliders") == [] and found(index, "cats") == [("topic", "pets")]
    assert index.refresh().files_read == 1  # the sweep still finds what nobody named
    assert found(index, "gliders") == [("topic", "pets")]


def test_update_drops_a_named_file_that_is_gone_and_adds_a_new_one(ws, index, settled_clock):
    write_shard(ws.root, "boats", shard_text("The user sails boats", []))
    index.refresh()
    (ws.topics_dir / "boats.md").unlink()
    write_shard(ws.root, "boats", shard_text("The user sails boats", []), folder="archive")
    write_shard(ws.root, "tea", shard_text("The user drinks green tea", []))

    report = index.update(["topics/boats.md", "archive/boats.md", "topics/tea.md"])

    assert (report.files_read, report.files_removed) == (2, 1)
    assert found(index, "boats") == [] and found(index, "tea") == [("topic", "tea")]
    assert index.refresh().files_read == 0  # nothing left for the sweep


def test_update_leaves_out_a_named_shard_that_is_a_link(ws, index, tmp_path, settled_clock):
    outside = tmp_path / "outside.md"
    outside.write_text(shard_text("Secret outside notes about yachts", []), encoding="utf-8")
    ws.topics_dir.mkdir(parents=True, exist_ok=True)
    os.symlink(outside, ws.topics_dir / "yachts.md")

    index.update(["topics/yachts.md"])

    assert found(index, "yachts") == []


def test_update_without_an_index_builds_nothing(ws, settled_clock):
    close_all()
    write_shard(ws.root, "boats", shard_text("The user sails boats", []))
    open_index(ws).update(["topics/boats.md"])
    assert not index_path(ws).exists()
    close_all()


def test_update_sweeps_when_the_undreamed_tail_gains_a_day(ws, index, settled_clock):
    """A day new to the tail needs every shard's citations of it: only the sweep knows every shard."""
    write_shard(ws.root, "boats", shard_text("The user sails boats", []))
    index.refresh()
    write_stream(ws.root, D1, [fragment_line(D1, 1, "sailing", "Sailed a catamaran today")])

    report = index.update(["topics/boats.md"])

    assert report.swept and found(index, "catamaran") == [("stream", f"{D1}#{uuid_at(D1, 1)}")]


def test_a_file_read_again_with_the_same_bytes_is_not_indexed_again(ws, index):
    """A file written within the racy window is read again by the next refresh; when its bytes
    are the ones indexed, its documents stay as they are (only its stamp is recorded)."""
    write_shard(ws.root, "boats", shard_text("The user sails boats", []))
    assert index.refresh().files_indexed == 1  # just written: indexed, but its stamp not trusted

    report = index.refresh()

    assert (report.files_read, report.files_indexed) == (1, 0)
    assert found(index, "boats") == [("topic", "boats")]


def test_an_apply_through_the_door_updates_an_existing_index_at_once(ws, index, agent_dir):
    write_stream(agent_dir, D1, [fragment_line(D1, 1, "pnpm", "use pnpm")])
    write_shard(agent_dir, "pnpm", shard_text("The user uses pnpm", [cite(D1, 1)]))
    commit_all(agent_dir)
    index.refresh()
    text = (ws.topics_dir / "pnpm.md").read_text(encoding="utf-8")

    edit_shard(ws, "pnpm", text.replace("The user uses pnpm.", "The user uses pnpm and bun."), actor="human:tester")

    assert found(index, "bun") == [("topic", "pnpm")]


def test_an_apply_without_an_index_creates_none(ws, agent_dir):
    close_all()
    write_stream(agent_dir, D1, [fragment_line(D1, 1, "pnpm", "use pnpm")])
    write_shard(agent_dir, "pnpm", shard_text("The user uses pnpm", [cite(D1, 1)]))
    commit_all(agent_dir)
    text = (ws.topics_dir / "pnpm.md").read_text(encoding="utf-8")

    edit_shard(ws, "pnpm", text.replace("The user uses pnpm.", "The user uses pnpm and bun."), actor="human:tester")

    assert not index_path(ws).exists()


def test_a_new_process_reads_the_indexed_stamps_as_every_writer_left_them(ws, settled_clock):
    """The stamps a sweep compares with are kept whole beside the files table (one read for a
    fresh process, not 10,000 rows); every writer keeps both in one transaction."""
    close_all()
    write_shard(ws.root, "sailing", shard_text("The user sails boats", []))
    write_shard(ws.root, "pets", shard_text("The user keeps cats", []))
    one, two = SearchIndex(ws), SearchIndex(ws)  # two processes
    one.refresh()
    write_shard(ws.root, "sailing", shard_text("The user sails kayaks", []))
    (ws.topics_dir / "pets.md").unlink()
    two.update(["topics/sailing.md", "topics/pets.md"])
    write_shard(ws.root, "tea", shard_text("The user drinks green tea", []))
    one.refresh()

    fresh = SearchIndex(ws)
    conn = fresh._connect()
    table = {rel: st for rel, *st in conn.execute("SELECT path, size, mtime, ctime, ino FROM files")}
    known = {f"{area}/{name}": list(st) for area, names in fresh._known_stamps(conn).items() for name, st in names.items()}
    assert known == table and sorted(known) == ["topics/sailing.md", "topics/tea.md"]
    assert fresh.refresh().files_read == 0
    for index in (one, two, fresh):
        index.close()


def test_update_finding_an_index_of_another_version_leaves_the_build_to_the_next_query(ws, settled_clock):
    import sqlite3

    close_all()
    write_shard(ws.root, "sailing", shard_text("The user sails boats", []))
    open_index(ws).refresh()
    close_all()
    with sqlite3.connect(index_path(ws)) as conn:
        conn.execute("UPDATE meta SET v='0' WHERE k='version'")
    conn.close()
    write_shard(ws.root, "tea", shard_text("The user drinks green tea", []))
    index = open_index(ws)

    report = index.update(["topics/tea.md"])

    assert report.files_read == 0 and index.count() == 0
    assert index.refresh().files_read == 2 and found(index, "tea") == [("topic", "tea")]
    close_all()


def test_the_doors_update_does_not_wait_for_an_index_another_process_is_writing(ws, index, settled_clock):
    """An approval is finished when its commit is made: a refresh holding the index's write lock
    elsewhere (a long rebuild, a preview) must not hold the door for its busy timeout (30 s). The
    update is skipped; the file keeps its old stamp in the index, so the next query's sweep reads it."""
    import threading

    from filelock import FileLock

    from dreamdeck.core.index.search import update_after_change

    write_shard(ws.root, "sailing", shard_text("The user sails boats", []))
    index.refresh()
    write_shard(ws.root, "sailing", shard_text("The user sails kayaks", []))
    with FileLock(f"{index_path(ws)}.lock"):  # another writer's lock (its own open file: flock conflicts)
        door = threading.Thread(target=update_after_change, args=(ws, ["topics/sailing.md"]))
        door.start()
        door.join(timeout=10)
        finished_while_locked = not door.is_alive()
    door.join()

    assert finished_while_locked
    assert found(index, "kayaks") == []  # skipped, not half-done
    assert index.refresh().files_read == 1 and found(index, "kayaks") == [("topic", "sailing")]
