"""doctor's fast path over stream lines (`formats.stream_lines`): a line proven to be a plain
fragment is not parsed, and what doctor learns — the ids and the malformed lines — is exactly
what the strict parser and the fragment-line scan say, for canonical lines and their near misses."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from dreamdeck.core.formats import stream_lines
from dreamdeck.core.formats.stream_lines import (
    fragment_ids_and_problems,
    fragment_line_ids,
    parse_stream_bytes,
    stream_problems,
)


def strict(data: bytes) -> tuple[list[str], list[tuple[int, str]]]:
    """The authorities: the fragment-line scan's ids and the strict parser's malformed lines."""
    return fragment_line_ids(data), [(ln.lineno, ln.error) for ln in parse_stream_bytes(data) if ln.error]


def line(fid: str = "019e-1", ts: str = "2026-05-20T01:00:00.000Z", source: str = "s", entry: str = "e",
         topic: str = "t", body: str = "A plain note.") -> bytes:
    return (f'{{"type":"fragment","id":"{fid}","ts":"{ts}","source":"{source}","entry":"{entry}",'
            f'"topic":"{topic}","body":"{body}"}}').encode()


def test_a_file_of_plain_fragments_is_read_without_the_parser(monkeypatch):
    data = b"".join(line(fid=f"id-{k}", body=f"Note {k}, with é and 中.") + b"\n" for k in range(50))

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
    raw = line(draw(st.one_of(st.just("019e-1"), _TEXT)), draw(_TS), draw(_TEXT), draw(_TEXT), draw(_TEXT),
               draw(st.one_of(st.just("A plain note."), _TEXT)))
    kind = draw(st.integers(0, 6))
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
    ]
    data = b"\n".join([line(), *misses, line()]) + b"\n"
    ids, problems = fragment_ids_and_problems(data)
    assert (ids, problems) == strict(data)
    assert [lineno for lineno, _ in problems] == [2, 3, 4, 5, 6, 7, 8, 9]
