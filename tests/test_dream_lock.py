"""The dream lock: one dream at a time across processes, and a holder record people can read."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dreamdeck.core.dreaming.lock import DreamBusy, DreamLock
from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.git.runner import head
from tests.support.dreamers import Scripted, cite_all
from tests.support.memory import fragment_line, write_stream
from tests.support.processes import start_program

D = "2026-05-22"


def _hold(root: Path, trigger: str) -> tuple[subprocess.Popen, int]:
    proc = start_program("hold_lock", str(root), trigger, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline().split()  # type: ignore[union-attr]
    assert line[:1] == ["held"], line
    return proc, int(line[1])


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _record(ws, pid: int, started: float | None = None, host: str | None = None) -> Path:
    path = ws.lock_dir / "dream.holder.json"
    path.write_text(json.dumps({"pid": pid, "host": host or socket.gethostname(), "trigger": "watch",
                                "started": time.time() if started is None else started}))
    return path


def test_a_second_dream_while_one_holds_the_lock_is_refused_naming_the_holder(ws, agent_dir):
    write_stream(agent_dir, D, [fragment_line(D, 1, "pm", "uses pnpm")])
    proc, pid = _hold(agent_dir, "schedule")
    try:
        before = head(agent_dir)
        dreamer = Scripted(cite_all("pm", "Uses pnpm"))
        with pytest.raises(DreamBusy) as err:
            run_dream(ws, dreamer=dreamer, review="none")
        assert f"pid {pid}" in str(err.value) and "schedule" in str(err.value)
        assert dreamer.calls == 0 and not ws.state_path.exists() and head(agent_dir) == before
        assert DreamLock(ws).holder().pid == pid  # type: ignore[union-attr]
    finally:
        proc.stdin.close()  # type: ignore[union-attr]
        proc.wait(timeout=10)
    assert run_dream(ws, dreamer=Scripted(cite_all("pm", "Uses pnpm")), review="none").status == "applied"
    assert DreamLock(ws).holder() is None


def test_a_dream_started_from_inside_a_running_dream_is_refused(ws, agent_dir):
    write_stream(agent_dir, D, [fragment_line(D, 1, "pm", "uses pnpm")])
    nested: list[BaseException] = []

    def script(inp, scratch):
        try:
            run_dream(ws, dreamer=Scripted(), review="none", trigger="watch")
        except DreamBusy as exc:
            nested.append(exc)
        scratch.write_shard("pm", f"Uses pnpm.\n\nfragments:\n- {inp.fragments[0].citation}\n")

    r = run_dream(ws, dreamer=Scripted(script), review="none", trigger="manual")

    assert r.status == "applied"
    assert len(nested) == 1 and f"pid {os.getpid()}" in str(nested[0]) and "manual" in str(nested[0])


def test_a_holder_record_from_a_dead_pid_is_cleared(ws, agent_dir):
    record = _record(ws, _dead_pid())

    assert DreamLock(ws).holder() is None
    assert not record.exists()

    _record(ws, _dead_pid())
    write_stream(agent_dir, D, [fragment_line(D, 1, "pm", "uses pnpm")])
    assert run_dream(ws, dreamer=Scripted(cite_all("pm", "Uses pnpm")), review="none").status == "applied"
    assert not record.exists()


def test_a_killed_holder_leaves_a_record_that_does_not_block_the_next_dream(ws, agent_dir):
    write_stream(agent_dir, D, [fragment_line(D, 1, "pm", "uses pnpm")])
    proc, pid = _hold(agent_dir, "schedule")
    os.kill(pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert json.loads((ws.lock_dir / "dream.holder.json").read_text())["pid"] == pid

    assert run_dream(ws, dreamer=Scripted(cite_all("pm", "Uses pnpm")), review="none").status == "applied"
    assert DreamLock(ws).holder() is None


def test_an_old_record_is_cleared_only_when_nobody_holds_the_lock(ws, agent_dir):
    long_ago = time.time() - 3 * 3600
    record = _record(ws, os.getpid(), started=long_ago, host="another-host")  # pid unknowable there
    assert DreamLock(ws, stale_minutes=60).holder() is None and not record.exists()

    proc, pid = _hold(agent_dir, "schedule")
    try:
        _record(ws, pid, started=long_ago)
        holder = DreamLock(ws, stale_minutes=60).holder()
        assert holder is not None and holder.pid == pid  # a long dream is still a dream
        assert "schedule" not in holder.describe() and "watch" in holder.describe()
    finally:
        proc.stdin.close()  # type: ignore[union-attr]
        proc.wait(timeout=10)


def test_a_dry_run_does_not_take_the_lock(ws, agent_dir):
    write_stream(agent_dir, D, [fragment_line(D, 1, "pm", "uses pnpm")])
    proc, _pid = _hold(agent_dir, "schedule")
    try:
        r = run_dream(ws, dreamer=Scripted(cite_all("pm", "Uses pnpm")), review="none", dry_run=True)
        assert r.status == "dry-run" and not (agent_dir / "memory/topics").exists()
    finally:
        proc.stdin.close()  # type: ignore[union-attr]
        proc.wait(timeout=10)
