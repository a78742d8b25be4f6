"""dreamdeck's private folder for locks and projections: per user, 0700, owner-checked, no links
(invariant 10: caches and locks live in a private per-user folder)."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from dreamdeck.core.errors import Refused
from dreamdeck.core.io.private import private_dir
from dreamdeck.core.workspace import Workspace
from tests.support.processes import run_cli


@pytest.fixture
def base(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("DREAMDECK_CACHE_DIR", str(folder))
    return folder


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_locks_live_in_a_private_folder_made_0700_at_every_level(base, tmp_path):
    ws = Workspace.open(tmp_path)
    lock_dir = ws.lock_dir
    assert base in lock_dir.parents and tmp_path / "cache" != lock_dir
    for folder in (base, lock_dir.parent, lock_dir):
        assert mode(folder) == 0o700 and os.lstat(folder).st_uid == os.getuid()


def test_without_an_explicit_folder_the_xdg_cache_home_is_used(tmp_path, monkeypatch):
    monkeypatch.delenv("DREAMDECK_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert private_dir("x") == tmp_path / "xdg" / "dreamdeck" / "x"
    assert mode(tmp_path / "xdg" / "dreamdeck") == 0o700


def test_a_folder_of_ours_left_open_is_closed_before_use(base):
    base.mkdir(mode=0o755)
    os.chmod(base, 0o777)
    private_dir("workspaces")
    assert mode(base) == 0o700


def test_a_link_planted_where_the_folder_goes_is_refused_naming_it(base, tmp_path):
    elsewhere = tmp_path / "attacker"
    elsewhere.mkdir()
    base.mkdir(mode=0o700)
    (base / "workspaces").symlink_to(elsewhere)
    with pytest.raises(Refused, match="workspaces must be a folder, not a link"):
        _ = Workspace.open(tmp_path).lock_dir
    assert list(elsewhere.iterdir()) == []


@pytest.mark.skipif(os.getuid() != 0, reason="needs to hand a folder to another user")
def test_a_folder_owned_by_someone_else_is_refused(base, tmp_path):
    base.mkdir(mode=0o700)
    (base / "state-index").mkdir(mode=0o700)
    os.chown(base / "state-index", 65534, 65534)
    with pytest.raises(Refused, match="belongs to another user"):
        private_dir("state-index")


def test_the_command_line_says_one_line_when_the_folder_is_not_private(base, tmp_path):
    agent = tmp_path / "agent"
    agent.mkdir()
    base.mkdir(mode=0o700)
    (base / "workspaces").symlink_to(tmp_path)
    proc = run_cli(agent, "dream", "--dreamer", "offline", check=False, env={**os.environ, "DREAMDECK_CACHE_DIR": str(base)})
    assert proc.returncode == 1 and "not a link" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
