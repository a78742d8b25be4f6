"""Shared fixtures: real agent folders with real git, the way TypeClaw lays them out."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

# Tests never read the developer's git identity or hooks.
os.environ.setdefault("GIT_CONFIG_GLOBAL", "/dev/null")
os.environ.setdefault("GIT_CONFIG_NOSYSTEM", "1")
os.environ.pop("ANTHROPIC_API_KEY", None)
# dreamdeck's private folder (locks, projections) per test process, not the developer's ~/.cache.
if "DREAMDECK_CACHE_DIR" not in os.environ:
    import tempfile

    os.environ["DREAMDECK_CACHE_DIR"] = tempfile.mkdtemp(prefix="dreamdeck-test-cache-")


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=tester", "-c", "user.email=tester@localhost", *args],
        cwd=root, check=True, capture_output=True, text=True,
    ).stdout


@pytest.fixture
def agent_dir(tmp_path: Path) -> Path:
    """An agent folder as TypeClaw makes one: git repo, `.gitignore` listing memory/, one commit."""
    root = tmp_path / "agent"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text("# system-managed roots\nmemory/\n")
    (root / "SOUL.md").write_text("# Soul\nBe kind.\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "init agent")
    return root


@pytest.fixture
def ws(agent_dir: Path):
    from dreamdeck.core.workspace import Workspace

    return Workspace.open(agent_dir, today="2026-05-22")


@pytest.fixture(autouse=True)
def _isolated_user_config(tmp_path, monkeypatch):
    """Every test has its own user config folder: the developer's theme and keymap are never
    read, and nothing is written to their home."""
    monkeypatch.setenv("DREAMDECK_CONFIG_DIR", str(tmp_path / "user-config"))


@pytest.fixture(autouse=True)
def _login_name(monkeypatch):
    """Who acts is `human:tester` in every test: the app and the command line both take the login
    name (getpass reads LOGNAME first), so what they record, and what screens show, never
    depends on the machine's user."""
    monkeypatch.setenv("LOGNAME", "tester")


@pytest.fixture
def utc():
    """Fragment times are shown in local time: pin the zone for snapshots."""
    import time

    old = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if old is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = old
    time.tzset()
