"""One dream run, in TypeClaw's order, with the review policy between the dreamer and the apply.

collect undreamed → snapshot → strength table → dreamer (on a scratch copy) → invariants →
split by policy → apply the automatic part through the one door (recompute, advance ids,
compaction + gated GC, commit) → park the rest as a pending reflection.
The dreamer never touches the disk, so a dreamer that fails or misbehaves changes nothing.
"""
from __future__ import annotations

import os
import secrets as _secrets
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone

from dreamdeck.core.io.atomic import atomic_write_text
from dreamdeck.core.door.changeset import ChangeSet, FileEdit, apply_changeset, plan_changeset, recover_journal, store_state_ahead
from dreamdeck.core.errors import Refused
from dreamdeck.core.formats.citations import citation_keys, sectioned_citations, summarize_missing
from dreamdeck.core.dreaming.lock import DreamLock
from dreamdeck.core.dreaming.policy import needs_review
from dreamdeck.core.dreaming.protocol import DreamerError, DreamInput, DreamScratch, UndreamedFragment
from dreamdeck.core.store.reflections import ProposedFile, Reflection, next_reflection_id
from dreamdeck.core.ops.reflections import meta_updates
from dreamdeck.core.store.settings import load_settings
from dreamdeck.core.store.shard_files import list_shard_paths
from dreamdeck.core.formats.shards import parse_loose_shard, recompute_shard_text
from dreamdeck.core.store.state import load_state, save_state
from dreamdeck.core.index.strength import prompt_table
from dreamdeck.core.index.stream_scan import DreamedDays, fragment_ids
from dreamdeck.core.store.streams import list_stream_days, read_stream_lines
from dreamdeck.core.store.tombstones import tombstoned_keys
from dreamdeck.core.workspace import Workspace, local_datetime_iso
from dreamdeck.core.index.undreamed import collect_undreamed
from dreamdeck.core.errors import BadInput, Refused


class DreamRefused(Refused):
    """The run could not start (corrupt state, busy lock); nothing was changed."""


@dataclass
class DreamReceipt:
    id: str
    started: str
    dreamer: str
    trigger: str
    review: str
    status: str = "skipped"  # skipped | applied | pending | mixed | reverted | failed | dry-run | nothing
    fragments_seen: int = 0
    days: list[str] = field(default_factory=list)
    shards_created: list[str] = field(default_factory=list)
    shards_changed: list[str] = field(default_factory=list)
    shards_deleted: list[str] = field(default_factory=list)
    auto_applied: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    citations_added: int = 0
    superseded_added: int = 0
    fragments_dropped: list[str] = field(default_factory=list)
    watermarks_dropped: int = 0
    reverted: bool = False
    lost: list[str] = field(default_factory=list)
    reflection: str | None = None
    commit: str | None = None
    summary: str = ""
    questions: list[str] = field(default_factory=list)
    contradictions: list[str] = field(default_factory=list)
    tool_errors: list[str] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    elapsed_ms: int = 0
    dreamer_ms: int = 0
    message: str = ""

    def to_json(self) -> dict:
        return asdict(self)


def choose_dreamer(name: str, ws: Workspace):
    """auto → anthropic when ANTHROPIC_API_KEY is set, else offline; returns (dreamer, why)."""
    settings = load_settings(ws.root).dreaming
    if name == "auto":
        name = "anthropic" if os.environ.get("ANTHROPIC_API_KEY") else "offline"
        why = "auto: ANTHROPIC_API_KEY is set" if name == "anthropic" else "auto: no ANTHROPIC_API_KEY, using offline"
    else:
        why = f"{name} (asked for)"
    if name == "offline":
        from dreamdeck.core.dreaming.offline import OfflineDreamer

        return OfflineDreamer(), why
    if name == "anthropic":
        from dreamdeck.core.dreaming.anthropic_dreamer import AnthropicDreamer

        return AnthropicDreamer(
            model=settings.model, max_output_tokens=settings.max_output_tokens,
            timeout_seconds=settings.timeout_seconds, max_retries=settings.max_retries,
        ), why
    raise BadInput(f"unknown dreamer {name!r}: choose auto, offline or anthropic")


def _receipt_id(now: datetime) -> str:
    return "d-" + now.strftime("%Y%m%d-%H%M%S") + "-" + _secrets.token_hex(2)


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
    now = now or datetime.now(timezone.utc)  # receipts record real time; the date follows ws.today()
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
    import threading

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


def _read_text(path: str) -> str:
    with open(path, "rb") as fh:
        return fh.read().decode("utf-8", "replace")


def _run(ws: Workspace, dreamer, review: str, trigger: str, dry_run: bool, now: datetime, fault,
         dream_timeout: float = 900.0, ahead: list | None = None) -> DreamReceipt:
    t0 = time.monotonic()
    today = ws.today()
    receipt = DreamReceipt(_receipt_id(now), now.isoformat(timespec="seconds"), dreamer.name, trigger, review)
    if not dry_run:
        # A change a crash interrupted is finished before the snapshot, so this dream neither
        # re-sees its fragments nor builds on its half-written files (invariant 6).
        recover_journal(ws)
        # Reflections nobody decided within [review] expire_days become stale: kept, never applied.
        from dreamdeck.core.ops.reflections import mark_stale, workspace_now

        mark_stale(ws, now=workspace_now(ws) if ws.today_override else now)
    state, problem = load_state(ws.state_path)
    if problem:
        raise DreamRefused(f"{problem}. Run `dreamdeck doctor` before dreaming.")
    undreamed = collect_undreamed(ws, state)
    if not undreamed:
        receipt.message = "no undreamed fragments since last run; skipping"
        receipt.elapsed_ms = int((time.monotonic() - t0) * 1000)
        return receipt
    receipt.fragments_seen = len(undreamed)
    receipt.days = sorted({f.date for f in undreamed})
    shown: dict[str, set[str]] = {}
    for f in undreamed:
        shown.setdefault(f.date, set()).add(f.id)
    # Whatever the dreamer does, a run that gets as far as applying marks exactly these ids
    # dreamed: git can store that state (tens of MB at a year) while the dreamer thinks.
    state_ts = local_datetime_iso()
    if not dry_run and ahead is not None:
        job = store_state_ahead(ws, state.advanced(shown, {}, state_ts))
        ahead += [job] if job is not None else []

    # Snapshot: the bytes every decision below is made against.
    topic_files = list_shard_paths(ws.topics_dir)
    before = {slug: _read_text(path) for slug, path in topic_files}
    vault = {slug: _read_text(path) for slug, path in list_shard_paths(ws.vault_dir)}
    pinned = frozenset(vault)
    reads_table = getattr(dreamer, "reads_strength_table", True)
    table = prompt_table(((slug, before[slug]) for slug, _ in topic_files), today) if reads_table else ""
    inp = DreamInput(
        today=today, fragments=undreamed, strength_table=table, pinned=pinned,
        references=frozenset(p.stem for p in ws.references_dir.glob("*.md")) if ws.references_dir.is_dir() else frozenset(),
    )
    scratch = DreamScratch(before, pinned)
    td = time.monotonic()
    try:
        outcome = _dream_within(dreamer, inp, scratch, dream_timeout)
    except DreamerError as exc:
        # TypeClaw: nothing advances when the dreamer throws; the scratch is simply dropped.
        receipt.status = "failed"
        receipt.message = f"dreamer failed, nothing changed: {exc}"
        receipt.elapsed_ms = int((time.monotonic() - t0) * 1000)
        return receipt
    receipt.dreamer_ms = int((time.monotonic() - td) * 1000)
    receipt.summary, receipt.questions = outcome.summary, outcome.questions
    receipt.contradictions, receipt.tool_errors = outcome.contradictions, outcome.tool_errors
    receipt.input_tokens, receipt.output_tokens = outcome.input_tokens, outcome.output_tokens

    # TypeClaw recomputes (every shard) only when the dreamer rewrote shards: a no-op dream must
    # not turn a stale hand-edited count into a "change" that enables fragment GC.
    # Only what the dreamer wrote is recomputed: re-rendering 10,000 untouched shards per run
    # costs seconds; a stale hand-edited count elsewhere is `dreamdeck doctor --fix`'s job.
    after = {
        slug: (text if before.get(slug) == text else recompute_shard_text(text, slug, today)[0])
        for slug, text in scratch.files.items()
    }
    changed = sorted(s for s in set(before) | set(after) if before.get(s) != after.get(s))

    # Invariant 1: every (date, id) cited before, in topics or vault, is still cited.
    # Only changed shards can lose a citation; a candidate survives if any unchanged shard or
    # the vault still holds it.
    candidates: set = set()
    for slug in changed:
        candidates |= citation_keys(before.get(slug) or "")
    for slug in changed:
        candidates -= citation_keys(after.get(slug) or "")
    if candidates:
        for slug, text in after.items():
            if slug not in changed:
                candidates -= citation_keys(text)
        for text in vault.values():
            candidates -= citation_keys(text)
    lost = sorted(candidates)
    if lost:
        receipt.status, receipt.reverted = "reverted", True
        receipt.lost = [f"{d}#{i}" for d, i in lost]
        receipt.message = (
            f"citation-superset violation: the dream dropped {len(lost)} previously-cited id(s); nothing was "
            f"applied and the {len(undreamed)} fragment(s) it saw are marked dreamed (orphaned). "
            f"missing={summarize_missing(lost)}"
        )
        if not dry_run:
            _advance_only(ws, shown, state_ts)  # anti-loop; no GC, no commit
        receipt.elapsed_ms = int((time.monotonic() - t0) * 1000)
        return receipt

    auto: list[FileEdit] = []
    held: list[ProposedFile] = []
    for slug in changed:
        rel = f"topics/{slug}.md"
        old, new = before.get(slug), after.get(slug)
        (receipt.shards_created if old is None else receipt.shards_deleted if new is None else receipt.shards_changed).append(slug)
        receipt.citations_added += len(citation_keys(new or "") - citation_keys(old or ""))
        receipt.superseded_added += len(
            sectioned_citations(parse_loose_shard(new or "").body).superseded_keys()
            - sectioned_citations(parse_loose_shard(old or "").body).superseded_keys()
        )
        if needs_review(review, old, new, slug in pinned):
            held.append(ProposedFile(rel, old, new, pinned=slug in pinned))
        else:
            auto.append(FileEdit(rel, old, new))
    receipt.auto_applied = [e.path for e in auto]
    receipt.pending = [f.path for f in held]

    reflection = None
    meta: dict[str, str | None] = {}
    if held:
        reflection = Reflection(
            id=next_reflection_id(ws), created=now.isoformat(timespec="seconds"), dreamer=dreamer.name,
            trigger=trigger, summary=outcome.summary, questions=outcome.questions,
            contradictions=outcome.contradictions, archive=outcome.archive,
            fragments=[{"date": f.date, "id": f.id, "topic": f.topic, "body": f.body} for f in undreamed],
            files=held,
        )
        receipt.reflection = reflection.id
    receipt.status = (
        "nothing" if not changed else "applied" if not held else "pending" if not auto else "mixed"
    )
    if reflection is not None:
        reflection.receipt = receipt.to_json()
        meta.update(meta_updates(ws, [reflection], None))

    cs = ChangeSet(
        # A run that applied nothing and parked its changes for review says so: Approval pending.
        action="DREAM", actor=f"dreamer:{dreamer.name}", approval="pending" if held and not auto else "auto",
        trigger=trigger,
        summary=outcome.summary or f"{len(undreamed)} fragment(s) dreamed", ref=reflection.id if reflection else "",
        dream_subject=True, edits=auto, advance=shown, gc_days=set(shown), state_ts=state_ts, stored_ahead=list(ahead or []),
        meta_files=meta,
    )
    if dry_run:
        plan_changeset(ws, cs, today)
        receipt.status = "dry-run"
        receipt.message = f"dry run: would apply {len(auto)} change(s) and hold {len(held)} for review"
        receipt.elapsed_ms = int((time.monotonic() - t0) * 1000)
        return receipt
    receipt.elapsed_ms = int((time.monotonic() - t0) * 1000)
    receipt_path = ws.meta_dir / "receipts" / f"{receipt.id}.json"

    def final_receipt(result) -> None:
        # Written inside the door, after its GC and before its commit, so the committed receipt
        # says what was collected (the commit's own sha is git's to record).
        receipt.fragments_dropped = [f"{d}#{i}" for d, i in result.compaction.fragments_dropped]
        receipt.watermarks_dropped = result.compaction.watermarks_dropped
        receipt.elapsed_ms = int((time.monotonic() - t0) * 1000)
        receipt.message = _message(receipt)
        atomic_write_text(receipt_path, _receipt_text(receipt))

    # The journal carries a first version too, so a recovered apply still leaves a receipt.
    cs.meta_files[f"receipts/{receipt.id}.json"] = _receipt_text(receipt)
    cs.before_commit = final_receipt
    try:
        result = apply_changeset(ws, cs, today=today, now=now, fault=fault)
    except Refused as exc:
        receipt.status = "failed"
        if exc.conflicts:
            # A concurrent edit that does not merge is transient: the next run dreams again.
            receipt.message = f"not applied: {exc}; the next run will try again"
        else:
            # A refusal that would repeat (e.g. citing a forgotten fragment): mark the shown
            # fragments dreamed, as after a revert (invariant 5), so the loop cannot spin.
            receipt.message = f"not applied: {exc}; its {len(undreamed)} fragment(s) are marked dreamed"
            _advance_only(ws, shown, state_ts)
        return receipt
    receipt.fragments_dropped = [f"{d}#{i}" for d, i in result.compaction.fragments_dropped]
    receipt.watermarks_dropped = result.compaction.watermarks_dropped
    receipt.commit = result.sha
    receipt.elapsed_ms = int((time.monotonic() - t0) * 1000)
    receipt.message = _message(receipt)
    return receipt


def _advance_only(ws: Workspace, shown: dict[str, set[str]], ts: str) -> None:
    """Mark the shown fragments dreamed without applying anything. The state is re-read under the
    memory lock: a person may have released ids (reject --release) while the dreamer ran."""
    from dreamdeck.core.door.changeset import memory_lock

    with memory_lock(ws):
        state, _problem = load_state(ws.state_path)
        save_state(ws.state_path, state.advanced(shown, {}, ts))


def _receipt_text(receipt: DreamReceipt) -> str:
    import json

    return json.dumps(receipt.to_json(), ensure_ascii=False, indent=2) + "\n"


def _message(r: DreamReceipt) -> str:
    parts = [f"{r.fragments_seen} fragment(s) from {len(r.days)} day(s)"]
    if r.auto_applied:
        parts.append(f"{len(r.auto_applied)} change(s) applied")
    if r.pending:
        parts.append(f"{len(r.pending)} held for review in {r.reflection}")
    if r.fragments_dropped:
        parts.append(f"{len(r.fragments_dropped)} uncited fragment(s) collected")
    return ", ".join(parts)


def list_receipts(ws: Workspace, limit: int = 20) -> list[dict]:
    import json

    folder = ws.meta_dir / "receipts"
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.glob("d-*.json"), reverse=True)[:limit]:
        try:
            out.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, json.JSONDecodeError):
            continue
    return out
