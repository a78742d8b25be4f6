"""`memory/meta/pending-memories.md` as text: the Moltbot §13.2 proposal format (conflicts §13.6).

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

The file is shared with agents and people who write it by hand, so the parser is tolerant
(CRLF, blank lines, `Store` for `Suggested store`, Yes/No, entities with or without brackets,
continuation lines); a block it cannot use is reported with its line number and the others
still load. `splice` re-renders only the blocks that changed and leaves every other byte of the
text as it was, malformed blocks included. Pure text in, text out: the locked file operations
are `store.proposals_file`.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from dreamdeck.core.formats.lazy_re import lazy_re

HEADER = "# Pending Memory Proposals"
COMMENT = "<!-- Sub-agents append proposals here. Main agent reviews and commits. -->"
SEPARATOR = "---"
STORES = ("episodic", "semantic", "procedural", "vault")
CONFIDENCES = ("high", "medium", "low")
OPEN_STATUSES = ("pending", "deferred", "conflict")  # proposals that still await a decision


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

    def next_number(self) -> int:
        """A new proposal's number: max+1 over every numbered block (malformed ones too)."""
        return max((b.number for b in self.blocks if b.number is not None), default=0) + 1


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


def conflict_status(numbers: Sequence[int]) -> str:
    """The status of a proposal in conflict (§13.6): `conflict — see #3, #4`."""
    return "conflict — see " + ", ".join(f"#{n}" for n in numbers)


# --------------------------------------------------------------------------------- parsing

_SEP = lazy_re(r"^\s*-{3,}\s*$")
_H2 = lazy_re(r"^\s*##(?!#)\s*")
_HEADING = lazy_re(r"^\s*##\s*proposal\b\s*(?:#\s*)?(\d+)?(.*)$", re.I)
_BULLET = lazy_re(r"^\s*[-*+]\s+\*\*\s*([^*:]+?)\s*:?\s*\*\*\s*:?\s*(.*?)\s*$")
_ANY_BULLET = lazy_re(r"^\s*[-*+]\s+")

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
    where = f"line {s + 1}"
    number = int(heading.group(1)) if heading.group(1) else None
    suffix = heading.group(2) or ""
    conflict_with = [int(n) for n in re.findall(r"#\s*(\d+)", suffix)] if "conflict" in suffix.lower() else []
    fields, extra, problems = _read_fields(lines, s, e)

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


def _read_fields(lines: list[str], s: int, e: int) -> tuple[dict[str, str], list[tuple[str, str]], list[str]]:
    """(known fields, unknown `- **Key**: value` lines, problems) of the block's lines after its
    heading; a line that is not a field continues the one before it."""
    problems: list[str] = []
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
    return fields, extra, problems


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


# ------------------------------------------------------------------------- rewriting text

def newline_of(text: str) -> str:
    """The file's newline: CRLF when most of its lines end so."""
    return "\r\n" if text.count("\r\n") * 2 > text.count("\n") else "\n"


def splice(text: str, parsed: ParseResult, changed: dict[int, Proposal]) -> str:
    """`text` with the blocks of `changed` (by number) re-rendered; all other lines untouched."""
    nl = newline_of(text)
    lines = _lines(text)
    for block in sorted(parsed.blocks, key=lambda b: b.start, reverse=True):
        if block.proposal is not None and block.number in changed:
            lines[block.start:block.end] = render_block(changed[block.number]).split("\n")
    return nl.join(lines)


def block_to_append(text: str, proposal: Proposal) -> str:
    """What goes after `text` to add `proposal`: a separator and its block, in the file's
    newline style (a newline first when the last line has none)."""
    nl = newline_of(text)
    lead = "" if text.endswith(("\n", "\r")) else nl
    return lead + SEPARATOR + nl + render_block(proposal).replace("\n", nl) + nl
