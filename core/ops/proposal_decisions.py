"""Deciding a proposal: approve, reject or defer, each one git commit through the door (what
each decision writes is in `ops.proposals`).

Crash safety, and why the status is written where it is. The fragment line travels in the
ChangeSet (`restore_lines`), so it is journaled with the shard edits: a refused apply writes
nothing, and a crash after the journal is finished by `recover_journal`. The status change is
NOT passed as a whole-file `meta_files` text: the file is appended to by sub-agents at any
time, and a text computed before the apply would erase any proposal appended in between (or,
replayed by a recovery, any proposal appended before `doctor --fix`). Instead the door's
`before_commit` hook records the decision (an in-place block rewrite under the file's own lock,
plus this module's audit lines) as the door's `before_commit` hook: after every file of the change is on
disk and before the door drops its journal and commits, so it lands in the same commit.
- killed before that step: the journal finishes the change without the status; the
  proposal still reads open, and approving it again reuses its fragment (found by
  `source` + `entry` + content) and the citation already present, and records the decision;
- killed after it: the journal is still there, so the recovery makes the commit;
- the door refuses: the step never runs; nothing at all was written.
Decisions are serialized by a decide lock (outside the door's memory lock: decide lock →
memory lock → pending file lock; nothing takes them in another order), so two people cannot
both decide one proposal.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from filelock import FileLock

from dreamdeck.core.door.apply import apply_changeset
from dreamdeck.core.door.changeset import ChangeSet, Commit, Evidence, Reference, Writes
from dreamdeck.core.errors import Refused
from dreamdeck.core.formats.citations import format_citation
from dreamdeck.core.formats.pending_memories import ParseResult, Proposal, conflict_status
from dreamdeck.core.formats.slugs import heading_to_slug
from dreamdeck.core.ops.proposal_fields import (
    ProposalDecided,
    ProposalError,
    ProposalRefused,
    UnknownProposal,
    agent_name,
    conflict_partners,
    parse_pid,
    proposal_topic,
    status_word,
)
from dreamdeck.core.ops.proposal_writes import fragment_for, shard_edits
from dreamdeck.core.store.audit import AuditEntry, append_entries
from dreamdeck.core.store.proposals_file import PENDING_RELPATH, modify_proposals, read_pending
from dreamdeck.core.workspace import Workspace

APPLY_ATTEMPTS = 3  # a shard edit that went stale is rebuilt from the current file and retried


def _decide_lock(ws: Workspace) -> FileLock:
    return FileLock(str(ws.lock_dir / "proposals-decide.lock"), timeout=60.0)


def _open_proposal(ws: Workspace, number: int) -> Proposal:
    parsed = read_pending(ws.root)
    p = parsed.get(number)
    if p is None:
        if any(b.number == number for b in parsed.blocks):
            why = next((x for x in parsed.problems if f"#{number} " in x), "it is malformed")
            raise UnknownProposal(f"p-{number} cannot be read: {why}")
        raise UnknownProposal(f"unknown proposal id p-{number}")
    if not p.is_open:
        raise ProposalDecided(
            f"p-{number} is already {status_word(p)}; only a pending, deferred or conflict proposal can be decided"
        )
    return p


@dataclass
class DecisionResult:
    id: str
    status: str  # committed | rejected | deferred
    sha: str | None = None
    fragment: str | None = None  # streams/DATE#ID of the committed content
    files: list[str] = field(default_factory=list)  # shard files written (relative to the agent folder)
    also_rejected: list[str] = field(default_factory=list)  # conflict partners resolved against
    conflicts_cleared: list[str] = field(default_factory=list)  # partners back to pending


class _Recorder:
    """Records a decision from inside the door: the status rewrite and the audit lines.

    It runs as the door's `before_commit` hook (every file written, journal still present,
    commit next), so the status lands in the same commit. It never raises into the door: an error is
    kept and reported after the apply (the change itself is then committed and the proposal
    still reads open, so running the same decision again finishes it)."""

    def __init__(self, ws: Workspace, number: int, decide: Callable[[ParseResult], tuple[list[Proposal], list[AuditEntry]]]):
        self.ws = ws
        self.number = number
        self.decide = decide
        self.fired = False
        self.error: Exception | None = None
        self.entries: list[AuditEntry] = []
        self.changed: list[Proposal] = []
        self.gone: str | None = None  # the proposal was decided by hand meanwhile

    def record(self, result=None) -> None:
        self.fired = True
        try:
            def change(parsed: ParseResult) -> list[Proposal]:
                p = parsed.get(self.number)
                if p is None or not p.is_open:
                    self.gone = "gone" if p is None else status_word(p)
                    return []
                changed, self.entries = self.decide(parsed)
                return changed

            self.changed = modify_proposals(self.ws.root, change)
            if result is not None:
                result.audit.extend(self.entries)  # the door writes them with its own lines
            else:
                append_entries(self.ws.root, self.entries)
        except Exception as exc:  # noqa: BLE001 - reported after the door finished
            self.error = exc


def _decide(ws: Workspace, cs: ChangeSet, recorder: _Recorder, now: datetime, today: str | None = None):
    cs.before_commit = recorder.record  # the door runs it after the writes, before its commit
    result = apply_changeset(ws, cs, today=today, now=now)
    pid = f"p-{recorder.number}"
    if recorder.error is not None:
        raise ProposalError(
            f"{pid}: the change was applied, but recording the decision in {PENDING_RELPATH} failed "
            f"({recorder.error}); run the same command again to record it"
        )
    if recorder.gone is not None:
        raise ProposalDecided(f"{pid} was decided by someone else meanwhile (now {recorder.gone})")
    return result


def _clear_partner(parsed: ParseResult, resolved: Proposal, skip: set[int]) -> list[Proposal]:
    """Open partners of `resolved` (now closed) drop it from their conflict marks; one with no
    partner left goes back to pending."""
    out = []
    for n in conflict_partners(parsed.proposals, resolved):
        other = parsed.get(n)
        if other is None or n in skip or not other.is_open:
            continue
        other.conflict_with = [x for x in other.conflict_with if x != resolved.number]
        if status_word(other) == "conflict":
            other.status = conflict_status(other.conflict_with) if other.conflict_with else "pending"
        out.append(other)
    return out


# -------------------------------------------------------------------------------- approve

def _committer(number: int, now: datetime, actor: str, bot: str, audit_file: str):
    """The decision written into the proposals file on approval: #number committed, its open
    conflict partners rejected in its favour, each with its audit line."""
    def decide(parsed: ParseResult) -> tuple[list[Proposal], list[AuditEntry]]:
        me = parsed.get(number)
        assert me is not None
        me.status = "committed"
        changed, entries = [me], [AuditEntry.at(now, "COMMIT", audit_file, bot, "approved", f"accepted proposal #{number}")]
        for n in conflict_partners(parsed.proposals, me):
            other = parsed.get(n)
            if other is None or not other.is_open:
                continue
            other.status, other.reason = "rejected", f"conflict resolved in favour of #{number}"
            changed.append(other)
            entries.append(AuditEntry.at(
                now, "REJECT", PENDING_RELPATH, actor, "rejected",
                f"rejected proposal #{n} — conflict resolved in favour of #{number}",
            ))
            changed += _clear_partner(parsed, other, skip={number})
        return changed, entries
    return decide


def approve_proposal(
    ws: Workspace, pid: str, *, actor: str = "human:cli", now: datetime | None = None
) -> DecisionResult:
    """Commit a proposal: fragment (+ shard for semantic/vault), status `committed`, open
    conflict partners `rejected`, audit lines; one commit. ProposalError says why not."""
    now = now or datetime.now(UTC)
    number = parse_pid(pid)
    pid = f"p-{number}"
    with _decide_lock(ws):
        p = _open_proposal(ws, number)
        agent = agent_name(p)
        source = f"subagent:{agent}"
        topic = proposal_topic(p)
        slug = heading_to_slug(topic)
        today = ws.today()
        key, line = fragment_for(ws, p, source, topic, today)
        bot = f"bot:commit-from:{agent}"

        for attempt in range(1, APPLY_ATTEMPTS + 1):
            edits, audit_file = shard_edits(ws, p, slug, key, today)
            cs = ChangeSet(
                Commit("commit", bot, "approved", "review",
                       f"accepted proposal #{number} from {agent} ({p.store}), approved by {actor}",
                       subject=f"memory: commit proposal {pid} from {agent} (approved by {actor})",
                       ref=Reference("Proposal", pid)),
                Writes(edits, allow_vault=p.store == "vault"),
                Evidence(
                    advance={key[0]: {key[1]}} if p.store in ("semantic", "vault") else {},
                    restore_lines={key[0]: [line]} if line is not None else {},
                ),
            )
            recorder = _Recorder(ws, number, _committer(number, now, actor, bot, audit_file))
            try:
                result = _decide(ws, cs, recorder, now, today)
                break
            except Refused as exc:
                if not exc.conflicts or attempt == APPLY_ATTEMPTS:
                    raise ProposalRefused(f"cannot approve {pid}: {exc}") from None
                # The shard changed under us and the edit does not merge: rebuild it from the file.
    others = [x for x in recorder.changed if x.number != number]
    return DecisionResult(
        id=pid, status="committed", sha=result.sha, fragment=format_citation(*key),
        files=[f"memory/{e.path}" for e in edits],
        also_rejected=[x.id for x in others if x.is_rejected],
        conflicts_cleared=[x.id for x in others if not x.is_rejected],
    )


# ------------------------------------------------------------------------- reject, defer

def reject_proposal(
    ws: Workspace, pid: str, *, reason: str, actor: str = "human:cli", now: datetime | None = None
) -> DecisionResult:
    """Status `rejected` with its reason; conflict partners lose the mark (back to pending when
    no partner is left). Nothing reaches the stores."""
    reason = " ".join(str(reason or "").split())
    if not reason:
        raise ProposalError("a rejection needs a reason (--reason)")
    now = now or datetime.now(UTC)
    number = parse_pid(pid)
    pid = f"p-{number}"
    with _decide_lock(ws):
        _open_proposal(ws, number)

        def decide(parsed: ParseResult) -> tuple[list[Proposal], list[AuditEntry]]:
            me = parsed.get(number)
            assert me is not None
            me.status, me.reason = "rejected", reason
            entries = [AuditEntry.at(now, "REJECT", PENDING_RELPATH, actor, "rejected",
                                     f"rejected proposal #{number} — {reason}")]
            return [me, *_clear_partner(parsed, me, skip=set())], entries

        recorder = _Recorder(ws, number, decide)
        cs = ChangeSet(Commit("reject", actor, "rejected", "review", f"rejected {pid}: {reason}",
                              subject=f"memory: reject proposal {pid}", ref=Reference("Proposal", pid)))
        result = _decide(ws, cs, recorder, now)
    return DecisionResult(
        id=pid, status="rejected", sha=result.sha,
        conflicts_cleared=[x.id for x in recorder.changed if x.number != number],
    )


def defer_proposal(
    ws: Workspace, pid: str, *, actor: str = "human:cli", now: datetime | None = None
) -> DecisionResult:
    """Status `deferred`: still open, decided later (conflict marks stay)."""
    now = now or datetime.now(UTC)
    number = parse_pid(pid)
    pid = f"p-{number}"
    with _decide_lock(ws):
        p = _open_proposal(ws, number)
        if status_word(p) == "deferred":
            raise ProposalDecided(f"{pid} is already deferred")

        def decide(parsed: ParseResult) -> tuple[list[Proposal], list[AuditEntry]]:
            me = parsed.get(number)
            assert me is not None
            me.status = "deferred"
            return [me], [AuditEntry.at(now, "DEFER", PENDING_RELPATH, actor, "pending", f"deferred proposal #{number}")]

        recorder = _Recorder(ws, number, decide)
        cs = ChangeSet(Commit("defer", actor, "pending", "review", f"deferred {pid}",
                              subject=f"memory: defer proposal {pid}", ref=Reference("Proposal", pid)))
        result = _decide(ws, cs, recorder, now)
    return DecisionResult(id=pid, status="deferred", sha=result.sha)
