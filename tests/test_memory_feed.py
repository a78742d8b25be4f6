"""A `Memory` follows memory/ with a change feed (`index.search_feed`): a warm recall with nothing
changed skips the stamp sweep, and a change made just before a recall is always seen."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from dreamdeck.api import Memory
from dreamdeck.core.index.search import close_all, open_index
from dreamdeck.core.store.access import access_path, read_access
from tests.support.memory import fragment_line, shard_text, write_shard, write_stream

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


# --- changes made by another process just before a recall (the barrier must count them) -------
def _in_another_process(code: str, **values: object) -> None:
    """Run `code` in a separate Python process, and return once it has exited."""
    subprocess.run([sys.executable, "-c", code, *(str(v) for v in values.values())], check=True)


def test_a_fragment_appended_to_todays_stream_by_another_process_is_recalled_at_once(memory):
    stream = write_stream(memory.workspace.root, TODAY, [fragment_line(TODAY, 1, "travel", "Passport is in the drawer")])
    assert [b.kind for b in memory.recall("passport", record=False)] == ["stream"]
    line = fragment_line(TODAY, 2, "boats", "The kayak club meets at dawn")
    _in_another_process("import sys; open(sys.argv[1], 'a').write(sys.argv[2] + '\\n')", path=stream, line=line)

    assert [(b.kind, b.excerpt) for b in memory.recall("kayak club", record=False)] == [
        ("stream", "The kayak club meets at dawn")]


def test_a_shard_renamed_into_topics_by_another_process_is_recalled_at_once(memory):
    assert memory.recall("canoes", record=False) == []
    staged = memory.workspace.memory / "incoming.md.tmp"
    staged.write_text(shard_text("The user paddles canoes on Sundays", []), encoding="utf-8")
    _in_another_process("import os, sys; os.rename(sys.argv[1], sys.argv[2])",
                        src=staged, dst=memory.workspace.topics_dir / "canoes.md")

    assert [b.key for b in memory.recall("canoes", record=False)] == ["canoes"]


def test_a_shard_deleted_by_another_process_is_gone_from_the_next_recall(memory):
    assert [b.key for b in memory.recall("helix", record=False)] == ["editor"]
    _in_another_process("import os, sys; os.unlink(sys.argv[1])", path=memory.workspace.topics_dir / "editor.md")

    assert memory.recall("helix", record=False) == []


def test_a_folder_made_by_another_process_with_a_shard_in_it_is_recalled_at_once(memory):
    memory.recall("pnpm", record=False)
    _in_another_process("import os, sys; os.mkdir(sys.argv[1]); open(os.path.join(sys.argv[1], 'boats.md'), 'w')"
                        ".write(sys.argv[2])", folder=memory.workspace.memory / "vault",
                        text=shard_text("The user keeps two kayaks", []))

    assert [b.key for b in memory.recall("kayaks", record=False)] == ["boats"]


def test_more_changes_than_the_kernel_queues_make_the_next_refresh_sweep(memory):
    index = open_index(memory.workspace)
    index.refresh()
    path, other = memory.workspace.topics_dir / "package-manager.md", memory.workspace.topics_dir / "editor.md"
    queued = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text()) if sys.platform == "linux" else 0
    for n in range(queued + 10):  # attribute changes to two files in turn (the kernel merges repeats)
        os.utime(path if n % 2 else other, ns=(n, n))
    path.write_text(shard_text("The user uses yarn for builds", []), encoding="utf-8")

    report = index.refresh()

    assert report.swept or not queued
    assert [b.key for b in memory.recall("yarn", record=False)] == ["package-manager"]


@pytest.mark.skipif(sys.platform != "linux", reason="the inotify barrier is Linux's")
def test_on_linux_the_feed_runs_no_thread_and_waits_for_nothing(memory):
    index = open_index(memory.workspace)
    index.refresh()
    assert not [t for t in threading.enumerate() if t.name == "dreamdeck-search-feed"]
    assert not os.path.exists(index.feed.barriers)  # no barrier file is ever made
    assert not index.refresh().swept


# --- the access record: written before the call returns, fsynced soon after (io.append.Flusher)
def test_a_recall_through_a_memory_has_its_access_line_on_disk_when_it_returns(memory):
    memory.recall("pnpm")
    lines = access_path(memory.workspace.memory).read_bytes().splitlines()
    assert [json.loads(line)["items"] for line in lines] == [["topic:package-manager"]]


def test_closing_the_memory_returns_once_every_access_line_is_synced(memory):
    for n in range(20):
        memory.recall(f"pnpm builds {n}")
    memory.inject("package manager")
    flusher = memory._flusher
    memory.close()
    assert flusher.pending == 0
    records = read_access(memory.workspace)
    assert [r.op for r in records] == ["inject"] + ["recall"] * 20
    assert records[-1].query == "pnpm builds 0"
