"""A stream file named for a day that does not exist (`2026-02-30.jsonl`) never blocks dreaming:
dreamdeck neither dreams nor shows it, and `doctor` names it.

Found by the attacker round (session 10): its fragments went to the dreamer like any day's, and
the door then refused the whole change ("the change names a stream day that is not a date"), so
every dream after it was refused while the file stayed — and `doctor` said nothing about it.
"""
from __future__ import annotations

from tests.support.memory import commit_all, fragment_line, write_stream
from tests.support.outside import run_cli


def test_a_stream_named_for_an_impossible_day_is_not_dreamed_and_doctor_names_it(agent_dir):
    write_stream(agent_dir, "2026-05-20", [fragment_line("2026-05-20", 1, "kayak", "the kayak is stored by the river")])
    (agent_dir / "memory" / "streams" / "2026-02-30.jsonl").write_text(
        fragment_line("2026-02-28", 1, "kayak", "the kayak paddles are blue") + "\n")
    commit_all(agent_dir)

    dream = run_cli(agent_dir, "dream", "--dreamer", "offline", "--review", "none")
    doctor = run_cli(agent_dir, "doctor")

    assert dream.returncode == 0, dream.stdout + dream.stderr
    assert "not applied" not in dream.stdout + dream.stderr
    assert (agent_dir / "memory" / "topics" / "kayak.md").exists()
    assert "memory/streams/2026-02-30.jsonl" in doctor.stdout, doctor.stdout
    assert "Traceback" not in dream.stderr + doctor.stderr
