"""The Dream tab's ⚑ badge for a linked shard: read from the shard folders' listings (one
scandir pass each, `is_symlink()` and `st_nlink` of its entries), never a stat of every shard."""
from __future__ import annotations

import os
import time

import pytest

from dreamdeck.core.index.shard_links import listed_linked_shards
from dreamdeck.core.io.cache import RACY_NS, clear_all, set_clock
from dreamdeck.core.store.shard_files import list_shard_paths
from tests.support.memory import cite, shard_text, write_shard


@pytest.fixture
def settled_clock():
    """The files written a moment ago count as settled, so a listing is kept (as it is a few
    seconds after the last change)."""
    clear_all()
    set_clock(lambda: time.time_ns() + 10 * RACY_NS)
    yield
    set_clock(None)
    clear_all()


@pytest.fixture
def linked_topics(ws, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "creds.md").write_text("secret\n")
    (outside / "other.md").write_text("other\n")
    write_shard(ws.root, "plain", shard_text("A plain belief", [cite("2026-05-20", 1)]))
    os.symlink(outside / "creds.md", ws.topics_dir / "creds.md")
    os.link(outside / "other.md", ws.topics_dir / "other.md")
    return ws


def test_linked_shards_come_from_the_topics_listing_the_strength_table_made(linked_topics, settled_clock):
    memory = linked_topics.root / "memory"
    assert [slug for slug, _ in list_shard_paths(linked_topics.topics_dir)] == ["plain"]  # the table's listing
    assert listed_linked_shards(memory) == [("memory/topics/creds.md", "a symbolic link"),
                                            ("memory/topics/other.md", "2 hard links")]


def test_topics_not_listed_yet_is_unknown_rather_than_a_stat_of_every_shard(linked_topics, settled_clock):
    assert listed_linked_shards(linked_topics.root / "memory") is None
    list_shard_paths(linked_topics.topics_dir)
    # A second name made for a listed shard changes neither the folder nor the listing: the badge
    # reads the listing and stats no shard (the door still refuses that shard when it opens it).
    os.link(linked_topics.topics_dir / "plain.md", linked_topics.root / "plain-copy.md")
    assert [p for p, _ in listed_linked_shards(linked_topics.root / "memory")] == [
        "memory/topics/creds.md", "memory/topics/other.md"]


def test_a_linked_vault_file_and_a_linked_archive_folder_count_too(ws, tmp_path, settled_clock):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "pin.md").write_text("pinned elsewhere\n")
    write_shard(ws.root, "plain", shard_text("A plain belief", [cite("2026-05-20", 1)]))
    list_shard_paths(ws.topics_dir)
    os.makedirs(ws.root / "memory" / "vault")
    os.symlink(outside / "pin.md", ws.root / "memory" / "vault" / "pin.md")
    os.symlink(outside, ws.root / "memory" / "archive")
    assert listed_linked_shards(ws.root / "memory") == [("memory/archive", "a symbolic link"),
                                                        ("memory/vault/pin.md", "a symbolic link")]


def test_no_link_anywhere_is_an_empty_list(ws, settled_clock):
    write_shard(ws.root, "plain", shard_text("A plain belief", [cite("2026-05-20", 1)]))
    list_shard_paths(ws.topics_dir)
    assert listed_linked_shards(ws.root / "memory") == []


def test_the_shard_heads_pass_hands_over_the_links_of_its_own_listing(linked_topics):
    from dreamdeck.core.index.shard_heads import ShardHeads
    from dreamdeck.core.index.strength import strength_table
    from dreamdeck.core.store.settings import load_settings

    clear_all()  # nothing kept, and nothing settled: the pass's own listing is the only one
    heads = ShardHeads.of(linked_topics)
    rows = strength_table(linked_topics.topics_dir, linked_topics.today(), load_settings(linked_topics.root).decay,
                          heads=heads)
    assert [r.slug for r in rows] == ["plain"]
    memory = linked_topics.root / "memory"
    assert listed_linked_shards(memory) is None  # just written: no listing kept
    assert listed_linked_shards(memory, topics=heads.linked) == [("memory/topics/creds.md", "a symbolic link"),
                                                                 ("memory/topics/other.md", "2 hard links")]
