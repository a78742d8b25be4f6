"""The turn projection (`index.tc_projection`): a fresh process takes the shards' parse and the
undreamed days from it, yet never injects stale bytes."""
from __future__ import annotations

import os
import sqlite3

import pytest

from dreamdeck.core.index.keyword_lane import read_turn_memory
from dreamdeck.core.index.tc_documents import topic_facts, whole_documents
from dreamdeck.core.index.tc_projection import projection_path
from dreamdeck.core.io.cache import clear_all
from dreamdeck.core.ops.inject import inject
from tests.support.memory import fragment_line, shard_text, uuid_at, write_shard, write_stream

TODAY = "2026-05-22"


@pytest.fixture
def memory(ws, settled_clock):
    write_stream(ws.root, "2026-05-20", [fragment_line("2026-05-20", 1, "package manager", "User said use pnpm")])
    write_stream(ws.root, TODAY, [fragment_line(TODAY, 1, "oncall", "Jisoo is oncall this week")])
    write_shard(ws.root, "package-manager",
                shard_text("The user uses pnpm for builds", [f"streams/2026-05-20#{uuid_at('2026-05-20', 1)}"]))
    return ws


def _fresh_process() -> None:
    clear_all()


def test_the_projection_holds_every_shard_after_a_turn(memory):
    inject(memory, "package manager", record=False)
    with sqlite3.connect(projection_path(memory)) as conn:
        rows = conn.execute("SELECT slug, heading FROM topics").fetchall()
    assert rows == [("package-manager", "The user uses pnpm for builds")]


def test_a_fresh_process_injects_the_same_bytes_from_the_projection(memory):
    first = inject(memory, "what package manager", record=False).text
    _fresh_process()
    assert inject(memory, "what package manager", record=False).text == first
    assert "pnpm" in first


def test_a_shard_edited_in_place_with_its_mtime_put_back_is_seen_by_a_fresh_process(memory):
    assert "uses pnpm for" in inject(memory, "package manager", record=False).text
    path = memory.topics_dir / "package-manager.md"
    before = os.stat(path)
    path.write_bytes(path.read_bytes().replace(b"uses pnpm for", b"uses yarn for"))  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    _fresh_process()
    text = inject(memory, "package manager", record=False).text
    assert "uses yarn for" in text and "uses pnpm for" not in text


def test_a_fragment_appended_today_is_seen_by_a_fresh_process(memory):
    assert "Minji" not in inject(memory, "oncall", record=False).text
    write_stream(memory.root, TODAY, [fragment_line(TODAY, 2, "oncall", "Minji covers oncall on Fridays")])
    _fresh_process()
    assert "Minji covers oncall on Fridays" in inject(memory, "oncall", record=False).text


def test_a_damaged_projection_is_thrown_away_and_written_again(memory):
    first = inject(memory, "package manager", record=False).text
    for suffix in ("-wal", "-shm"):
        try:
            os.unlink(f"{projection_path(memory)}{suffix}")
        except FileNotFoundError:
            pass
    projection_path(memory).write_bytes(b"not a database at all" * 100)
    _fresh_process()
    assert inject(memory, "package manager", record=False).text == first
    write_shard(memory.root, "editor", shard_text("The user edits in helix", []))
    inject(memory, "package manager", record=False)
    with sqlite3.connect(projection_path(memory)) as conn:
        slugs = sorted(r[0] for r in conn.execute("SELECT slug FROM topics"))
    assert "editor" in slugs


def test_whole_documents_see_a_who_added_to_a_cited_fragment_in_a_fresh_process(memory):
    mem = read_turn_memory(memory)
    before = whole_documents(mem.shards, [topic_facts(s) for s in mem.shards], mem.files, mem.registry, mem.days_store)
    assert "jisoo" not in before[0] and mem.days_store is not None and mem.days_store.exists()
    path = memory.memory / "streams" / "2026-05-20.jsonl"
    old = os.stat(path)
    path.write_text(fragment_line("2026-05-20", 1, "package manager", "User said use pnpm", who="Jisoo") + "\n",
                    encoding="utf-8")
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))
    _fresh_process()
    mem = read_turn_memory(memory)
    after = whole_documents(mem.shards, [topic_facts(s) for s in mem.shards], mem.files, mem.registry, mem.days_store)
    assert after[0] == before[0].replace("\n2026-05-20t", "\njisoo\n2026-05-20t")


def test_shards_are_read_in_javascripts_utf16_order_with_names_past_the_bmp(ws):
    from dreamdeck.core.index.tc_memory import load_all_shards

    for slug in ("a\U0001f600", "a\uff01", "b", "a"):
        write_shard(ws.root, slug, shard_text(f"Belief {slug}", []))
    shards, _ = load_all_shards(ws)
    assert [s.slug for s in shards] == ["a", "a\U0001f600", "a\uff01", "b"]  # a surrogate pair sorts before U+FF01


def test_the_first_projection_is_written_whole_in_wal_mode_with_nothing_left_beside_it(memory):
    inject(memory, "package manager", record=False)
    path = projection_path(memory)
    assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name)) == [path.name]
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert conn.execute("SELECT slug FROM topics").fetchall() == [("package-manager",)]
    conn.close()


def test_a_first_projection_never_replaces_one_another_process_made_meanwhile(memory):
    from dreamdeck.core.index import projection_db

    path = projection_path(memory)
    theirs = projection_db.connect(path, "other", ("CREATE TABLE mark(x)",), ("mark",))
    theirs.execute("INSERT INTO mark VALUES (1)")

    def fill(conn):
        conn.execute("INSERT INTO meta VALUES ('ours', '1')")

    assert projection_db.create_whole(path, "other", ("CREATE TABLE mark(x)",), ("mark",), fill) is False
    assert theirs.execute("SELECT x FROM mark").fetchall() == [(1,)]
    theirs.close()
    assert sorted(p.name for p in path.parent.iterdir() if ".new" in p.name) == []
