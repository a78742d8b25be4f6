"""Shared fixtures: real agent folders with real git, the way TypeClaw lays them out."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.support.agent import agent_folder
from tests.support.git import isolate_from_user_config

isolate_from_user_config()  # tests never read the developer's git identity or hooks
os.environ.pop("ANTHROPIC_API_KEY", None)
# dreamdeck's private folder (locks, projections) per test process, not the developer's ~/.cache.
if "DREAMDECK_CACHE_DIR" not in os.environ:
    import tempfile

    os.environ["DREAMDECK_CACHE_DIR"] = tempfile.mkdtemp(prefix="dreamdeck-test-cache-")


@pytest.fixture
def agent_dir(tmp_path: Path) -> Path:
    """An agent folder as TypeClaw makes one: git repo, `.gitignore` listing memory/, one commit."""
    return agent_folder(tmp_path)


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
def fresh_search_indexes():
    """Each test opens its workspaces' search indexes anew (none kept from an earlier test)."""
    from dreamdeck.core.index.search import close_all

    close_all()
    yield
    close_all()


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


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed `perf_contract` test says so: the answer may be right, the cost is not."""
    outcome = yield
    report = outcome.get_result()
    marker = item.get_closest_marker("perf_contract")
    if marker is not None and report.failed and call.when == "call":
        reason = marker.kwargs.get("reason") or (marker.args[0] if marker.args else "")
        report.sections.append(("performance contract", f"PERFORMANCE REGRESSION: {reason}"))


@pytest.fixture
def settled_clock():
    """Pretend every file was written long ago, so stamps are trusted (`io.cache` racy rule)."""
    from dreamdeck.core.io.cache import set_clock

    set_clock(lambda: time.time_ns() + 10 * 10**9)
    yield
    set_clock(None)
