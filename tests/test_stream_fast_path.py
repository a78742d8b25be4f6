"""doctor's fast path over stream lines (`formats.stream_lines`): a line proven to be a plain
fragment is not parsed, and what doctor learns — the ids and the malformed lines — is exactly
what the strict parser and the fragment-line scan say, for canonical lines and their near misses."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dreamdeck.core.formats import stream_lines
from dreamdeck.core.formats.stream_lines import (
    fragment_id_lines_and_problems,
    fragment_ids_and_problems,
    fragment_line_ids,
    parse_stream_bytes,
    stream_problems,
)


def strict(data: bytes) -> tuple[list[str], list[tuple[int, str]]]:
    """The authorities: the fragment-line scan's ids (one a line: an id holding a newline, which
    no citation can name, is left out) and the strict parser's malformed lines."""
    ids = [fid for fid in fragment_line_ids(data) if "\n" not in fid]
    return ids, [(ln.lineno, ln.error) for ln in parse_stream_bytes(data) if ln.error]


def line(fid: str = "019e-1", ts: str = "2026-05-20T01:00:00.000Z", source: str = "s", entry: str = "e",
         topic: str = "t", body: str = "A plain note.", tail: str = "") -> bytes:
    return (f'{{"type":"fragment","id":"{fid}","ts":"{ts}","source":"{source}","entry":"{entry}",'
            f'"topic":"{topic}","body":"{body}"{tail}}}').encode()


WHERE = '"where":{"adapter":"slack-bot","workspace":"T01","chat":"C0456","thread":"th-1","chatName":"incidents"}'
# The optional keys as the append tool writes them, and near misses of them.
_TAILS = st.sampled_from([
    "", ',"who":"Jisoo"', f",{WHERE}", f',"who":"Jisoo",{WHERE}', ',"references":["a","b"]', ',"references":[]',
    f',"references":["x"],"who":"J",{WHERE}', ',"where":{"adapter":"a","workspace":"w","chat":"c","thread":null}',
    ',"where":{"adapter":"a","workspace":"w","chat":"c","thread":null,"workspaceName":"W","chatName":"C",'
    '"parentChat":"p","parentChatName":"P"}',
    ',"who":""', ',"who":null', f',{WHERE},"who":"J"', ',"references":[1]', ',"references":["a",]',
    ',"references":null', ',"where":{"adapter":"a","workspace":"w"}', ',"where":{"adapter":"a","workspace":"w","chat":7}',
    ',"where":{"adapter":"a","workspace":"w","chat":"c","thread":3}', ',"where":{"adapter":"a","workspace":"w","chat":"c","x":1}',
    ',"where":{"workspace":"w","adapter":"a","chat":"c"}', ',"where":{"adapter":"a","workspace":"w","chat":"c","parentChat":1}',
    ',"where":{"adapter":"a","workspace":"w","chat":"c","chatName":"n","thread":"t"}', ',"where":[]', ',"who":"J","who":"K"',
])


def test_a_file_of_plain_fragments_is_read_without_the_parser(monkeypatch):
    tails = ["", ',"who":"Jisoo"', f',"who":"Jisoo",{WHERE}', ',"references":["r1"]']
    times = ["2026-05-20T01:00:00.000Z", "2026-05-20T01:00Z", "2026-05-20T01:00:59Z", "2024-02-29T23:59:00.5Z"]
    data = b"".join(line(fid=f"id-{k}", ts=times[k % 4], body=f"Note {k}, with é and 中.", tail=tails[k // 4 % 4]) + b"\n"
                    for k in range(50))

    def refuse(_raw):
        raise AssertionError("a plain line was parsed")

    monkeypatch.setattr(stream_lines, "_parsed_line", refuse)
    assert fragment_ids_and_problems(data) == ([f"id-{k}" for k in range(50)], [])
    assert stream_problems(data) == []


# Field values: plain text, and the characters that make a line something else (a quote, an
# escape, a control character, a newline, bytes that are not UTF-8).
_TEXT = st.lists(st.sampled_from(list('ab 1-:,{}é中\u2028"\\\t\r\n\x00\x1f\x7f') + ["\\n", '\\"', "\\u0041"]),
                 max_size=6).map("".join)
_TS = st.sampled_from([
    "2026-05-20T01:00:00.000Z", "2026-05-20T01:00Z", "2026-05-20T23:59:59Z", "2024-02-29T00:00:00Z",
    "2000-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
    "2026-04-30T00:00:00Z", "2026-13-01T00:00:00Z", "2026-05-20T24:00:00Z", "2026-05-20T01:00:00",
    "2026-05-20T01:00:00+00:00", "2026-05-20T01:00:60Z", "2026-05-20T01:00:00.Z", "2026-5-20T01:00:00Z",
    "２０２６-05-20T01:00:00Z", "2026-05-20 01:00:00Z", "",
])


@st.composite
def lines(draw) -> bytes:
    fields = ["019e-1", "2026-05-20T01:00:00.000Z", "s", "é 中", "a b-1:{}", "A plain note."]
    spoil = draw(st.integers(-1, 5))  # one field at most is drawn from the troublemakers: a near miss
    if spoil == 1:
        fields[1] = draw(_TS)
    elif spoil >= 0:
        fields[spoil] = draw(_TEXT)
    raw = line(*fields, tail=draw(_TAILS))
    kind = draw(st.integers(-3, 6))  # 0 and below: left as written
    at = draw(st.integers(0, len(raw)))
    if kind == 1:  # a byte dropped
        raw = raw[:at] + raw[at + 1:]
    elif kind == 2:  # a byte put in
        raw = raw[:at] + draw(st.sampled_from([b'"', b"\\", b"\n", b"\r", b"\x00", b"\xff", b"}", b",", b" ", b"\xef\xbb\xbf"])) + raw[at:]
    elif kind == 3:  # torn
        raw = raw[:at]
    elif kind == 4:  # another key after the body, or a key given twice
        raw = raw[:-1] + draw(st.sampled_from([b',"who":"me"', b',"who":""', b',"body":"again"', b',"x":NaN', b',"id":""']))
        raw += b"}"
    elif kind == 5:  # another event, or a blank line
        raw = draw(st.sampled_from([b"", b"  ", b'{"type":"watermark","id":"w","ts":"2026-05-20T01:00:00Z","source":"s","entry":"e"}',
                                    b"[1,2]", b'{"type":"fragment"}']))
    return raw


@settings(max_examples=200, deadline=None)
@given(st.lists(lines(), max_size=6), st.sampled_from([b"\n", b"\r\n"]), st.booleans())
def test_the_fast_path_says_exactly_what_the_strict_parser_says(found, newline, ends_with_newline):
    data = newline.join(found) + (newline if ends_with_newline and found else b"")
    assert fragment_ids_and_problems(data) == strict(data)
    assert stream_problems(data) == strict(data)[1]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.just(line()), lines()), min_size=1, max_size=8))
def test_plain_lines_among_others_read_the_same(found):
    data = b"\n".join(found) + b"\n"
    assert fragment_ids_and_problems(data) == strict(data)


def test_near_misses_of_the_plain_line_are_parsed_and_reported():
    misses = [
        line(ts="2026-02-29T00:00:00Z"),  # no such day
        line(ts="2026-04-31T00:00:00Z"),
        line(fid=""),  # an empty id
        line(body='a "quoted" word'),  # a quote that ends the string early
        line(body="a\x01control"),
        line(body="tab\there"),
        line(body="not\xffutf8").replace(b"\xc3\xbf", b"\xff"),
        line().replace(b'"source"', b'"Source"'),
        line(tail=',"who":""'),
        line(tail=',"where":{"adapter":"a","workspace":"w","chat":"c","thread":3}'),
        line(tail=',"where":{"adapter":"a","workspace":"w","chat":7}'),
    ]
    data = b"\n".join([line(), *misses, line()]) + b"\n"
    ids, problems = fragment_ids_and_problems(data)
    assert (ids, problems) == strict(data)
    assert [lineno for lineno, _ in problems] == list(range(2, 13))


def parsed_lines(monkeypatch) -> list[bytes]:
    """The lines the strict parser is given from now on."""
    seen: list[bytes] = []
    parse = stream_lines._parsed_line

    def counting(raw: bytes):
        seen.append(raw)
        return parse(raw)

    monkeypatch.setattr(stream_lines, "_parsed_line", counting)
    return seen


def test_a_whole_file_with_a_few_other_lines_parses_only_those(monkeypatch):
    others = [
        b'{"type":"watermark","id":"w","ts":"2026-05-20T01:00:00Z","source":"s","entry":"e"}',
        line(body='say \\"hi\\"'),  # an escape: valid, but only the parser may say so
        line(body="a\x01control"),
        b"x" + line(fid="mid-line"),  # a plain line's bytes, not at the start of the line
        b"",
        line(tail=',"who":""'),
    ]
    plain = [line(fid=f"p{k}") for k in range(40)]
    data = b"\n".join(plain[:10] + others[:3] + plain[10:30] + others[3:] + plain[30:]) + b"\n" + line(fid="torn")[:-9]
    seen = parsed_lines(monkeypatch)

    ids, problems = fragment_ids_and_problems(data)
    parsed = list(seen)

    assert (ids, problems) == strict(data)
    assert [lineno for lineno, _ in problems] == [13, 34, 36, 47]
    assert ids[-2:] == ["p39", "torn"]
    assert not any(raw.startswith(b'{"type":"fragment","id":"p') for raw in parsed)


@pytest.mark.parametrize("spoil", [
    lambda plain: plain.replace(b'"body":"A plain note."', b'"body":"A plain\nnote."', 1),  # a string over two lines
    lambda plain: plain.replace(b"A plain note.", b"not \xff utf-8", 1),
    lambda plain: plain.replace(b"2026-05-20T", b"2026-04-31T", 1),  # one date not in the calendar
])
def test_the_whole_file_path_falls_back_to_the_line_by_line_one(spoil):
    data = spoil(b"".join(line(fid=f"p{k}") + b"\n" for k in range(12)))

    assert stream_lines._plain_lines(data) is None
    assert fragment_ids_and_problems(data) == strict(data)


def test_an_id_holding_a_newline_is_left_out_of_the_ids_one_a_line():
    data = line(fid="p1") + b"\n" + line(fid="a\\nb") + b"\n" + line(fid="p2") + b"\n"

    assert fragment_id_lines_and_problems(data) == ("p1\np2", [])
