"""Invariant 7 (crash safety) when the kill lands inside git: the `.git/index.lock` git leaves.

A kill of dreamdeck's commit takes its git child with it, and git never removes a lock it did not
finish with. Found by scripts/kill_campaign.py: after such a kill every verb and `doctor --fix`
refused ("git's index is locked") and memory stayed stuck until a person deleted the file. The
lock the interrupted change left is removed when nothing alive can own it; any other lock stays,
and the refusal names it.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dreamdeck.core.door.apply import recover_journal
from dreamdeck.core.door.journal import JOURNAL
from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.errors import Refused
from dreamdeck.core.store.streams import append_fragment
from tests.support.dreamers import Scripted, cite_all
from tests.support.git import git
from tests.support.memory import commit_all, shard_text, the_next_day, write_shard
from tests.support.processes import run_cli, run_program
from tests.test_fault_injection import _prepare

pytestmark = pytest.mark.slow


def _killed_in_its_commit(tmp_path, agent_dir, ws):
    """A dream killed where its commit runs git, with the lock a killed git leaves (empty, newer
    than the journal)."""
    _pre, plan = _prepare(tmp_path, agent_dir, ws)
    ws = the_next_day(ws)
    proc = run_program("dream_with_fault", str(agent_dir), ws.today(), "dream", "commit", str(plan),
                       capture_output=True, text=True, timeout=120)
    assert proc.returncode == -9, proc.stderr[-2000:]
    journal = ws.memory / JOURNAL
    assert journal.exists()
    lock = agent_dir / ".git" / "index.lock"
    lock.write_bytes(b"")
    stamp = journal.stat().st_mtime + 0.5
    os.utime(lock, (stamp, stamp))
    return ws, lock


def test_doctor_fix_removes_the_lock_a_killed_commit_left_and_finishes_the_change(tmp_path, agent_dir, ws):
    ws, lock = _killed_in_its_commit(tmp_path, agent_dir, ws)

    out = run_cli(agent_dir, "doctor", "--fix", today=ws.today())

    assert not lock.exists()
    assert not (ws.memory / JOURNAL).exists()
    assert "index.lock" in out.stdout  # it says what it removed
    assert "Change-Id:" in git(agent_dir, "log", "-1", "--format=%B")
    assert git(agent_dir, "status", "--porcelain", "--", "memory/topics").strip() == ""


def test_the_next_dream_removes_it_too_and_commits_on_top(tmp_path, agent_dir, ws):
    ws, lock = _killed_in_its_commit(tmp_path, agent_dir, ws)
    append_fragment(ws, "later", "a later fact")

    r = run_dream(ws, dreamer=Scripted(cite_all("later", "A later fact")), review="none")

    assert r.status == "applied" and r.commit, r.message
    assert not lock.exists()


def test_a_lock_older_than_the_interrupted_change_is_not_ours_and_stays(tmp_path, agent_dir, ws):
    ws, lock = _killed_in_its_commit(tmp_path, agent_dir, ws)
    old = (ws.memory / JOURNAL).stat().st_mtime - 60
    os.utime(lock, (old, old))

    with pytest.raises(Refused, match=r"index\.lock"):
        recover_journal(ws)

    assert lock.exists() and (ws.memory / JOURNAL).exists()


def _stays_while(proc: subprocess.Popen, ws, lock, ready) -> None:
    """While `proc` lives (once `ready()` says it is up), the lock is not the interrupted change's
    to remove: the recovery waits for it (`live_lock.WAIT_SECONDS`), then refuses, naming it, and
    the lock stays."""
    try:
        ready()
        with pytest.raises(Refused, match=r"index\.lock"):
            recover_journal(ws)
        assert lock.exists()
    finally:
        proc.kill()
        proc.wait()


def test_a_lock_a_live_process_holds_open_stays(tmp_path, agent_dir, ws):
    ws, lock = _killed_in_its_commit(tmp_path, agent_dir, ws)
    holder = subprocess.Popen([sys.executable, "-c", f"f = open({str(lock)!r}, 'ab'); print('ok', flush=True); "
                               "import time; time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    _stays_while(holder, ws, lock, lambda: holder.stdout.readline())


def test_a_lock_while_a_git_command_runs_in_the_repository_stays(tmp_path, agent_dir, ws):
    """A git that holds the lock closed (as `git commit` does while its hooks run) is still alive."""
    ws, lock = _killed_in_its_commit(tmp_path, agent_dir, ws)
    # `git hash-object --stdin` waits on its input: a live git process in this repository.
    waiting = subprocess.Popen(["git", "-C", str(agent_dir), "hash-object", "--stdin"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE)
    _stays_while(waiting, ws, lock, lambda: time.sleep(0.2))


def test_without_an_interrupted_change_a_lock_is_never_removed(agent_dir, ws):
    lock = agent_dir / ".git" / "index.lock"
    lock.write_bytes(b"")

    out = run_cli(agent_dir, "doctor", "--fix", today=ws.today(), check=False)

    assert lock.exists()
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("args", [("doctor",), ("review",), ("topics",), ("log",), ("verify",)])
def test_a_read_only_verb_never_takes_gits_index_lock(agent_dir, ws, args):
    """A kill can only leave a lock that was taken: read-only verbs ask git for no optional lock
    (a `git status` would otherwise refresh and rewrite the index under index.lock)."""
    write_shard(agent_dir, "a", shard_text("Belief a", []))
    commit_all(agent_dir)
    index = agent_dir / ".git" / "index"
    shard = agent_dir / "memory" / "topics" / "a.md"
    later = shard.stat().st_mtime + 5
    os.utime(shard, (later, later))  # stat changed, bytes not: what git would refresh
    before = index.read_bytes()

    run_cli(agent_dir, *args, today=ws.today(), check=False)

    assert index.read_bytes() == before


def test_doctor_names_a_lock_that_refuses_every_change_and_what_to_do(agent_dir, ws):
    lock = agent_dir / ".git" / "index.lock"
    lock.write_bytes(b"")

    out = run_cli(agent_dir, "doctor", today=ws.today(), check=False)

    assert out.returncode == 1
    assert "git-busy: git: git's index is locked (.git/index.lock)" in out.stdout
    assert "remove the file if no git command is running" in out.stdout


def test_a_git_that_has_ended_but_is_not_yet_reaped_runs_nothing_and_the_lock_goes(tmp_path, agent_dir, ws):
    """A zombie git (any git on the machine that ended a moment ago) has no folder to read: under
    load the recovery met one in most runs and kept the lock, refusing every change."""
    ws, lock = _killed_in_its_commit(tmp_path, agent_dir, ws)
    ended = subprocess.Popen(["git", "-C", str(agent_dir), "--version"], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while Path(f"/proc/{ended.pid}/stat").read_text().split(")")[-1].split()[0] != "Z":  # ended, not reaped
            assert time.monotonic() < deadline
            time.sleep(0.01)

        recover_journal(ws)

        assert not lock.exists() and not (ws.memory / JOURNAL).exists()
    finally:
        ended.wait()
