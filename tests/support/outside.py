"""What the side-door tests (symbolic links, hard links, special files) share: an outside folder
holding a secret, a seeded agent, a CLI run that cannot hang, and the one-line refusal check."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.memory import cite, commit_all, fragment_line, shard_text, write_shard, write_stream

D = "2026-05-22"


def run_cli(root: Path, *args: str) -> subprocess.CompletedProcess:
    """`dreamdeck -w ROOT --today D ARGS`, given a minute (a verb blocked on a FIFO fails, not hangs)."""
    return subprocess.run([sys.executable, "-m", "dreamdeck", "-w", str(root), "--today", D, *args],
                          capture_output=True, text=True, timeout=60)


def one_line_refusal(proc: subprocess.CompletedProcess, names: str) -> None:
    assert proc.returncode not in (0, 70), proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert names in proc.stderr, proc.stderr


def outside_folder(tmp_path: Path, secret: bytes) -> Path:
    """A folder outside the agent's, whose `passwd` holds `secret`."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "passwd").write_bytes(secret)
    return folder


def seeded_agent(agent_dir: Path) -> Path:
    """One fragment on D and the topic citing it, committed."""
    write_stream(agent_dir, D, [fragment_line(D, 1, "tea", "the user drinks green tea")])
    write_shard(agent_dir, "tea", shard_text("The user drinks green tea", [cite(D, 1)]))
    commit_all(agent_dir)
    return agent_dir
