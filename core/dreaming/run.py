"""One dream run, in TypeClaw's order, with the review policy between the dreamer and the apply.

collect undreamed → snapshot → strength table → dreamer (on a scratch copy) → invariants →
split by policy → apply the automatic part through the one door (recompute, advance ids,
compaction + gated GC, commit) → park the rest as a pending reflection.
The dreamer never touches the disk, so a dreamer that fails or misbehaves changes nothing.

Over ~400 lines on purpose: the steps share one `_Run` record and read top to bottom in the order
they run (collect, snapshot, dream, check, split, hold over the loss bound, apply, park); the
receipt lives in `receipts.py`, the prompt's rows in `index.strength`. The hold rules (loss bound,
held fragments) are the next candidates to move out if it grows again.
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import chain

from dreamdeck.core.door.apply import (
    apply_changeset,
    plan_changeset,
    recover_journal,
    refuse_if_git_busy,
)
from dreamdeck.core.door.backlog import compact_backlog
from dreamdeck.core.door.changeset import (
    ApplyResult,
    Audit,
    ChangeSet,
    CollectionRecord,
    Commit,
    Evidence,
    FileEdit,
    Reference,
    Writes,
)
from dreamdeck.core.door.checks import lost_citations
from dreamdeck.core.door.state import store_state_ahead
from dreamdeck.core.dreaming.anthropic_dreamer import AnthropicDreamer
from dreamdeck.core.dreaming.lock import DreamLock
from dreamdeck.core.dreaming.offline import OfflineDreamer
from dreamdeck.core.dreaming.policy import needs_review
from dreamdeck.core.dreaming.protocol import (
    DreamerError,
    DreamInput,
    DreamOutcome,
    DreamScratch,
    unaccounted,
)
from dreamdeck.core.dreaming.receipts import (
    DreamReceipt,
    list_receipts,
    new_receipt_id,
    receipt_message,
    receipt_text,
    run_message,
)
from dreamdeck.core.errors import BadInput, Refused
from dreamdeck.core.formats.citations import (
    citation_keys,
    sectioned_citations,
    summarize_missing,
)
from dreamdeck.core.formats.counts import counted
from dreamdeck.core.formats.shards import parse_loose_shard, recompute_shard_text
from dreamdeck.core.index.evidence import ShardReads, gc_protected_keys, read_shard
from dreamdeck.core.index.fragment_index import FragmentIndex
from dreamdeck.core.index.strength import prompt_rows
from dreamdeck.core.index.undreamed import collect_undreamed
from dreamdeck.core.ops.reflections import given_reasons, mark_stale, meta_updates, workspace_now
from dreamdeck.core.store.reflections import (
    ProposedFile,
    Reflection,
    next_reflection_id,
)
from dreamdeck.core.store.settings import load_settings
from dreamdeck.core.store.shard_files import list_shard_paths
from dreamdeck.core.store.state import load_state
from dreamdeck.core.store.stream_rewrite import carry_replaced_streams
from dreamdeck.core.workspace import Workspace, local_datetime_iso

# DreamReceipt and list_receipts live in `receipts`; the app and the watcher take them from here too.
__all__ = ["DreamReceipt", "DreamRefused", "choose_dreamer", "list_receipts", "run_dream"]


class DreamRefused(Refused):
    """The run could not start (corrupt state, busy lock); nothing was changed."""


def choose_dreamer(name: str, ws: Workspace):
    """auto → anthropic when ANTHROPIC_API_KEY is set, else offline; returns (dreamer, why)."""
    settings = load_settings(ws.root).dreaming
    if name == "auto":
        name = "anthropic" if os.environ.get("ANTHROPIC_API_KEY") else "offline"
        why = "auto: ANTHROPIC_API_KEY is set" if name == "anthropic" else "auto: no ANTHROPIC_API_KEY, using offline"
    else:
        why = f"{name} (asked for)"
    if name == "offline":
        return OfflineDreamer(), why
    if name == "anthropic":  # the SDK itself is imported only when it dreams
        if not os.environ.get("ANTHROPIC_API_KEY"):
            # Said before anything runs: a run that could only fail would still take the lock.
            raise BadInput("the anthropic dreamer needs ANTHROPIC_API_KEY in the environment "
                           "(or use the offline dreamer: --dreamer offline)")
        return AnthropicDreamer(
            model=settings.model, max_output_tokens=settings.max_output_tokens,
            timeout_seconds=settings.timeout_seconds, max_retries=settings.max_retries,
            loss_bound=settings.loss_bound,
        ), why
    raise BadInput(f"unknown dreamer {name!r}: choose auto, offline or anthropic")


def run_dream(
    ws: Workspace,
    *,
    dreamer=None,
    dreamer_name: str | None = None,
    review: str | None = None,
    trigger: str = "manual",
    dry_run: bool = False,
    now: datetime | None = None,
    fault=None,
    lock_timeout: float = 0,
    dream_timeout: float | None = None,
) -> DreamReceipt:
    settings = load_settings(ws.root)
    dream_timeout = dream_timeout or settings.dreaming.dream_timeout_seconds
    review = review or settings.dreaming.review
    if dreamer is None:
        dreamer, _why = choose_dreamer(dreamer_name or settings.dreaming.dreamer, ws)
    now = now or datetime.now(UTC)  # receipts record real time; the date follows ws.today()
    lock = DreamLock(ws, trigger, settings.dreaming.stale_lock_minutes)
    if not dry_run:
        lock.acquire(timeout=lock_timeout)
    ahead: list = []  # git jobs storing the state-to-be while the run goes on
    try:
        return _run(ws, dreamer, review, trigger, dry_run, now, fault, dream_timeout, ahead)
    finally:
        for job in ahead:
            job.wait()  # whatever the outcome, no job outlives the run
        if not dry_run:
            lock.release()


def _dream_within(dreamer, inp: DreamInput, scratch: DreamScratch, seconds: float):
    """Run the dreamer in a thread; past `seconds` it is abandoned (its scratch is dropped), so a
    dreamer that hangs cannot hold the dream lock or change anything."""
    box: dict = {}

    def work() -> None:
        try:
            box["outcome"] = dreamer.dream(inp, scratch)
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=work, name=f"dreamer-{dreamer.name}", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise DreamerError(f"dreamer {dreamer.name!r} did not finish within {seconds:g} s; nothing changed")
    if "error" in box:
        raise box["error"]
    return box["outcome"]


@dataclass
class _Run:
    """One run's settings and what its steps learn on the way; each step fills in the receipt."""
    ws: Workspace
    dreamer: object
    review: str
    trigger: str
    dry_run: bool
    now: datetime
    fault: Callable[[str], None] | None
    dream_timeout: float
    ahead: list  # git jobs storing the state-to-be, waited for by `run_dream`
    receipt: DreamReceipt
    today: str  # the date of the whole run (ws.today() once)
    started: float = field(default_factory=time.monotonic)
    undreamed: list = field(default_factory=list)
    shown: dict[str, set[str]] = field(default_factory=dict)  # day -> ids shown to the dreamer
    state_ts: str = ""  # the advanced days' timestamp, fixed before the dreamer starts
    reads: ShardReads = field(default_factory=dict)  # the shard files the snapshot read
    unaccounted: list[str] = field(default_factory=list)  # "DATE#ID" shown, left uncited with no reason
    settle: Callable[[], None] | None = None  # what the dreamer left for after the run (`DreamOutcome.settle`)

    @property
    def name(self) -> str:
        return self.dreamer.name  # type: ignore[attr-defined]

    def stamped(self) -> DreamReceipt:
        """The receipt with its elapsed time so far (the one place that sets it)."""
        self.receipt.elapsed_ms = int((time.monotonic() - self.started) * 1000)
        return self.receipt


@dataclass
class _Snapshot:
    """The bytes every decision of the run is made against, and the dreamer's input."""
    before: dict[str, str]  # topic slug -> text
    vault: dict[str, str]  # vault slug -> text
    inp: DreamInput

    @property
    def pinned(self) -> frozenset[str]:
        return self.inp.pinned


def _run(ws: Workspace, dreamer, review: str, trigger: str, dry_run: bool, now: datetime, fault,
         dream_timeout: float, ahead: list) -> DreamReceipt:
    receipt = DreamReceipt(new_receipt_id(now), now.isoformat(timespec="seconds"), dreamer.name, trigger, review)
    run = _Run(ws, dreamer, review, trigger, dry_run, now, fault, dream_timeout, ahead, receipt, ws.today())
    _steps(run)
    stamped = run.stamped()
    if run.settle is not None:
        run.settle()  # after the run's changes, not part of its time: the dreamer's projection
    return stamped


def _steps(run: _Run) -> None:
    """The run's steps in order; a step that ends the run early has said why in the receipt."""
    if not _collect(run):
        return
    snap = _snapshot(run)
    dreamt = _dream(run, snap)
    if dreamt is None:
        return
    outcome, after = dreamt
    changed = sorted(s for s in set(snap.before) | set(after) if snap.before.get(s) != after.get(s))
    if not _check(run, snap, after, changed):
        return
    auto, held = _split_by_policy(run, snap, after, changed)
    auto, held = _hold_over_loss_bound(run, snap, auto, held)
    cs = _changeset(run, outcome, auto, held)
    if run.dry_run:
        plan_changeset(run.ws, cs, run.today)
        run.receipt.status = "dry-run"
        run.receipt.reflection = None  # it would take an id; none was created
        run.receipt.message = f"dry run: would apply {counted(len(auto), 'change')} and hold {len(held)} for review"
        return
    _apply(run, cs)


def _collect(run: _Run) -> bool:
    """The undreamed fragments this run is shown; False (and a skipping receipt) when there are none."""
    ws, receipt = run.ws, run.receipt
    if not run.dry_run:
        # A change a crash interrupted is finished before the snapshot, so this dream neither
        # re-sees its fragments nor builds on its half-written files (invariant 7).
        recover_journal(ws)
        refuse_if_git_busy(ws)  # before the dreamer runs: its result could not be committed
        # Reflections nobody decided within [review] expire_days become stale: kept, never applied.
        mark_stale(ws, now=workspace_now(ws) if ws.today_override else run.now)
        # Lines a writer put on a stream inode a compaction replaced are dreamed like the rest (invariant 8).
        carry_replaced_streams(ws)
    state, problem = load_state(ws.state_path)
    if problem:
        raise DreamRefused(f"{problem}. Run `dreamdeck doctor` before dreaming.")
    run.undreamed = collect_undreamed(ws, state)
    if not run.undreamed:
        receipt.message = "no undreamed fragments since last run; skipping"
        # Compactions that waited for a writer are done now if nothing else would do them.
        done = None if run.dry_run else compact_backlog(ws, actor=f"dreamer:{run.name}", trigger=run.trigger)
        if done is not None:
            _collected(receipt, done)
            receipt.commit = done.sha
            receipt.message = (f"no undreamed fragments since last run; compacted "
                               f"{counted(len(done.compaction.files), 'stream file')} whose compaction had waited: "
                               f"{counted(len(receipt.fragments_dropped), 'uncited fragment')} collected")
        return False
    receipt.fragments_seen = len(run.undreamed)
    receipt.days = sorted({f.date for f in run.undreamed})
    for f in run.undreamed:
        run.shown.setdefault(f.date, set()).add(f.id)
    # Whatever the dreamer does, a run that gets as far as applying marks exactly these ids
    # dreamed: git can store that state (tens of MB at a year) while the dreamer thinks.
    run.state_ts = local_datetime_iso()
    if not run.dry_run:
        job = store_state_ahead(ws, state.advanced(run.shown, {}, run.state_ts))
        run.ahead += [job] if job is not None else []
    return True


def _snapshot(run: _Run) -> _Snapshot:
    ws, today = run.ws, run.today
    topic_files = list_shard_paths(ws.topics_dir)
    # Recorded with their stamps: the GC confirms what it drops against these reads (invariant 5).
    before = {slug: read_shard(path, run.reads) for slug, path in topic_files}
    vault = {slug: read_shard(path, run.reads) for slug, path in list_shard_paths(ws.vault_dir)}
    pinned = frozenset(vault)
    rows = prompt_rows(((slug, before[slug]) for slug, _ in topic_files), today) \
        if getattr(run.dreamer, "reads_strength_table", True) else []
    inp = DreamInput(
        today=today, fragments=run.undreamed, strength_rows=rows, pinned=pinned,
        references=frozenset(p.stem for p in ws.references_dir.glob("*.md")) if ws.references_dir.is_dir() else frozenset(),
        cache_dir=ws.lock_dir, evidence=_evidence(ws),
    )
    return _Snapshot(before, vault, inp)


def _evidence(ws: Workspace) -> Callable[[str, str], str | None]:
    """A cited fragment's body, read from its stream by offset (`index.fragment_index`)."""
    fragments = FragmentIndex(ws)

    def body(day: str, fid: str) -> str | None:
        found = fragments.get(day, fid)
        return found.body if found is not None else None

    return body


def _dream(run: _Run, snap: _Snapshot) -> tuple[DreamOutcome, dict[str, str]] | None:
    """The dreamer's outcome and its shards (the changed ones recomputed); None when it failed."""
    receipt = run.receipt
    scratch = DreamScratch(snap.before, snap.pinned)
    started = time.monotonic()
    try:
        outcome = _dream_within(run.dreamer, snap.inp, scratch, run.dream_timeout)
    except DreamerError as exc:
        # TypeClaw: nothing advances when the dreamer throws; the scratch is simply dropped.
        receipt.status = "failed"
        receipt.message = f"dreamer failed, nothing changed: {exc}"
        return None
    receipt.dreamer_ms = int((time.monotonic() - started) * 1000)
    run.settle = outcome.settle
    run.unaccounted = unaccounted(snap.inp, scratch)
    receipt.summary, receipt.questions = outcome.summary, outcome.questions
    receipt.contradictions, receipt.tool_errors = outcome.contradictions, outcome.tool_errors
    receipt.input_tokens, receipt.output_tokens = outcome.input_tokens, outcome.output_tokens
    receipt.folded = dict(sorted(outcome.folded.items()))
    receipt.noise = dict(sorted(outcome.noise.items()))
    # TypeClaw recomputes (every shard) only when the dreamer rewrote shards: a no-op dream must
    # not turn a stale hand-edited count into a "change" that enables fragment GC.
    # Only what the dreamer wrote is recomputed: re-rendering 10,000 untouched shards per run
    # costs seconds; a stale hand-edited count elsewhere is `dreamdeck doctor --fix`'s job.
    after = {
        slug: (text if snap.before.get(slug) == text else recompute_shard_text(text, slug, run.today)[0])
        for slug, text in scratch.files.items()
    }
    return outcome, after


def _check(run: _Run, snap: _Snapshot, after: dict[str, str], changed: list[str]) -> bool:
    """Invariant 1: every (date, id) cited before, in topics or vault, is still cited. Only changed
    shards can lose a citation; it survives if any unchanged shard or the vault still holds it.
    A violation reverts the run: nothing applied, its fragments held for a person (anti-loop)."""
    unchanged = (text for slug, text in after.items() if slug not in changed)
    lost = lost_citations(((snap.before.get(s), after.get(s)) for s in changed), chain(unchanged, snap.vault.values()))
    if not lost:
        return True
    receipt = run.receipt
    receipt.status, receipt.reverted = "reverted", True
    receipt.lost = [f"{d}#{i}" for d, i in lost]
    why = f"citation-superset violation: the dream dropped {counted(len(lost), 'previously-cited id')}"
    receipt.message = (
        f"{why}; nothing was applied, and what it saw ({counted(len(run.undreamed), 'fragment')}) is held for a "
        f"decision (orphaned, never collected). missing={summarize_missing(lost)}"
    )
    if not run.dry_run:
        _hold_unapplied(run, why)  # anti-loop without marking them dreamed; no GC
    return False


def _split_by_policy(run: _Run, snap: _Snapshot, after: dict[str, str],
                     changed: list[str]) -> tuple[list[FileEdit], list[ProposedFile]]:
    """The changes the review policy applies by themselves, and those held for a person."""
    receipt = run.receipt
    auto: list[FileEdit] = []
    held: list[ProposedFile] = []
    for slug in changed:
        rel = f"topics/{slug}.md"
        old, new = snap.before.get(slug), after.get(slug)
        (receipt.shards_created if old is None else receipt.shards_deleted if new is None else receipt.shards_changed).append(slug)
        receipt.citations_added += len(citation_keys(new or "") - citation_keys(old or ""))
        receipt.superseded_added += len(
            sectioned_citations(parse_loose_shard(new or "").body).superseded_keys()
            - sectioned_citations(parse_loose_shard(old or "").body).superseded_keys()
        )
        if needs_review(run.review, old, new, slug in snap.pinned):
            held.append(ProposedFile(rel, old, new, pinned=slug in snap.pinned))
        else:
            auto.append(FileEdit(rel, old, new))
    receipt.auto_applied = [e.path for e in auto]
    receipt.pending = [f.path for f in held]
    receipt.status = "nothing" if not changed else "applied" if not held else "pending" if not auto else "mixed"
    return auto, held


def _hold_over_loss_bound(run: _Run, snap: _Snapshot, auto: list[FileEdit],
                          held: list[ProposedFile]) -> tuple[list[FileEdit], list[ProposedFile]]:
    """The loss bound (invariant 2): applied changes let fragment GC collect what the run left
    uncited. When more than `[dreaming] loss_bound` of the distinct fragments it was
    shown would go with no reason (not cited anywhere that protects evidence, not a named
    duplicate, not declared noise), everything is held for review instead: a pending reflection
    protects all it was shown. (With anything held already, nothing shown is collected.)"""
    if not auto or held or not run.unaccounted:
        return auto, held
    bound = load_settings(run.ws.root).dreaming.loss_bound
    seen = len({(f.date, f.id) for f in run.undreamed})
    if len(run.unaccounted) <= bound * seen:
        return auto, held
    keys = {tuple(k.split("#", 1)) for k in run.unaccounted}
    protected = gc_protected_keys(run.ws, days={d for d, _ in keys}) | set().union(
        *(citation_keys(text) for text in snap.vault.values()))
    lost = len(keys - protected)
    if lost <= bound * seen:
        return auto, held
    receipt = run.receipt
    receipt.held_over_bound = lost / seen
    held = [ProposedFile(e.path, e.base, e.new, pinned=e.path[len("topics/"):-3] in snap.pinned) for e in auto]
    receipt.pending, receipt.auto_applied = [f.path for f in held], []
    receipt.status = "pending"
    return [], held


def _applied_at_once(auto: list[FileEdit]) -> str:
    """The reflection's summary is the whole dream's: it says which of its changes the review
    policy already applied, so "3 reinforced" beside one reinforcement to review is not a riddle."""
    # Short: the summary is one line of the Reflections list at 80 columns; which files, and by
    # which policy, the Dream screen's Last dreams and the receipt say.
    return f" · {len(auto)} applied already" if auto else ""


def _changeset(run: _Run, outcome: DreamOutcome, auto: list[FileEdit], held: list[ProposedFile]) -> ChangeSet:
    """The automatic part as a ChangeSet; what is held is parked in it as a pending reflection."""
    receipt = run.receipt
    reflection = None
    meta: dict[str, str | None] = {}
    advance = run.shown
    if held:
        advance, kept = _split_shown(run, auto)
        reflection = Reflection(
            id=next_reflection_id(run.ws), created=run.now.isoformat(timespec="seconds"), dreamer=run.name,
            trigger=run.trigger, summary=outcome.summary + _applied_at_once(auto), questions=outcome.questions,
            contradictions=outcome.contradictions, archive=outcome.archive,
            fragments=_shown_records(run), files=held, held=kept,
        )
        receipt.reflection = reflection.id
        reflection.receipt = receipt.to_json()
        meta.update(meta_updates(run.ws, [reflection], None))
    return ChangeSet(
        Commit(
            # A run that applied nothing and parked its changes for review says so: Approval pending.
            "dream", f"dreamer:{run.name}", "pending" if held and not auto else "auto", run.trigger,
            outcome.summary or f"{counted(len(run.undreamed), 'fragment')} dreamed", dream_subject=True,
            ref=Reference("Reflection", reflection.id) if reflection else None,
            dream_fragments=len(run.undreamed),
        ),
        Writes(auto, meta_files=meta),
        Evidence(advance=advance, gc_days=set(run.shown), state_ts=run.state_ts, stored_ahead=list(run.ahead),
                 shard_reads=run.reads, gc_reasons=given_reasons(receipt.to_json())),
        Audit(extra=[("DREAM", f"memory/meta/reflections/{reflection.id}.json",
                      f"held {counted(len(held), 'change')} for review in {reflection.id}")] if reflection else []),
    )


def _apply(run: _Run, cs: ChangeSet) -> None:
    """Apply through the door; the receipt is committed with it, saying what the GC collected.

    The door is the receipt's one writer: the journal carries what the run decided, and the
    door writes it once, after its GC, with what the compaction did (what went and why, the
    watermarks, the days that wait, the sentence's meter), from the journal, so a change a kill
    interrupted and `doctor --fix` finished commits the same receipt (the commit's own sha is
    git's to record)."""
    receipt = run.receipt
    receipt_rel = f"receipts/{receipt.id}.json"
    receipt.message = run_message(receipt)
    cs.writes.meta_files[receipt_rel] = receipt_text(run.stamped())
    cs.writes.collection_record = CollectionRecord(receipt_rel, dropped="fragments_dropped", watermarks="watermarks_dropped",
                                                   waiting="compaction_waiting", said="message")
    try:
        result = apply_changeset(run.ws, cs, today=run.today, now=run.now, fault=run.fault)
    except Refused as exc:
        receipt.status = "failed"
        if exc.conflicts:
            # A concurrent edit that does not merge is transient: the next run dreams again.
            receipt.message = f"not applied: {exc}; the next run will try again"
        else:
            # A refusal that would repeat (e.g. citing a forgotten fragment): hold the shown
            # fragments for a person, as after a revert (invariant 6), so the loop cannot spin.
            receipt.message = f"not applied: {exc}; what it saw ({counted(len(run.undreamed), 'fragment')}) is held for a decision"
            _hold_unapplied(run, f"not applied: {exc}")
        return
    _collected(receipt, result)
    receipt.commit = result.sha


def _collected(receipt: DreamReceipt, result: ApplyResult) -> None:
    receipt.collected = dict(sorted(result.reasons.items()))
    receipt.fragments_dropped = sorted(result.reasons)  # as the door's collection record writes it
    receipt.watermarks_dropped = result.compaction.watermarks_dropped
    receipt.compaction_waiting = dict(sorted(result.compaction.deferred.items()))
    receipt.message = receipt_message(receipt)


def _shown_records(run: _Run) -> list[dict]:
    return [{"date": f.date, "id": f.id, "topic": f.topic, "body": f.body} for f in run.undreamed]


def _split_shown(run: _Run, auto: list[FileEdit]) -> tuple[dict[str, set[str]], list[str]]:
    """(advance, held) when part of the run waits for a person: only the shown fragments the
    applied part cites are marked dreamed; the rest stay undreamed for TypeClaw (its GC takes
    dreamed-and-uncited) and are held by the reflection until a person decides."""
    cited: set = set()
    for edit in auto:
        cited |= citation_keys(edit.new or "")
    advance: dict[str, set[str]] = {}
    held: list[str] = []
    for day, ids in run.shown.items():
        for fid in sorted(ids):
            if (day, fid) in cited:
                advance.setdefault(day, set()).add(fid)
            else:
                held.append(f"{day}#{fid}")
    return advance, held


def _hold_unapplied(run: _Run, why: str) -> None:
    """A run that applies nothing (reverted, or refused by the door) parks its shown fragments in a
    reflection without changes: listed by `review` and the app as waiting for a decision (approve:
    they were noise; reject --release: dream them again; or forget them). Nothing is marked
    dreamed, so no GC (dreamdeck's or TypeClaw's) can collect them. Through the door: journaled,
    audited, committed."""
    receipt = run.receipt
    reflection = Reflection(
        id=next_reflection_id(run.ws), created=run.now.isoformat(timespec="seconds"), dreamer=run.name,
        trigger=run.trigger, summary=f"{receipt.status}: {why}", fragments=_shown_records(run),
        held=[f"{d}#{i}" for d in sorted(run.shown) for i in sorted(run.shown[d])],
    )
    receipt.reflection = reflection.id
    reflection.receipt = receipt.to_json()
    receipt_rel = f"receipts/{receipt.id}.json"
    meta = meta_updates(run.ws, [reflection], None)
    meta[receipt_rel] = receipt_text(run.stamped())
    cs = ChangeSet(
        Commit("dream", f"dreamer:{run.name}", "pending", run.trigger,
               f"{why}; {counted(len(run.undreamed), 'fragment')} held in {reflection.id}",
               subject=f"dream: {receipt.status} run, {counted(len(run.undreamed), 'fragment')} held in {reflection.id}",
               ref=Reference("Reflection", reflection.id)),
        Writes(meta_files=meta),
        audit=Audit(extra=[("DREAM", f"memory/meta/reflections/{reflection.id}.json",
                            f"{why}; held {counted(len(run.undreamed), 'fragment')} for a decision")]),
    )
    result = apply_changeset(run.ws, cs, today=run.today, now=run.now, fault=run.fault)
    receipt.commit = result.sha
