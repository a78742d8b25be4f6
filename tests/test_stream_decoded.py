"""doctor's compiled check of a whole stream day (`formats.stream_decoded`, msgspec): where it
answers, it says exactly what the strict parser and the fragment-line scan say; where they could
differ (duplicate keys, `\\u` surrogates, bad UTF-8, a BOM, numbers, extra keys, a bad ts, a bad
line at the start, middle or end) it leaves the day to the strict path."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dreamdeck.core.formats.stream_decoded import decoded_id_lines, id_lines_and_problems
from tests.test_stream_fast_path import WHERE, line, lines, strict

TAILS = ["", ',"who":"Jisoo"', f',"who":"Jisoo",{WHERE}', ',"references":["r1"]', ',"references":[]',
         ',"where":{"adapter":"a","workspace":"w","chat":"c","thread":null,"workspaceName":"W","chatName":"C",'
         '"parentChat":"p","parentChatName":"P"}']
WATERMARK = b'{"type":"watermark","id":"w1","ts":"2026-05-20T02:00:00.000Z","source":"s","entry":"e"}'
LEGACY = b'{"type":"legacy_prose","ts":"2026-05-20T03:00:00.000Z","text":"old notes","origin":"migration"}'


def day(*found: bytes) -> bytes:
    return b"\n".join(found) + b"\n"


def agrees(data: bytes) -> str | None:
    """The compiled answer, held to the strict one wherever it gives one."""
    ids = decoded_id_lines(data)
    if ids is not None:
        assert (ids.split("\n") if ids else [], []) == strict(data)
    ids_strict, problems = strict(data)
    assert id_lines_and_problems(data) == ("\n".join(ids_strict), problems)
    return ids


def test_a_day_the_append_tool_wrote_is_proven_in_one_call():
    plain = [line(fid=f"id-{k}", ts=f"2026-05-20T{k % 24:02d}:{k % 60:02d}:59.{k:03d}Z", body=f"Note {k}, é 中 \\\"q\\\".",
                  tail=TAILS[k % len(TAILS)]) for k in range(60)]
    data = day(*plain[:30], WATERMARK, LEGACY, *plain[30:])

    assert agrees(data) == "\n".join(f"id-{k}" for k in range(60))


@pytest.mark.parametrize("ts", ["2024-02-29T23:59:59.999Z", "2000-02-29T00:00:00.000Z", "2026-12-31T20:09:09.000Z"])
def test_a_ts_in_the_calendar_is_proven(ts):
    assert agrees(day(line(fid="a"), line(fid="b", ts=ts))) == "a\nb"


@pytest.mark.parametrize("ts", [
    "2026-02-29T00:00:00.000Z", "1900-02-29T00:00:00.000Z", "2026-04-31T00:00:00.000Z", "2026-13-01T00:00:00.000Z",
    "2026-05-20T24:00:00.000Z", "2026-05-20T29:00:00.000Z", "2026-05-20T30:00:00.000Z", "2026-05-20T01:60:00.000Z",
    "2026-05-20T01:00:60.000Z", "2026-05-20T01:00:00.000+", "2026-05-20 01:00:00.000Z", "２０２６-05-20T01:00:00.000Z",
    "2026-05-20T01:00Z", "2026-05-20T01:00:00.5Z",  # valid, in shapes left to the strict path
])
def test_any_other_ts_is_left_to_the_strict_path(ts):
    assert agrees(day(line(fid="a"), line(fid="b", ts=ts), line(fid="c"))) is None


@pytest.mark.parametrize("near", [
    line(tail=',"x":1'),  # a key TypeClaw's schema does not name (the strict parser takes it)
    line(body="lone \\ud800 high"),  # Python's json takes a lone surrogate, msgspec does not
    line(body="lone \\udc00 low"),
    b"\xef\xbb\xbf" + line(),  # a BOM
    line(body="bad \xff utf-8").replace(b"\xc3\xbf", b"\xff"),
    line(body="surrogate \xed\xa0\x80 in UTF-8").replace("\xed\xa0\x80".encode(), b"\xed\xa0\x80"),
    line().replace(b'"body":"A plain note."', b'"body":1'),  # a number
    line().replace(b'"body":"A plain note."', b'"body":1e400'),
    line(fid=""),
    line(tail=',"who":""'),
    line(body="a\x01control"),
    line(fid="a\\nb"),  # an id holding a newline: valid, but no citation can name it
    line().replace(b'"type":"fragment"', b'"type":"fragment","type":"watermark"'),
    b'{"type":"legacy_prose","ts":"2026-05-20T03:00:00.000Z","text":"t","origin":"other"}',
    b"[1,2]", b"{}", b"  ", line() + b" ", b" " + line(), line() + b"\r",
    line() + line(),  # two objects on one line
    line().replace(b',"ts"', b',\n"ts"'),  # one object over two lines
])
@pytest.mark.parametrize("where", ["start", "middle", "end"])
def test_a_near_miss_anywhere_in_the_day_leaves_it_to_the_strict_path(near, where):
    plain = [line(fid=f"p{k}") for k in range(4)]
    at = {"start": 0, "middle": 2, "end": 4}[where]
    data = day(*plain[:at], near, *plain[at:])

    assert agrees(data) is None


@pytest.mark.parametrize("valid, fid", [
    (line(fid="a").replace(b'"body":"A plain note."', b'"body":"x","body":"y"'), "a"),  # a key given twice
    (line(fid="a").replace(b'"type":"fragment"', b'"type":"fragment","type":"fragment"'), "a"),
    (line(fid="a\\/b", body='\\"\\\\\\b\\f\\n\\r\\t'), "a/b"),  # escapes
    (b'{"body":"b","topic":"t","entry":"e","source":"s","ts":"2026-05-20T01:00:00.000Z","id":"a","type":"fragment"}', "a"),
    (line(fid="a", body='the word id and \\"id\\"'), "a"),
    (line(fid="a", body="pair \\ud83d\\ude00 ok"), "a"),  # a surrogate pair
    (line(fid="a").replace(b'"body"', b'"bod\\u0079"'), "a"),  # a key spelled with an escape
])
def test_what_both_take_reads_the_same(valid, fid):
    assert agrees(day(line(fid="p0"), valid)) == f"p0\n{fid}"


@pytest.mark.parametrize("valid", [
    line(fid="a").replace(b'"id":"a"', b'"id":"a","id":"b"'),  # JSON reads "b", the fragment-line scan "a"
    line(fid="a").replace(b'"topic":"t"', b'"topic":"id"'),  # "id" as a value: counted, so not proven
    line(fid="a").replace(b'"id"', b'"i\\u0064"'),  # the id key spelled with an escape: not counted
    line(fid="\\u0061"),  # an escape that could spell "i" or "d"
])
def test_a_key_given_twice_or_an_i_or_d_escape_leaves_the_day_to_the_strict_path(valid):
    assert agrees(day(line(fid="p0"), valid)) is None


def test_a_day_without_a_fragment_and_an_empty_day():
    assert agrees(day(WATERMARK, LEGACY)) == ""
    assert agrees(b"") == ""
    assert agrees(b"\n") is None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.just(line()), lines()), min_size=1, max_size=6), st.booleans())
def test_the_compiled_check_says_what_the_strict_parser_says(found, ends_with_newline):
    agrees(b"\n".join(found) + (b"\n" if ends_with_newline else b""))
