"""StreamView: every day's fragments as one lazily indexed list, read line by line by offset."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from dreamdeck.core.formats.events import fragment_content_hash
from dreamdeck.core.formats.stream_lines import parse_stream_bytes
from dreamdeck.core.index import stream_days as stream_days_module
from dreamdeck.core.index import stream_view as stream_view_module
from dreamdeck.core.index.stream_days import index_bytes
from dreamdeck.core.index.stream_view import StreamView
from dreamdeck.core.store.stream_rewrite import rewrite_stream
from dreamdeck.core.store.streams import append_fragment
from dreamdeck.core.store.tombstones import Tombstone, record
from tests.support.memory import fragment_line, uuid_at, watermark_line, write_stream

LEGACY = '{"type":"legacy_prose","ts":"2026-05-22T00:00:00.000Z","text":"old notes","origin":"migration"}'


def days(n: int, last: int = 22) -> list[str]:
    return [f"2026-05-{d:02d}" for d in range(last - n + 1, last + 1)]


def fill(root: Path, dates: list[str], per_day: int) -> None:
    for day in dates:
        write_stream(root, day, [fragment_line(day, i, f"topic-{i % 3}", f"{day} fragment {i}") for i in range(per_day)])


class Counting:
    """Counts the files the view opens and the bytes it preads (the real calls, wrapped)."""

    def __init__(self, monkeypatch):
        self.opened: list[str] = []
        self.preads: list[tuple[int, int]] = []
        real_open, real_pread = open, os.pread

        def counting_open(path, *args, **kwargs):
            self.opened.append(Path(path).name)
            return real_open(path, *args, **kwargs)

        def counting_pread(fd, length, offset):
            self.preads.append((offset, length))
            return real_pread(fd, length, offset)

        for module in (stream_view_module, stream_days_module):  # the modules that read day files
            monkeypatch.setattr(module, "open", counting_open, raising=False)
        monkeypatch.setattr(os, "pread", counting_pread)


# --- counts, order, what is indexed ---------------------------------------------------------------
def test_rows_run_oldest_day_first_in_file_order_newest_at_the_bottom(ws, agent_dir):
    fill(agent_dir, ["2026-05-20", "2026-05-21", "2026-05-22"], 3)
    view = StreamView(ws)
    assert len(view) == 9
    assert [view.row(i)["body"] for i in range(9)] == [
        f"{d} fragment {i}" for d in ("2026-05-20", "2026-05-21", "2026-05-22") for i in range(3)]
    last = view.row(-1)
    assert last["date"] == "2026-05-22" and last["id"] == uuid_at("2026-05-22", 2)
    assert last["key"] == f"2026-05-22#{uuid_at('2026-05-22', 2)}"
    assert last["topic"] == "topic-2" and last["source"] == "sess-1" and last["ts"].endswith("Z")
    assert last["raw"] == fragment_line("2026-05-22", 2, "topic-2", "2026-05-22 fragment 2")


def test_watermarks_legacy_blank_and_non_fragment_lines_are_never_indexed(ws, agent_dir):
    day = "2026-05-22"
    write_stream(agent_dir, day, [
        LEGACY, fragment_line(day, 1, "a", "one"), "", watermark_line(day, 2), "not json at all",
        '{"type":"watermark","broken"', fragment_line(day, 3, "b", "two", who="alice"),
    ])
    view = StreamView(ws)
    assert len(view) == 2
    assert [view.row(i)["body"] for i in range(2)] == ["one", "two"]
    assert view.row(1)["who"] == "alice"


def test_a_broken_line_that_claims_to_be_a_fragment_shows_as_malformed_not_as_a_crash(ws, agent_dir):
    day = "2026-05-22"
    write_stream(agent_dir, day, ['{"type":"fragment","id":"x","ts":"nope"}', fragment_line(day, 1, "a", "fine")])
    view = StreamView(ws)
    assert len(view) == 2
    bad = view.row(0)
    assert bad["malformed"] and "ts" in bad["body"] and bad["key"] == ""
    assert view.row(1)["body"] == "fine"


def test_a_fragment_written_with_spaces_is_shown_and_found(ws, agent_dir):
    day = "2026-05-22"
    spaced = json.dumps(json.loads(fragment_line(day, 2, "t", "spaced")), ensure_ascii=False, separators=(", ", ": "))
    write_stream(agent_dir, day, [fragment_line(day, 1, "a", "one"), spaced])
    view = StreamView(ws)
    assert len(view) == 2 and view.row(1)["body"] == "spaced"
    assert view.find(day, uuid_at(day, 2)) == 1


def test_offsets_are_the_byte_spans_of_the_fragment_lines(ws, agent_dir):
    day = "2026-05-22"
    path = write_stream(agent_dir, day, [
        fragment_line(day, 1, "é", "ünïcode bytes"), watermark_line(day, 2), fragment_line(day, 3, "b", "two")])
    view = StreamView(ws)
    data = path.read_bytes()
    expected = [(ln.offset, ln.offset + len(ln.raw)) for ln in parse_stream_bytes(data) if ln.kind == "fragment"]
    assert view.day_offsets(day) == expected
    assert [data[s:e] for s, e in expected] == [ln.raw for ln in parse_stream_bytes(data) if ln.kind == "fragment"]


def test_index_bytes_keeps_a_partial_last_line_for_later():
    data = b'{"type":"fragment","id":"a"}\n{"type":"fragment","id":"b"'
    starts, ends, scanned, hidden = index_bytes(data, 100)
    assert list(starts) == [100] and list(ends) == [100 + data.index(b"\n")]
    assert scanned == 100 + data.index(b"\n") + 1 and hidden == 0


def test_legacy_flat_layout_is_read_too(agent_dir):
    from dreamdeck.core.workspace import Workspace

    write_stream(agent_dir, "2026-05-21", [fragment_line("2026-05-21", 1, "a", "flat")], layout="flat")
    view = StreamView(Workspace.open(agent_dir, today="2026-05-22"))
    assert len(view) == 1 and view.row(0)["body"] == "flat"


def test_no_streams_at_all_is_an_empty_view_that_fills_when_one_appears(ws, agent_dir):
    view = StreamView(ws)
    assert len(view) == 0 and view.total_days == 0
    append_fragment(ws, "t", "first ever", event_id=uuid_at("2026-05-22", 1))
    assert view.changed()
    delta = view.refresh()
    assert delta.appended == 1 and len(view) == 1 and view.row(0)["body"] == "first ever"


# --- laziness: only the days shown are indexed, only the rows asked are read ------------------------
@pytest.mark.perf_contract(reason="opening the stream view opens only the newest day files it needs and reads no row")
def test_opening_indexes_only_the_newest_days_needed(ws, agent_dir, monkeypatch):
    dates = days(20)
    fill(agent_dir, dates, 10)
    counting = Counting(monkeypatch)
    view = StreamView(ws, min_rows=25)  # 3 days of 10
    assert len(view) == 30 and view.loaded_days == 3 and view.older_days == 17 and view.total_days == 20
    assert counting.opened == ["2026-05-22.jsonl", "2026-05-21.jsonl", "2026-05-20.jsonl"]
    size = sum((agent_dir / "memory/streams" / f"{d}.jsonl").stat().st_size for d in dates[-3:])
    assert view.bytes_scanned == size
    assert counting.preads == [] and view.reads == 0  # indexing parses nothing and reads no row


@pytest.mark.perf_contract(reason="a row costs one pread of its own line, once")
def test_row_reads_only_the_line_asked_for_and_caches_it(ws, agent_dir, monkeypatch):
    fill(agent_dir, days(3), 50)
    view = StreamView(ws)
    counting = Counting(monkeypatch)
    offsets = view.day_offsets("2026-05-22")
    for i in range(len(view) - 40, len(view)):  # the first screen: the last 40 rows
        view.row(i)
    assert len(counting.preads) == 40
    assert counting.preads == [(s, e - s) for s, e in offsets[-40:]]
    assert counting.opened == []  # rows are preads on an fd, never a file read
    view.row(len(view) - 1)
    assert len(counting.preads) == 40  # cached
    view.row(0)
    assert len(counting.preads) == 41 and view.reads == 41


def test_load_older_prepends_whole_days(ws, agent_dir):
    fill(agent_dir, days(10), 10)
    view = StreamView(ws, min_rows=10)
    assert len(view) == 10 and view.oldest_loaded == "2026-05-22"
    first = view.row(0)["key"]
    delta = view.load_older(15)
    assert delta.prepended == 20 and not delta.reshaped and delta.appended == 0
    assert len(view) == 30 and view.oldest_loaded == "2026-05-20" and view.older_days == 7
    assert view.row(20)["key"] == first
    assert view.load_older(10_000).prepended == 70 and view.older_days == 0
    assert view.load_older().prepended == 0


def test_find_loads_back_to_an_old_day_for_a_citation_jump(ws, agent_dir):
    fill(agent_dir, days(10), 10)
    view = StreamView(ws, min_rows=10)
    index = view.find("2026-05-15", uuid_at("2026-05-15", 4))
    assert view.oldest_loaded == "2026-05-15" and len(view) == 80
    assert index == 4 and view.row(index)["id"] == uuid_at("2026-05-15", 4)
    assert view.find("2026-05-22", uuid_at("2026-05-22", 9)) == 79
    assert view.find("2026-05-22", uuid_at("2026-05-22", 99)) is None
    assert view.find("2026-04-01", uuid_at("2026-04-01", 1)) is None  # no such day: nothing loaded
    assert view.oldest_loaded == "2026-05-15"
    assert view.find("2026-05-13", uuid_at("2026-05-13", 0), load=False) is None


@pytest.mark.perf_contract(reason="a jump to a far day reads that day, not every day back to it")
def test_a_jump_to_a_far_day_opens_the_window_at_it_without_reading_the_days_between(ws, agent_dir, monkeypatch):
    fill(agent_dir, days(10), 10)
    view = StreamView(ws, min_rows=10, jump_bytes=0)
    counting = Counting(monkeypatch)
    index = view.find("2026-05-15", uuid_at("2026-05-15", 4))
    assert sorted(set(counting.opened)) == ["2026-05-15.jsonl"]  # the cited day only
    assert view.row(index)["id"] == uuid_at("2026-05-15", 4) and index == 4
    assert (view.oldest_loaded, len(view), view.older_days, view.newer_days) == ("2026-05-15", 10, 2, 7)
    assert not view.at_tail


def test_scrolling_from_a_jumped_to_day_shows_its_neighbours_in_order(ws, agent_dir):
    fill(agent_dir, days(10), 10)
    view = StreamView(ws, min_rows=10, jump_bytes=0)
    view.find("2026-05-15", uuid_at("2026-05-15", 4))
    delta = view.load_older(10)  # scrolling up: the day before is prepended
    assert delta.prepended == 10 and not delta.reshaped
    delta = view.load_newer(15)  # scrolling down: the next days are appended
    assert delta.appended == 20 and not delta.reshaped
    bodies = [view.row(i)["body"] for i in range(len(view))]
    assert bodies == [f"{d} fragment {i}" for d in days(4, last=17) for i in range(10)]
    assert view.newer_days == 5 and not view.at_tail
    assert view.load_newer(10_000).appended == 50 and view.newer_days == 0 and view.at_tail
    assert view.row(-1)["body"] == "2026-05-22 fragment 9"


def test_a_window_short_of_today_waits_for_the_reader_and_the_tail_comes_back_on_request(ws, agent_dir):
    fill(agent_dir, days(10), 10)
    view = StreamView(ws, min_rows=10, jump_bytes=0)
    view.find("2026-05-15", uuid_at("2026-05-15", 4))
    append_fragment(ws, "news", "just now", event_id=uuid_at("2026-05-22", 50))
    write_stream(agent_dir, "2026-05-23", [fragment_line("2026-05-23", 0, "t", "tomorrow")])
    view.refresh()
    assert len(view) == 10 and view.newer_days == 8  # the rows under the reader stay put
    delta = view.load_tail()
    assert delta.reshaped and view.at_tail and view.oldest_loaded == "2026-05-22" and len(view) == 12
    assert [view.row(i)["body"] for i in (9, 10, 11)] == ["2026-05-22 fragment 9", "just now", "tomorrow"]


def test_a_jump_over_few_bytes_stretches_the_window_to_the_day(ws, agent_dir):
    fill(agent_dir, days(10), 10)
    view = StreamView(ws, min_rows=10, jump_bytes=0)
    view.find("2026-05-15", uuid_at("2026-05-15", 4))
    view.jump_bytes = 1 << 20
    assert view.find("2026-05-18", uuid_at("2026-05-18", 2)) == 32  # 05-16 and 05-17 are counted
    assert view.oldest_loaded == "2026-05-15" and view.newer_days == 4 and len(view) == 40
    assert view.find("2026-05-13", uuid_at("2026-05-13", 0)) == 0 and view.oldest_loaded == "2026-05-13"


@pytest.mark.perf_contract(reason="days a jump passes over are opened only when a row of theirs is read")
def test_days_a_jump_passes_over_are_counted_and_indexed_when_read(ws, agent_dir, monkeypatch):
    fill(agent_dir, days(10), 10)
    view = StreamView(ws, min_rows=10)
    assert view.find("2026-05-14", uuid_at("2026-05-14", 3)) == 3
    assert len(view) == 90 and view.loaded_days == 9 and view.indexed_days == 2  # the target and today
    counting = Counting(monkeypatch)
    assert view.row(25)["body"] == "2026-05-16 fragment 5"  # a counted day: indexed on first read
    assert counting.opened == ["2026-05-16.jsonl"] and view.indexed_days == 3
    assert view.row(26)["body"] == "2026-05-16 fragment 6" and counting.opened == ["2026-05-16.jsonl"]


def test_a_day_with_other_key_orders_is_indexed_not_counted(ws, agent_dir):
    fill(agent_dir, days(3), 2)
    path = agent_dir / "memory/streams/2026-05-21.jsonl"
    with open(path, "a") as fh:  # a valid fragment written by another tool, keys in another order
        fh.write('{"id":"%s","type":"fragment","ts":"2026-05-21T09:00:00.000Z","source":"s","entry":"e",'
                 '"topic":"t","body":"reordered"}\n' % uuid_at("2026-05-21", 99))
    view = StreamView(ws, min_rows=1)
    view.find("2026-05-20", uuid_at("2026-05-20", 0))
    assert len(view) == 7 and view.indexed_days == 3
    assert view.row(4)["body"] == "reordered"


def test_a_counted_day_with_a_type_spelled_in_escapes_is_reindexed_when_read(ws, agent_dir):
    fill(agent_dir, days(3), 2)
    path = agent_dir / "memory/streams/2026-05-21.jsonl"
    with open(path, "a") as fh:  # no JSON writer escapes a letter, but a hand can: still a fragment
        fh.write(fragment_line("2026-05-21", 99, "t", "escaped").replace('"fragment"', '"fr\\u0061gment"') + "\n")
    view = StreamView(ws, min_rows=1)
    view.find("2026-05-20", uuid_at("2026-05-20", 0))  # 05-21 is passed over: only counted
    assert len(view) == 6 and view.row(2)["malformed"]  # the count was short: re-read on refresh
    assert view.changed() and view.refresh().reshaped
    assert len(view) == 7 and view.row(4)["body"] == "escaped"


def test_a_counted_day_changed_under_it_reads_as_a_placeholder_until_refresh(ws, agent_dir):
    fill(agent_dir, days(3), 3)
    view = StreamView(ws, min_rows=1)
    view.find("2026-05-20", uuid_at("2026-05-20", 0))
    path = agent_dir / "memory/streams/2026-05-21.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    with open(path, "r+b") as fh:  # rewritten in place (same inode), one fragment fewer
        fh.truncate(0)
        fh.write(b"".join(lines[1:]))
    assert view.row(3)["malformed"]
    assert view.changed()
    delta = view.refresh()
    assert delta.reshaped and len(view) == 8
    assert [view.row(i)["body"] for i in (3, 4)] == ["2026-05-21 fragment 1", "2026-05-21 fragment 2"]


# --- following the files ----------------------------------------------------------------------------
@pytest.mark.perf_contract(reason="a refresh scans only the bytes appended since the last one")
def test_refresh_reads_only_the_appended_bytes(ws, agent_dir):
    fill(agent_dir, ["2026-05-22"], 5)
    view = StreamView(ws)
    assert not view.changed() and view.refresh().changed is False
    before = view.bytes_scanned
    path = agent_dir / "memory/streams/2026-05-22.jsonl"
    size = path.stat().st_size
    frag = append_fragment(ws, "news", "just now", event_id=uuid_at("2026-05-22", 50))
    assert view.changed()
    delta = view.refresh()
    assert delta.appended == 1 and not delta.reshaped and delta.total == 6
    assert view.bytes_scanned - before == path.stat().st_size - size
    assert view.row(5)["id"] == frag.id and view.row(5)["body"] == "just now"


def test_a_line_being_written_waits_for_its_newline(ws, agent_dir):
    fill(agent_dir, ["2026-05-22"], 1)
    view = StreamView(ws)
    path = agent_dir / "memory/streams/2026-05-22.jsonl"
    line = fragment_line("2026-05-22", 9, "t", "slow writer")
    with open(path, "a") as fh:
        fh.write(line[:20])
    assert view.refresh().appended == 0 and len(view) == 1
    with open(path, "a") as fh:
        fh.write(line[20:] + "\n")
    assert view.refresh().appended == 1 and view.row(1)["body"] == "slow writer"


def test_a_new_day_file_appends_its_rows(ws, agent_dir):
    fill(agent_dir, ["2026-05-21"], 2)
    view = StreamView(ws)
    fill(agent_dir, ["2026-05-22"], 3)
    delta = view.refresh()
    assert delta.appended == 3 and len(view) == 5 and view.row(4)["date"] == "2026-05-22"


def test_a_compaction_rewrite_reindexes_the_day(ws, agent_dir):
    day = "2026-05-22"
    fill(agent_dir, [day], 6)
    view = StreamView(ws)
    [view.row(i) for i in range(6)]  # cached rows must not survive the rewrite
    path = agent_dir / "memory/streams" / f"{day}.jsonl"
    inode = path.stat().st_ino
    drop = {uuid_at(day, 1), uuid_at(day, 2)}
    assert rewrite_stream(ws, path, lambda ln: ln.event["id"] not in drop, grace_seconds=0).changed
    assert path.stat().st_ino != inode
    delta = view.refresh()
    assert delta.reshaped and delta.total == 4
    assert [view.row(i)["id"] for i in range(4)] == [uuid_at(day, i) for i in (0, 3, 4, 5)]
    assert view.day_offsets(day) == [(ln.offset, ln.offset + len(ln.raw))
                                     for ln in parse_stream_bytes(path.read_bytes())]


def test_a_shrink_in_place_reindexes_the_day(ws, agent_dir):
    day = "2026-05-22"
    fill(agent_dir, [day], 4)
    view = StreamView(ws)
    path = agent_dir / "memory/streams" / f"{day}.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    with open(path, "r+b") as fh:  # same inode, fewer bytes
        fh.truncate(0)
        fh.write(b"".join(lines[2:]))
    delta = view.refresh()
    assert delta.reshaped and len(view) == 2
    assert [view.row(i)["id"] for i in range(2)] == [uuid_at(day, 2), uuid_at(day, 3)]


def test_a_row_read_after_an_unnoticed_rewrite_is_a_placeholder_not_wrong_bytes(ws, agent_dir):
    day = "2026-05-22"
    fill(agent_dir, [day], 3)
    view = StreamView(ws)
    path = agent_dir / "memory/streams" / f"{day}.jsonl"
    rewrite_stream(ws, path, lambda ln: ln.event["id"] != uuid_at(day, 0), grace_seconds=0)
    assert view.row(2)["malformed"] and view.row(2)["id"] == ""
    view.refresh()
    assert view.row(1)["id"] == uuid_at(day, 2)


def test_a_stale_plan_is_refused_so_bytes_are_never_indexed_twice(ws, agent_dir):
    fill(agent_dir, ["2026-05-22"], 2)
    view = StreamView(ws)
    append_fragment(ws, "t", "three", event_id=uuid_at("2026-05-22", 3))
    plan = view.scan()
    assert view.refresh().appended == 1
    assert view.apply(plan).stale and len(view) == 3


# --- tombstones -------------------------------------------------------------------------------------
def stone(day: str, fid: str, topic: str, body: str) -> Tombstone:
    return Tombstone(day, fid, fragment_content_hash(topic, body), "test", "human:test", "2026-05-22T10:00:00Z")


def test_tombstoned_fragments_are_hidden_and_a_new_tombstone_hides_on_refresh(ws, agent_dir):
    day = "2026-05-22"
    fill(agent_dir, ["2026-05-21", day], 3)
    record(ws, "forget", stone(day, uuid_at(day, 1), "topic-1", f"{day} fragment 1"))
    view = StreamView(ws)
    assert len(view) == 5 and view.hidden == 1
    assert uuid_at(day, 1) not in [view.row(i)["id"] for i in range(5)]
    assert view.find(day, uuid_at(day, 1)) is None
    record(ws, "forget", stone("2026-05-21", uuid_at("2026-05-21", 0), "topic-0", "2026-05-21 fragment 0"))
    assert view.changed()
    delta = view.refresh()
    assert delta.reshaped and len(view) == 4 and view.hidden == 2
    assert [view.row(i)["id"] for i in range(4)] == [
        uuid_at("2026-05-21", 1), uuid_at("2026-05-21", 2), uuid_at(day, 0), uuid_at(day, 2)]
    record(ws, "unforget", stone(day, uuid_at(day, 1), "topic-1", f"{day} fragment 1"))
    view.refresh()
    assert len(view) == 5 and view.find(day, uuid_at(day, 1)) == 3


def test_an_id_mentioned_in_another_fragments_body_does_not_hide_it(ws, agent_dir):
    day = "2026-05-22"
    gone = uuid_at(day, 1)
    write_stream(agent_dir, day, [fragment_line(day, 1, "a", "forget me"),
                                  fragment_line(day, 2, "b", f"see {gone}")])
    record(ws, "forget", stone(day, gone, "a", "forget me"))
    view = StreamView(ws)
    assert len(view) == 1 and view.row(0)["body"] == f"see {gone}"


@pytest.mark.parametrize("per_day", [0, 1])
def test_empty_days_do_not_break_the_window(ws, agent_dir, per_day):
    fill(agent_dir, days(3), per_day)
    view = StreamView(ws, min_rows=1)
    assert len(view) == (1 if per_day else 0)
    view.load_older(100)
    assert len(view) == 3 * per_day and view.older_days == 0
