"""A folder that is not a git repository: dreamdeck says so once (no history, no rollback) and
offers to start one (`dreamdeck init`, or the app's question), instead of silently committing nothing."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.git import git

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def plain(tmp_path: Path) -> Path:
    root = tmp_path / "agent"
    (root / "memory").mkdir(parents=True)
    return root


def run(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dreamdeck", "-w", str(root), "--today", "2026-05-22", *args],
                          capture_output=True, text=True, cwd=REPO)


def test_a_change_in_a_non_git_folder_says_so_once_and_names_the_command(plain):
    first = run(plain, "remember", "Uses pnpm", "--topic", "pm")
    assert first.returncode == 0 and first.stdout.strip()
    assert "is not a git repository" in first.stderr and "no history and no rollback" in first.stderr
    assert "dreamdeck init" in first.stderr and len(first.stderr.strip().splitlines()) == 1
    second = run(plain, "remember", "Uses pnpm again", "--topic", "pm")
    assert second.returncode == 0 and second.stderr == ""
    assert run(plain, "topics").stderr == ""  # reading never nags


def test_init_starts_the_history_with_memory_as_it_is(plain):
    run(plain, "remember", "Uses pnpm", "--topic", "pm")
    done = run(plain, "init")
    assert done.returncode == 0, done.stderr
    assert (plain / ".git").is_dir()
    assert git(plain, "log", "--format=%s").strip() == "memory: start the history (git init)"
    assert any(p.startswith("memory/streams/") for p in git(plain, "ls-files").split())
    again = run(plain, "init")
    assert again.returncode == 1 and again.stderr.strip() == f"dreamdeck: refused: {plain} is already a git repository"


async def test_the_app_offers_git_init_once_and_runs_it(plain):
    from dreamdeck.core.workspace import Workspace
    from dreamdeck.tui.app import DreamdeckApp
    from dreamdeck.tui.config import UserConfig
    from tests.support.memory import fragment_line, write_stream
    from tests.support.waits import settle, wait_for

    write_stream(plain, "2026-05-22", [fragment_line("2026-05-22", 1, "pm", "Uses pnpm")])

    def app():
        return DreamdeckApp(Workspace.open(plain, today="2026-05-22"), watcher=False, user_config=UserConfig())

    async with app().run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "ConfirmModal"
                       and bool(pilot.app.screen.query("#confirm-body")), what="the offer, composed")
        body = str(pilot.app.screen.query_one("#confirm-body").render())
        assert "no history and no rollback" in body
        await pilot.press("y")
        await wait_for(pilot, lambda: (plain / ".git").is_dir(), what="git init")
        await settle(pilot.app, pilot)
    assert git(plain, "rev-list", "--count", "HEAD").strip() == "1"


async def test_history_in_a_non_git_folder_says_why_it_is_empty(plain, tmp_path):
    from dreamdeck.core.io.once import first_time
    from dreamdeck.core.workspace import Workspace
    from dreamdeck.tui.app import DreamdeckApp
    from dreamdeck.tui.config import UserConfig
    from tests.support.waits import settle, wait_for

    first_time("no-history", str(plain.resolve()))  # the offer was made before
    app = DreamdeckApp(Workspace.open(plain, today="2026-05-22"), watcher=False, user_config=UserConfig())
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("5")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HistoryScreen", what="History")
        await settle(app, pilot)
        empty = app.screen.query_one("#commits").empty_message
        assert "not a git repository" in empty and "dreamdeck init" in empty and "press D" not in empty
        assert type(app.screen).__name__ == "HistoryScreen"  # no offer the second time


def test_init_in_a_repository_with_no_commit_yet_commits_memory_as_it_is(plain):
    """`git init` run by hand leaves a repository with no commit: `dreamdeck init` makes the first
    commit of memory/ instead of refusing (there is no history to keep apart from)."""
    run(plain, "remember", "Uses pnpm", "--topic", "pm")
    git(plain, "init", "-q", "-b", "main")

    done = run(plain, "init")

    assert done.returncode == 0 and "started the git history" in done.stdout, done.stderr
    assert git(plain, "log", "--format=%s").splitlines() == ["memory: start the history (git init)"]
    assert git(plain, "status", "--porcelain", "--", "memory").strip() == ""
    again = run(plain, "init")
    assert again.returncode == 1 and "already a git repository" in again.stderr
