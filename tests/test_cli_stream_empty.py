"""`dreamdeck stream` never answers a day with nothing to show by silence: one line on stderr
says so (stdout stays empty and parseable), and how many fragments were forgotten there."""
from __future__ import annotations

from tests.support.memory import commit_all, fragment_line, uuid_at, write_stream
from tests.support.processes import run_cli

DAY = "2026-05-20"


def test_a_day_whose_every_fragment_is_forgotten_says_so_on_stderr(agent_dir):
    write_stream(agent_dir, DAY, [fragment_line(DAY, 1, "misc", "Lunch is at noon today.")])
    commit_all(agent_dir)
    run_cli(agent_dir, "forget", f"{DAY}#{uuid_at(DAY, 1)}", "--reason", "noise")

    proc = run_cli(agent_dir, "stream")
    assert proc.stdout == ""
    assert proc.stderr.strip() == f"dreamdeck: no fragment to show on {DAY} (1 forgotten, hidden)"
    assert run_cli(agent_dir, "stream", "--json").stdout == ""


def test_a_workspace_with_no_stream_yet_says_how_to_start_one(agent_dir):
    proc = run_cli(agent_dir, "stream")
    assert proc.stdout == ""
    assert proc.stderr.strip() == "dreamdeck: no stream days yet (`dreamdeck remember TEXT --topic T` appends one)"
