"""core.fragment_index: citations resolved to fragments by offset, without loading whole streams."""
from __future__ import annotations

import json
import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dreamdeck.core.formats.stream_lines import parse_stream_bytes
from dreamdeck.core.index import fragment_index
from dreamdeck.core.index.fragment_index import FragmentIndex, index_stream_bytes
from dreamdeck.core.io.cache import RACY_NS, StampCache, set_clock
from tests.support.memory import fragment_line, uuid_at, watermark_line, write_stream

D = "2026-05-22"


def reordered(line: str) -> str:
    """The same fragment as a hand or another tool writes it: other key order, spaces."""
    ev = json.loads(line)
    return json.dumps(dict(reversed(list(ev.items()))), ensure_ascii=False, separators=(", ", ": "))


def truth(data: bytes) -> dict[str, bytes]:
    """Every valid fragment line by id, as the full stream parser reads the file (last wins)."""
    out = {}
    for ln in parse_stream_bytes(data):
        if ln.event is not None and ln.kind == "fragment":
            out[ln.event["id"]] = ln.raw
    return out


def test_fragments_in_any_key_order_are_found_and_other_lines_are_not(ws, agent_dir):
    lines = [
        fragment_line(D, 1, "pm", "uses pnpm"),
        watermark_line(D, 2),
        reordered(fragment_line(D, 3, "editor", 'a "fragment" in other words')),
        '{"type":"watermark","id":"w","text":"not a fragment"}',
        "not json at all, mentions fragment",
        fragment_line(D, 4, "pm", "línea con acentos y 한국어"),
    ]
    write_stream(agent_dir, D, lines)
    index = FragmentIndex(ws)
    assert index.ids(D) == {uuid_at(D, 1), uuid_at(D, 3), uuid_at(D, 4)}
    assert index.get(D, uuid_at(D, 3)).body == 'a "fragment" in other words'
    assert index.get(D, uuid_at(D, 4)).body == "línea con acentos y 한국어"
    assert index.get(D, uuid_at(D, 2)) is None and index.get(D, "nope") is None


def test_an_append_after_an_index_was_built_is_seen_by_the_next_lookup(ws, agent_dir):
    write_stream(agent_dir, D, [fragment_line(D, 1, "t", "first")])
    first = FragmentIndex(ws)
    assert first.ids(D) == {uuid_at(D, 1)}
    write_stream(agent_dir, D, [fragment_line(D, 2, "t", "second")])
    assert FragmentIndex(ws).get(D, uuid_at(D, 2)).body == "second"  # a new index, the shared cache
    assert first.get(D, uuid_at(D, 2)).body == "second"  # and the old one


@pytest.mark.perf_contract(reason="the shared offset cache holds at most its max_entries files")
def test_the_shared_cache_keeps_only_the_most_recent_files(ws, agent_dir, monkeypatch):
    monkeypatch.setattr(fragment_index, "_SHARED", StampCache("test-offsets", max_entries=3))
    days = [f"2026-05-{d:02d}" for d in range(10, 16)]
    for day in days:
        write_stream(agent_dir, day, [fragment_line(day, 1, "t", day)])
    set_clock(lambda: time.time_ns() + 10 * RACY_NS)  # the files have settled
    try:
        index = FragmentIndex(ws)
        for day in days:
            assert index.get(day, uuid_at(day, 1)).body == day
    finally:
        set_clock(None)
    assert len(fragment_index._SHARED) == 3
    assert index.get(days[0], uuid_at(days[0], 1)).body == days[0]  # evicted, indexed again


LINE = st.sampled_from(["fragment", "watermark", "reordered", "malformed", "blank", "crlf"])


@settings(max_examples=60, deadline=None)
@given(st.lists(LINE, max_size=30), st.randoms(use_true_random=False))
def test_the_index_finds_exactly_the_fragments_the_stream_parser_reads(kinds, rng: random.Random):
    out = []
    for n, kind in enumerate(kinds, start=1):
        n = rng.choice([n, n, n, 1])  # sometimes a duplicate id: the last line wins in both
        if kind == "fragment":
            out.append(fragment_line(D, n, "t", f"body {rng.random()}"))
        elif kind == "watermark":
            out.append(watermark_line(D, n))
        elif kind == "reordered":
            out.append(reordered(fragment_line(D, n, "t", "a fragment, reordered")))
        elif kind == "malformed":
            out.append('{"type":"fragment","id":"' + uuid_at(D, 1000 + n) + '", broken')  # ids of its own
        elif kind == "crlf":
            out.append(fragment_line(D, n, "t", "crlf line") + "\r")
        else:
            out.append("")
    data = ("\n".join(out) + "\n").encode("utf-8")
    offsets = index_stream_bytes(data)
    want = truth(data)
    # Every valid fragment is found at its line; the fast path may also list a line that only
    # looks like one (a broken line), which a lookup then parses and refuses.
    for fid, raw in want.items():
        pos, length = offsets[fid]
        assert data[pos:pos + length] == raw
    assert set(offsets) - set(want) <= {uuid_at(D, 1000 + n) for n in range(1, 31)}


def test_an_id_written_with_a_json_escape_is_still_found(ws, agent_dir):
    """The fast path reads the id between quotes; an id JSON-escaped on disk is parsed instead."""
    line = fragment_line(D, 1, "t", "escaped id").replace(uuid_at(D, 1), "odd\\u002did")
    write_stream(agent_dir, D, [line])
    assert FragmentIndex(ws).get(D, "odd-id").body == "escaped id"
