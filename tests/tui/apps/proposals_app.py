"""The Proposals screen over a small inbox (snapshot tests; a manual look:
python -m tests.tui.apps.proposals_app [--empty]).

Deterministic: a fixed today, fixed proposal times, and git dates pinned through the environment.
"""
from __future__ import annotations

import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from tests.support.agent import agent_folder
from tests.support.git import git_dates
from tests.support.memory import shard_text, write_shard
from tests.support.tui import make_app

TODAY = "2026-05-22"


def pinned_agent_folder(parent: Path) -> Path:
    """The agent folder with its first commit at a fixed time (so every later sha is fixed)."""
    with git_dates("2026-05-01T09:00:00+00:00"):
        return agent_folder(parent)


def at(day: int, hour: int = 10) -> datetime:
    return datetime(2026, 5, day, hour, 0, tzinfo=UTC)


def build_inbox(root: Path) -> None:
    """Five open proposals from three agents, one conflict pair, one contradicting a topic."""
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


def snapshot_app(empty: bool = False, parent: Path | None = None):
    from dreamdeck.core.workspace import Workspace

    root = pinned_agent_folder(parent or Path(tempfile.mkdtemp(prefix="dd-proposals-")))
    if not empty:
        build_inbox(root)
    return make_app(Workspace.open(root, today=TODAY), "proposals")


if __name__ == "__main__":
    snapshot_app(empty="--empty" in sys.argv).run()
