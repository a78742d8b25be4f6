"""A `Memory` follows memory/ with a change feed (`index.search_feed`): a warm recall with nothing
changed skips the stamp sweep, and a change made just before a recall is always seen."""
from __future__ import annotations

import os

import pytest

from dreamdeck.api import Memory
from dreamdeck.core.index.search import close_all, open_index
from tests.support.memory import shard_text, write_shard

TODAY = "2026-05-22"


@pytest.fixture
def memory(ws, settled_clock):
    write_shard(ws.root, "package-manager", shard_text("The user uses pnpm for builds", []))
    write_shard(ws.root, "editor", shard_text("The user edits in helix", []))
    close_all()
    with Memory(ws) as mem:
        yield mem
    close_all()


def test_a_quiet_feed_lets_a_warm_refresh_skip_the_sweep(memory):
    index = open_index(memory.workspace)
    assert index.refresh().swept  # the first refresh proves the files, the feed running
    assert not index.refresh().swept
    assert [b.key for b in memory.recall("pnpm", record=False)] == ["package-manager"]


def test_a_shard_edited_in_place_with_its_mtime_put_back_is_seen_at_once(memory):
    assert [b.key for b in memory.recall("pnpm", record=False)] == ["package-manager"]
    path = memory.workspace.topics_dir / "package-manager.md"
    before = os.stat(path)
    path.write_bytes(path.read_bytes().replace(b"uses pnpm for", b"uses yarn for"))  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert [b.key for b in memory.recall("yarn", record=False)] == ["package-manager"]
    assert memory.recall("pnpm", record=False) == []


def test_a_new_shard_is_found_by_the_next_recall(memory):
    memory.recall("pnpm", record=False)
    write_shard(memory.workspace.root, "deploys", shard_text("Deploys happen on Tuesdays", []))
    assert [b.key for b in memory.recall("tuesdays", record=False)] == ["deploys"]


def test_without_a_feed_every_refresh_sweeps(ws, settled_clock):
    write_shard(ws.root, "editor", shard_text("The user edits in helix", []))
    close_all()
    with Memory(ws, watch=False):
        index = open_index(ws)
        assert index.refresh().swept and index.refresh().swept
    close_all()


def test_closing_the_memory_stops_the_feed(memory):
    index = open_index(memory.workspace)
    memory.close()
    assert index.feed is None
    assert index.refresh().swept and index.refresh().swept


def test_recording_what_recall_returned_does_not_make_the_next_recall_sweep(memory):
    index = open_index(memory.workspace)
    memory.recall("pnpm")  # appends to memory/meta/access.jsonl
    memory.recall("pnpm")
    assert not index.refresh().swept


def test_an_injection_through_the_feed_sees_a_shard_edited_in_place_at_once(memory):
    assert "uses pnpm for" in memory.inject("package manager", record=False)
    path = memory.workspace.topics_dir / "package-manager.md"
    before = os.stat(path)
    path.write_bytes(path.read_bytes().replace(b"uses pnpm for", b"uses yarn for"))  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    memory.new_session()
    text = memory.inject("package manager", record=False)
    assert "uses yarn for" in text and "uses pnpm for" not in text


def test_a_quiet_feed_gives_the_same_injection_again(memory):
    first = memory.inject("package manager", record=False)
    memory.new_session()
    assert memory.inject("package manager", record=False) == first
    write_shard(memory.workspace.root, "deploys", shard_text("Deploys happen on Tuesdays", []))
    memory.new_session()
    assert "Deploys happen on Tuesdays" in memory.inject("deploys tuesdays", record=False)


def test_a_change_the_feed_saw_is_read_without_the_sweep(memory):
    index = open_index(memory.workspace)
    index.refresh()
    write_shard(memory.workspace.root, "deploys", shard_text("Deploys happen on Tuesdays", []))
    (memory.workspace.topics_dir / "editor.md").unlink()

    report = index.refresh()

    assert (report.swept, report.files_read, report.files_removed) == (False, 1, 1)
    assert [b.key for b in memory.recall("tuesdays", record=False)] == ["deploys"]
    assert memory.recall("helix", record=False) == []


def test_a_shard_folder_moved_away_makes_the_next_refresh_sweep(memory):
    index = open_index(memory.workspace)
    write_shard(memory.workspace.root, "kayaks", shard_text("The user paddles kayaks", []), folder="vault")
    index.refresh()
    vault = memory.workspace.memory / "vault"
    os.rename(vault, vault.with_name("vault-old"))

    assert index.refresh().swept
    assert memory.recall("kayaks", record=False) == []


def test_a_shard_made_a_link_while_the_feed_runs_is_named_for_the_warning(memory, tmp_path):
    index = open_index(memory.workspace)
    index.refresh()
    outside = tmp_path / "outside.md"
    outside.write_text(shard_text("Notes about yachts", []), encoding="utf-8")
    os.symlink(outside, memory.workspace.topics_dir / "yachts.md")

    report = index.refresh()

    assert not report.swept and index.linked == [("topics/yachts.md", "a symbolic link")]
    assert memory.recall("yachts", record=False) == []
