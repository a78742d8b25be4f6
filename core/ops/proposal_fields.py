"""What the proposals queue reads off a proposal: its id (`p-N`), its proposer as an actor name,
its fragment topic and topic slug, its time, its status word and its conflict partners; and
the queue's errors (one line for a person each).
"""
from __future__ import annotations

import re
from datetime import UTC, datetime

from dreamdeck.core.errors import BadInput
from dreamdeck.core.formats.pending_memories import Proposal
from dreamdeck.core.formats.slugs import heading_to_slug
from dreamdeck.core.store.proposals_file import AGENT_NAME

TOPIC_WORDS = 6
_PID = re.compile(r"^\s*(?:p-|#)?\s*([0-9]+)\s*$", re.I)
_WORDS = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*")


class ProposalError(BadInput):
    """A queue operation was not done; the message is one line for a person."""


class UnknownProposal(ProposalError):
    pass


class ProposalDecided(ProposalError):
    pass


class ProposalRefused(ProposalError):
    """The approval would write something it must not (duplicate, secret, forgotten, stale edit)."""


def parse_pid(pid: object) -> int:
    """`p-3` (also `3`, `#3`) -> 3."""
    m = _PID.match(str(pid))
    if not m:
        raise UnknownProposal(f"{pid!r} is not a proposal id (p-N)")
    return int(m.group(1))


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


def parse_time(value: str) -> datetime | None:
    value = value.strip()
    if not value:
        return None
    try:
        t = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def status_word(p: Proposal) -> str:
    return (p.status.split() or ["pending"])[0].lower()


def conflict_partners(proposals: list[Proposal], p: Proposal) -> list[int]:
    """Both directions: the ones p names and the ones naming p (hand edits may mark one side)."""
    found = set(p.conflict_with) | {o.number for o in proposals if p.number in o.conflict_with}
    found.discard(p.number)
    return sorted(found)
