"""Everything an apply does after its shard writes, in order (each step is why the next is safe):
tombstones, dreamed ids, restored stream lines, memory/meta bookkeeping, compaction and fragment
GC after a fresh citation judgment, the caller's hook, audit lines, one git commit with trailers,
and only then the journal's removal. Idempotent, so a recovery from the journal can run it again:
a change found committed already (its Change-Id) is not committed twice.

The collection step compacts the change's days and every day of the compaction backlog, except
those a writer may still hold open (invariant 8): those are recorded in the backlog (committed
with the change) and done by a later change. Lines that landed on a replaced stream inode are
carried over first.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from functools import partial

from filelock import FileLock

from dreamdeck.core.door.changeset import ApplyResult
from dreamdeck.core.door.collection import plan_collection, reason_of, reasons_of_work, work_of
from dreamdeck.core.door.compaction import CompactionPlan, CompactionResult, compact_days, is_meant
from dreamdeck.core.door.journal import JOURNAL, Journal, remove_journal, write_journal
from dreamdeck.core.door.outside_losses import LEFT_BY_ANOTHER_WRITER, outside_summary, record_outside_losses
from dreamdeck.core.door.state import next_state
from dreamdeck.core.formats.citations import Key
from dreamdeck.core.formats.counts import counted
from dreamdeck.core.formats.events import try_parse_event_line
from dreamdeck.core.formats.scrub import scrub
from dreamdeck.core.git.blobs import stage_in_background
from dreamdeck.core.git.commit import Trailers, commit_memory, commit_of_change
from dreamdeck.core.git.notes import line_id, record_gc_lines
from dreamdeck.core.index.evidence import ShardReads
from dreamdeck.core.index.search_purge import purge_index
from dreamdeck.core.io.atomic import atomic_write_text, remove_file
from dreamdeck.core.store.access import scrub_access
from dreamdeck.core.store.audit import ACTIONS, AuditEntry, append_entries, audit_path
from dreamdeck.core.store.compaction_backlog import Backlog, DayWork, load_backlog, merge_work, save_backlog
from dreamdeck.core.store.state import DreamingState, save_state
from dreamdeck.core.store.stream_rewrite import blank_in_place, carry_replaced_streams, join_late_carriers
from dreamdeck.core.store.streams import append_raw_lines, read_path_for, read_stream_lines
from dreamdeck.core.store.tombstones import load_tombstones, record
from dreamdeck.core.workspace import DATE_RE, Workspace, lock_file

GC_READS = "reflections/"  # the meta files the GC reads (pending and held fragments): `index.evidence`
Step = Callable[[str], None]  # announces each step by name (fault injection and tests)


def drain(background: list, late: list | None = None) -> None:
    """Wait for the git jobs and the late-append carriers an apply started (never leave one behind)."""
    for job in background:
        job.wait()
    join_late_carriers(late or [])


def finish(ws: Workspace, journal: Journal, result: ApplyResult, step: Step,
           before_commit: Callable[[ApplyResult], None] | None = None, background: list | None = None,
           reads: ShardReads | None = None) -> None:
    """`background`: git jobs storing objects ahead of the commit, waited for before git is used.
    `reads`: the shard files the caller read for this change (see `Evidence.shard_reads`)."""
    background = [] if background is None else background
    late: list = []  # threads carrying appends that land on a replaced stream inode
    try:
        _record_tombstones(ws, journal, step)
        state = _save_state(ws, journal, background, step)
        _restore_lines(ws, journal, step)
        committed = commit_of_change(ws.root, journal.change_id)
        if committed is None:
            _write_meta_files(ws, journal)  # before the GC: a pending reflection protects its citations
            gc_lines = _collect(ws, journal, state, result, late, step, reads)
            _write_collection_record(ws, journal, result)
            if before_commit is not None:
                before_commit(result)  # what the GC dropped is known by now
            _forget_text(ws, journal, step)
            record_outside_losses(ws, journal, gc_lines, result.warnings)
            _audit_once(ws, journal, result, gc_lines)
            step("audit")
            drain(background, late)  # long over by now; joined so the commit holds what they carried
            _commit(ws, journal, result)
        else:
            # a kill came after the commit: only the journal is left to do. Its meta files are not
            # written again: `before_commit` may have rewritten them since (a decision record with
            # what was collected), and the commit holds those final bytes.
            result.sha = committed
        _note_gc_lines(ws, journal, result)
        step("commit")
        remove_journal(ws)
        step("journal-removed")
    finally:
        drain(background, late)  # also when a step fails


def _record_tombstones(ws: Workspace, journal: Journal, step: Step) -> None:
    if not journal.evidence.tombstones:
        return
    live = load_tombstones(ws)
    for op, stone in journal.evidence.tombstones:
        # already recorded on a previous attempt? (a soft->hard upgrade is a new record)
        done = live.get(stone.key) == stone if op == "forget" else stone.key not in live
        if not done:
            record(ws, op, stone)
            live = load_tombstones(ws)
    step("tombstones")


def _save_state(ws: Workspace, journal: Journal, background: list, step: Step) -> DreamingState | None:
    """The advanced and released ids on disk, staged for the commit; None when there are none."""
    e = journal.evidence
    if not (e.advance or e.release):
        return None
    state = next_state(ws, e.advance, e.release, journal.state_ts)  # a year of ids: megabytes, loaded once
    save_state(ws.state_path, state)
    # Staged now, git hashes it (its object is usually stored already) during the GC below.
    drain(background)  # one git at a time on the index and the object store
    staging = stage_in_background(ws.root, [ws.rel(ws.state_path)])
    background[:] = [staging] if staging is not None else []
    step("state")
    return state


def _restore_lines(ws: Workspace, journal: Journal, step: Step) -> None:
    """Re-append dropped fragment lines, skipping ids already present (so a retry adds nothing)."""
    if not journal.evidence.restore_lines:
        return
    for day, lines in journal.evidence.restore_lines.items():
        if not DATE_RE.match(day):
            continue  # a journal written before the door checked its days (`check_evidence_days`): no stream to go to
        path = read_path_for(ws, day)
        present = {ln.event.get("id") for ln in read_stream_lines(path) if ln.event is not None} if path else set()
        missing = []
        for line in lines:
            ev = try_parse_event_line(line)
            if ev is not None and ev.get("id") not in present:
                missing.append(line.encode("utf-8"))
                present.add(ev.get("id"))
        append_raw_lines(ws, day, missing)
    step("restore")


def _write_meta_files(ws: Workspace, journal: Journal) -> None:
    """The change's meta files, before the GC (the reflections it writes protect citations).
    The collection record is written after the GC, once, by `_write_collection_record`; only a
    record the GC reads (a reflection's) is also written here first."""
    record = journal.collection_record
    for rel, text in journal.meta_files.items():
        if record is not None and rel == record.file and not rel.startswith(GC_READS):
            continue
        path = ws.memory / "meta" / rel
        if text is None:
            remove_file(path)
        else:
            atomic_write_text(path, text)


def _write_collection_record(ws: Workspace, journal: Journal, result: ApplyResult) -> None:
    """The change's record says what its collection took and why (its reasons, those of an
    interrupted attempt included): written here, from the journal, by a normal apply and a
    recovery alike, so both commit the same bytes."""
    text = journal.record_text(result.reasons, result.compaction.deferred)
    if text is not None and journal.collection_record is not None:
        atomic_write_text(ws.memory / "meta" / journal.collection_record.file, text)


def _collect(ws: Workspace, journal: Journal, state: DreamingState | None, result: ApplyResult, late: list,
             step: Step, reads: ShardReads | None) -> list[tuple[str, str]]:
    """Compact the change's days (fragment GC when a topic changed; hard forgets always) and the
    backlog's, each only when no writer may hold its file; the others wait in the backlog (and
    the audit says which and why). Returns the exact lines the GC took (not the hard-forgotten
    ones), for the rollback note; `result.reasons` says why each fragment went, also those an
    interrupted attempt took (kept in the journal with the lines)."""
    carry_replaced_streams(ws)
    earlier = list(journal.gc_lines or [])  # planned by an attempt a kill interrupted
    result.reasons.update(journal.gc_reasons_taken or {})
    backlog, _problem = load_backlog(ws)
    e = journal.evidence
    work = _tombstoned_purges(ws, merge_work(backlog, work_of(e.gc_days, journal.topics_changed, e.purge,
                                                                  e.gc_reasons)))
    # Days an attempt a kill interrupted compacted already: done (its rewrite made them look
    # freshly written, so a replay would call them waiting and record a deferral that never was).
    work = {day: w for day, w in work.items() if day not in (journal.compacted_days or [])}
    if not work:
        result.compaction.watermarks_dropped = journal.watermarks_dropped or 0
        return earlier
    given = reasons_of_work(work)
    cp = plan_collection(ws, work, max(journal.today, ws.today()), state, reads=reads)
    if cp.ready:
        assert cp.state is not None
        _journal_planned(ws, journal, earlier, cp.gc, given)
        step("gc-planned")
        result.compaction = compact_days(ws, cp.state, cp.protected, cp.ready, reads=reads, late=late, plan=cp.gc,
                                         meant=cp.meant)
    else:
        result.compaction = CompactionResult()
    _journal_compacted(ws, journal, result, cp.ready)
    result.compaction.deferred.update(cp.waiting)
    deferred = {day: work[day] for day in result.compaction.deferred}
    result.compaction.blanked = _blank_waiting_purges(ws, deferred)
    _journal_deferral(ws, journal, result, backlog, deferred)
    save_backlog(ws, deferred)
    step("gc")
    purged = {(day, i) for day, w in cp.ready.items() for i in w.purge}
    for key in result.compaction.fragment_lines_dropped:
        result.reasons[f"{key[0]}#{key[1]}"] = reason_of(key, key in purged, given)
    took = [(k[0], line) for k, line in result.compaction.fragment_lines_dropped.items() if k not in purged]
    return earlier + [pair for pair in took if pair not in earlier]


def _journal_compacted(ws: Workspace, journal: Journal, result: ApplyResult, ready: Backlog) -> None:
    """The days this attempt compacted and the watermark lines it removed, into the journal at
    once: a replay after a kill finds them done and the lines gone, and the change's record must
    still say what went (the receipt a replay commits is the one an unkilled run commits)."""
    days = sorted(set(journal.compacted_days or []) | (set(ready) - set(result.compaction.deferred)))
    if result.compaction.watermarks_dropped or days != (journal.compacted_days or []):
        journal.watermarks_dropped = (journal.watermarks_dropped or 0) + result.compaction.watermarks_dropped
        journal.compacted_days = days
        write_journal(ws, journal)
    result.compaction.watermarks_dropped = journal.watermarks_dropped or 0


def _tombstoned_purges(ws: Workspace, work: Backlog) -> Backlog:
    """`work` with only the purges a hard tombstone of that day backs: the backlog file is
    nobody's order to remove a line (a planted purge of a cited fragment removed it). The
    tombstones are read only when something is to be purged."""
    if not any(w.purge for w in work.values()):
        return work
    hard = {k for k, s in load_tombstones(ws).items() if s.hard}
    out: Backlog = {}
    for day, w in work.items():
        purge = {i for i in w.purge if (day, i) in hard}
        if purge or w.fragment_gc or w.reasons or not w.purge:
            out[day] = DayWork(w.fragment_gc, purge, w.reasons)
    return out


def _blank_waiting_purges(ws: Workspace, deferred: Backlog) -> list[Key]:
    """A hard forget whose day waits for its writers: its line's bytes are overwritten in place
    now (the file is not replaced), so this change's commit never stages the forgotten text."""
    if not any(w.purge for w in deferred.values()):
        return []  # (the usual case: a dream's compaction of today waits; no tombstones read)
    meant = {k: s.hash for k, s in load_tombstones(ws).items() if s.hard and s.hash}
    blanked: list[Key] = []
    for day, w in sorted(deferred.items()):
        if w.purge:
            lines = blank_in_place(ws, day, partial(is_meant, day, purge=w.purge, meant=meant))
            blanked += [(day, ln.event["id"]) for ln in lines if ln.event is not None]
    return blanked


def _journal_deferral(ws: Workspace, journal: Journal, result: ApplyResult, before: Backlog, after: Backlog) -> None:
    """The audit line of a compaction this change leaves waiting that was not waiting already (or
    now waits for more): which days, and why each waits (invariant 8). Into the journal before the
    backlog is written: a recovery finds the backlog saved already and would see nothing new."""
    new = sorted(day for day, w in after.items() if not w.same_work(before.get(day)))
    if not new or journal.deferral:
        return
    journal.deferral = (f"compaction deferred for {counted(len(new), 'day')}: "
                        + "; ".join(f"{day}: {result.compaction.deferred[day]}" for day in new))
    write_journal(ws, journal)


def _journal_planned(ws: Workspace, journal: Journal, earlier: list[tuple[str, str]], plan: CompactionPlan,
                     given: dict[str, str]) -> None:
    """The lines fragment GC is about to take go into the journal before any file is rewritten,
    each with its reason, so a kill after the rewrite still leaves them for the commit's note and
    the audit (the streams no longer hold them, and git may never have)."""
    planned = earlier + [(k[0], line) for k, line in plan.lines.items() if (k[0], line) not in earlier]
    if planned != earlier:
        journal.gc_lines = planned
        journal.gc_reasons_taken = {**(journal.gc_reasons_taken or {}),
                                    **{f"{d}#{i}": reason_of((d, i), False, given) for d, i in plan.lines}}
        write_journal(ws, journal)


def _forget_text(ws: Workspace, journal: Journal, step: Step) -> None:
    """A hard forget's text leaves the audit log, the access record's queries (before the commit,
    which stages memory/) and the private search index (idempotent: a recovery does it again). Under the critical-file alerts' lock, the one writer that appends to
    the audit log outside the door (the memory lock keeps every mutation out), so no line is lost."""
    pieces = journal.evidence.scrub
    if not pieces:
        return
    with FileLock(lock_file(ws.root, "critical-baseline"), timeout=60.0):
        path = audit_path(ws.root)
        try:
            text = path.read_bytes().decode("utf-8", "replace")
        except FileNotFoundError:
            text = None
        if text is not None and scrub(text, pieces) != text:
            atomic_write_text(path, scrub(text, pieces))
    step("audit-scrubbed")
    scrub_access(ws.memory, pieces)
    step("access-scrubbed")
    purge_index(ws)
    step("index-purged")


def _audit_once(ws: Workspace, journal: Journal, result: ApplyResult, gc_lines: list[tuple[str, str]]) -> None:
    """The audit lines, once; the journal then records that, and the lines the GC took."""
    if journal.audited:
        return
    entries = _audit_entries(journal, result, gc_lines)
    if entries:  # (a hook's own lines, e.g. a proposal's decision, are among them)
        append_entries(ws.root, entries)
    # Marked in the journal, so a recovery after a kill from here on does not log it twice, and
    # can still attach the collected lines to the commit (the streams no longer hold them).
    journal.audited = True
    journal.gc_lines = gc_lines
    write_journal(ws, journal)


def _audit_entries(journal: Journal, result: ApplyResult, gc_lines: list[tuple[str, str]]) -> list[AuditEntry]:
    """One line per changed shard file, the caller's extra lines, and the GC's line (the meter:
    how many fragments left the streams as dreamed and uncited, an interrupted attempt's included)."""
    c = journal.commit
    now = datetime.fromisoformat(journal.now)
    entries = []
    for rel, target in journal.targets.items():
        original = journal.originals.get(rel)
        if original == target:
            continue
        verb = journal.audit.file_verb or ("CREATE" if original is None else "DELETE" if target is None else "EDIT")
        entries.append(AuditEntry.at(now, verb, f"memory/{rel}", c.actor, c.approval, c.summary))
    for action, file, summary in journal.audit.extra:
        entries.append(AuditEntry.at(now, action, file, c.actor, c.approval, summary))
    if journal.deferral:
        entries.append(AuditEntry.at(now, "EDIT", "memory/meta/compaction-backlog.json", c.actor, c.approval,
                                     journal.deferral))
    if gc_lines:
        entries.append(AuditEntry.at(now, "DELETE", "memory/streams", c.actor, c.approval,
                                     f"fragment GC collected {counted(len(gc_lines), 'dreamed, uncited fragment')}"
                                     + _reasons_said(result.reasons)))
    if journal.outside_lines:
        entries.append(AuditEntry.at(now, "DELETE", "memory/streams", c.actor, "—", outside_summary(journal)))
    entries += result.audit
    if not entries and _changes_something(journal):  # every mutation is audited (invariant 11)
        entries.append(AuditEntry.at(now, _fallback_action(c.action), _fallback_file(journal), c.actor, c.approval,
                                     c.summary))
    return entries


def _reasons_said(reasons: dict[str, str], shown: int = 20) -> str:
    """The reasons on the GC's audit line: each fragment with its reason, the first `shown` of
    them; the commit's GC note holds every one (`dreamdeck collected REV` prints them)."""
    if not reasons:
        return ""
    items = sorted(reasons.items())
    said = "; ".join(f"{key}: {why}" for key, why in items[:shown])
    more = len(items) - shown
    return f" ({said}" + (f"; and {more} more: `dreamdeck collected` on this commit lists each" if more > 0 else "") + ")"


def _changes_something(journal: Journal) -> bool:
    """Anything beyond shard files this change writes (a change that writes nothing is no mutation)."""
    e = journal.evidence
    return bool(journal.meta_files or e.advance or e.release or e.tombstones or e.restore_lines or e.purge)


def _fallback_action(action: str) -> str:
    """The change's own word when it is an audit verb (PROPOSE, REJECT, DEFER …), else EDIT."""
    return action.upper() if action.upper() in ACTIONS else "EDIT"


def _fallback_file(journal: Journal) -> str:
    """What the change touched, for its one line: a meta file, the dreaming state, or memory/."""
    if journal.meta_files:
        return f"memory/meta/{sorted(journal.meta_files)[0]}"
    if journal.evidence.advance or journal.evidence.release:
        return "memory/.dreaming-state.json"
    return "memory/"


def _commit(ws: Workspace, journal: Journal, result: ApplyResult) -> None:
    c = journal.commit
    started = time.perf_counter()
    result.sha = commit_memory(
        ws.root,
        None if c.dream_subject and not c.subject else (c.subject or f"memory: {c.summary}"),
        Trailers(c.actor, c.approval, c.trigger, c.ref.id if c.ref else "", c.ref.kind if c.ref else "",
                 journal.change_id),
        body=c.summary if c.dream_subject else "", fragments=c.dream_fragments,
        exclude=(f"memory/{JOURNAL}",),
    )
    result.commit_seconds = time.perf_counter() - started


def _note_gc_lines(ws: Workspace, journal: Journal, result: ApplyResult) -> None:
    """Lines appended since the last commit and collected now were never in git: keep them in a
    git note on this commit so a rollback can put them back."""
    outside = journal.outside_lines or []
    if result.sha and (journal.gc_lines or outside):
        reasons = {**(journal.gc_reasons_taken or {}), **result.reasons,
                   **{f"{day}#{line_id(raw)}": LEFT_BY_ANOTHER_WRITER for day, raw in outside}}
        record_gc_lines(ws.root, result.sha, [*(journal.gc_lines or []), *outside], reasons)

