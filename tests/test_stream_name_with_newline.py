"""A file named `<day>.jsonl` followed by a newline is not that day's stream.

Found by the attacker round: Python's `$` also matches before a final newline, so
`2026-05-22.jsonl\\n` was listed as a second file for 2026-05-22 — doctor read and reported its
lines as the day's, while TypeClaw (`/^\\d{4}-\\d{2}-\\d{2}\\.jsonl$/`, where JavaScript's `$` is the
end) and dreamdeck's views ignore it. One rule for every reader: the name is exactly the pattern.
"""
from __future__ import annotations

from pathlib import Path

from dreamdeck.core.formats.stream_lines import STREAM_FILE
from dreamdeck.core.git.commit import STREAM_PATH
from dreamdeck.core.store.streams import list_stream_days
from dreamdeck.core.workspace import Workspace
from tests.support.memory import fragment_line
from tests.support.outside import D, run_cli, seeded_agent


def test_a_name_with_a_final_newline_is_no_stream_name():
    assert STREAM_FILE.match(f"{D}.jsonl") and not STREAM_FILE.match(f"{D}.jsonl\n")
    assert STREAM_PATH.match(f"memory/streams/{D}.jsonl") and not STREAM_PATH.match(f"memory/streams/{D}.jsonl\n")


def test_a_twin_named_with_a_newline_is_not_read_as_the_days_stream(agent_dir: Path):
    seeded = seeded_agent(agent_dir)
    twin = seeded / "memory" / "streams" / f"{D}.jsonl\n"
    twin.write_text(fragment_line(D, 9, "tea", "only in the twin") + "\n{not json\n", encoding="utf-8")

    days = list_stream_days(Workspace.open(seeded, today=D))
    doctor = run_cli(seeded, "doctor")

    assert [p.name for _, p in days] == [f"{D}.jsonl"]
    assert "Traceback" not in doctor.stderr
    assert "malformed-line" not in doctor.stdout, doctor.stdout
