"""Sub-agent proposals on disk: `memory/meta/pending-memories.md` (Moltbot §13.2, conflicts §13.6).

The format itself (parse, render, content hash) is `formats.pending_memories`; this module is
the file: it is shared with agents and people who write it by hand, so
- appends are plain O_APPEND writes under a cross-process lock, so an edit made in between is
  never clobbered;
- rewrites (status changes, conflict marks) replace only the blocks that changed and leave every
  other byte of the file as it was, malformed blocks included.
It also holds the contradiction heuristic (`find_conflicts`) an append marks conflicts with.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path

from filelock import FileLock

from dreamdeck.core.claims.contradiction import contradicts
from dreamdeck.core.errors import BadInput, NotFound
from dreamdeck.core.formats.pending_memories import (
    CONFIDENCES,
    STORES,
    ParseResult,
    Proposal,
    block_to_append,
    conflict_status,
    content_hash,
    parse_pending,
    render_pending,
    splice,
)
from dreamdeck.core.formats.secrets import secret_families
from dreamdeck.core.io.append import append_durably
from dreamdeck.core.io.atomic import atomic_write_text
from dreamdeck.core.io.no_links import read_bytes_nofollow
from dreamdeck.core.workspace import lock_file

PENDING_RELPATH = "memory/meta/pending-memories.md"
MAX_CONTENT = 4000
MAX_TRIGGER = 200
LOCK_TIMEOUT = 60.0

AGENT_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
ENTITY_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")


class ProposalNotFound(NotFound):
    pass


def pending_path(root: Path | str) -> Path:
    return Path(root) / PENDING_RELPATH


def read_pending(root: Path | str) -> ParseResult:
    try:
        text = read_bytes_nofollow(pending_path(root)).decode("utf-8", "replace")
    except FileNotFoundError:
        return ParseResult([], [], [])
    return parse_pending(text)


def _lock(root: Path | str) -> FileLock:
    path = pending_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    return FileLock(lock_file(root, "pending-memories"), timeout=LOCK_TIMEOUT)


def _read(path: Path) -> str | None:
    try:
        return read_bytes_nofollow(path).decode("utf-8", "replace")
    except FileNotFoundError:
        return None


# ------------------------------------------------------------------------------- appending

def append_proposal(
    root: Path | str,
    from_agent: str,
    store: str,
    content: str,
    *,
    confidence: str = "medium",
    entities: Iterable[str] = (),
    core_worthy: bool = False,
    trigger: str = "dreamdeck propose",
    now: datetime | None = None,
) -> tuple[Proposal, bool]:
    """Add a proposal; (proposal, True) when written, (existing, False) when the same content is
    already there and not rejected. BadInput for bad input or a secret (nothing is written).

    New proposals are numbered max+1 over every numbered block in the file (malformed ones too).
    When the new proposal conflicts with open ones (`find_conflicts`), both sides are marked
    `⚠️ CONFLICT with #N` / `conflict — see #N` in one atomic rewrite; otherwise the block is
    appended with O_APPEND."""
    proposal = _checked_proposal(from_agent, store, content, confidence, entities, core_worthy, trigger, now)
    path = pending_path(root)
    with _lock(root):
        text = _read(path)
        parsed = parse_pending(text) if text is not None else ParseResult([], [], [])
        existing = _same_content(parsed, proposal.content)
        if existing is not None:
            return existing, False
        proposal.number = parsed.next_number()
        _write_new(path, text, parsed, proposal)
        return proposal, True


def _checked_proposal(from_agent: str, store: str, content: str, confidence: str, entities: Iterable[str],
                      core_worthy: bool, trigger: str, now: datetime | None) -> Proposal:
    """The proposal to append (not numbered yet), its fields normalised; BadInput says what is
    wrong with them, or which secret one holds."""
    _validate_agent(from_agent)
    store = str(store).strip().lower()
    if store not in STORES:
        raise BadInput(f"store {store!r} must be one of {', '.join(STORES)}")
    content = " ".join(str(content).split())
    if not content:
        raise BadInput("content is empty")
    if len(content) > MAX_CONTENT:
        raise BadInput(f"content is {len(content)} characters; the limit is {MAX_CONTENT}")
    confidence = str(confidence).strip().lower()
    if confidence not in CONFIDENCES:
        raise BadInput(f"confidence {confidence!r} must be one of {', '.join(CONFIDENCES)}")
    trigger = " ".join(str(trigger).split()) or "dreamdeck propose"
    if len(trigger) > MAX_TRIGGER:
        raise BadInput(f"trigger is {len(trigger)} characters; the limit is {MAX_TRIGGER}")
    entity_list = _checked_entities(entities)
    _refuse_secrets(from_agent, content, trigger, *entity_list)
    return Proposal(
        number=0, from_agent=from_agent, timestamp=_timestamp(now), trigger=trigger, store=store,
        content=content, entities=entity_list, confidence=confidence, core_worthy=bool(core_worthy),
    )


def _checked_entities(entities: Iterable[str]) -> list[str]:
    entity_list: list[str] = []
    for entity in entities:
        entity = str(entity).strip()
        if not ENTITY_ID.fullmatch(entity):
            raise BadInput(f"entity id {entity!r} must match {ENTITY_ID.pattern}")
        if entity not in entity_list:
            entity_list.append(entity)
    return entity_list


def _same_content(parsed: ParseResult, content: str) -> Proposal | None:
    """A proposal of the same content that was not rejected: proposing it again is a no-op."""
    wanted = content_hash(content)
    return next((p for p in parsed.proposals if p.content_hash == wanted and not p.is_rejected), None)


def _write_new(path: Path, text: str | None, parsed: ParseResult, proposal: Proposal) -> None:
    """Add the numbered `proposal` to the file read as `text` (under the lock): a new file, an
    O_APPEND of its block, or, when it conflicts with open ones, one atomic rewrite that marks
    both sides."""
    if text is None or not text.strip():  # nothing open to conflict with
        atomic_write_text(path, render_pending([proposal]))
        return
    open_ones = [p for p in parsed.proposals if p.is_open]
    conflicts = find_conflicts(proposal, open_ones)
    if not conflicts:
        append_durably(path, block_to_append(text, proposal).encode("utf-8"))
        return
    changed = _mark_conflicts(proposal, conflicts, open_ones)
    atomic_write_text(path, splice(text, parsed, changed) + block_to_append(text, proposal))


def _mark_conflicts(proposal: Proposal, conflicts: list[int], open_ones: list[Proposal]) -> dict[int, Proposal]:
    """Mark `proposal` and the open ones it conflicts with on both sides; the ones changed."""
    changed: dict[int, Proposal] = {}
    for other in open_ones:
        if other.number in conflicts:
            if proposal.number not in other.conflict_with:
                other.conflict_with.append(proposal.number)
            other.status = conflict_status(other.conflict_with)
            changed[other.number] = other
    proposal.conflict_with = list(conflicts)
    proposal.status = conflict_status(conflicts)
    return changed


def _validate_agent(name: str) -> str:
    if not isinstance(name, str) or not AGENT_NAME.fullmatch(name):
        raise BadInput(f"agent name {name!r} must match {AGENT_NAME.pattern}")
    return name


def _refuse_secrets(*texts: str) -> None:
    for text in texts:
        families = secret_families(text)
        if families:
            raise BadInput(f"refused: the proposal contains a secret ({', '.join(families)})")


def _timestamp(now: datetime | None) -> str:
    if now is None:
        now = datetime.now(UTC)
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("proposal timestamps need a timezone-aware datetime")
    return now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# ------------------------------------------------------------------------- rewriting blocks

def update_status(root: Path | str, number: int, status: str, *, reason: str | None = None) -> Proposal:
    """Set proposal #number's status (and reason, when given); only its block is rewritten."""
    status = " ".join(str(status).split())
    if not status:
        raise BadInput("status is empty")
    path = pending_path(root)
    with _lock(root):
        text = _read(path)
        if text is None:
            raise ProposalNotFound(f"no proposal #{number}: {PENDING_RELPATH} does not exist")
        parsed = parse_pending(text)
        proposal = parsed.get(number)
        if proposal is None:
            raise ProposalNotFound(f"no proposal #{number} in {PENDING_RELPATH}")
        proposal.status = status
        if reason is not None:
            proposal.reason = " ".join(str(reason).split())
        new_text = splice(text, parsed, {number: proposal})
        if new_text != text:
            atomic_write_text(path, new_text)
        return proposal


def modify_proposals(
    root: Path | str, change: Callable[[ParseResult], Iterable[Proposal]]
) -> list[Proposal]:
    """Change several proposals in one atomic rewrite, under the same lock appends take.

    `change` receives the fresh parse, edits its proposals in place (status, reason,
    conflict_with) and returns the ones it changed; only their blocks are re-rendered, every
    other byte stays. An exception from `change` leaves the file untouched."""
    path = pending_path(root)
    with _lock(root):
        text = _read(path)
        if text is None:
            raise ProposalNotFound(f"{PENDING_RELPATH} does not exist")
        parsed = parse_pending(text)
        changed = {p.number: p for p in change(parsed)}
        if changed:
            new_text = splice(text, parsed, changed)
            if new_text != text:
                atomic_write_text(path, new_text)
        return list(changed.values())


# ------------------------------------------------------------------------------ conflicts

def _shared_topic(a: Proposal, b: Proposal) -> bool | None:
    """True when both name an entity they share, False when both name entities and share none
    (never a conflict), None when one names none (the claims must then match on their own)."""
    ea = {e.lower() for e in a.entities}
    eb = {e.lower() for e in b.entities}
    if ea and eb:
        return bool(ea & eb)
    return None


def find_conflicts(new: Proposal, others: Iterable[Proposal]) -> list[int]:
    """Numbers of the `others` that contradict `new`, in order, by the one contradiction rule
    (`core.claims.contradiction`): the same subject with a different value, a ruled-out value,
    or a flipped negation ("Project deadline is March 15" / "... was moved to March 30"; "User
    prefers pnpm" / "User no longer prefers pnpm"). Proposals that both name entities conflict
    only when they share one, and then count as one topic (a one-word subject may match a longer
    one: "Deadline is ..." / "Apollo deadline is ..."). A refinement is not a conflict ("prefers
    pnpm" / "prefers pnpm for monorepos"), nor a different object without a change marker
    ("prefers pnpm" / "prefers yarn": both may be true). Identical contents are duplicates, never
    conflicts, and a proposal never conflicts with itself. Order does not matter: either may be
    the newer claim.
    """
    found: list[int] = []
    for other in others:
        if other.number == new.number or other.content_hash == new.content_hash:
            continue
        shared = _shared_topic(new, other)
        if shared is False:
            continue
        same_topic = bool(shared)
        if contradicts(other.content, new.content, same_topic=same_topic) or contradicts(
            new.content, other.content, same_topic=same_topic
        ):
            if other.number not in found:
                found.append(other.number)
    return found
