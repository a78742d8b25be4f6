"""The one door: every mutation of memory is a ChangeSet applied by `apply_changeset`.

Order (each step is why the next one is safe):
1. resolve each edit against its recorded base (3-way rebase via git merge-file, or refuse);
2. validate paths (only memory/topics|vault|archive/<slug>.md; the vault only on a human pin);
3. recompute runtime-owned frontmatter; check the citation superset (refuse naming ids);
4. write a journal, then the files atomically (a failed write restores what was written);
5. tombstones, dreamed ids, restored stream lines, GC after a fresh citation judgment;
6. audit lines, drop the journal, one git commit with trailers.
A kill anywhere leaves the journal; `recover_journal` (doctor --fix) finishes the apply.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from filelock import FileLock

from dreamdeck.core.errors import ApplyFailed, Refused
from dreamdeck.core.io.atomic import atomic_write_text, fsync_dir, remove_file
from dreamdeck.core.formats.citations import Key, citation_keys, summarize_missing
from dreamdeck.core.door.compaction import CompactionResult, compact_days
from dreamdeck.core.index.evidence import SHARD_AREAS, gc_protected_keys, shard_area_files
from dreamdeck.core.git.blobs import BLOB_TMP_PREFIX, stage_in_background, store_blob_in_background
from dreamdeck.core.git.commit import Trailers, commit_memory
from dreamdeck.core.git.merge import merge_shards, rebase_change
from dreamdeck.core.formats.shards import recompute_shard_text
from dreamdeck.core.formats.slugs import is_valid_slug
from dreamdeck.core.store.state import load_state, save_state
from dreamdeck.core.store.streams import (
    append_raw_lines,
    join_late_carriers,
    read_path_for,
    read_stream_lines,
)
from dreamdeck.core.store.tombstones import Tombstone, record
from dreamdeck.core.workspace import Workspace, local_datetime_iso

JOURNAL = "meta/.journal.json"


@dataclass
class FileEdit:
    path: str  # relative to memory/, e.g. "topics/pnpm.md"
    base: str | None  # content the change was made against (None: the file did not exist)
    new: str | None  # None deletes the file
    recompute: bool = True  # runtime-owned frontmatter (off only for verbatim restores)


@dataclass
class ChangeSet:
    action: str  # audit verb family: DREAM, APPROVE, PIN, UNPIN, FORGET, UNFORGET, REVERT, COMMIT, EDIT
    actor: str
    approval: str  # auto | approved | partial | rejected | pending | —
    trigger: str
    summary: str
    edits: list[FileEdit] = field(default_factory=list)
    ref: str = ""
    ref_kind: str = "Reflection"
    subject: str | None = None  # None with dream_subject: TypeClaw's `dream: N fragments 🌙`
    dream_subject: bool = False
    allow_drop: set[Key] = field(default_factory=set)  # an explicit, audited forget
    allow_vault: bool = False  # pin / unpin / vault edit by a human
    advance: dict[str, set[str]] = field(default_factory=dict)  # day -> ids now dreamed
    release: dict[str, set[str]] = field(default_factory=dict)  # day -> ids back to the tail
    gc_days: set[str] = field(default_factory=set)
    purge: set[Key] = field(default_factory=set)  # hard forget: bytes leave the stream
    restore_lines: dict[str, list[str]] = field(default_factory=dict)  # day -> raw lines to re-append
    tombstones: list[tuple[str, Tombstone]] = field(default_factory=list)  # ("forget"|"unforget", stone)
    meta_files: dict[str, str | None] = field(default_factory=dict)  # memory/meta/* bookkeeping
    audit: list[tuple[str, str, str]] = field(default_factory=list)  # extra (ACTION, FILE, SUMMARY)
    # Bookkeeping that must land in the same commit but cannot be a whole-file text computed in
    # advance (e.g. a status rewrite in a file sub-agents append to). It runs after every file of
    # the change is written and before the audit, the journal removal and the commit. It is not
    # journaled: a caller must be able to run its decision again if a crash skipped it.
    before_commit: Callable[["ApplyResult"], None] | None = field(default=None, repr=False)
    # The timestamp for advanced/released days, when the caller fixed it earlier, and jobs that
    # already store the resulting state in git (`store_state_ahead`): the door waits for them
    # before its commit instead of starting its own.
    state_ts: str | None = None
    stored_ahead: list = field(default_factory=list, repr=False)


@dataclass
class ApplyResult:
    sha: str | None = None
    written: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    rebased: list[str] = field(default_factory=list)
    compaction: CompactionResult = field(default_factory=CompactionResult)
    warnings: list[str] = field(default_factory=list)
    targets: dict[str, str | None] = field(default_factory=dict)
    commit_seconds: float = 0.0  # git's own share: the commit of memory/ (benchmarks report it)


def memory_lock(ws: Workspace, timeout: float = 60.0) -> FileLock:
    """One mutation at a time across processes (the dream lock is separate and outer)."""
    return FileLock(str(ws.lock_dir / "memory.lock"), timeout=timeout)


def _read(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None


def validate_path(rel: str, allow_vault: bool) -> tuple[str, str]:
    """(area, slug) of a shard path, or Refused: containment for anything an LLM or proposal names."""
    parts = rel.split("/")
    if len(parts) != 2 or parts[0] not in SHARD_AREAS or not parts[1].endswith(".md"):
        raise Refused(f"refused: {rel!r} is not memory/<topics|vault|archive>/<slug>.md")
    slug = parts[1][:-3]
    if not is_valid_slug(slug):
        raise Refused(f"refused: {slug!r} is not a valid slug")
    if parts[0] == "vault" and not allow_vault:
        raise Refused(f"refused: {rel} is in the vault, which changes only by an explicit human pin/unpin")
    return parts[0], slug


def _resolve(ws: Workspace, cs: ChangeSet, today: str, result: ApplyResult) -> dict[str, tuple[str | None, str | None]]:
    """path -> (current, target), rebasing stale edits; Refused on conflicts."""
    plan: dict[str, tuple[str | None, str | None]] = {}
    conflicts: list[str] = []
    for edit in cs.edits:
        _, slug = validate_path(edit.path, cs.allow_vault)
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


def _check_superset(ws: Workspace, plan: dict[str, tuple[str | None, str | None]], allow_drop: set[Key]) -> None:
    """Every citation the edited files held must survive somewhere, unless explicitly forgotten."""
    before: set[Key] = set()
    after: set[Key] = set()
    for current, target in plan.values():
        before |= citation_keys(current or "")
        after |= citation_keys(target or "")
    candidates = before - after - allow_drop
    if not candidates:
        return
    # Only now look at the untouched files: a citation that moved elsewhere is fine.
    for rel, path in shard_area_files(ws):
        if rel in plan:
            continue
        candidates -= citation_keys(path.read_bytes().decode("utf-8", "replace"))
        if not candidates:
            return
    missing = sorted(candidates)
    raise Refused(
        f"refused: would drop {len(missing)} cited fragment(s): {summarize_missing(missing)}",
        missing=missing,
    )


def plan_changeset(ws: Workspace, cs: ChangeSet, today: str | None = None) -> ApplyResult:
    """Resolve and check without writing anything (dry runs and previews)."""
    today = today or ws.today()
    result = ApplyResult()
    plan = _resolve(ws, cs, today, result)
    _check_superset(ws, plan, cs.allow_drop)
    _check_tombstones(ws, plan)
    result.targets = {p: t for p, (_, t) in plan.items()}
    return result


def _check_tombstones(ws: Workspace, plan: dict[str, tuple[str | None, str | None]]) -> None:
    """Invariant 8: no change may add a citation of a forgotten fragment (e.g. an old proposal)."""
    added: set[Key] = set()
    for current, target in plan.values():
        added |= citation_keys(target or "") - citation_keys(current or "")
    if not added:
        return
    from dreamdeck.core.store.tombstones import tombstoned_keys

    bad = sorted(added & tombstoned_keys(ws))
    if bad:
        raise Refused(
            f"refused: would cite {len(bad)} forgotten fragment(s): {summarize_missing(bad)} "
            "(tombstoned; `dreamdeck unforget` first)"
        )


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
    now = now or datetime.now(timezone.utc)
    step = fault or (lambda _name: None)
    with memory_lock(ws):
        # A change a crash interrupted is finished first: its half-written files must not become
        # the base of this one, and its journal must not be overwritten (invariant 6).
        interrupted = _recover_locked(ws)
        result = ApplyResult()
        if interrupted:
            result.warnings.append(interrupted)
        plan = _resolve(ws, cs, today, result)
        _check_superset(ws, plan, cs.allow_drop)
        _check_tombstones(ws, plan)
        result.targets = {p: t for p, (_, t) in plan.items()}
        journal = _journal_payload(cs, plan, today, now)
        background = list(cs.stored_ahead)
        if not background and (cs.advance or cs.release):
            job = store_state_ahead(ws, _next_state(ws, journal))
            background += [job] if job is not None else []
        try:
            atomic_write_text(ws.memory / JOURNAL, json.dumps(journal, ensure_ascii=False))
            step("journal")
            _write_files(ws, plan, result, step)
        except BaseException:
            _drain(background)
            raise
        _finish(ws, journal, result, step, cs.before_commit, background)
    return result


def _drain(background: list, late: list | None = None) -> None:
    """Wait for the git jobs and the late-append carriers an apply started (never leave one behind)."""
    for job in background:
        job.wait()
    join_late_carriers(late or [])


def store_state_ahead(ws: Workspace, state):
    """Start git storing `state` as the object the commit will need (None without git).

    Tens of megabytes at a year of ids: git compresses it on the other core while the caller
    goes on (a dream: while the dreamer thinks; the door: while it writes and collects)."""
    _sweep_blob_files(ws.lock_dir)
    return store_blob_in_background(ws.root, ws.rel(ws.state_path), state.json_parts(), tmp_dir=ws.lock_dir)


def _sweep_blob_files(folder: Path, older_than: float = 600.0) -> None:
    """Remove the temporary copies a killed process left behind (tens of MB each); a live job's
    file is minutes younger than this."""
    cutoff = time.time() - older_than
    for leftover in folder.glob(f"{BLOB_TMP_PREFIX}*"):
        try:
            if leftover.stat().st_mtime < cutoff:
                leftover.unlink()
        except OSError:
            pass


def _next_state(ws: Workspace, journal: dict):
    """The dreaming state once this change's ids are advanced and released."""
    c = journal["changeset"]
    state, _problem = load_state(ws.state_path)
    return state.advanced(c["advance"], c["release"], journal.get("state_ts") or local_datetime_iso())


def _journal_payload(cs: ChangeSet, plan, today: str, now: datetime) -> dict:
    return {
        "version": 1,
        "today": today,
        "now": now.isoformat(),
        # One timestamp for the advanced days, fixed up front: the state git stores ahead of the
        # commit and the state written later must be the same bytes.
        "state_ts": cs.state_ts or local_datetime_iso(),
        "targets": {p: t for p, (_, t) in plan.items()},
        "originals": {p: c for p, (c, _) in plan.items()},
        "changeset": {
            "action": cs.action, "actor": cs.actor, "approval": cs.approval, "trigger": cs.trigger,
            "summary": cs.summary, "ref": cs.ref, "ref_kind": cs.ref_kind, "subject": cs.subject,
            "dream_subject": cs.dream_subject,
            "advance": {d: sorted(ids) for d, ids in cs.advance.items()},
            "release": {d: sorted(ids) for d, ids in cs.release.items()},
            "gc_days": sorted(cs.gc_days),
            "purge": sorted(cs.purge),
            "restore_lines": cs.restore_lines,
            "tombstones": [[op, stone.__dict__] for op, stone in cs.tombstones],
            "meta_files": cs.meta_files,
            "audit": cs.audit,
            "topics_changed": any(p.startswith("topics/") and c != t for p, (c, t) in plan.items()),
        },
    }


def _write_files(ws: Workspace, plan, result: ApplyResult, step) -> None:
    done: list[tuple[str, str | None]] = []
    folders: set = set()
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
        try:
            for rel, original in reversed(done):
                if original is None:
                    remove_file(ws.memory / rel)
                else:
                    atomic_write_text(ws.memory / rel, original)
            remove_file(ws.memory / JOURNAL)
        except OSError as exc2:
            raise ApplyFailed(
                f"write failed ({exc}) and so did the undo ({exc2}); "
                "recover with `dreamdeck doctor --fix` (or `git checkout -- memory/topics`)"
            ) from None
        raise Refused(f"refused: could not write ({exc}); nothing was changed") from None


def _finish(ws: Workspace, journal: dict, result: ApplyResult, step, before_commit=None, background=None) -> None:
    """Everything after the shard writes; idempotent, so a recovery can run it again."""
    background = [] if background is None else background  # git jobs storing objects ahead of the commit
    late: list = []  # threads carrying appends that land on a replaced stream inode
    try:
        _finish_steps(ws, journal, result, step, before_commit, background, late)
    finally:
        _drain(background, late)  # also when a step fails


def _finish_steps(ws: Workspace, journal: dict, result: ApplyResult, step, before_commit, background: list,
                  late: list) -> None:
    c = journal["changeset"]
    if c["tombstones"]:
        from dreamdeck.core.store.tombstones import load_tombstones

        live = load_tombstones(ws)
        for op, data in c["tombstones"]:
            stone = Tombstone(**data)
            # already recorded on a previous attempt? (a soft->hard upgrade is a new record)
            done = live.get(stone.key) == stone if op == "forget" else stone.key not in live
            if not done:
                record(ws, op, stone)
                live = load_tombstones(ws)
        step("tombstones")
    state = None  # loaded once: a year of dreamed ids is megabytes of JSON
    if c["advance"] or c["release"]:
        state = _next_state(ws, journal)
        save_state(ws.state_path, state)
        # Staged now, git hashes it (its object is usually stored already) during the GC below.
        _drain(background)  # one git at a time on the index and the object store
        staging = stage_in_background(ws.root, [ws.rel(ws.state_path)])
        background[:] = [staging] if staging is not None else []
        step("state")
    for day, lines in c["restore_lines"].items():
        _restore_lines(ws, day, lines)
    if c["restore_lines"]:
        step("restore")
    # Bookkeeping first: a pending reflection written here protects its citations from the GC below.
    for rel, text in c["meta_files"].items():
        path = ws.memory / "meta" / rel
        if text is None:
            remove_file(path)
        else:
            atomic_write_text(path, text)
    purge = {tuple(k) for k in c["purge"]}
    gc_days = set(c["gc_days"]) | {d for d, _ in purge}
    gc_lines: list[tuple[str, str]] = []
    if gc_days:
        from dreamdeck.core.store.tombstones import load_tombstones

        if state is None:
            state, _ = load_state(ws.state_path)
        # A soft-forgotten fragment keeps its bytes (unforget can bring it back). Only citations
        # under the compacted dates can pin anything there, so only those are gathered.
        protected = gc_protected_keys(ws, days=gc_days) | {k for k, s in load_tombstones(ws).items() if not s.hard}
        result.compaction = compact_days(
            ws, state, protected, gc_days,
            fragment_gc=bool(c["topics_changed"]), purge=purge, late=late,  # type: ignore[arg-type]
        )
        # The exact lines the GC took (not the hard-forgotten ones), for the rollback note.
        gc_lines = [(k[0], line) for k, line in result.compaction.fragment_lines_dropped.items() if k not in purge]
        step("gc")
    if before_commit is not None:
        before_commit(result)  # what the GC dropped is known by now
    if not journal.get("audited"):
        _audit(ws, journal, result)
        # Mark it in the journal, so a recovery after a kill from here on does not log it twice.
        journal["audited"] = True
        atomic_write_text(ws.memory / JOURNAL, json.dumps(journal, ensure_ascii=False))
    step("audit")
    remove_file(ws.memory / JOURNAL)
    step("journal-removed")
    _drain(background, late)  # long over by now; joined so the commit holds what they carried
    started = time.perf_counter()
    result.sha = commit_memory(
        ws.root,
        None if c["dream_subject"] and not c["subject"] else (c["subject"] or f"memory: {c['summary']}"),
        Trailers(c["actor"], c["approval"], c["trigger"], c["ref"], c["ref_kind"]),
        body=c["summary"] if c["dream_subject"] else "",
    )
    result.commit_seconds = time.perf_counter() - started
    if result.sha and gc_lines:
        # Lines appended since the last commit and collected now were never in git: keep them
        # in a git note on this commit so a rollback can put them back.
        from dreamdeck.core.git.notes import record_gc_lines

        record_gc_lines(ws.root, result.sha, gc_lines)
    step("commit")


def _restore_lines(ws: Workspace, day: str, lines: list[str]) -> None:
    """Re-append dropped fragment lines, skipping ids already present (so a retry adds nothing)."""
    from dreamdeck.core.formats.events import try_parse_event_line

    path = read_path_for(ws, day)
    present = {ln.event.get("id") for ln in read_stream_lines(path)} if path else set()  # type: ignore[union-attr]
    missing = []
    for line in lines:
        ev = try_parse_event_line(line)
        if ev is not None and ev.get("id") not in present:
            missing.append(line.encode("utf-8"))
            present.add(ev.get("id"))
    append_raw_lines(ws, day, missing)


_VERB = {"PIN": "PIN", "UNPIN": "UNPIN", "FORGET": "ARCHIVE", "UNFORGET": "UNFORGET", "REVERT": "REVERT"}


def _audit(ws: Workspace, journal: dict, result: ApplyResult) -> None:
    from dreamdeck.core.store.audit import AuditEntry, append_entries

    c = journal["changeset"]
    now = datetime.fromisoformat(journal["now"])
    actor, approval = c["actor"], c["approval"]
    entries = []
    for rel, target in journal["targets"].items():
        original = journal["originals"].get(rel)
        if original == target:
            continue
        verb = _VERB.get(c["action"]) or ("CREATE" if original is None else "DELETE" if target is None else "EDIT")
        entries.append(AuditEntry.at(now, verb, f"memory/{rel}", actor, approval, c["summary"]))
    for action, file, summary in c["audit"]:
        entries.append(AuditEntry.at(now, action, file, actor, approval, summary))
    dropped = result.compaction.fragments_dropped
    if dropped:
        entries.append(AuditEntry.at(now, "DELETE", "memory/streams", actor, approval,
                                     f"fragment GC dropped {len(dropped)} dreamed, uncited fragment(s)"))
    if entries:
        append_entries(ws.root, entries)


def recover_journal(ws: Workspace) -> str | None:
    """Finish an apply that a crash interrupted (doctor --fix). Returns what was done, or None.

    The next apply (and the next dream) does this by itself; doctor --fix does it without one.
    """
    if not (ws.memory / JOURNAL).exists():
        return None
    with memory_lock(ws):
        return _recover_locked(ws)


def _recover_locked(ws: Workspace) -> str | None:
    path = ws.memory / JOURNAL
    try:
        journal = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (json.JSONDecodeError, OSError):
        # A torn journal means the crash hit before any shard was written: drop it.
        remove_file(path)
        return "removed a torn journal (the interrupted change had not started writing)"
    result = ApplyResult()
    for rel, target in journal["targets"].items():
        file = ws.memory / rel
        if _read(file) != target:
            if target is None:
                remove_file(file)
            else:
                atomic_write_text(file, target)
    _finish(ws, journal, result, lambda _n: None)
    c = journal["changeset"]
    return f"completed the interrupted {c['action'].lower()} ({c['summary']})" + (f" as {result.sha[:10]}" if result.sha else "")
