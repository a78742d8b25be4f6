"""The audit log: `memory/meta/audit.log`, one line per mutation (Moltbot §12.4).

    TIMESTAMP | ACTION | FILE | ACTOR | APPROVAL | SUMMARY
    2026-02-02T15:30Z | EDIT | MEMORY.md | bot:trigger-remember | auto | added "hybrid approach"

TIMESTAMP is UTC to the minute (`YYYY-MM-DDTHH:MMZ`). Only the first five separators split a
line, so a SUMMARY may itself contain ` | `. Writers are strict (known ACTION and APPROVAL,
every field forced onto one line, pipes kept out of the first five fields, secrets redacted);
the reader is tolerant: a hand-mangled line comes back as an `AuditProblem`, never an exception.
Appends take a cross-process lock and write all of a batch with one O_APPEND write, so
concurrent writers never interleave inside a line.
"""
from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from filelock import FileLock

from dreamdeck.core.errors import BadInput
from dreamdeck.core.formats.secrets import redact_secrets
from dreamdeck.core.io.append import append_durably
from dreamdeck.core.io.no_links import read_bytes_nofollow
from dreamdeck.core.workspace import lock_file, parse_date

AUDIT_RELPATH = "memory/meta/audit.log"
LOCK_TIMEOUT = 60.0

# Moltbot §12.4's vocabulary, then dreamdeck's review and curation verbs.
FILE_ACTIONS = ("CREATE", "EDIT", "APPEND", "DELETE", "ARCHIVE", "MERGE", "REVERT", "DECAY", "RENAME")
REVIEW_ACTIONS = (
    "PROPOSE", "COMMIT", "REJECT", "DEFER", "PIN", "UNPIN", "FORGET", "UNFORGET", "DREAM", "ALERT", "ACK", "BASELINE",
)
ACTIONS = frozenset(FILE_ACTIONS + REVIEW_ACTIONS)
APPROVALS = frozenset({"auto", "approved", "partial", "rejected", "pending", "—"})
NO_APPROVAL = "—"

TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%MZ"
# The reader also takes seconds and fractions, as hand-written or older lines may carry them.
_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z$")
_ACTION = re.compile(r"^[A-Z][A-Z_-]*$")
# Everything str.splitlines() would break a line on.
_LINE_BREAKS = re.compile(r"[\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]+")


def audit_path(root: Path | str) -> Path:
    return Path(root) / AUDIT_RELPATH


def format_timestamp(now: datetime) -> str:
    """`now` in UTC to the minute, e.g. `2026-02-02T15:30Z`; a naive datetime is refused."""
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("audit timestamps need a timezone-aware datetime")
    return now.astimezone(UTC).strftime(TIMESTAMP_FORMAT)


@dataclass(frozen=True)
class AuditEntry:
    timestamp: str
    action: str
    file: str
    actor: str
    approval: str
    summary: str

    @classmethod
    def at(
        cls,
        now: datetime,
        action: str,
        file: str,
        actor: str,
        approval: str = "auto",
        summary: str = "",
    ) -> AuditEntry:
        """An entry stamped with `now` (UTC, minutes); action and approval are validated."""
        entry = cls(format_timestamp(now), action.upper(), str(file), actor, _approval(approval), summary)
        _validate(entry)
        return entry

    @property
    def date(self) -> str:
        return self.timestamp[:10]


@dataclass(frozen=True)
class AuditProblem:
    line_no: int
    line: str
    reason: str

    def __str__(self) -> str:
        return f"audit.log line {self.line_no}: {self.reason}"


def _approval(value: str) -> str:
    value = value.strip()
    return NO_APPROVAL if value in ("-", "--", "") else value.lower()


def _validate(entry: AuditEntry) -> None:
    if entry.action not in ACTIONS:
        raise ValueError(f"unknown audit action {entry.action!r}; expected one of {sorted(ACTIONS)}")
    if entry.approval not in APPROVALS:
        raise ValueError(f"unknown audit approval {entry.approval!r}; expected one of {sorted(APPROVALS)}")
    if not _TIMESTAMP.match(entry.timestamp):
        raise ValueError(f"bad audit timestamp {entry.timestamp!r}; expected YYYY-MM-DDTHH:MMZ")


def _one_line(value: object) -> str:
    return _LINE_BREAKS.sub(" ", redact_secrets(str(value))).strip()


def _field(value: object) -> str:
    """A non-final field: one line and no `|`, so it can never shift the columns."""
    return _one_line(value).replace("|", "¦") or NO_APPROVAL


def format_entry(entry: AuditEntry) -> str:
    """The entry as exactly one line (no trailing newline); ValueError for an unknown action."""
    entry = AuditEntry(entry.timestamp.strip(), entry.action.strip().upper(), entry.file, entry.actor,
                       _approval(entry.approval), entry.summary)
    _validate(entry)
    fields = [_field(entry.timestamp), _field(entry.action), _field(entry.file),
              _field(entry.actor), _field(entry.approval)]
    return " | ".join(fields) + " | " + _one_line(entry.summary)


def parse_line(line: str, line_no: int = 0) -> AuditEntry | AuditProblem:
    """One log line as an entry, or a problem saying why not. Never raises."""
    text = line.rstrip("\r\n")
    parts = text.split("|", 5)
    if len(parts) < 6:
        return AuditProblem(line_no, text, f"expected 6 fields separated by ' | ', found {len(parts)}")
    ts, action, file, actor, approval, summary = (p.strip() for p in parts)
    if not _TIMESTAMP.match(ts):
        return AuditProblem(line_no, text, f"bad timestamp {ts!r}")
    if not _ACTION.match(action):
        return AuditProblem(line_no, text, f"bad action {action!r}")
    if not file or not actor:
        return AuditProblem(line_no, text, "empty FILE or ACTOR")
    return AuditEntry(ts, action, file, actor, _approval(approval), summary)


def parse_log(text: str) -> tuple[list[AuditEntry], list[AuditProblem]]:
    """Every entry and every problem line; blank lines and `#` comments are skipped."""
    entries: list[AuditEntry] = []
    problems: list[AuditProblem] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parsed = parse_line(line, n)
        (entries if isinstance(parsed, AuditEntry) else problems).append(parsed)  # type: ignore[arg-type]
    return entries, problems


def read_log(root: Path | str) -> tuple[list[AuditEntry], list[AuditProblem]]:
    try:
        text = read_bytes_nofollow(audit_path(root)).decode("utf-8", "replace")
    except FileNotFoundError:
        return [], []
    return parse_log(text)


def append_entries(root: Path | str, entries: Iterable[AuditEntry]) -> int:
    """Append the entries, one line each, in one locked O_APPEND write; the count written."""
    lines = [format_entry(e) + "\n" for e in entries]
    if not lines:
        return 0
    with FileLock(lock_file(root, "audit"), timeout=LOCK_TIMEOUT):
        append_durably(audit_path(root), "".join(lines).encode("utf-8"), own_line=True)
    return len(lines)


def append_entry(root: Path | str, entry: AuditEntry) -> int:
    return append_entries(root, [entry])


def _matches(value: str, pattern: str) -> bool:
    """Case-insensitive glob when `pattern` has glob characters, substring otherwise."""
    value, pattern = value.lower(), pattern.lower()
    if any(ch in pattern for ch in "*?["):
        return fnmatch.fnmatchcase(value, pattern)
    return pattern in value


_BOUND = re.compile(r"(\d{4}-\d{2}-\d{2})(?:T(\d{2}):(\d{2})Z?)?")


def _bound(value: str | date | datetime) -> str:
    """A filter bound as the log writes it; a string must be a real day (and minute): a bound
    like 2026-99-01 would otherwise match nothing, silently."""
    if isinstance(value, datetime):
        return format_timestamp(value)
    if isinstance(value, date):
        return value.isoformat()
    text = str(value).strip()
    shape = _BOUND.fullmatch(text)
    if shape is None:
        raise BadInput(f"bad date {text!r}: expected YYYY-MM-DD or YYYY-MM-DDTHH:MM")
    day, hour, minute = shape.groups()
    parse_date(day)
    if hour is not None and (int(hour) > 23 or int(minute) > 59):
        raise BadInput(f"bad time {text!r}: no such minute")
    return text


def _within(timestamp: str, since: str | None, until: str | None) -> bool:
    # A date bound (YYYY-MM-DD) compares by day; a timestamp bound compares to the minute
    # (`YYYY-MM-DDTHH:MM`, the log's own precision). Both ends are inclusive.
    def key(bound: str) -> tuple[str, str]:
        width = 10 if len(bound) <= 10 else 16
        return timestamp[:width], bound[:width]

    if since is not None:
        mine, bound = key(since)
        if mine < bound:
            return False
    if until is not None:
        mine, bound = key(until)
        if mine > bound:
            return False
    return True


def read_entries(
    root: Path | str,
    *,
    action: str | Iterable[str] | None = None,
    actor: str | None = None,
    file: str | None = None,
    since: str | date | datetime | None = None,
    until: str | date | datetime | None = None,
) -> list[AuditEntry]:
    """Entries in file order, filtered. `action` is one name or several (case-insensitive);
    `actor` and `file` match by substring, or as a glob when they contain `*?[`;
    `since`/`until` are inclusive dates (YYYY-MM-DD) or timestamps. Malformed lines are skipped
    (see `read_log` for them)."""
    entries, _ = read_log(root)
    actions: set[str] | None = None
    if action is not None:
        actions = {action.upper()} if isinstance(action, str) else {a.upper() for a in action}
    lo = _bound(since) if since is not None else None
    hi = _bound(until) if until is not None else None
    return [
        e for e in entries
        if (actions is None or e.action.upper() in actions)
        and (actor is None or _matches(e.actor, actor))
        and (file is None or _matches(e.file, file))
        and _within(e.timestamp, lo, hi)
    ]
