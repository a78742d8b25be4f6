"""Stream files as lines: each non-empty line of a `memory/streams/*.jsonl` file with its event,
or the reason it is malformed. Pure bytes in, lines out (no file access here).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from dreamdeck.core.formats.events import EventError, parse_event_line


STREAM_FILE = re.compile(r"^([0-9]{4}-[0-9]{2}-[0-9]{2})\.jsonl$")  # JS \d: ASCII only


@dataclass(frozen=True)
class StreamProblem:
    path: str  # relative to the workspace
    lineno: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.lineno}: skipping malformed line ({self.reason})"


@dataclass(frozen=True)
class StreamLine:
    lineno: int  # 1-based, counting every line including blank ones
    offset: int  # byte offset of the line in the file
    raw: bytes  # the line without its newline
    event: dict[str, Any] | None
    error: str | None

    @property
    def kind(self) -> str | None:
        return self.event.get("type") if self.event else None


# --- reading -------------------------------------------------------------------------------
def parse_stream_bytes(data: bytes, start_offset: int = 0) -> list[StreamLine]:
    """Every non-empty line of `data` with its event or the reason it is malformed."""
    out: list[StreamLine] = []
    offset = 0
    lineno = 0
    for raw in data.split(b"\n"):
        lineno += 1
        line_offset = offset
        offset += len(raw) + 1
        if not raw.strip():
            continue
        try:
            event = parse_event_line(raw.decode("utf-8"))
            out.append(StreamLine(lineno, start_offset + line_offset, raw, event, None))
        except UnicodeDecodeError:
            out.append(StreamLine(lineno, start_offset + line_offset, raw, None, "not UTF-8"))
        except EventError as exc:
            out.append(StreamLine(lineno, start_offset + line_offset, raw, None, str(exc)))
    return out


def count_fragments(data: bytes) -> int:
    """How many valid fragment lines `data` holds (TypeClaw's count for a dream commit's subject)."""
    return sum(1 for ln in parse_stream_bytes(data) if ln.kind == "fragment")
