"""The proposals queue: sub-agents propose, a person commits, rejects or defers (Moltbot §13).

`memory/meta/pending-memories.md` itself (parse, render, locked appends, conflict marks) is
`core.proposals_file`; this module is the queue on top of it, and every mutation here goes
through the one door (`apply_changeset`), so each decision is one git commit with trailers
(`Proposal: p-N`) plus its audit lines.

- `propose`: append the §13.2 block, then one `PROPOSE` audit line and a commit. The same
  content twice is one proposal and one commit.
- `approve_proposal`: the content becomes a fragment in today's stream (`source:
  subagent:<agent>`, `entry: p-N`); a semantic proposal also lands in a topic shard (the
  citation is added to an existing `topics/<slug>.md`, or a new shard states the content as
  its belief), a vault proposal in `vault/<slug>.md` and `topics/<slug>.md`; episodic and
  procedural ones stay fragments for the next dream. Status `committed`, `COMMIT` audit line
  (actor `bot:commit-from:<agent>`), open conflict partners `rejected`: all in one commit.
- `reject_proposal` (a reason is required) and `defer_proposal`.
A shard written by an approval also gets the door's own CREATE/EDIT line for that file (same
actor); the COMMIT line is the decision, the door's line the file change.

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

import re
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Callable

from filelock import FileLock

from dreamdeck.core.store.audit import AuditEntry, append_entries
from dreamdeck.core.door.apply import apply_changeset
from dreamdeck.core.door.changeset import Audit, ChangeSet, Commit, Evidence, FileEdit, Reference, Writes
from dreamdeck.core.errors import Refused
from dreamdeck.core.formats.shards import add_citation_lines
from dreamdeck.core.formats.citations import CITATION, Key, citation_keys, format_citation
from dreamdeck.core.formats.events import build_fragment, fragment_content_hash, serialize_event
from dreamdeck.core.formats.ids import new_event_id, timestamp_from_id
from dreamdeck.core.store.proposals_file import (
    AGENT_NAME,
    PENDING_RELPATH,
    ParseResult,
    Proposal,
    ProposalNotFound,
    append_proposal,
    find_conflicts,
    modify_proposals,
    read_pending,
)
from dreamdeck.core.formats.secrets import detect_secrets
from dreamdeck.core.formats.shards import ShardMeta, parse_loose_shard, render_shard, strength_of
from dreamdeck.core.store.shard_files import list_shard_files
from dreamdeck.core.formats.slugs import heading_to_slug
from dreamdeck.core.store.streams import list_stream_days, read_stream_lines, write_path_for
from dreamdeck.core.workspace import Workspace
from dreamdeck.core.errors import BadInput

DEFAULT_EXPIRE_DAYS = 14
MAX_HEADING = 120
TOPIC_WORDS = 6
APPLY_ATTEMPTS = 3  # a shard edit that went stale is rebuilt from the current file and retried
_PID = re.compile(r"^\s*(?:p-|#)?\s*([0-9]+)\s*$", re.I)
_WORDS = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*")
_SENTENCE = re.compile(r"^(.+?[.!?。！？])(?=\s|$)")


class ProposalError(BadInput):
    """A queue operation was not done; the message is one line for a person."""


class UnknownProposal(ProposalError):
    pass


class ProposalDecided(ProposalError):
    pass


class ProposalRefused(ProposalError):
    """The approval would write something it must not (duplicate, secret, forgotten, stale edit)."""


# ------------------------------------------------------------------------------ helpers

def parse_pid(pid: object) -> int:
    """`p-3` (also `3`, `#3`) -> 3."""
    m = _PID.match(str(pid))
    if not m:
        raise UnknownProposal(f"{pid!r} is not a proposal id (p-N)")
    return int(m.group(1))


def _decide_lock(ws: Workspace) -> FileLock:
    return FileLock(str(ws.lock_dir / "proposals-decide.lock"), timeout=60.0)


def agent_name(p: Proposal) -> str:
    """The proposer as an actor-safe name (a hand-written `From` may hold anything)."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", p.from_agent.strip()).strip("-.")[:64]
    return name if name and AGENT_NAME.fullmatch(name) else "unknown"


def proposal_topic(p: Proposal) -> str:
    """The fragment topic: the first entity, else the first words of the content."""
    if p.entities:
        return p.entities[0]
    words = _WORDS.findall(p.content)[:TOPIC_WORDS]
    return " ".join(words) or p.content[:60].strip() or "proposal"


def proposal_slug(p: Proposal) -> str:
    """The topic shard a semantic/vault proposal lands in (`preference--source-quality` ->
    `preference-source-quality`)."""
    return heading_to_slug(proposal_topic(p))


def _parse_time(value: str) -> datetime | None:
    value = value.strip()
    if not value:
        return None
    try:
        t = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


def _conflict_status(numbers: list[int]) -> str:
    return "conflict — see " + ", ".join(f"#{n}" for n in numbers)


def _status_word(p: Proposal) -> str:
    return (p.status.split() or ["pending"])[0].lower()


def _partners(proposals: list[Proposal], p: Proposal) -> list[int]:
    """Both directions: the ones p names and the ones naming p (hand edits may mark one side)."""
    found = set(p.conflict_with) | {o.number for o in proposals if p.number in o.conflict_with}
    found.discard(p.number)
    return sorted(found)


def _live_partners(parsed: ParseResult, p: Proposal) -> list[int]:
    """An open proposal conflicts only with open partners (a decided one is history); a
    decided proposal shows every partner it had."""
    numbers = _partners(parsed.proposals, p)
    if not p.is_open:
        return numbers
    return [n for n in numbers if (o := parsed.get(n)) is not None and o.is_open]


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
            f"p-{number} is already {_status_word(p)}; only a pending, deferred or conflict proposal can be decided"
        )
    return p


# ---------------------------------------------------------------------------------- queue

@dataclass
class QueueItem:
    id: str
    number: int
    agent: str
    store: str
    confidence: str
    content: str
    entities: list[str]
    status: str
    timestamp: str
    trigger: str
    core_worthy: bool
    age_days: int | None  # None when the timestamp cannot be read
    stale: bool  # open and older than [review] expire_days
    conflicts_with: list[str] = field(default_factory=list)  # other proposals, "p-N"
    conflicts_with_topic: list[str] = field(default_factory=list)  # existing topic slugs it contradicts
    slug: str = ""  # the topic shard a semantic/vault approval would write
    reason: str | None = None

    @property
    def is_open(self) -> bool:
        return self.status.strip().lower().startswith(("pending", "deferred", "conflict"))

    def to_json(self) -> dict:
        return asdict(self)

    def describe(self) -> str:
        """Several lines for a person (`dreamdeck review p-N`)."""
        age = "?" if self.age_days is None else f"{self.age_days}d"
        lines = [
            f"{self.id} [{self.status}] from {self.agent or '?'} at {self.timestamp or '?'} ({age}"
            + (", stale" if self.stale else "") + ")",
            f"store: {self.store}   confidence: {self.confidence}   core-worthy: {'yes' if self.core_worthy else 'no'}",
            f"entities: {', '.join(self.entities) or '-'}" + (f"   topic: {self.slug}" if self.slug else ""),
            f"trigger: {self.trigger or '-'}",
            "",
            self.content,
        ]
        if self.reason:
            lines += ["", f"reason: {self.reason}"]
        if self.conflicts_with:
            lines.append(f"⚠ conflicts with: {', '.join(self.conflicts_with)}")
        if self.conflicts_with_topic:
            lines.append(f"⚠ conflicts_with_topic: {', '.join(self.conflicts_with_topic)}")
        return "\n".join(lines)


def _topic_beliefs(ws: Workspace) -> list[tuple[str, str]]:
    """(slug, heading) of every topic shard, read tolerantly."""
    out = []
    for slug, path in list_shard_files(ws.topics_dir):
        try:
            heading = parse_loose_shard(path.read_bytes().decode("utf-8", "replace")).heading.strip()
        except OSError:
            continue
        if heading:
            out.append((slug, heading))
    return out


def topic_conflicts(p: Proposal, beliefs: list[tuple[str, str]]) -> list[str]:
    """Slugs of topic shards whose heading contradicts the proposal (proposals_file's heuristic:
    same subject, different value or a flipped negation). The shard is wrapped as a pseudo
    proposal; it shares the proposal's entity when its slug is that entity's slug."""
    out = []
    for i, (slug, heading) in enumerate(beliefs):
        shared = [e for e in p.entities if heading_to_slug(e) == slug]
        pseudo = Proposal(
            number=-1 - i, from_agent="", timestamp="", trigger="", store="semantic",
            content=heading, entities=shared,
        )
        if find_conflicts(p, [pseudo]):
            out.append(slug)
    return out


def _item(p: Proposal, parsed: ParseResult, now: datetime, expire: int, beliefs) -> QueueItem:
    t = _parse_time(p.timestamp)
    age = max(0, (now - t).days) if t is not None else None
    return QueueItem(
        id=p.id, number=p.number, agent=p.from_agent, store=p.store, confidence=p.confidence,
        content=p.content, entities=list(p.entities), status=p.status, timestamp=p.timestamp,
        trigger=p.trigger, core_worthy=p.core_worthy, age_days=age,
        stale=p.is_open and bool(expire) and age is not None and age > expire,
        conflicts_with=[f"p-{n}" for n in _live_partners(parsed, p)],
        conflicts_with_topic=topic_conflicts(p, beliefs) if p.is_open else [],
        slug=proposal_slug(p) if p.store in ("semantic", "vault") else "",
        reason=p.reason,
    )


def _expire_days(ws: Workspace, problems: list[str]) -> int:
    from dreamdeck.core.store.settings import SettingsError, load_settings

    try:
        return load_settings(ws.root).review.expire_days
    except SettingsError as exc:
        problems.append(f"{exc} (using expire_days = {DEFAULT_EXPIRE_DAYS})")
        return DEFAULT_EXPIRE_DAYS


def list_proposals(
    ws: Workspace, *, include_decided: bool = False, now: datetime | None = None
) -> tuple[list[QueueItem], list[str]]:
    """(open proposals oldest first, problems): pending, deferred and conflict ones, or all of
    them with `include_decided`. Oldest is by number: numbers grow with every append."""
    now = now or datetime.now(timezone.utc)
    parsed = read_pending(ws.root)
    problems = list(parsed.problems)
    expire = _expire_days(ws, problems)
    chosen = [p for p in parsed.proposals if include_decided or p.is_open]
    beliefs = _topic_beliefs(ws) if any(p.is_open for p in chosen) else []
    items = [_item(p, parsed, now, expire, beliefs) for p in sorted(chosen, key=lambda p: p.number)]
    return items, problems


def get_proposal(ws: Workspace, pid: str, *, now: datetime | None = None) -> QueueItem:
    """One proposal, decided or not (for `review p-N`)."""
    number = parse_pid(pid)
    parsed = read_pending(ws.root)
    p = parsed.get(number)
    if p is None:
        raise UnknownProposal(f"unknown proposal id p-{number}")
    problems: list[str] = []
    return _item(p, parsed, now or datetime.now(timezone.utc), _expire_days(ws, problems),
                 _topic_beliefs(ws) if p.is_open else [])


# -------------------------------------------------------------------------------- propose

def propose(
    ws: Workspace,
    from_agent: str,
    store: str,
    content: str,
    *,
    confidence: str = "medium",
    entities=(),
    core_worthy: bool = False,
    trigger: str = "dreamdeck propose",
    now: datetime | None = None,
) -> tuple[Proposal, bool]:
    """Append a proposal and commit it with one PROPOSE audit line: (proposal, created).
    The same content again returns the existing proposal and commits nothing.
    BadInput for bad input or a secret (nothing is written)."""
    now = now or datetime.now(timezone.utc)
    proposal, created = append_proposal(
        ws.root, from_agent, store, content, confidence=confidence, entities=entities,
        core_worthy=core_worthy, trigger=trigger, now=now,
    )
    if not created:
        return proposal, False
    quoted = f'"{proposal.content[:60]}"'
    cs = ChangeSet(
        Commit("propose", f"subagent:{from_agent}", "pending", "propose", f"{proposal.id} from {from_agent}: {quoted}",
               subject=f"memory: proposal {proposal.id} from {from_agent}", ref=Reference("Proposal", proposal.id)),
        audit=Audit(extra=[("PROPOSE", PENDING_RELPATH, quoted)]),
    )
    apply_changeset(ws, cs, now=now)
    return proposal, True


# ----------------------------------------------------------------------- decision record

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
                    self.gone = "gone" if p is None else _status_word(p)
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
    for n in _partners(parsed.proposals, resolved):
        other = parsed.get(n)
        if other is None or n in skip or not other.is_open:
            continue
        other.conflict_with = [x for x in other.conflict_with if x != resolved.number]
        if _status_word(other) == "conflict":
            other.status = _conflict_status(other.conflict_with) if other.conflict_with else "pending"
        out.append(other)
    return out


# -------------------------------------------------------------------------------- approve

def _neutral(text: str) -> str:
    """Content as prose in a shard: a citation-looking string must not become a citation."""
    return CITATION.sub(lambda m: f"{m.group(1)}/{m.group(2)} #{m.group(3)}", text)


def _belief(content: str) -> str:
    belief = " ".join(_neutral(content).split())
    if not belief.endswith((".", "!", "?", "…", "。", "！", "？")):
        belief += "."  # also keeps a bare `fragments:` from reading as a section heading
    return belief


def _heading(belief: str, slug: str) -> str:
    m = _SENTENCE.match(belief)
    heading = (m.group(1) if m else belief).rstrip(".!?。！？ ").strip()
    if len(heading) > MAX_HEADING:
        heading = heading[:MAX_HEADING].rsplit(" ", 1)[0].rstrip(",;: ") + "…"
    return heading or slug


def new_shard_text(content: str, citation: str, slug: str, today: str) -> str:
    """A shard whose belief is the proposal's content, citing its fragment."""
    belief = _belief(content)
    body = f"{belief}\n\nfragments:\n- {citation}\n"
    cites, days, last = strength_of(body, today)
    return render_shard(ShardMeta(_heading(belief, slug), cites, days, last, None), body)


def _own_fragment(ws: Workspace, p: Proposal, source: str, content_hash: str) -> Key | None:
    """The fragment an earlier, interrupted approval of this proposal left (same source, entry
    and content), so approving again finishes the job instead of refusing a duplicate."""
    t = _parse_time(p.timestamp)
    since = (t - timedelta(days=1)).date().isoformat() if t is not None else ""
    for day, path in list_stream_days(ws):
        if day < since:
            continue
        for ln in read_stream_lines(path):
            ev = ln.event
            if (
                ln.kind == "fragment" and ev.get("source") == source and ev.get("entry") == p.id  # type: ignore[union-attr]
                and fragment_content_hash(ev["topic"], ev["body"]) == content_hash  # type: ignore[index]
            ):
                return (day, ev["id"])  # type: ignore[index]
    return None


def _fragment_for(ws: Workspace, p: Proposal, source: str, topic: str, today: str) -> tuple[Key, str | None]:
    """(key, line to append or None when reusing): the checks `append_fragment` makes, done
    up front because the line itself is appended by the door with the rest of the change."""
    from dreamdeck.core.store.tombstones import tombstoned_hashes

    refused = f"cannot approve {p.id}: refused:"
    for label, text in (("topic", topic), ("content", p.content)):
        found = detect_secrets(text)
        if found:
            raise ProposalRefused(f"{refused} the {label} contains a secret ({found[0].family}); nothing was written")
    content_hash = fragment_content_hash(topic, p.content)
    if content_hash in tombstoned_hashes(ws):
        raise ProposalRefused(f"{refused} this content was forgotten (tombstoned); nothing was written")
    own = _own_fragment(ws, p, source, content_hash)
    if own is not None:
        return own, None
    path = write_path_for(ws, today)
    for ln in read_stream_lines(path):
        if ln.kind == "fragment" and fragment_content_hash(ln.event["topic"], ln.event["body"]) == content_hash:  # type: ignore[index]
            raise ProposalRefused(
                f"{refused} duplicate of fragment {ln.event['id']} in {ws.rel(path)}; nothing was written"  # type: ignore[index]
            )
    eid = new_event_id()
    event = build_fragment(eid, timestamp_from_id(eid), source=source, entry=p.id, topic=topic, body=p.content)
    return (today, eid), serialize_event(event)


def _read(path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None


def _shard_edits(ws: Workspace, p: Proposal, slug: str, key: Key, today: str) -> tuple[list[FileEdit], str]:
    """(edits, the file the COMMIT audit line names)."""
    citation = format_citation(*key)
    if p.store not in ("semantic", "vault"):
        return [], ws.rel(write_path_for(ws, key[0]))
    areas = ("topics",) if p.store == "semantic" else ("vault", "topics")
    edits = []
    for area in areas:
        rel = f"{area}/{slug}.md"
        current = _read(ws.memory / rel)
        if current is None:
            edits.append(FileEdit(rel, None, new_shard_text(p.content, citation, slug, today)))
        elif key not in citation_keys(current):
            edits.append(FileEdit(rel, current, add_citation_lines(current, [key], today)))
    return edits, f"memory/{areas[0]}/{slug}.md"


def approve_proposal(
    ws: Workspace, pid: str, *, actor: str = "human:cli", now: datetime | None = None
) -> DecisionResult:
    """Commit a proposal: fragment (+ shard for semantic/vault), status `committed`, open
    conflict partners `rejected`, audit lines; one commit. ProposalError says why not."""
    now = now or datetime.now(timezone.utc)
    number = parse_pid(pid)
    pid = f"p-{number}"
    with _decide_lock(ws):
        p = _open_proposal(ws, number)
        agent = agent_name(p)
        source = f"subagent:{agent}"
        topic = proposal_topic(p)
        slug = heading_to_slug(topic)
        today = ws.today()
        key, line = _fragment_for(ws, p, source, topic, today)
        bot = f"bot:commit-from:{agent}"

        def decide(parsed: ParseResult) -> tuple[list[Proposal], list[AuditEntry]]:
            me = parsed.get(number)
            assert me is not None
            me.status = "committed"
            changed, entries = [me], [AuditEntry.at(now, "COMMIT", audit_file, bot, "approved", f"accepted proposal #{number}")]
            for n in _partners(parsed.proposals, me):
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

        for attempt in range(1, APPLY_ATTEMPTS + 1):
            edits, audit_file = _shard_edits(ws, p, slug, key, today)
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
            recorder = _Recorder(ws, number, decide)
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
    now = now or datetime.now(timezone.utc)
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
    now = now or datetime.now(timezone.utc)
    number = parse_pid(pid)
    pid = f"p-{number}"
    with _decide_lock(ws):
        p = _open_proposal(ws, number)
        if _status_word(p) == "deferred":
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


__all__ = [
    "DecisionResult", "ProposalDecided", "ProposalError", "ProposalNotFound", "ProposalRefused",
    "QueueItem", "UnknownProposal", "agent_name", "approve_proposal", "defer_proposal",
    "get_proposal", "list_proposals", "new_shard_text", "parse_pid", "propose", "proposal_slug",
    "proposal_topic", "reject_proposal", "topic_conflicts",
]
