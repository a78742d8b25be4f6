"""Other processes, started the one way: the command line as a person or a script runs it
(`python -m dreamdeck`), and the tests' own programs in tests/faults (`python -m tests.faults.NAME`)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support import REPO


def cli_command(root: Path, *args: str, today: str | None = None) -> list[str]:
    return [sys.executable, "-m", "dreamdeck", "-w", str(root), *(["--today", today] if today else []), *args]


def run_cli(root: Path, *args: str, today: str | None = None, check: bool = True,
            env: dict | None = None) -> subprocess.CompletedProcess:
    """`dreamdeck -w ROOT [--today DAY] ARGS` to the end: its output and status. Whatever the
    outcome, never a traceback; with `check`, a non-zero status fails the test."""
    proc = subprocess.run(cli_command(root, *args, today=today), capture_output=True, text=True, cwd=REPO, env=env)
    assert "Traceback" not in proc.stderr, proc.stderr
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}: {proc.stderr}")
    return proc


def start_cli(root: Path, *args: str, today: str | None = None) -> subprocess.Popen:
    """The same command left running (e.g. `stream --follow`), its output on raw byte pipes."""
    return subprocess.Popen(cli_command(root, *args, today=today), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=REPO)


def run_program(name: str, *args: str, **kwargs) -> subprocess.CompletedProcess:
    """`python -m tests.faults.NAME ARGS` to the end (subprocess.run's keywords pass through)."""
    return subprocess.run([sys.executable, "-m", f"tests.faults.{name}", *args], cwd=REPO, **kwargs)


def start_program(name: str, *args: str, **kwargs) -> subprocess.Popen:
    """`python -m tests.faults.NAME ARGS` left running (Popen's keywords pass through)."""
    return subprocess.Popen([sys.executable, "-m", f"tests.faults.{name}", *args], cwd=REPO, **kwargs)
