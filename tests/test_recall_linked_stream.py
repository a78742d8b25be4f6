"""A stream with a foreign second hard link: read like every stream (recall agrees with the
stream view and dreaming), never written through (an append refuses it; the outside name keeps
its bytes). The rule is in docs/ARCHITECTURE.md (io, the no-links rule).

Raised by the attacker round (session 10, attacker-8): `ln /outside/x.jsonl
memory/streams/<day>.jsonl` made recall return the outside file's lines. Reading them crosses no
boundary (the bytes are at a stream's name, as if copied in); writing through the link would.
"""
from __future__ import annotations

import json
import os

from tests.support.memory import fragment_line
from tests.support.outside import D, run_cli


def test_a_hard_linked_stream_is_recalled_as_the_stream_view_shows_it_and_never_written_through(agent_dir, tmp_path):
    outside = tmp_path / "outside.jsonl"
    outside.write_text(fragment_line(D, 1, "tea", "the user drinks oolong tea") + "\n")
    streams = agent_dir / "memory" / "streams"
    streams.mkdir(parents=True)
    os.link(outside, streams / f"{D}.jsonl")
    before = outside.read_bytes()

    recalled = run_cli(agent_dir, "recall", "oolong", "--json")
    viewed = run_cli(agent_dir, "stream", "--date", D, "--json")
    appended = run_cli(agent_dir, "remember", "the user also likes sencha", "--topic", "tea")

    assert recalled.returncode == 0, recalled.stderr
    assert [b["key"] for b in json.loads(recalled.stdout)] == [f"{D}#{json.loads(viewed.stdout)['id']}"]
    assert appended.returncode not in (0, 70) and "Traceback" not in appended.stderr
    assert "hard link" in appended.stderr or "link" in appended.stderr, appended.stderr
    assert outside.read_bytes() == before
