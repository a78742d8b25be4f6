"""A change that meets git's index lock while a live git holds it waits for that git, then goes on.

git takes `.git/index.lock` for every command that writes the index (a person's `git commit`,
whose hooks may run for seconds, an editor's `git add`, a git left running by a killed dreamdeck
process). Refusing the change the instant the lock is seen made such a moment lose the change (a
watcher's dream, a forget); a lock that nothing alive holds is still refused at once, naming it.
"""
from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.errors import Refused
from dreamdeck.core.store.streams import append_fragment
from tests.support.dreamers import Scripted, cite_all
from tests.support.git import git
from tests.support.memory import commit_all, shard_text, write_shard

pytestmark = pytest.mark.slow


def _commit_running_a_slow_hook(agent_dir: Path, seconds: float) -> subprocess.Popen:
    """A person's `git commit -a` of a file outside memory/, its pre-commit hook sleeping: git
    holds the index lock (closed) the whole time the hook runs."""
    hooks = agent_dir.parent / "hooks"
    hooks.mkdir()
    hook = hooks / "pre-commit"
    hook.write_text(f"#!/bin/sh\nsleep {seconds}\n")
    hook.chmod(0o755)
    (agent_dir / "NOTES.txt").write_text("a person's own file\n")
    git(agent_dir, "add", "NOTES.txt")
    git(agent_dir, "commit", "-q", "-m", "notes")
    (agent_dir / "NOTES.txt").write_text("a person's own file, edited\n")
    proc = subprocess.Popen(["git", "-C", str(agent_dir), "-c", f"core.hooksPath={hooks}", "-c", "user.name=A Person",
                             "-c", "user.email=person@example.com", "commit", "-q", "-a",
                             "-m", "a person's commit"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lock = agent_dir / ".git" / "index.lock"
    deadline = time.monotonic() + 30
    while not lock.exists():
        assert proc.poll() is None and time.monotonic() < deadline, "git never took its lock"
        time.sleep(0.005)
    return proc


def _seeded(agent_dir: Path) -> None:
    write_shard(agent_dir, "a", shard_text("Belief a", []))
    commit_all(agent_dir)


def test_a_dream_that_meets_a_running_git_commits_after_it(agent_dir, ws):
    _seeded(agent_dir)
    append_fragment(ws, "later", "a later fact")
    person = _commit_running_a_slow_hook(agent_dir, 1.0)
    try:
        r = run_dream(ws, dreamer=Scripted(cite_all("later", "A later fact")), review="none")
    finally:
        _out, err = person.communicate(timeout=60)

    assert person.returncode == 0, err
    assert r.status == "applied" and r.commit, r.message
    subjects = git(agent_dir, "log", "-2", "--format=%s").splitlines()
    assert "a person's commit" in subjects[1] and subjects[0] != subjects[1]
    assert (agent_dir / "memory" / "topics" / "later.md").exists()
    assert git(agent_dir, "status", "--porcelain", "--", "memory").strip() == ""


def test_a_lock_nothing_alive_holds_is_refused_at_once(agent_dir, ws):
    _seeded(agent_dir)
    append_fragment(ws, "later", "a later fact")
    (agent_dir / ".git" / "index.lock").write_bytes(b"")

    started = time.monotonic()
    with pytest.raises(Refused, match=r"index\.lock"):
        run_dream(ws, dreamer=Scripted(cite_all("later", "A later fact")), review="none")

    assert time.monotonic() - started < 5  # no waiting for a git that is not there
    assert not (agent_dir / "memory" / "topics" / "later.md").exists()
    assert os.path.exists(agent_dir / ".git" / "index.lock")
