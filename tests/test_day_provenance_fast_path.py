"""A stream day's who/time/where record (`index.tc_provenance.read_day`) read by one expression
over the bytes is exactly the record the strict parse of every line gives — on days of plain
fragment lines and on days mixing every shape the expression must leave to the parser."""
from __future__ import annotations

import random

import pytest

from dreamdeck.core.index.tc_provenance import _plain_times, _read_day_parsed, read_day
from tests.support.memory import fragment_line, watermark_line

DAY = "2026-05-20"

ODD_LINES = [
    b"",  # a blank line
    b"   ",
    b'{"type":"fragment","id":"x1","ts":"2026-02-30T01:00:00Z","source":"s","entry":"e","topic":"t","body":"b"}',  # no such date
    b'{"type":"fragment","id":"x2","ts":"2026-05-20T01:00:00Z","source":"s","entry":"e","topic":"t","body":"caf\\u00e9"}',
    b'{"type":"fragment","id":"x3","ts":"2026-05-20T01:00:00Z","source":"s","entry":"e","topic":"t","body":"b"}\r',
    b'{"type":"fragment","id":"x4","ts":"2026-05-20T01:00:00Z","source":"s","entry":"e","topic":"t","body":"\xff"}',
    b'{"type":"fragment","id":"","ts":"2026-05-20T01:00:00Z","source":"s","entry":"e","topic":"t","body":"b"}',
    b'{"id":"x5","type":"fragment","ts":"2026-05-20T01:00:00Z","source":"s","entry":"e","topic":"t","body":"b"}',
    b'{"type":"fragment","id":"x6","ts":"2026-05-20T01:00:00Z","source":"s","entry":"e","topic":"t","body":"b","who":"Jisoo"}',
    b"not json at all",
]


def _plain(n: int, rng: random.Random) -> bytes:
    return fragment_line(DAY, rng.choice([n, 1, 2]), "topic", f"body {n} café").encode()  # ids repeat: a later line wins


@pytest.mark.parametrize("seed", range(6))
def test_the_fast_record_is_the_strict_parses_record(seed):
    rng = random.Random(seed)
    lines = [_plain(n, rng) for n in range(1, 40)]
    if seed:  # seed 0: every line plain, the fast path's own case
        for _ in range(rng.randrange(1, 3)):
            lines.insert(rng.randrange(len(lines)), rng.choice([*ODD_LINES, watermark_line(DAY, 90).encode()]))
    data = b"\n".join(lines) + b"\n"
    fast, parsed = read_day(data), _read_day_parsed(data)
    assert (list(fast.times.items()), fast.people) == (list(parsed.times.items()), parsed.people)
    assert (_plain_times(data) is not None) is (seed == 0)  # the expression vouches only for plain days


def test_a_day_without_its_last_newline_and_an_empty_day_are_read_as_the_parse_reads_them():
    line = fragment_line(DAY, 1, "topic", "body").encode()
    for data in (line, b"", b"\n"):
        assert read_day(data) == _read_day_parsed(data)
