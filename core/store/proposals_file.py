"""Sub-agent proposals: `memory/meta/pending-memories.md` (Moltbot §13.2, conflicts §13.6).

    # Pending Memory Proposals
    <!-- Sub-agents append proposals here. Main agent reviews and commits. -->
    ---
    ## Proposal #1
    - **From**: researcher
    - **Timestamp**: 2026-02-03T10:00:00Z
    - **Trigger**: auto-detect during research task
    - **Suggested store**: semantic
    - **Content**: User prefers academic sources over blog posts for technical topics
    - **Entities**: [preference--source-quality]
    - **Confidence**: medium
    - **Core-worthy**: no
    - **Status**: pending

The file is shared with agents and people who write it by hand, so:
- the parser is tolerant (CRLF, blank lines, `Store` for `Suggested store`, Yes/No, entities with
  or without brackets, continuation lines); a block it cannot use is reported with its line
  number and the others still load;
- appends are plain O_APPEND writes under a cross-process lock, so an edit made in between is
  never clobbered;
- rewrites (status changes, conflict marks) replace only the blocks that changed and leave every
  other byte of the file as it was, malformed blocks included.
"""
from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from filelock import FileLock

from dreamdeck.core.claims.contradiction import contradicts
from dreamdeck.core.workspace import lock_file
from dreamdeck.core.io.append import append_durably

from dreamdeck.core.io.atomic import atomic_write_text
from dreamdeck.core.formats.secrets import detect_secrets
from dreamdeck.core.errors import BadInput, NotFound, Refused

PENDING_RELPATH = "memory/meta/pending-memories.md"
HEADER = "# Pending Memory Proposals"
COMMENT = "<!-- Sub-agents append proposals here. Main agent reviews and commits. -->"
SEPARATOR = "---"
STORES = ("episodic", "semantic", "procedural", "vault")
CONFIDENCES = ("high", "medium", "low")
MAX_CONTENT = 4000
MAX_TRIGGER = 200
LOCK_TIMEOUT = 60.0

AGENT_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
ENTITY_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")
OPEN_STATUSES = ("pending", "deferred", "conflict")  # proposals that still await a decision


class ProposalNotFound(NotFound):
    pass


@dataclass
class Proposal:
    number: int
    from_agent: str
    timestamp: str
    trigger: str
    store: str
    content: str
    entities: list[str] = field(default_factory=list)
    confidence: str = "medium"
    core_worthy: bool = False
    status: str = "pending"
    conflict_with: list[int] = field(default_factory=list)
    extra: list[tuple[str, str]] = field(default_factory=list)  # unknown "- **Key**: value" lines
    reason: str | None = None

    @property
    def id(self) -> str:
        return f"p-{self.number}"

    @property
    def content_hash(self) -> str:
        return content_hash(self.content)

    @property
    def is_open(self) -> bool:
        """Still awaiting a decision: pending, deferred or in conflict."""
        return self.status.strip().lower().startswith(OPEN_STATUSES)

    @property
    def is_rejected(self) -> bool:
        return self.status.strip().lower().startswith("rejected")


@dataclass
class ParseResult:
    proposals: list[Proposal]
    problems: list[str]
    # Where each block sits in the text, for rewrites that touch only what changed.
    blocks: list[_Block] = field(default_factory=list, repr=False, compare=False)

    def get(self, number: int) -> Proposal | None:
        return next((p for p in self.proposals if p.number == number), None)


@dataclass
class _Block:
    start: int  # index of the heading line (0-based, in the LF-normalised line list)
    end: int  # one past the last non-blank line of the block
    number: int | None
    proposal: Proposal | None  # None when the block is malformed


def normalize_content(text: str) -> str:
    return " ".join(text.split()).lower()


def content_hash(text: str) -> str:
    return hashlib.sha256(normalize_content(text).encode("utf-8")).hexdigest()


def pending_path(root: Path | str) -> Path:
    return Path(root) / PENDING_RELPATH


# --------------------------------------------------------------------------------- parsing

_SEP = re.compile(r"^\s*-{3,}\s*$")
_H2 = re.compile(r"^\s*##(?!#)\s*")
_HEADING = re.compile(r"^\s*##\s*proposal\b\s*(?:#\s*)?(\d+)?(.*)$", re.I)
_BULLET = re.compile(r"^\s*[-*+]\s+\*\*\s*([^*:]+?)\s*:?\s*\*\*\s*:?\s*(.*?)\s*$")
_ANY_BULLET = re.compile(r"^\s*[-*+]\s+")

_KEYS = {
    "from": "from_agent", "from agent": "from_agent", "agent": "from_agent",
    "timestamp": "timestamp", "time": "timestamp", "date": "timestamp",
    "trigger": "trigger",
    "suggested store": "store", "store": "store",
    "content": "content",
    "entities": "entities", "entity": "entities",
    "confidence": "confidence",
    "core worthy": "core_worthy", "coreworthy": "core_worthy", "core": "core_worthy",
    "status": "status",
    "reason": "reason",
}
_YES = {"yes", "y", "true", "1"}
_NO = {"no", "n", "false", "0", ""}
_EMPTY_LIST = {"", "none", "-", "—", "n/a", "[]"}


def _key(raw: str) -> str | None:
    return _KEYS.get(re.sub(r"[\s_-]+", " ", raw.strip().lower()))


def parse_entities(value: str) -> list[str]:
    value = value.strip()
    if value.startswith("[") and value.endswith("]"):
        value = value[1:-1]
    if value.strip().lower() in _EMPTY_LIST:
        return []
    out: list[str] = []
    for item in value.split(","):
        item = item.strip().strip("`'\"").strip()
        if item and item not in out:
            out.append(item)
    return out


def _lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def parse_pending(text: str) -> ParseResult:
    """Every well-formed proposal, plus one problem line per thing that could not be used."""
    lines = _lines(text)
    chunks: list[tuple[int, int]] = []
    start = 0
    for i, line in enumerate(lines):
        if _SEP.match(line):
            chunks.append((start, i))
            start = i + 1
        elif _H2.match(line):
            chunks.append((start, i))
            start = i
    chunks.append((start, len(lines)))

    proposals: list[Proposal] = []
    problems: list[str] = []
    blocks: list[_Block] = []
    seen: dict[int, int] = {}
    for index, (s, e) in enumerate(chunks):
        while s < e and not lines[s].strip():
            s += 1
        while e > s and not lines[e - 1].strip():
            e -= 1
        if s >= e:
            continue
        heading = _HEADING.match(lines[s])
        if heading is None:
            if _H2.match(lines[s]):
                problems.append(f"line {s + 1}: heading is not '## Proposal #N': {lines[s].strip()[:80]}")
            elif index > 0 and any(_BULLET.match(line) for line in lines[s:e]):
                problems.append(f"line {s + 1}: fields without a '## Proposal #N' heading (skipped)")
            continue
        proposal, number, block_problems = _parse_block(lines, s, e, heading)
        problems.extend(block_problems)
        if proposal is not None and number in seen:
            problems.append(f"line {s + 1}: duplicate proposal #{number} (first at line {seen[number]}); skipped")
            proposal = None
        if proposal is not None:
            seen[proposal.number] = s + 1
            proposals.append(proposal)
        blocks.append(_Block(s, e, number, proposal))
    return ParseResult(proposals, problems, blocks)


def _parse_block(
    lines: list[str], s: int, e: int, heading: re.Match[str]
) -> tuple[Proposal | None, int | None, list[str]]:
    problems: list[str] = []
    where = f"line {s + 1}"
    number = int(heading.group(1)) if heading.group(1) else None
    suffix = heading.group(2) or ""
    conflict_with = [int(n) for n in re.findall(r"#\s*(\d+)", suffix)] if "conflict" in suffix.lower() else []

    fields: dict[str, str] = {}
    extra: list[tuple[str, str]] = []
    last: tuple[str, int | None] | None = None  # (known key, None) or ("", index into extra)
    for i in range(s + 1, e):
        line = lines[i]
        if not line.strip():
            continue
        bullet = _BULLET.match(line)
        if bullet:
            raw_key, value = bullet.group(1), bullet.group(2)
            known = _key(raw_key)
            if known:
                fields[known] = value
                last = (known, None)
            else:
                extra.append((raw_key.strip(), value))
                last = ("", len(extra) - 1)
        elif last is not None and not _ANY_BULLET.match(line):  # a wrapped value goes on
            text = line.strip()
            if last[1] is None:
                fields[last[0]] = (fields[last[0]] + " " + text).strip()
            else:
                k, v = extra[last[1]]
                extra[last[1]] = (k, (v + " " + text).strip())
        else:
            problems.append(f"line {i + 1}: not a '- **Key**: value' field, ignored: {line.strip()[:80]}")

    label = f"proposal #{number}" if number is not None else "proposal"
    if number is None:
        problems.append(f"{where}: {label} heading has no number; skipped")
        return None, None, problems
    content = " ".join(fields.get("content", "").split())
    if not content:
        problems.append(f"{where}: {label} has no content; skipped")
        return None, number, problems
    store = fields.get("store", "").strip().strip("`[]").strip().lower()
    if store not in STORES:
        shown = store or "missing"
        problems.append(f"{where}: {label} has a bad store ({shown}); expected one of {', '.join(STORES)}; skipped")
        return None, number, problems

    confidence = fields.get("confidence", "medium").strip().lower() or "medium"
    if confidence not in CONFIDENCES:
        problems.append(f"{where}: {label} confidence {confidence!r} is not high/medium/low")
    worthy_raw = fields.get("core_worthy", "no").strip().strip("`").lower()
    if worthy_raw not in _YES | _NO:
        problems.append(f"{where}: {label} core-worthy {worthy_raw!r} is not yes/no; read as no")
    status = fields.get("status", "").strip() or "pending"
    proposal = Proposal(
        number=number,
        from_agent=fields.get("from_agent", "").strip(),
        timestamp=fields.get("timestamp", "").strip(),
        trigger=fields.get("trigger", "").strip(),
        store=store,
        content=content,
        entities=parse_entities(fields.get("entities", "")),
        confidence=confidence,
        core_worthy=worthy_raw in _YES,
        status=status,
        conflict_with=conflict_with,
        extra=extra,
        reason=fields["reason"].strip() if "reason" in fields else None,
    )
    return proposal, number, problems


# ------------------------------------------------------------------------------- rendering

def _flat(value: object) -> str:
    """One line: a value can never start a new field or block."""
    return " ".join(str(value).split())


def render_heading(p: Proposal) -> str:
    heading = f"## Proposal #{p.number}"
    if p.conflict_with:
        heading += " ⚠️ CONFLICT with " + ", ".join(f"#{n}" for n in p.conflict_with)
    return heading


def render_block(p: Proposal) -> str:
    """One proposal in the §13.2 layout, without separators or trailing newline."""
    lines = [
        render_heading(p),
        f"- **From**: {_flat(p.from_agent)}",
        f"- **Timestamp**: {_flat(p.timestamp)}",
        f"- **Trigger**: {_flat(p.trigger)}",
        f"- **Suggested store**: {_flat(p.store)}",
        f"- **Content**: {_flat(p.content)}",
        f"- **Entities**: [{', '.join(_flat(e) for e in p.entities)}]",
        f"- **Confidence**: {_flat(p.confidence)}",
        f"- **Core-worthy**: {'yes' if p.core_worthy else 'no'}",
        f"- **Status**: {_flat(p.status)}",
    ]
    if p.reason is not None:
        lines.append(f"- **Reason**: {_flat(p.reason)}")
    lines.extend(f"- **{_flat(k)}**: {_flat(v)}" for k, v in p.extra)
    return "\n".join(lines)


def render_pending(proposals: Iterable[Proposal]) -> str:
    """The whole file, canonical: header, comment, then `---` and a block per proposal."""
    parts = [HEADER, COMMENT]
    for p in proposals:
        parts.append(SEPARATOR)
        parts.append(render_block(p))
    return "\n".join(parts) + "\n"


# ------------------------------------------------------------------------- file operations

def read_pending(root: Path | str) -> ParseResult:
    try:
        text = pending_path(root).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return ParseResult([], [], [])
    return parse_pending(text)


def _lock(root: Path | str) -> FileLock:
    path = pending_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    return FileLock(lock_file(root, "pending-memories"), timeout=LOCK_TIMEOUT)


def _read(path: Path) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace", newline="") as fh:
            return fh.read()
    except FileNotFoundError:
        return None


def _newline(text: str) -> str:
    return "\r\n" if text.count("\r\n") * 2 > text.count("\n") else "\n"


def _splice(text: str, parsed: ParseResult, changed: dict[int, Proposal]) -> str:
    """`text` with the blocks of `changed` (by number) re-rendered; all other lines untouched."""
    nl = _newline(text)
    lines = _lines(text)
    for block in sorted(parsed.blocks, key=lambda b: b.start, reverse=True):
        if block.proposal is not None and block.number in changed:
            lines[block.start:block.end] = render_block(changed[block.number]).split("\n")
    return nl.join(lines)


def _validate_agent(name: str) -> str:
    if not isinstance(name, str) or not AGENT_NAME.fullmatch(name):
        raise BadInput(f"agent name {name!r} must match {AGENT_NAME.pattern}")
    return name


def _refuse_secrets(*texts: str) -> None:
    for text in texts:
        findings = detect_secrets(text)
        if findings:
            families = sorted({f.family for f in findings})
            raise BadInput(f"refused: the proposal contains a secret ({', '.join(families)})")


def _timestamp(now: datetime | None) -> str:
    if now is None:
        now = datetime.now(timezone.utc)
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("proposal timestamps need a timezone-aware datetime")
    return now.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _conflict_status(numbers: Sequence[int]) -> str:
    return "conflict — see " + ", ".join(f"#{n}" for n in numbers)


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
    entity_list: list[str] = []
    for entity in entities:
        entity = str(entity).strip()
        if not ENTITY_ID.fullmatch(entity):
            raise BadInput(f"entity id {entity!r} must match {ENTITY_ID.pattern}")
        if entity not in entity_list:
            entity_list.append(entity)
    _refuse_secrets(content, trigger, " ".join(entity_list))
    stamp = _timestamp(now)

    path = pending_path(root)
    with _lock(root):
        text = _read(path)
        parsed = parse_pending(text) if text is not None else ParseResult([], [], [])
        wanted = content_hash(content)
        for existing in parsed.proposals:
            if existing.content_hash == wanted and not existing.is_rejected:
                return existing, False

        numbers = [b.number for b in parsed.blocks if b.number is not None]
        proposal = Proposal(
            number=max(numbers, default=0) + 1,
            from_agent=from_agent,
            timestamp=stamp,
            trigger=trigger,
            store=store,
            content=content,
            entities=entity_list,
            confidence=confidence,
            core_worthy=bool(core_worthy),
        )
        open_ones = [p for p in parsed.proposals if p.is_open]
        conflicts = find_conflicts(proposal, open_ones)

        if text is None or not text.strip():  # nothing open to conflict with
            atomic_write_text(path, render_pending([proposal]))
            return proposal, True

        nl = _newline(text)
        lead = "" if text.endswith(("\n", "\r")) else nl
        block = lead + SEPARATOR + nl + render_block(proposal).replace("\n", nl) + nl
        if not conflicts:
            append_durably(path, block.encode("utf-8"))
            return proposal, True

        changed: dict[int, Proposal] = {}
        for other in open_ones:
            if other.number in conflicts:
                if proposal.number not in other.conflict_with:
                    other.conflict_with.append(proposal.number)
                other.status = _conflict_status(other.conflict_with)
                changed[other.number] = other
        proposal.conflict_with = list(conflicts)
        proposal.status = _conflict_status(conflicts)
        block = lead + SEPARATOR + nl + render_block(proposal).replace("\n", nl) + nl
        atomic_write_text(path, _splice(text, parsed, changed) + block)
        return proposal, True


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
        new_text = _splice(text, parsed, {number: proposal})
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
            new_text = _splice(text, parsed, changed)
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
