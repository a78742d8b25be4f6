"""formats.stream_lines' fragment-line scanner, held to the full stream parser.

The scanner finds the lines that claim to be fragments without parsing the append tool's
layout. Its contract, checked here on generated streams (reordered keys, spaces, escapes,
malformed lines, CRLF, blank lines, a partial last line):
- every fragment the parser reads is found, at its offset, with its length and its id;
- a line found that the parser does not read as a fragment is one it reports malformed, and it
  is found only because it claims to be one: it starts with `{"type":"fragment"` or is a JSON
  object whose type is "fragment";
- the ids-only reading agrees with the full scan, and so does the count, except that it does not
  look for a type spelled with escapes (StreamView checks a counted day when it reads it).
"""
from __future__ import annotations

import json
import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from dreamdeck.core.formats.events import build_fragment, build_watermark, serialize_event
from dreamdeck.core.formats.stream_lines import (
    FRAGMENT_PREFIX,
    count_fragment_lines,
    fragment_line_ids,
    parse_stream_bytes,
    scan_fragment_lines,
)

TS = "2026-05-22T10:00:00.000Z"
LEGACY = {"type": "legacy_prose", "ts": TS, "text": "old notes", "origin": "migration"}

ids = st.one_of(
    st.from_regex(r"[0-9a-f]{8}-[0-9a-f]{4}", fullmatch=True),
    st.text(min_size=1, max_size=12),  # quotes, backslashes, control characters, any script
)
texts = st.text(max_size=30) | st.sampled_from(['a "fragment" here', '"type":"fragment"', "back\\slash", "fragment"])


@st.composite
def fragment_events(draw) -> dict:
    return build_fragment(
        draw(ids), TS, source="sess-1", entry="e1", topic=draw(texts), body=draw(texts),
        who=draw(st.none() | st.just("alice")),
    )


@st.composite
def written(draw, events) -> str:
    """An event the way some writer puts it on a line: the append tool's layout, other key
    orders, spaces, every non-ASCII character escaped, or "fragment" spelled with an escape."""
    ev = draw(events)
    layout = draw(st.sampled_from(["append-tool", "reordered", "spaced", "ascii", "escaped-type"]))
    if layout == "append-tool":
        return serialize_event(ev)
    if layout == "reordered":
        items = list(ev.items())
        draw(st.randoms(use_true_random=False)).shuffle(items)
        return json.dumps(dict(items), ensure_ascii=False, separators=(",", ":"))
    if layout == "spaced":
        return json.dumps(ev, ensure_ascii=False, separators=(", ", ": "))
    if layout == "ascii":
        return json.dumps(ev, separators=(",", ":"))
    k = draw(st.integers(0, 7))  # one letter of "fragment" as an escape, in either hex case
    letter = draw(st.sampled_from([f"\\u{ord('fragment'[k]):04x}", f"\\u{ord('fragment'[k]):04X}"]))
    return serialize_event(ev).replace('"fragment"', '"' + "fragment"[:k] + letter + "fragment"[k + 1:] + '"', 1)


@st.composite
def broken(draw) -> bytes:
    """A line the parser reports malformed."""
    kind = draw(st.sampled_from(["torn", "bad-event", "not-json", "bad-utf8", "array", "nested"]))
    if kind == "torn":  # a line cut short, e.g. by a crash mid-append
        line = draw(written(fragment_events())).encode("utf-8")
        return line[: draw(st.integers(0, max(0, len(line) - 1)))]
    if kind == "bad-event":
        return ('{"type":"fragment","id":' + json.dumps(draw(ids)) + ',"ts":"nope"}').encode("utf-8")
    if kind == "not-json":
        return draw(st.text(max_size=40)).replace("\n", " ").replace("\r", " ").encode("utf-8")
    if kind == "bad-utf8":
        return serialize_event(draw(fragment_events())).encode("utf-8").replace(b'"body":"', b'"body":"\xff', 1)
    if kind == "array":
        return b'[{"type":"fragment","id":"x"}]'
    return b'{"type":"watermark","id":"w","ts":"' + TS.encode() + b'","source":"s","entry":"e","x":{"type":"fragment"}}'


line_bytes = st.one_of(
    written(fragment_events()).map(str.encode),
    written(fragment_events()).map(str.encode),
    written(st.just(build_watermark("w1", TS, source="s", entry="e"))).map(str.encode),
    st.just(serialize_event(LEGACY).encode()),
    broken(),
    st.sampled_from([b"", b"   ", b"\t"]),
)


@st.composite
def streams(draw) -> bytes:
    lines = draw(st.lists(line_bytes, max_size=25))
    crlf = draw(st.lists(st.booleans(), min_size=len(lines), max_size=len(lines)))
    data = b"".join(line + (b"\r\n" if cr else b"\n") for line, cr in zip(lines, crlf))
    if draw(st.booleans()):  # a partial last line: one still being written, or a file's last line without newline
        data += draw(line_bytes)
    return data


def claims_to_be_a_fragment(raw: bytes) -> bool:
    """The contract's words for a line the parser does not read as a fragment."""
    if raw.startswith(FRAGMENT_PREFIX):
        return True
    try:
        ev = json.loads(raw.decode("utf-8", "replace"))
    except ValueError:
        return False
    return isinstance(ev, dict) and ev.get("type") == "fragment"


def found(data: bytes, base: int = 0, complete: bool = False) -> list[tuple[int, bytes, str | None]]:
    lines = scan_fragment_lines(data, base, complete=complete)
    assert len(lines.starts) == len(lines.ends) == len(lines.ids)
    return [(s, data[s - base:e - base], fid) for s, e, fid in zip(lines.starts, lines.ends, lines.ids)]


def every_line(data: bytes) -> list[tuple[int, bytes]]:
    out, offset = [], 0
    for raw in data.split(b"\n"):
        out.append((offset, raw))
        offset += len(raw) + 1
    return out


@settings(max_examples=150, deadline=None)
@given(streams())
def test_every_fragment_the_parser_reads_is_found_at_its_offset_with_its_id(data):
    got = {s: (raw, fid) for s, raw, fid in found(data)}
    for ln in parse_stream_bytes(data):
        if ln.kind == "fragment":
            assert got[ln.offset] == (ln.raw, ln.event["id"])


@settings(max_examples=150, deadline=None)
@given(streams())
def test_any_other_line_found_is_malformed_and_claims_to_be_a_fragment(data):
    parsed = {ln.offset: ln for ln in parse_stream_bytes(data)}
    fragments = {off for off, ln in parsed.items() if ln.kind == "fragment"}
    expected_extra = {off for off, raw in every_line(data)
                      if off not in fragments and raw.strip() and claims_to_be_a_fragment(raw)}
    extra = {s for s, _, _ in found(data) if s not in fragments}
    assert extra == expected_extra
    assert all(parsed[off].error is not None for off in extra)


@settings(max_examples=100, deadline=None)
@given(streams())
def test_a_found_line_that_is_json_has_the_id_json_reads(data):
    for _, raw, fid in found(data):
        try:
            ev = json.loads(raw.decode("utf-8", "replace"))
        except ValueError:
            continue
        want = ev.get("id") if isinstance(ev, dict) else None
        assert fid == (want if isinstance(want, str) and want else None)


@settings(max_examples=100, deadline=None)
@given(streams(), st.integers(0, 10**9))
def test_complete_lines_leave_the_partial_last_line_for_later(data, base):
    cut = data.rfind(b"\n") + 1
    complete = scan_fragment_lines(data, base, complete=True)
    assert complete.scanned == base + cut
    assert found(data, base, complete=True) == [(s + base, raw, fid) for s, raw, fid in found(data[:cut])]
    assert scan_fragment_lines(data, base).scanned == base + len(data)


@settings(max_examples=100, deadline=None)
@given(streams())
def test_the_count_and_the_ids_agree_with_the_full_scan(data):
    complete = scan_fragment_lines(data, complete=True)
    counted = count_fragment_lines(data)
    if counted is not None and re.search(rb"\\u00[67]", data) is None:
        assert counted == (len(complete.starts), complete.scanned)
    elif counted is not None:  # a type spelled with escapes is left to whoever reads the day
        assert counted[0] <= len(complete.starts) and counted[1] == complete.scanned
    assert fragment_line_ids(data) == [fid for fid in scan_fragment_lines(data).ids if fid is not None]
    assert scan_fragment_lines(data, with_ids=False).ids is None


def append_tool_stream(n: int, rng: random.Random) -> bytes:
    out = []
    for k in range(n):
        out.append(serialize_event(build_fragment(f"id-{k}", TS, source="s", entry="e", topic="t",
                                                  body=f"body {rng.random()} with a \\ and a \"quote\"")))
        if k % 10 == 9:
            out.append(serialize_event(build_watermark(f"w-{k}", TS, source="s", entry="e")))
    return ("\n".join(out) + "\n").encode("utf-8")


def test_the_append_tools_layout_is_counted_without_a_full_scan():
    data = append_tool_stream(50, random.Random(1))
    assert count_fragment_lines(data) == (50, len(data))
    assert fragment_line_ids(data) == [f"id-{k}" for k in range(50)]


def test_a_line_in_another_layout_is_counted_by_the_full_scan_instead():
    data = append_tool_stream(5, random.Random(2)) + b'{"id":"late","type":"fragment"}\n'
    assert count_fragment_lines(data) is None
    assert fragment_line_ids(data)[-1] == "late"


def test_an_escaped_or_empty_id_is_read_the_way_json_reads_it():
    data = (b'{"type":"fragment","id":"a\\u002db","ts":"x"}\n'
            b'{"type":"fragment","id":"","ts":"x"}\n'
            b'{"type":"fragment","id":"plain","ts":"x"}\n'
            b'{"type":"fragment","id":"torn\n')
    assert scan_fragment_lines(data).ids == ["a-b", None, "plain", None]
    assert fragment_line_ids(data) == ["a-b", "plain"]


def test_a_line_torn_inside_its_id_never_takes_the_next_lines_bytes_for_it():
    torn = b'{"type":"fragment","id":"ab'
    whole = serialize_event(build_fragment("cd", TS, source="s", entry="e", topic="t", body="b")).encode()
    mark = serialize_event(build_watermark("w", TS, source="s", entry="e")).encode()
    for before in (b"", mark + b"\n"):
        for after in (mark + b"\n", whole + b"\n", whole):
            data = before + torn + b"\n" + after
            assert scan_fragment_lines(data).ids == ([None, "cd"] if after.startswith(b'{"type":"fragment"') else [None])
            assert fragment_line_ids(data) == (["cd"] if after.startswith(b'{"type":"fragment"') else [])
