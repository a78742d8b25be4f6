"""The one door: every mutation of memory is a ChangeSet applied by `apply_changeset`.

Order (each step is why the next one is safe):
1. resolve each edit against its recorded base (3-way rebase via git merge-file, or refuse);
2. validate paths (only memory/topics|vault|archive/<slug>.md; the vault only on a human pin);
3. recompute runtime-owned frontmatter; check the citation superset and tombstones (`checks`)
   and that no shard gains a secret (`secrets_check`);
4. write a journal, then the files atomically (a failed write restores what was written);
5. `finish`: tombstones, dreamed ids, restored stream lines, GC, audit, one git commit.
A kill anywhere leaves the journal; `recover_journal` (doctor --fix) finishes the apply.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from dreamdeck.core.door.changeset import ApplyResult, ChangeSet, Plan
from dreamdeck.core.door.checks import (
    check_evidence_days,
    check_state_readable,
    check_superset,
    check_tombstones,
    validate_path,
)
from dreamdeck.core.door.finish import Step, drain, finish
from dreamdeck.core.door.journal import (
    JOURNAL,
    Journal,
    TornJournal,
    keep_journal_aside,
    read_journal,
    remove_journal,
    write_journal,
)
from dreamdeck.core.door.lock import memory_lock
from dreamdeck.core.door.secrets_check import refuse_new_secrets
from dreamdeck.core.door.state import next_state, store_state_ahead
from dreamdeck.core.errors import ApplyFailed, Refused
from dreamdeck.core.formats.shards import recompute_shard_text
from dreamdeck.core.git.commit import STREAM_PATH, changed_in_worktree, link_refusal
from dreamdeck.core.git.merge import merge_shards, rebase_change
from dreamdeck.core.git.runner import busy_reason, head
from dreamdeck.core.git.stale_lock import remove_lock_left_by
from dreamdeck.core.index.search import update_after_change
from dreamdeck.core.io.atomic import atomic_write_text, fsync_dir, remove_file
from dreamdeck.core.io.no_links import read_text_nofollow
from dreamdeck.core.store.memory_scan import linked_files
from dreamdeck.core.store.replaced_links import drop_unrenamed_links
from dreamdeck.core.workspace import Workspace


def _read(path: Path) -> str | None:
    try:
        return read_text_nofollow(path)
    except FileNotFoundError:
        return None


def _resolve(ws: Workspace, cs: ChangeSet, today: str, result: ApplyResult) -> Plan:
    """path -> (current, target), rebasing stale edits; Refused on conflicts."""
    plan: Plan = {}
    conflicts: list[str] = []
    for edit in cs.writes.edits:
        _, slug = validate_path(edit.path, cs.writes.allow_vault)
        current = _read(ws.memory / edit.path)
        new = edit.new
        if new is not None and edit.recompute:
            new = recompute_shard_text(new, slug, today)[0]
        if current == edit.base or current == new:
            target = new
        else:
            merged, conflicted = (
                merge_shards(edit.base, current, new, slug, today) if edit.recompute
                else rebase_change(edit.base, current, new)
            )
            if conflicted:
                conflicts.append(edit.path)
                continue
            target = merged if merged is None or not edit.recompute else recompute_shard_text(merged, slug, today)[0]
            result.rebased.append(edit.path)
        plan[edit.path] = (current, target)
    if conflicts:
        raise Refused(
            "refused: changed since the proposal was made and the change does not merge: " + ", ".join(conflicts),
            conflicts=conflicts,
        )
    return plan


def _checked_plan(ws: Workspace, cs: ChangeSet, today: str, result: ApplyResult) -> Plan:
    check_evidence_days(cs.evidence)
    check_state_readable(ws, cs.evidence)
    plan = _resolve(ws, cs, today, result)
    check_superset(ws, plan, cs.evidence.allow_drop)
    check_tombstones(ws, plan)
    refuse_new_secrets(ws, plan)
    result.targets = {p: t for p, (_, t) in plan.items()}
    return plan


def plan_changeset(ws: Workspace, cs: ChangeSet, today: str | None = None) -> ApplyResult:
    """Resolve and check without writing anything (dry runs and previews)."""
    result = ApplyResult()
    _checked_plan(ws, cs, today or ws.today(), result)
    return result


def apply_changeset(
    ws: Workspace,
    cs: ChangeSet,
    *,
    today: str | None = None,
    now: datetime | None = None,
    fault: Callable[[str], None] | None = None,
) -> ApplyResult:
    """Apply through the one door. Refused leaves the disk untouched; ApplyFailed says how to recover."""
    today = today or ws.today()
    now = now or datetime.now(UTC)
    step: Step = fault or (lambda _name: None)
    with memory_lock(ws):
        unlocked = _remove_lock_a_kill_left(ws)
        refuse_if_git_busy(ws)
        # A change a crash interrupted is finished first: its half-written files must not become
        # the base of this one, and its journal must not be overwritten (invariant 7).
        interrupted = _recover_locked(ws)
        result = ApplyResult()
        result.warnings.extend(w for w in (unlocked, interrupted) if w)
        plan = _checked_plan(ws, cs, today, result)
        journal = Journal.of(cs, plan, today, now, parent=head(ws.root))
        background = _store_state_ahead(ws, cs, journal)
        try:
            write_journal(ws, journal)
            step("journal")
            _write_files(ws, plan, result, step)
        except BaseException:
            drain(background)
            raise
        finish(ws, journal, result, step, cs.before_commit, background, cs.evidence.shard_reads)
    update_after_change(ws, [*result.written, *result.deleted])  # the search index, for these files only
    return result


def _store_state_ahead(ws: Workspace, cs: ChangeSet, journal: Journal) -> list:
    """The git jobs storing the state-to-be: the caller's, or one started now for advanced ids."""
    background = list(cs.evidence.stored_ahead)
    e = journal.evidence
    if not background and (e.advance or e.release):
        job = store_state_ahead(ws, next_state(ws, e.advance, e.release, journal.state_ts))
        background += [job] if job is not None else []
    return background


def _write_files(ws: Workspace, plan: Plan, result: ApplyResult, step: Step) -> None:
    done: list[tuple[str, str | None]] = []
    folders: set[Path] = set()
    try:
        for rel, (current, target) in plan.items():
            if current == target:
                continue
            path = ws.memory / rel
            if target is None:
                remove_file(path)
                result.deleted.append(rel)
            else:
                atomic_write_text(path, target, sync_dir=False)  # each file fsynced; folders once below
                folders.add(path.parent)
                result.written.append(rel)
            done.append((rel, current))
            step(f"write:{rel}")
        for folder in folders:
            fsync_dir(folder)
    except OSError as exc:
        _undo_writes(ws, done, exc)
        raise Refused(f"refused: could not write ({exc}); nothing was changed") from None


def _undo_writes(ws: Workspace, done: list[tuple[str, str | None]], exc: OSError) -> None:
    """Put back what a failed write had already written, and drop the journal."""
    try:
        for rel, original in reversed(done):
            if original is None:
                remove_file(ws.memory / rel)
            else:
                atomic_write_text(ws.memory / rel, original)
        remove_journal(ws)
    except OSError as exc2:
        raise ApplyFailed(
            f"write failed ({exc}) and so did the undo ({exc2}); "
            "recover with `dreamdeck doctor --fix` (or `git checkout -- memory/topics`)"
        ) from None


def refuse_if_git_busy(ws: Workspace) -> None:
    """Refused, before anything is written, while git is in the middle of something (invariant 7),
    or while the commit would carry a file through a link (`refuse_linked_changes`)."""
    why = busy_reason(ws.root)
    if why:
        raise Refused(f"refused: {why}; memory was not changed")
    refuse_linked_changes(ws)


SHARD_FILE = re.compile(r"^memory/(?:topics|vault|archive)/[^/]+\.md$")


def refuse_linked_changes(ws: Workspace) -> None:
    """Refused, naming it, when a file the commit would stage is a symbolic link or has another
    hard link: its bytes may be a file's outside the folder. The staging step refuses the same
    (`git.commit.refuse_linked_staging`); checked here too so the change writes nothing first.
    A link a stream rewrite left before its rename is dreamdeck's own, and is dropped."""
    linked = [rel for rel in linked_files(ws) if rel != f"memory/{JOURNAL}"]
    for rel in linked:
        if STREAM_PATH.match(rel):
            drop_unrenamed_links(ws, ws.root / rel)
    linked = [rel for rel in linked if link_refusal(ws.root, rel) is not None]
    # A linked shard refuses every mutation, changed or not: a change reads every shard (the
    # citation check, a forget's stripping), and the read views skip it (`store.shard_files`).
    shards = [rel for rel in linked if SHARD_FILE.match(rel)]
    changed = shards or changed_in_worktree(ws.root, linked)
    if changed:
        raise link_refusal(ws.root, changed[0])  # type: ignore[misc]


def recover_journal(ws: Workspace) -> str | None:
    """Finish an apply that a crash interrupted (doctor --fix). Returns what was done, or None.

    The next apply (and the next dream) does this by itself; doctor --fix does it without one.
    """
    if not (ws.memory / JOURNAL).exists():
        return None
    with memory_lock(ws):
        unlocked = _remove_lock_a_kill_left(ws)
        refuse_if_git_busy(ws)
        done = _recover_locked(ws)
        return "; ".join(w for w in (unlocked, done) if w) or None


def _remove_lock_a_kill_left(ws: Workspace) -> str | None:
    """A kill inside the interrupted change's commit leaves git's index lock, which would refuse
    every later change: removed when nothing alive can own it (`git.stale_lock`). Call it with
    the memory lock held."""
    removed = remove_lock_left_by(ws.root, ws.memory / JOURNAL)
    return f"removed {removed} that the interrupted change's git left when it was killed" if removed else None


def _recover_locked(ws: Workspace) -> str | None:
    try:
        journal = read_journal(ws)
    except TornJournal:
        # A torn journal means the crash hit before any shard was written: nothing to finish. Its
        # bytes are kept aside, not deleted (damage by hand or by disk must never vanish unsaid).
        aside = keep_journal_aside(ws)
        return f"set aside a torn journal as memory/{aside} (the interrupted change had not started writing)"
    if journal is None:
        return None
    for rel, target in journal.targets.items():
        file = ws.memory / rel
        if _read(file) != target:
            if target is None:
                remove_file(file)
            else:
                atomic_write_text(file, target)
    result = ApplyResult()
    finish(ws, journal, result, lambda _n: None)
    c = journal.commit
    return f"completed the interrupted {c.action.lower()} ({c.summary})" + (f" as {result.sha[:10]}" if result.sha else "")
