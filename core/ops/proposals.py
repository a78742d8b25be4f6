"""The proposals queue: sub-agents propose, a person commits, rejects or defers (Moltbot §13).

`memory/meta/pending-memories.md` itself is `formats.pending_memories` (the text) and
`store.proposals_file` (locked appends, conflict marks). The queue on top of it is this module
(`propose`, and the one place to import the queue from) with its parts: `proposal_queue` (the
queue as a person reviews it), `proposal_decisions` (approve, reject, defer), `proposal_writes`
(what an approval writes) and `proposal_fields` (what is read off a proposal, the errors).
Every mutation goes through the one door (`apply_changeset`), so each decision is one git
commit with trailers (`Proposal: p-N`) plus its audit lines.

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

Crash safety and locking: see `proposal_decisions`.
"""
from __future__ import annotations

from datetime import UTC, datetime

from dreamdeck.core.door.apply import apply_changeset
from dreamdeck.core.door.changeset import Audit, ChangeSet, Commit, Reference
from dreamdeck.core.formats.pending_memories import Proposal
from dreamdeck.core.ops.proposal_decisions import DecisionResult, approve_proposal, defer_proposal, reject_proposal
from dreamdeck.core.ops.proposal_fields import (
    ProposalDecided,
    ProposalError,
    ProposalRefused,
    UnknownProposal,
    agent_name,
    parse_pid,
    proposal_slug,
    proposal_topic,
)
from dreamdeck.core.ops.proposal_queue import QueueItem, get_proposal, list_proposals, topic_conflicts
from dreamdeck.core.ops.proposal_writes import new_shard_text
from dreamdeck.core.store.proposals_file import PENDING_RELPATH, ProposalNotFound, append_proposal
from dreamdeck.core.workspace import Workspace

__all__ = [
    "DecisionResult", "ProposalDecided", "ProposalError", "ProposalNotFound", "ProposalRefused",
    "QueueItem", "UnknownProposal", "agent_name", "approve_proposal", "defer_proposal",
    "get_proposal", "list_proposals", "new_shard_text", "parse_pid", "propose", "proposal_slug",
    "proposal_topic", "reject_proposal", "topic_conflicts",
]


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
    now = now or datetime.now(UTC)
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
