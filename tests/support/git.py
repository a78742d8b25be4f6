"""Git as the tests use it: reading history for assertions, and pinning commit dates."""
from __future__ import annotations

import os
import subprocess
from contextlib import contextmanager
from pathlib import Path

# Tests never read the developer's git identity, hooks or signing settings.
ISOLATED_ENV = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}


def isolate_from_user_config() -> None:
    for key, value in ISOLATED_ENV.items():
        os.environ.setdefault(key, value)


def git(root: Path, *args: str, gitstore: bool = False) -> str:
    """Run git in `root` as a fixed test identity; its stdout. `gitstore`: the repository lives in
    `.gitstore` (TypeClaw's alternative layout) instead of `.git`."""
    extra = ["--git-dir", str(root / ".gitstore"), "--work-tree", str(root)] if gitstore else []
    return subprocess.run(
        ["git", "-c", "user.name=tester", "-c", "user.email=tester@localhost", *extra, *args],
        cwd=root, check=True, capture_output=True, encoding="utf-8",
    ).stdout


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def commit_count(root: Path, gitstore: bool = False) -> int:
    return int(git(root, "rev-list", "--count", "HEAD", gitstore=gitstore))


@contextmanager
def git_dates(stamp: str):
    """Every commit made inside has author and committer date `stamp` (deterministic shas)."""
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


def trailer_lines(root: Path, rev: str = "HEAD") -> list[str]:
    """The commit's trailers as lines, without the door's Change-Id (its own test checks that one)."""
    out = git(root, "log", "-1", "--format=%(trailers:only,unfold)", rev)
    return [line for line in out.strip().splitlines() if line.strip() and not line.startswith("Change-Id: ")]
