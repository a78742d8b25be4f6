"""Daily notes to stream fragments, the way an agent's logger converts them.

One fragment per bullet, paragraph line or table row (table separators skipped), a line ending in
":" with the indented list under it as one fragment, its topic the nearest heading above it (the `#` title only when there is none). The logger's own rules hold:
an exact duplicate (same topic and body on the same day) is refused, as TypeClaw's append tool
refuses it. Lines are written in TypeClaw's stream format with UUIDv7 ids whose time falls on
the note's day, so the streams are what a real agent folder would hold.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from corpus import DayNote, Truth

from dreamdeck.core.formats.events import build_fragment, fragment_content_hash, serialize_event
from dreamdeck.core.formats.ids import timestamp_from_id

_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")
_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


@dataclass(frozen=True)
class LoggedFragment:
    day: str
    id: str
    topic: str
    body: str
    statements: tuple[Truth, ...]  # one per statement the body makes

    @property
    def truth(self) -> Truth:
        return self.statements[0]


def _uuid7(day: str, n: int) -> str:
    base = datetime.fromisoformat(day).replace(hour=12, tzinfo=UTC)
    ms = int(base.timestamp() * 1000) + n * 997
    value = (ms << 80) | (0x7 << 76) | ((n * 7919) % 4096 << 64) | (0b10 << 62) | (n * 2654435761 % (1 << 62))
    h = f"{value:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def log_note(note: DayNote, source: str) -> list[LoggedFragment]:
    text, truths = note.markdown()
    out: list[LoggedFragment] = []
    seen: set[str] = set()
    title, topic = "", ""
    lines = text.split("\n")
    taken: set[int] = set()
    for number, line in enumerate(lines):
        if not line.strip() or number in taken:
            continue
        heading = _HEADING.match(line)
        if heading:
            if len(heading.group(1)) == 1:
                title = heading.group(2).strip()
            else:
                topic = heading.group(2).strip()
            continue
        if _SEPARATOR.match(line):
            continue
        bullet = _BULLET.match(line)
        body = bullet.group(1).strip() if bullet else line.strip()
        if body.endswith((":", "：")):  # a header line takes the indented list under it
            nested = [n for n in range(number + 1, len(lines)) if lines[n].startswith("  ")]
            nested = [n for i, n in enumerate(nested) if n == number + 1 + i]
            taken.update(nested)
            body = "\n".join([body, *(lines[n].strip() for n in nested)])
        label = topic or title
        digest = fragment_content_hash(label, body)
        if digest in seen:
            continue  # the append tool refuses a same-day duplicate
        seen.add(digest)
        truth = truths.get(number)
        if truth is None:
            raise AssertionError(f"{note.day} line {number} has no truth label: {line!r}")
        out.append(LoggedFragment(note.day, _uuid7(note.day, len(out) + 1), label, body, truth))
    return out


def write_day(root: Path, fragments: list[LoggedFragment], source: str) -> None:
    """Append the day's fragments to memory/streams/<day>.jsonl in TypeClaw's line format."""
    if not fragments:
        return
    folder = root / "memory" / "streams"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{fragments[0].day}.jsonl", "a", encoding="utf-8") as fh:
        for i, f in enumerate(fragments):
            ev = build_fragment(f.id, timestamp_from_id(f.id), source=source, entry=f"{i:08x}", topic=f.topic, body=f.body)
            fh.write(serialize_event(ev) + "\n")
