"""A long-lived `Memory` records what each recall returned with the write made before the call
returns and the fsync on a thread of its own soon after (`io.append.Flusher`)."""
from __future__ import annotations

import json

import pytest

from dreamdeck.api import Memory
from dreamdeck.core.index.search import close_all
from dreamdeck.core.io.append import Flusher, append_durably
from dreamdeck.core.store.access import access_path, read_access
from tests.support.memory import shard_text, write_shard


@pytest.fixture
def memory(ws, settled_clock):
    write_shard(ws.root, "package-manager", shard_text("The user uses pnpm for builds", []))
    close_all()
    with Memory(ws) as mem:
        yield mem
    close_all()


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


def test_many_appends_to_one_file_wait_for_one_fsync_each_round_and_lose_no_byte(tmp_path):
    flusher = Flusher()
    path = tmp_path / "log.jsonl"
    for n in range(200):
        append_durably(path, f"line {n}\n".encode(), own_line=True, flusher=flusher)
    assert flusher.pending <= 2  # one file: one descriptor waiting and one being synced at most
    flusher.close()
    assert flusher.pending == 0
    assert path.read_text().splitlines() == [f"line {n}" for n in range(200)]


def test_an_append_after_the_flusher_closed_is_synced_before_it_returns(tmp_path):
    flusher = Flusher()
    flusher.close()
    append_durably(tmp_path / "log", b"late\n", flusher=flusher)
    assert flusher.pending == 0 and (tmp_path / "log").read_bytes() == b"late\n"
