"""The command line refuses what it cannot do well, in one line on stderr with a non-zero status,
and says what it skipped: a negative limit, an unknown sort direction, contradictory flags, a
dreamer without its key, malformed stream lines."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.git import git
from tests.support.memory import fragment_line, uuid_at, write_stream

TODAY = "2026-05-22"
REPO = Path(__file__).resolve().parent.parent


def run(root: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dreamdeck", "-w", str(root), "--today", TODAY, *args],
                          capture_output=True, text=True, cwd=REPO, env=env)


def refused(proc: subprocess.CompletedProcess, says: str, status: int = 2) -> None:
    assert proc.returncode == status, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stderr.startswith("dreamdeck") and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert says in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == "", proc.stdout


def test_a_negative_or_zero_limit_is_refused_in_one_line(agent_dir):
    refused(run(agent_dir, "log", "--limit", "-1"), "--limit: must be a positive number, not -1")
    refused(run(agent_dir, "log", "--limit", "0"), "--limit: must be a positive number, not 0")
    refused(run(agent_dir, "dreams", "--limit", "-1"), "--limit: must be a number, 0 for all, not -1")
    refused(run(agent_dir, "log", "--limit", "many"), "--limit: must be a positive number, not 'many'")


def test_an_unknown_sort_direction_is_refused(agent_dir):
    refused(run(agent_dir, "topics", "--sort", "cites:sideways"), "unknown sort direction 'sideways'; use asc or desc")


def test_contradictory_flags_are_refused(agent_dir):
    refused(run(agent_dir, "topics", "--sort", "cites:asc", "--reverse"), "--reverse contradicts cites:asc")
    refused(run(agent_dir, "stream", "--date", TODAY, "--all"), "--date and --all contradict each other")
    refused(run(agent_dir, "approve", "p-1", "--force"), "--force apply to reflections")


def test_a_usage_error_is_one_line(agent_dir):
    refused(run(agent_dir, "dream", "--review", "bogus"), "invalid choice: 'bogus'")
    refused(run(agent_dir, "reject", "r-1"), "the following arguments are required: --reason")


def test_the_anthropic_dreamer_without_a_key_errs_on_stderr_and_changes_nothing(agent_dir):
    write_stream(agent_dir, TODAY, [fragment_line(TODAY, 1, "pm", "uses pnpm")])
    before = git(agent_dir, "rev-parse", "HEAD")
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    proc = run(agent_dir, "dream", "--dreamer", "anthropic", env=env)
    refused(proc, "the anthropic dreamer needs ANTHROPIC_API_KEY")
    assert git(agent_dir, "rev-parse", "HEAD") == before
    assert not (agent_dir / "memory/meta/receipts").exists()
    assert not (agent_dir / "memory/.dreaming-state.json").exists()


def test_stream_says_how_many_malformed_lines_it_skipped_and_where(agent_dir):
    day = "2026-05-21"
    write_stream(agent_dir, day, [
        fragment_line(day, 1, "pm", "uses pnpm"), "{not json", fragment_line(day, 2, "pm", "pnpm again"),
        '{"type":"fragment","id":"x"}',
    ])
    proc = run(agent_dir, "stream", "--date", day)
    assert proc.returncode == 0, proc.stderr
    assert [ln.split()[1] for ln in proc.stdout.splitlines()] == [f"{day}#{uuid_at(day, n)}" for n in (1, 2)]
    assert proc.stderr.strip() == (
        f"dreamdeck: skipped 2 malformed lines in memory/streams/{day}.jsonl (lines 2, 4); "
        "`dreamdeck doctor` says more")
    clean = run(agent_dir, "stream", "--date", day, "--json")
    assert clean.stdout.count("\n") == 2 and "skipped 2 malformed lines" in clean.stderr
