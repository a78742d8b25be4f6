"""The proposals queue as a person reviews it: the open (or all) proposals with their age, staleness,
conflict partners and the topic shards they contradict (`dreamdeck proposals`, `review p-N`).
Reading only; the decisions are `ops.proposal_decisions`.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime

from dreamdeck.core.formats.pending_memories import OPEN_STATUSES, ParseResult, Proposal
from dreamdeck.core.formats.shards import parse_loose_shard
from dreamdeck.core.formats.slugs import heading_to_slug
from dreamdeck.core.ops.proposal_fields import (
    UnknownProposal,
    conflict_partners,
    parse_pid,
    parse_time,
    proposal_slug,
)
from dreamdeck.core.store.proposals_file import find_conflicts, read_pending
from dreamdeck.core.store.shard_files import list_shard_files
from dreamdeck.core.workspace import Workspace

DEFAULT_EXPIRE_DAYS = 14


def _live_partners(parsed: ParseResult, p: Proposal) -> list[int]:
    """An open proposal conflicts only with open partners (a decided one is history); a
    decided proposal shows every partner it had."""
    numbers = conflict_partners(parsed.proposals, p)
    if not p.is_open:
        return numbers
    return [n for n in numbers if (o := parsed.get(n)) is not None and o.is_open]


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
        return self.status.strip().lower().startswith(OPEN_STATUSES)

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
    t = parse_time(p.timestamp)
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
    # Imported here to keep `propose` cheap: settings pulls in croniter (~0.2 s to import), and a
    # sub-agent proposing through the Python API never lists the queue.
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
    now = now or datetime.now(UTC)
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
    return _item(p, parsed, now or datetime.now(UTC), _expire_days(ws, problems),
                 _topic_beliefs(ws) if p.is_open else [])
