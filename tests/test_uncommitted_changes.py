"""Invariant 7: a change applied but not committed is found and committed under its own name,
never swept into another change's commit; nothing is written while git is in the middle of a
rebase, merge or cherry-pick or its index is locked; a full disk leaves nothing half-written."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from dreamdeck.core.door.apply import apply_changeset, recover_journal
from dreamdeck.core.door.changeset import ChangeSet, Commit, FileEdit, Reference, Writes
from dreamdeck.core.door.journal import JOURNAL
from dreamdeck.core.errors import GitError, Refused
from dreamdeck.core.ops.doctor import examine
from tests.support.git import git
from tests.support.memory import commit_all, fragment_line, shard_text, uuid_at, write_shard, write_stream

D = "2026-05-20"


def cite(n: int) -> str:
    return f"streams/{D}#{uuid_at(D, n)}"


@pytest.fixture
def seeded(ws, agent_dir):
    write_stream(agent_dir, D, [fragment_line(D, n, "t", f"fact {n}") for n in (1, 2, 3)])
    write_shard(agent_dir, "a", shard_text("Belief a", [cite(1)]))
    return commit_all(agent_dir)


def pin_a(ws, actor="human:ana") -> ChangeSet:
    text = (ws.topics_dir / "a.md").read_text()
    return ChangeSet(Commit("pin", actor, "approved", "pin", "pin topic a", subject="memory: pin a",
                            ref=Reference("Reflection", "r-9")),
                     Writes([FileEdit("vault/a.md", None, text, recompute=False)], allow_vault=True))


def edit_b(ws) -> ChangeSet:
    return ChangeSet(Commit("edit", "human:bo", "approved", "edit", "create b", subject="memory: create b"),
                     Writes([FileEdit("topics/b.md", None, shard_text("Belief b", [cite(2)]))]))


def log(agent_dir: Path, n: int = 3) -> list[str]:
    return git(agent_dir, "log", f"-{n}", "--format=%s|%(trailers:key=Actor,valueonly,separator=)").strip().splitlines()


def lock_index(agent_dir: Path) -> Path:
    lock = agent_dir / ".git" / "index.lock"
    lock.write_text("")
    return lock


def test_a_commit_that_fails_leaves_the_change_journaled_and_the_next_change_commits_it_under_its_own_name(ws, agent_dir, seeded):
    class Locker:  # git's index gets locked by someone else right after the audit lines
        def __call__(self, step: str) -> None:
            if step == "audit":
                lock_index(agent_dir)

    with pytest.raises(GitError):
        apply_changeset(ws, pin_a(ws), fault=Locker())
    assert (ws.memory / "vault/a.md").is_file() and (ws.memory / JOURNAL).is_file()
    assert any(f.kind == "journal" for f in examine(ws).findings)
    (agent_dir / ".git/index.lock").unlink()

    apply_changeset(ws, edit_b(ws))

    assert log(agent_dir, 2) == ["memory: create b|human:bo", "memory: pin a|human:ana"]
    assert git(agent_dir, "show", "--name-only", "--format=", "HEAD~1").split() == ["memory/meta/audit.log", "memory/vault/a.md"]
    assert "memory/vault/a.md" not in git(agent_dir, "show", "--name-only", "--format=", "HEAD").split()
    assert not (ws.memory / JOURNAL).exists()


def test_a_kill_after_the_commit_is_finished_without_a_second_commit(ws, agent_dir, seeded):
    class Killed(BaseException):
        pass

    def die(step: str) -> None:
        if step == "commit":
            raise Killed

    with pytest.raises(Killed):
        apply_changeset(ws, pin_a(ws), fault=die)
    assert (ws.memory / JOURNAL).is_file()
    before = git(agent_dir, "rev-parse", "HEAD").strip()

    assert recover_journal(ws).startswith("completed the interrupted pin")

    assert git(agent_dir, "rev-parse", "HEAD").strip() == before  # found committed: not committed again
    assert not (ws.memory / JOURNAL).exists()
    audit = (ws.meta_dir / "audit.log").read_text().splitlines()
    assert len(audit) == 1


def test_a_kill_after_the_commit_never_rolls_back_what_the_commit_holds(ws, agent_dir, seeded):
    """A meta file the change rewrote after its journal (an approval's decision record gets what
    the GC collected, a dream's receipt the same) is committed in its final form; finishing the
    journal after a kill past the commit must not write the journal's first version back over
    it, leaving memory/ differing from the commit that the next change would sweep up."""
    class Killed(BaseException):
        pass

    def die(step: str) -> None:
        if step == "commit":
            raise Killed

    cs = pin_a(ws)
    cs.writes.meta_files["reflections/r-9.json"] = '{"first": true}\n'
    cs.before_commit = lambda _result: (ws.meta_dir / "reflections/r-9.json").write_text('{"final": true}\n')
    with pytest.raises(Killed):
        apply_changeset(ws, cs, fault=die)

    recover_journal(ws)

    assert (ws.meta_dir / "reflections/r-9.json").read_text() == '{"final": true}\n'
    assert git(agent_dir, "status", "--porcelain", "--", "memory").strip() == ""


def test_the_commit_carries_the_change_id_of_its_journal(ws, agent_dir, seeded):
    apply_changeset(ws, pin_a(ws))
    ids = git(agent_dir, "log", "-1", "--format=%(trailers:key=Change-Id,valueonly)").strip()
    assert len(ids) == 16 and all(c in "0123456789abcdef" for c in ids)


@pytest.mark.parametrize("state", ["rebase-merge", "rebase-apply", "MERGE_HEAD", "CHERRY_PICK_HEAD", "index.lock"])
def test_a_change_during_a_git_operation_is_refused_before_anything_is_written(ws, agent_dir, seeded, state):
    target = agent_dir / ".git" / state
    target.mkdir() if state.startswith("rebase") else target.write_text("")
    audit = ws.meta_dir / "audit.log"

    with pytest.raises(Refused, match="memory was not changed"):
        apply_changeset(ws, pin_a(ws))

    assert not (ws.memory / "vault").exists() and not audit.exists() and not (ws.memory / JOURNAL).exists()


def test_a_real_rebase_in_progress_refuses_a_dream(ws, agent_dir, seeded):
    from dreamdeck.core.dreaming.run import run_dream
    from tests.support.dreamers import Scripted, cite_all

    git(agent_dir, "checkout", "-q", "-b", "side")
    (agent_dir / "SOUL.md").write_text("# Soul\nBe brave.\n")
    git(agent_dir, "commit", "-qam", "side soul")
    git(agent_dir, "checkout", "-q", "main")
    (agent_dir / "SOUL.md").write_text("# Soul\nBe calm.\n")
    git(agent_dir, "commit", "-qam", "main soul")
    proc = subprocess.run(["git", "rebase", "side"], cwd=agent_dir, capture_output=True, text=True)
    assert proc.returncode != 0  # stopped on the conflict: a rebase is in progress
    write_stream(agent_dir, "2026-05-21", [fragment_line("2026-05-21", 1, "t", "new")])
    head = git(agent_dir, "rev-parse", "HEAD").strip()

    with pytest.raises(Refused, match="rebase is in progress"):
        run_dream(ws, dreamer=Scripted(cite_all("t", "New")), review="none")

    assert git(agent_dir, "rev-parse", "HEAD").strip() == head
    assert not (ws.memory / "topics/t.md").exists()


def _mount_tiny_disk(path: Path) -> bool:
    path.mkdir()
    return subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(path)],
                          capture_output=True).returncode == 0


def test_a_full_disk_fails_with_one_line_and_leaves_nothing_half_written(tmp_path):
    disk = tmp_path / "disk"
    if os.getuid() != 0 or not _mount_tiny_disk(disk):
        pytest.skip("needs a small tmpfs (root)")
    try:
        root = disk / "agent"
        root.mkdir()
        git(root, "init", "-q", "-b", "main")
        big = shard_text("Belief a " + "x" * 60000, [cite(1)])
        write_shard(root, "a", big)
        write_stream(root, D, [fragment_line(D, 1, "t", "fact 1")])
        commit_all(root)
        st = os.statvfs(disk)
        (disk / "filler").write_bytes(b"x" * max(0, st.f_bavail * st.f_frsize - 24 * 1024))  # ~24 KB left
        proc = subprocess.run([os.sys.executable, "-m", "dreamdeck", "-w", str(root), "pin", "a"],
                              capture_output=True, text=True)
        assert proc.returncode == 1, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert "No space left" in proc.stderr
        stray = [p for p in (root / "memory").rglob("*") if p.name.endswith(".tmp")]
        assert stray == []
        assert not (root / "memory/vault/a.md").exists() and (root / "memory/topics/a.md").read_text() == big
        assert not (root / "memory" / JOURNAL).exists()
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)
