"""End to end, as a person uses it: the installed `dreamdeck` in tmux, fragments appended from
outside, the background watcher dreams, part of the reflection is approved with keystrokes."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.git import git
from tests.support.memory import fragment_line, shard_text, uuid_at, write_shard, write_stream

pytestmark = pytest.mark.e2e

TMUX = shutil.which("tmux")
DREAMDECK = Path(sys.executable).with_name("dreamdeck")


def tmux(*args: str) -> str:
    return subprocess.run([TMUX, *args], capture_output=True, text=True, check=False).stdout


def wait_for(predicate, timeout: float, what: str, pane: str | None = None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    screen = tmux("capture-pane", "-p", "-t", pane) if pane else ""
    raise AssertionError(f"timed out waiting for {what}\n{screen}")


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed")
@pytest.mark.skipif(not DREAMDECK.exists(), reason="the dreamdeck command is not installed in this environment")
@pytest.mark.parametrize("size", [(140, 40), (80, 24)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_watcher_dreams_in_the_app_and_a_partial_approval_is_committed(agent_dir: Path, tmp_path: Path, size):
    root = agent_dir
    day = "2026-05-20"
    write_stream(root, day, [fragment_line(day, 1, "package manager", "User said use pnpm, not bun")])
    write_shard(root, "package-manager", shard_text("The user uses pnpm", [f"streams/{day}#{uuid_at(day, 1)}"]))
    (root / "dreamdeck.toml").write_text('[dreaming]\ndreamer = "offline"\nreview = "all"\nmin_fragments = 3\n')
    git(root, "add", "-f", "memory/", "dreamdeck.toml")
    git(root, "commit", "-qm", "seed memory")
    env = {**os.environ, "DREAMDECK_CONFIG_DIR": str(tmp_path / "config"), "TERM": "xterm-256color"}
    env.pop("ANTHROPIC_API_KEY", None)
    session = f"dreamdeck-e2e-{os.getpid()}-{size[0]}"
    subprocess.run([TMUX, "new-session", "-d", "-s", session, "-x", str(size[0]), "-y", str(size[1]),
                    f"{DREAMDECK} {root}"], check=True, env=env)
    try:
        wait_for(lambda: "Topics" in tmux("capture-pane", "-p", "-t", session) and
                 "package-manager" in tmux("capture-pane", "-p", "-t", session), 30, "the app to open", session)
        head_before = git(root, "rev-parse", "HEAD").strip()
        # The agent appends from outside the app: two new topics (with the seed, 3 undreamed: the gate opens).
        for text, topic in (("The deploy runs from the main branch only", "deploy"),
                            ("CI runs the full suite on every pull request", "ci")):
            subprocess.run([str(DREAMDECK), "-w", str(root), "remember", text, "--topic", topic],
                           check=True, env=env, capture_output=True)
        reflection = root / "memory/meta/reflections/r-1.json"
        wait_for(reflection.exists, 60, "the watcher's dream to leave reflection r-1", session)
        data = json.loads(reflection.read_text())
        assert sorted(f["path"] for f in data["files"]) == ["topics/ci.md", "topics/deploy.md"]
        tmux("send-keys", "-t", session, "2")
        wait_for(lambda: "r-1" in tmux("capture-pane", "-p", "-t", session), 20, "the reflection on screen 2", session)
        time.sleep(1.0)
        # Approve only the first hunk (topics/ci.md), apply, confirm.
        tmux("send-keys", "-t", session, "space")
        time.sleep(0.5)
        tmux("send-keys", "-t", session, "Enter")
        wait_for(lambda: "(y)" in tmux("capture-pane", "-p", "-t", session), 20, "the confirm modal", session)
        tmux("send-keys", "-t", session, "y")

        def committed():
            body = git(root, "log", "-1", "--format=%B")
            return "Reflection: r-1" in body and "Approval: partial" in body

        wait_for(committed, 30, "the partial approval commit", session)
        assert git(root, "rev-parse", "HEAD").strip() != head_before
        assert (root / "memory/topics/ci.md").exists()
        assert not (root / "memory/topics/deploy.md").exists()
        left = json.loads(reflection.read_text())
        # the undecided hunk (topics/deploy.md) waits in the same, still open reflection
        assert left["status"] == "pending" and [f["path"] for f in left["files"]] == ["topics/deploy.md"]
        verify = subprocess.run([str(DREAMDECK), "-w", str(root), "verify", head_before], env=env,
                                capture_output=True, text=True)
        assert verify.returncode == 0, verify.stdout + verify.stderr
        tmux("send-keys", "-t", session, "q")
        wait_for(lambda: session not in tmux("list-sessions"), 15, "the app to quit")
    finally:
        tmux("kill-session", "-t", session)
