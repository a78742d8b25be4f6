"""The Proposals screen over a small inbox (snapshot tests; a manual look: python tests/tui/apps/proposals_app.py).

Deterministic: a fixed today, fixed proposal times, and git dates pinned through the environment.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("GIT_CONFIG_GLOBAL", "/dev/null")
os.environ.setdefault("GIT_CONFIG_NOSYSTEM", "1")

TODAY = "2026-05-22"


@contextmanager
def git_dates(stamp: str):
    keys = ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE")
    saved = {k: os.environ.get(k) for k in keys}
    os.environ.update({k: stamp for k in keys})
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def screen_app(ws, mode: str):
    """The dreamdeck app opening on `mode` instead of Topics (saves composing a screen per test)."""
    from dreamdeck.tui.app import DreamdeckApp
    from dreamdeck.tui.config import UserConfig

    class ScreenApp(DreamdeckApp):
        _start: str | None = mode

        def switch_mode(self, name: str):
            if self._start is not None:
                name, self._start = self._start, None
            return super().switch_mode(name)

    return ScreenApp(ws, watcher=False, user_config=UserConfig())


def agent_folder(parent: Path) -> Path:
    root = parent / "agent"
    root.mkdir()
    with git_dates("2026-05-01T09:00:00+00:00"):
        def git(*args: str) -> None:
            subprocess.run(["git", "-c", "user.name=tester", "-c", "user.email=tester@localhost", *args],
                           cwd=root, check=True, capture_output=True)

        git("init", "-q", "-b", "main")
        (root / ".gitignore").write_text("# system-managed roots\nmemory/\n")
        (root / "SOUL.md").write_text("# Soul\nBe kind.\n")
        git("add", ".")
        git("commit", "-qm", "init agent")
    return root


def at(day: int, hour: int = 10) -> datetime:
    return datetime(2026, 5, day, hour, 0, tzinfo=timezone.utc)


def build_inbox(root: Path) -> None:
    """Five open proposals from three agents, one conflict pair, one contradicting a topic."""
    from helpers import shard_text, write_shard  # tests/helpers.py

    from dreamdeck.core.git.commit import Trailers, commit_memory
    from dreamdeck.core.ops.proposals import propose
    from dreamdeck.core.workspace import Workspace

    ws = Workspace.open(root, today=TODAY)
    write_shard(root, "editor", shard_text("User edits with vim", []))
    with git_dates("2026-05-02T09:00:00+00:00"):
        commit_memory(root, "seed", Trailers("test", "auto", "seed"))
    steps = [
        ("researcher", "semantic", "Project deadline is March 15", ["project--deadline"], "high", at(18)),
        ("coder", "semantic", "Project deadline is March 30", ["project--deadline"], "medium", at(20)),
        ("researcher", "episodic", "User asked for a summary of the three RFCs before lunch", [], "low", at(21)),
        ("planner", "procedural", "Run the linter before every commit in this repo", ["workflow--lint"], "medium", at(2)),
        ("coder", "semantic", "User no longer edits with vim", ["editor"], "high", at(22, 8)),
    ]
    for n, (agent, store, content, entities, confidence, when) in enumerate(steps):
        with git_dates(f"2026-05-{when.day:02d}T{when.hour:02d}:00:00+00:00"):
            propose(ws, agent, store, content, entities=entities, confidence=confidence, now=when,
                    trigger=f"auto-detect during task {n + 1}")


def make_app(empty: bool = False, parent: Path | None = None):
    if str(ROOT / "tests") not in sys.path:
        sys.path.insert(0, str(ROOT / "tests"))
    from dreamdeck.core.workspace import Workspace

    root = agent_folder(parent or Path(tempfile.mkdtemp(prefix="dd-proposals-")))
    if not empty:
        build_inbox(root)
    return screen_app(Workspace.open(root, today=TODAY), "proposals")


if __name__ == "__main__":
    make_app(empty="--empty" in sys.argv).run()
