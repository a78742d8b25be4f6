"""The one door: containment, the vault, the superset check, recompute, audit, and undo on failure."""
from __future__ import annotations

import os
from datetime import UTC, datetime

import pytest

from dreamdeck.core.door.apply import apply_changeset, plan_changeset, recover_journal
from dreamdeck.core.door.changeset import Audit, ChangeSet, Commit, Evidence, FileEdit, Reference, Writes
from dreamdeck.core.door.journal import JOURNAL
from dreamdeck.core.errors import Refused
from dreamdeck.core.formats.shards import ShardMeta, parse_shard, render_shard
from dreamdeck.core.git.runner import head
from dreamdeck.core.store.state import load_state
from tests.support.dreamers import body
from tests.support.git import git, trailer_lines
from tests.support.memory import cite, commit_all, shard_text, uuid_at, write_shard

D1, D = "2026-05-20", "2026-05-22"
NOW = datetime(2026, 5, 22, 9, 30, 42, tzinfo=UTC)


def cs(*edits: FileEdit, action="edit", summary="a human edit", subject=None, ref=None, allow_vault=False,
       file_verb=None, **evidence) -> ChangeSet:
    return ChangeSet(
        Commit(action, "human:cli", "approved", "test", summary, subject=subject, ref=ref),
        Writes(list(edits), allow_vault=allow_vault),
        Evidence(**evidence),
        Audit(file_verb=file_verb),
    )


def memory_snapshot(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in (root / "memory").rglob("*") if p.is_file()}


A = shard_text("Belief a", [cite(D1, 1)])
B = shard_text("Belief b", [cite(D1, 2)])


@pytest.fixture
def seeded(ws, agent_dir):
    write_shard(agent_dir, "a", A)
    write_shard(agent_dir, "b", B)
    write_shard(agent_dir, "p", shard_text("Belief p", [cite(D1, 3)]), folder="vault")
    return commit_all(agent_dir)


# --- containment and the vault ---------------------------------------------------------------------
@pytest.mark.parametrize("path", [
    "../x.md", "topics/Bad.md", "references/x.md", "topics/../vault/p.md", "topics/sub/x.md", "/etc/x.md",
    "topics/x.txt", "streams/2026-05-22.jsonl", "topics/.hidden.md", "meta/audit.log", "skills/x/SKILL.md",
])
def test_paths_outside_the_shard_areas_are_refused_and_nothing_is_written(ws, agent_dir, seeded, path):
    before = memory_snapshot(agent_dir)
    with pytest.raises(Refused, match="refused"):
        apply_changeset(ws, cs(FileEdit(path, None, shard_text("Escaped", [cite(D, 1)]))))
    assert memory_snapshot(agent_dir) == before
    assert not (agent_dir / "x.md").exists() and head(agent_dir) == seeded


def test_a_vault_edit_is_refused_unless_a_human_pin_allows_it(ws, agent_dir, seeded):
    vault = (agent_dir / "memory/vault/p.md").read_bytes()
    changed = shard_text("Belief p", [cite(D1, 3), cite(D, 1)])
    edit = FileEdit("vault/p.md", vault.decode(), changed)

    with pytest.raises(Refused, match="vault"):
        apply_changeset(ws, cs(edit))
    assert (agent_dir / "memory/vault/p.md").read_bytes() == vault

    apply_changeset(ws, cs(edit, action="pin", summary="pin p", allow_vault=True, file_verb="PIN"))
    assert (agent_dir / "memory/vault/p.md").read_text() == changed


# --- the citation superset -------------------------------------------------------------------------
def test_dropping_a_citation_is_refused_with_the_ids_unless_explicitly_forgotten(ws, agent_dir, seeded):
    edit = FileEdit("topics/b.md", B, None)
    with pytest.raises(Refused) as err:
        apply_changeset(ws, cs(edit))
    assert err.value.missing == [(D1, uuid_at(D1, 2))]
    assert f"{D1}#{uuid_at(D1, 2)}" in str(err.value)
    assert (agent_dir / "memory/topics/b.md").read_text() == B

    apply_changeset(ws, cs(edit, action="forget", summary="forget b", allow_drop={(D1, uuid_at(D1, 2))}))
    assert not (agent_dir / "memory/topics/b.md").exists()


def test_a_citation_that_lives_on_in_an_untouched_shard_may_leave_this_one(ws, agent_dir, seeded):
    both = shard_text("Belief a", [cite(D1, 1), cite(D1, 2)])
    apply_changeset(ws, cs(FileEdit("topics/a.md", A, both)))
    apply_changeset(ws, cs(FileEdit("topics/b.md", B, None)))  # b's citation is in a now
    assert sorted(p.name for p in (agent_dir / "memory/topics").glob("*.md")) == ["a.md"]


def test_a_vault_citation_counts_as_still_cited(ws, agent_dir, seeded):
    a_cites_p = shard_text("Belief a", [cite(D1, 1), cite(D1, 3)])
    apply_changeset(ws, cs(FileEdit("topics/a.md", A, a_cites_p)))
    apply_changeset(ws, cs(FileEdit("topics/a.md", a_cites_p, A)))  # D1#3 is still cited by the vault
    assert (agent_dir / "memory/topics/a.md").read_text() == A


# --- runtime-owned frontmatter and planning ------------------------------------------------------------
def test_frontmatter_is_recomputed_on_write_unless_the_edit_is_a_verbatim_restore(ws, agent_dir, seeded):
    wrong = render_shard(ShardMeta("Belief c", 5, 5, "2000-01-01"), body("Belief c.", [cite(D1, 1), cite(D, 1)]))
    apply_changeset(ws, cs(FileEdit("topics/c.md", None, wrong)), today=D)
    meta, _ = parse_shard((agent_dir / "memory/topics/c.md").read_text())
    assert (meta.cites, meta.days, meta.last_reinforced) == (2, 2, D)

    apply_changeset(ws, cs(FileEdit("topics/d.md", None, wrong, recompute=False)))
    assert (agent_dir / "memory/topics/d.md").read_text() == wrong


def test_plan_changeset_checks_everything_and_writes_nothing(ws, agent_dir, seeded):
    before = memory_snapshot(agent_dir)
    new = shard_text("Belief a", [cite(D1, 1), cite(D, 1)])
    result = plan_changeset(ws, cs(FileEdit("topics/a.md", A, new)))
    assert result.targets == {"topics/a.md": new}
    with pytest.raises(Refused):
        plan_changeset(ws, cs(FileEdit("topics/a.md", A, None)))
    assert memory_snapshot(agent_dir) == before


# --- audit and commit ----------------------------------------------------------------------------------
def test_every_file_gets_one_audit_line_in_the_12_4_format_and_one_commit(ws, agent_dir, seeded):
    a2 = shard_text("Belief a", [cite(D1, 1), cite(D, 1)])
    c = shard_text("Belief c", [cite(D, 2)])

    result = apply_changeset(ws, cs(FileEdit("topics/a.md", A, a2), FileEdit("topics/c.md", None, c),
                                    summary="reinforce a | add c", ref=Reference("Reflection", "r-7")), now=NOW)

    lines = (agent_dir / "memory/meta/audit.log").read_text().splitlines()
    assert lines == [
        "2026-05-22T09:30Z | EDIT | memory/topics/a.md | human:cli | approved | reinforce a | add c",
        "2026-05-22T09:30Z | CREATE | memory/topics/c.md | human:cli | approved | reinforce a | add c",
    ]
    assert result.sha == head(agent_dir) and git(agent_dir, "rev-parse", "HEAD~1").strip() == seeded
    assert git(agent_dir, "log", "-1", "--format=%s").strip() == "memory: reinforce a | add c"
    assert trailer_lines(agent_dir) == [
        "Actor: human:cli", "Approval: approved", "Trigger: test", "Reflection: r-7"]
    shown = git(agent_dir, "show", "--name-only", "--format=", "HEAD").split()
    assert {"memory/topics/a.md", "memory/topics/c.md", "memory/meta/audit.log"} <= set(shown)
    assert not (ws.memory / JOURNAL).exists()


def test_the_file_lines_carry_the_verb_the_change_set_states_and_the_trailer_its_reference(ws, agent_dir, seeded):
    """The door keeps no table of callers: the verb and the reference's kind come with the change."""
    c = shard_text("Belief c", [cite(D, 2)])
    apply_changeset(ws, cs(FileEdit("archive/c.md", None, c), summary="archive c", file_verb="ARCHIVE",
                           ref=Reference("Proposal", "p-3")), now=NOW)
    apply_changeset(ws, cs(FileEdit("topics/d.md", None, c), summary="add d"), now=NOW)

    lines = (agent_dir / "memory/meta/audit.log").read_text().splitlines()
    assert lines == [
        "2026-05-22T09:30Z | ARCHIVE | memory/archive/c.md | human:cli | approved | archive c",
        "2026-05-22T09:30Z | CREATE | memory/topics/d.md | human:cli | approved | add d",
    ]
    assert trailer_lines(agent_dir, "HEAD~1") == [
        "Actor: human:cli", "Approval: approved", "Trigger: test", "Proposal: p-3"]
    assert "Reflection:" not in git(agent_dir, "log", "-1", "--format=%B")  # no reference, no trailer


def test_an_unchanged_file_gets_no_audit_line(ws, agent_dir, seeded):
    apply_changeset(ws, cs(FileEdit("topics/a.md", A, A)), now=NOW)
    assert not (agent_dir / "memory/meta/audit.log").exists()


# --- a write that fails half-way --------------------------------------------------------------------------
def _three_edits():
    return [
        FileEdit("topics/a.md", A, shard_text("Belief a", [cite(D1, 1), cite(D, 1)])),
        FileEdit("topics/c.md", None, shard_text("Belief c", [cite(D1, 2)])),
        FileEdit("topics/b.md", B, None),  # its citation moves to c
    ]


def test_a_write_failure_restores_what_was_written_and_reports(ws, agent_dir, seeded):
    before = memory_snapshot(agent_dir)
    seen: list[str] = []

    def fault(step: str) -> None:
        seen.append(step)
        if step == "write:topics/b.md":
            raise OSError(28, "No space left on device")

    with pytest.raises(Refused, match="could not write .*No space left on device.*nothing was changed"):
        apply_changeset(ws, cs(*_three_edits(), advance={D: {uuid_at(D, 1)}}), fault=fault)

    assert seen == ["journal", "write:topics/a.md", "write:topics/c.md", "write:topics/b.md"]
    assert memory_snapshot(agent_dir) == before  # a restored, c removed, b back, no journal, no state
    assert load_state(ws.state_path)[0].days == {}
    assert head(agent_dir) == seeded


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions; the fault test above covers it")
def test_a_read_only_folder_fails_the_write_and_the_rest_is_undone(ws, agent_dir, seeded):
    archive = agent_dir / "memory/archive"
    archive.mkdir()
    before = memory_snapshot(agent_dir)
    archive.chmod(0o555)
    try:
        with pytest.raises(Refused, match="could not write"):
            apply_changeset(ws, cs(
                FileEdit("topics/a.md", A, shard_text("Belief a", [cite(D1, 1), cite(D, 1)])),
                FileEdit("archive/b.md", None, B),
            ))
    finally:
        archive.chmod(0o755)
    assert memory_snapshot(agent_dir) == before


def test_every_step_is_announced_in_order(ws, agent_dir, seeded):
    steps: list[str] = []
    from tests.support.memory import fragment_line, write_stream

    write_stream(agent_dir, D, [fragment_line(D, 1, "a", "a again")])
    apply_changeset(ws, cs(*_three_edits(), advance={D: {uuid_at(D, 1)}}, gc_days={D}), fault=steps.append)
    assert steps == ["journal", "write:topics/a.md", "write:topics/c.md", "write:topics/b.md",
                     "state", "gc", "audit", "commit", "journal-removed"]


# --- the journal ------------------------------------------------------------------------------------------
def test_recover_journal_finishes_an_interrupted_apply(ws, agent_dir, seeded):
    class Killed(BaseException):
        pass

    def die(step: str) -> None:
        if step == "write:topics/a.md":
            raise Killed()

    with pytest.raises(Killed):
        apply_changeset(ws, cs(*_three_edits(), summary="interrupted"), fault=die)
    assert (ws.memory / JOURNAL).exists()
    assert (agent_dir / "memory/topics/b.md").exists()  # not reached yet

    message = recover_journal(ws)

    assert message and "interrupted" in message
    assert sorted(p.name for p in (agent_dir / "memory/topics").glob("*.md")) == ["a.md", "c.md"]
    assert not (ws.memory / JOURNAL).exists()
    assert git(agent_dir, "log", "-1", "--format=%s").strip() == "memory: interrupted"
    assert recover_journal(ws) is None


def test_a_torn_journal_is_dropped(ws, agent_dir, seeded):
    (ws.memory / JOURNAL).parent.mkdir(parents=True, exist_ok=True)
    (ws.memory / JOURNAL).write_text('{"version": 1, "targets": {"topics/a.md"')
    before = (agent_dir / "memory/topics/a.md").read_bytes()
    assert "torn" in recover_journal(ws)  # type: ignore[operator]
    assert not (ws.memory / JOURNAL).exists()
    assert (agent_dir / "memory/topics/a.md").read_bytes() == before


def test_the_next_apply_finishes_an_interrupted_one_before_its_own(ws, agent_dir, seeded):
    class Killed(BaseException):
        pass

    def die(step: str) -> None:
        if step == "write:topics/c.md":
            raise Killed()

    with pytest.raises(Killed):
        apply_changeset(ws, cs(*_three_edits(), summary="interrupted"), fault=die)
    # b.md is still there and c.md exists: without recovery the next change would build on this

    result = apply_changeset(ws, cs(FileEdit("topics/z.md", None, shard_text("Belief z", [cite(D, 3)])), summary="next"))

    assert result.warnings and "interrupted" in result.warnings[0]
    assert sorted(p.name for p in (agent_dir / "memory/topics").glob("*.md")) == ["a.md", "c.md", "z.md"]
    assert not (ws.memory / JOURNAL).exists()
    subjects = git(agent_dir, "log", "-2", "--format=%s").split("\n")
    assert subjects[:2] == ["memory: next", "memory: interrupted"]


def test_advancing_ids_stores_the_state_ahead_and_sweeps_copies_a_killed_run_left(ws, agent_dir, seeded):
    """The state-to-be goes to git through a temporary copy beside the locks; a copy older than a
    live job could be (a process killed mid-store) is removed by the next apply, a young one kept."""
    from dreamdeck.core.git.blobs import BLOB_TMP_PREFIX

    stale = ws.lock_dir / f"{BLOB_TMP_PREFIX}killed"
    young = ws.lock_dir / f"{BLOB_TMP_PREFIX}live"
    for leftover in (stale, young):
        leftover.write_bytes(b"x" * 1000)
    os.utime(stale, (NOW.timestamp() - 3600, NOW.timestamp() - 3600))
    result = apply_changeset(ws, cs(advance={D: {uuid_at(D, 1)}}), today=D, now=NOW)
    assert result.sha is not None
    assert not stale.exists() and young.exists()
    assert [p.name for p in ws.lock_dir.glob(f"{BLOB_TMP_PREFIX}*")] == [young.name]  # its own is gone
    committed = git(agent_dir, "show", f"{result.sha}:memory/.dreaming-state.json")
    assert uuid_at(D, 1) in committed and committed == (agent_dir / "memory/.dreaming-state.json").read_text()


def test_a_journal_written_before_the_upgrade_is_still_finished(ws, agent_dir, seeded):
    """A crash before the upgrade left a version-1 journal (flat keys, the audit verb implied by the
    action, the reference kind defaulted): recovery finishes it as the old door would have."""
    import json

    from dreamdeck.core.store.tombstones import load_tombstones

    stone = {"date": D1, "id": uuid_at(D1, 2), "hash": "h", "reason": "wrong", "actor": "human:cli",
             "ts": "2026-05-22T09:30:00Z", "hard": False, "topic": "b"}
    journal = {
        "version": 1, "today": D, "now": NOW.isoformat(), "state_ts": "2026-05-22T11:30:42.000+02:00",
        "targets": {"topics/b.md": None, "archive/b.md": B}, "originals": {"topics/b.md": B, "archive/b.md": None},
        "changeset": {
            "action": "FORGET", "actor": "human:cli", "approval": "approved", "trigger": "forget",
            "summary": "forget topic b (archived): wrong", "ref": "r-9", "ref_kind": "Reflection",
            "subject": "memory: forget b", "dream_subject": False,
            "advance": {D: [uuid_at(D, 1)]}, "release": {}, "gc_days": [], "purge": [], "restore_lines": {},
            "tombstones": [["forget", stone]], "meta_files": {},
            "audit": [["FORGET", "memory/topics/b.md", "topic b archived: wrong"]], "topics_changed": True,
        },
    }
    (ws.memory / JOURNAL).parent.mkdir(parents=True, exist_ok=True)
    (ws.memory / JOURNAL).write_text(json.dumps(journal))

    assert recover_journal(ws) == f"completed the interrupted forget (forget topic b (archived): wrong) as {head(agent_dir)[:10]}"

    assert (agent_dir / "memory/archive/b.md").read_text() == B and not (agent_dir / "memory/topics/b.md").exists()
    assert (agent_dir / "memory/meta/audit.log").read_text().splitlines() == [
        "2026-05-22T09:30Z | ARCHIVE | memory/topics/b.md | human:cli | approved | forget topic b (archived): wrong",
        "2026-05-22T09:30Z | ARCHIVE | memory/archive/b.md | human:cli | approved | forget topic b (archived): wrong",
        "2026-05-22T09:30Z | FORGET | memory/topics/b.md | human:cli | approved | topic b archived: wrong",
    ]
    assert (D1, uuid_at(D1, 2)) in load_tombstones(ws)
    assert load_state(ws.state_path)[0].dreamed_ids(D) == {uuid_at(D, 1)}
    assert git(agent_dir, "log", "-1", "--format=%s").strip() == "memory: forget b"
    assert trailer_lines(agent_dir) == [
        "Actor: human:cli", "Approval: approved", "Trigger: forget", "Reflection: r-9"]
    assert not (ws.memory / JOURNAL).exists()
