"""core.index.shard_heads: the persisted projection of shard heads the strength table reads."""
from __future__ import annotations

import os
import time

import pytest

from dreamdeck.core.index.shard_heads import ShardHeads
from dreamdeck.core.index.strength import projected_table, strength_table
from dreamdeck.core.io.cache import RACY_NS, clear_all, set_clock
from dreamdeck.core.store.settings import DecaySettings
from tests.support.memory import cite, shard_text, write_shard

TODAY = "2026-05-22"


@pytest.fixture
def settled():
    """Files written by the test count as settled (past the racy window), so they are recorded."""
    set_clock(lambda: time.time_ns() + 10 * RACY_NS)
    yield
    set_clock(None)


def table(ws) -> tuple[list[tuple], ShardHeads]:
    """The strength table as a fresh process builds it (no in-process cache), and the projection."""
    clear_all()
    heads = ShardHeads.of(ws)
    assert heads is not None
    rows = strength_table(ws.topics_dir, TODAY, DecaySettings(), access={}, heads=heads)
    return [(r.slug, r.heading, r.cites, r.days, r.last_reinforced, r.parse_error) for r in rows], heads


def plain_table(ws) -> list[tuple]:
    rows = strength_table(ws.topics_dir, TODAY, DecaySettings(), access={})
    return [(r.slug, r.heading, r.cites, r.days, r.last_reinforced, r.parse_error) for r in rows]


def three_shards(agent_dir) -> None:
    write_shard(agent_dir, "coffee", shard_text("Likes coffee", [cite("2026-05-20", 1), cite("2026-05-21", 2)]))
    write_shard(agent_dir, "tea", shard_text("Hates tea", [cite("2026-05-19", 3)]))
    write_shard(agent_dir, "home", shard_text("Lives in Lisbon", [cite("2026-05-18", 4)]))


@pytest.mark.perf_contract(reason="a fresh process takes unchanged shard heads from the projection")
def test_a_fresh_process_takes_unchanged_heads_from_the_projection_without_opening_shards(ws, agent_dir, settled):
    three_shards(agent_dir)
    first, heads = table(ws)
    assert (heads.reads, heads.hits) == (3, 0) and first == plain_table(ws)
    second, heads = table(ws)
    assert (heads.reads, heads.hits) == (0, 3) and second == first


def test_an_edit_that_puts_size_and_mtime_back_is_still_seen(ws, agent_dir, settled):
    three_shards(agent_dir)
    path = agent_dir / "memory/topics/tea.md"
    before = os.stat(path)
    table(ws)
    text = path.read_text()
    path.write_text(text.replace("heading: Hates tea", "heading: Loves tea"))  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # mtime put back; ctime moves on
    assert os.stat(path).st_size == before.st_size and os.stat(path).st_mtime_ns == before.st_mtime_ns
    rows, heads = table(ws)
    assert ("tea", "Loves tea") in [(r[0], r[1]) for r in rows] and heads.reads == 1 and heads.hits == 2
    assert rows == plain_table(ws)


def test_a_shard_changed_within_the_racy_window_is_read_again_not_recorded(ws, agent_dir):
    three_shards(agent_dir)  # just written: not settled under the real clock
    table(ws)
    rows, heads = table(ws)
    assert (heads.reads, heads.hits) == (3, 0) and rows == plain_table(ws)


@pytest.mark.parametrize("damage", ["flip", "truncate", "garbage", "empty", "foreign"])
def test_a_corrupt_or_foreign_projection_is_rebuilt(ws, agent_dir, settled, damage):
    three_shards(agent_dir)
    expected, heads = table(ws)
    path = heads.path
    data = path.read_bytes()
    if damage == "flip":  # one byte of a heading changed: the CRC-32 tells
        at = data.index(b"Likes coffee")
        path.write_bytes(data[:at] + b"L" + b"X" + data[at + 2:])
    elif damage == "truncate":
        path.write_bytes(data[:-5])
    elif damage == "garbage":
        path.write_bytes(b"\x00\xffnot a projection\n" * 10)
    elif damage == "empty":
        path.write_bytes(b"")
    else:  # another folder's projection under this name
        path.write_bytes(data.replace(str(ws.topics_dir).encode(), str(ws.vault_dir).encode(), 1))
    rows, heads = table(ws)
    assert rows == expected and heads.reads == 3 and heads.hits == 0
    rows, heads = table(ws)  # rebuilt: the next fresh process reads nothing
    assert rows == expected and (heads.reads, heads.hits) == (0, 3)


def test_added_and_removed_shards_are_followed(ws, agent_dir, settled):
    three_shards(agent_dir)
    table(ws)
    (agent_dir / "memory/topics/tea.md").unlink()
    write_shard(agent_dir, "walks", shard_text("Walks daily", [cite("2026-05-21", 9)]))
    rows, heads = table(ws)
    assert [r[0] for r in rows] == [r[0] for r in plain_table(ws)] and "tea" not in [r[0] for r in rows]
    assert (heads.reads, heads.hits) == (1, 2)
    rows, heads = table(ws)
    assert (heads.reads, heads.hits) == (0, 3)


def test_a_shard_whose_head_does_not_parse_is_read_whole_each_time(ws, agent_dir, settled):
    three_shards(agent_dir)
    write_shard(agent_dir, "broken", "---\nheading: Broken\ncites: many\n---\nBody.\n")
    table(ws)
    rows, heads = table(ws)
    assert (heads.reads, heads.hits) == (1, 3)
    assert rows == plain_table(ws) and [r for r in rows if r[0] == "broken"][0][5]  # its parse error shown


def recorded_rows(ws) -> tuple[list[tuple], ShardHeads]:
    """What a fresh process paints first: the rows as the projection last recorded them."""
    clear_all()
    heads = ShardHeads.of(ws)
    assert heads is not None
    rows = projected_table(heads, TODAY, DecaySettings(), access={})
    return [(r.slug, r.heading, r.cites, r.days, r.last_reinforced, r.parse_error) for r in rows], heads


def test_the_projection_holds_the_table_in_its_order_so_a_first_paint_opens_no_shard(ws, agent_dir, settled):
    three_shards(agent_dir)
    write_shard(agent_dir, "apple", shard_text("Likes apples", [cite("2026-05-20", 5), cite("2026-05-21", 6)]))
    expected, _ = table(ws)
    assert [r[0] for r in expected] == ["apple", "coffee", "tea", "home"]  # not the folder's listing order
    rows, heads = recorded_rows(ws)
    assert rows == expected and heads.reads == 0 and len(heads) == 4


def test_the_recorded_rows_are_a_picture_the_table_proves_against_the_files(ws, agent_dir, settled):
    three_shards(agent_dir)
    table(ws)
    path = agent_dir / "memory/topics/tea.md"
    before = os.stat(path)
    path.write_text(path.read_text().replace("heading: Hates tea", "heading: Loves tea"))  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # mtime put back; ctime moves on
    pictured, _ = recorded_rows(ws)
    assert ("tea", "Hates tea") in [(r[0], r[1]) for r in pictured]  # recorded before the edit
    proven, heads = table(ws)
    assert ("tea", "Loves tea") in [(r[0], r[1]) for r in proven] and heads.reads == 1
    assert recorded_rows(ws)[0] == proven  # and the proof is what the next first paint shows


@pytest.mark.parametrize("older", [b"1", b"2"])
def test_a_projection_of_an_older_format_is_rebuilt_in_the_tables_order(ws, agent_dir, settled, older):
    three_shards(agent_dir)
    expected, heads = table(ws)
    data = heads.path.read_bytes()
    heads.path.write_bytes(data.replace(b"dreamdeck-shard-heads 3\n", b"dreamdeck-shard-heads " + older + b"\n", 1))
    assert recorded_rows(ws)[0] == []
    rows, heads = table(ws)
    assert rows == expected and heads.reads == 3
    assert recorded_rows(ws)[0] == expected


def test_the_projection_keeps_each_belief_s_active_days_so_a_first_paint_shows_its_tier(ws, agent_dir, settled):
    write_shard(agent_dir, "cadence", shard_text("Releases are cut on Thursdays", [cite("2026-05-21", 1)],
                                                 superseded=[cite(f"2026-05-{d:02d}", 10 + d) for d in range(1, 5)]))
    table(ws)
    clear_all()
    heads = ShardHeads.of(ws)
    (pictured,) = projected_table(heads, TODAY, DecaySettings(), access={})
    assert (pictured.days, pictured.active_days, pictured.tier) == (5, 1, "mentioned") and heads.reads == 0
    (proven,) = strength_table(ws.topics_dir, TODAY, DecaySettings(), access={}, heads=heads)
    assert (proven.active_days, proven.tier) == (1, "mentioned") and heads.hits == 1
