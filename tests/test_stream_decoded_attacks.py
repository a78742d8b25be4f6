"""msgspec's one-call proof of a stream day meets hostile lines (issue 10, item 5): a value nested
a hundred thousand deep before the "type" key, NaN and Infinity, a 5,000-digit number. Each is
left to the strict parser, which words the problem: the same answer, never a RecursionError."""
from __future__ import annotations

import json

import pytest

from dreamdeck.core.formats.stream_decoded import id_lines_and_problems
from dreamdeck.core.formats.stream_lines import fragment_id_lines_and_problems
from tests.support.memory import uuid_at, write_stream
from tests.support.processes import run_cli

D = "2026-05-22"
GOOD = json.dumps({"type": "fragment", "id": uuid_at(D, 1), "ts": "2026-05-22T01:00:00.001Z", "source": "s",
                   "entry": "e", "topic": "t", "body": "b"}).encode()
HOSTILE = {
    "nested before the tag": b'{"x":' + b"[" * 100_000 + b"]" * 100_000 + b"," + GOOD[1:],
    "nested in a field": GOOD[:-1] + b',"references":' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "NaN": GOOD[:-1] + b',"n":NaN}',
    "Infinity": GOOD[:-1] + b',"references":[Infinity]}',
    "a 5,000-digit number": GOOD[:-1] + b',"references":[' + b"9" * 5000 + b"]}",
}


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_line_gets_the_strict_parsers_answer(name):
    for day in (HOSTILE[name], HOSTILE[name] + b"\n" + GOOD + b"\n"):
        assert id_lines_and_problems(day) == fragment_id_lines_and_problems(day)


def test_doctor_names_a_line_nested_too_deep_before_its_tag(agent_dir):
    write_stream(agent_dir, D, [HOSTILE["nested before the tag"].decode(), GOOD.decode()])

    out = run_cli(agent_dir, "doctor", check=False)

    assert "malformed-line" in out.stdout and f"memory/streams/{D}.jsonl" in out.stdout
