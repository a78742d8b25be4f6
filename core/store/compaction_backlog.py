"""The compaction backlog: stream days whose compaction waits until no writer may hold the file
(`memory/meta/compaction-backlog.json`, committed with the change that deferred them).

A compaction (watermark GC, fragment GC, a hard forget's purge) never replaces today's stream
or one written to within the quiet period (`door.compaction`). What it would have done is
recorded here per day, so a later apply or dream, or `doctor --fix`, does it once the file is
quiet, with a fresh citation judgment then. Only what is needed to do it again is kept: whether
fragment GC was due, the ids a hard forget purges (never their text), and the reason the change
gave for each fragment its GC would take (a named duplicate, a dreamer's noise rule), so the
compaction that finally runs records why each went, not "no reason given" (issue 10, item 6).

    {"version": 1, "days": {"2026-05-22": {"fragmentGc": true, "purge": ["019e…"],
                                            "reasons": {"019f…": "duplicate of streams/…"}}}}

("reasons" is written only when there are some, so a backlog without them keeps its bytes.)

A file that cannot be read as this is reported (`load_backlog` returns the problem) and treated
as empty, never as an error: it only ever delays a compaction, and the next change rewrites it.
The file is nobody's order: a day with no stream file is dropped when read (a planted backlog of
40,000 dates made every change check each), a file over `MAX_BYTES` is not read at all, and a
purge is done only for a fragment a hard tombstone holds (`door.finish`).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from dreamdeck.core.errors import BadFile, Refused
from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.io.atomic import atomic_write_text, remove_file
from dreamdeck.core.io.no_links import read_bytes_nofollow
from dreamdeck.core.workspace import DATE_RE, Workspace

BACKLOG = "meta/compaction-backlog.json"  # under memory/
VERSION = 1
MAX_BYTES = 16 * 1024 * 1024  # a year of waiting days with every reason is far below this


@dataclass
class DayWork:
    """What a compaction of one day does beyond the watermark GC, which it always does."""
    fragment_gc: bool = False
    purge: set[str] = field(default_factory=set)  # ids whose bytes a hard forget removes
    reasons: dict[str, str] = field(default_factory=dict)  # id -> why its change let it go

    def merged(self, other: DayWork) -> DayWork:
        return DayWork(self.fragment_gc or other.fragment_gc, self.purge | other.purge,
                       {**self.reasons, **other.reasons})

    def same_work(self, other: DayWork | None) -> bool:
        """The same compaction to do (the reasons only explain it)."""
        return other is not None and (self.fragment_gc, self.purge) == (other.fragment_gc, other.purge)


Backlog = dict[str, DayWork]


def merge_work(a: Backlog, b: Backlog) -> Backlog:
    out = dict(a)
    for day, work in b.items():
        out[day] = out[day].merged(work) if day in out else work
    return out


def load_backlog(ws: Workspace) -> tuple[Backlog, str | None]:
    """(the days waiting, a problem to report or None)."""
    path = ws.memory / BACKLOG
    try:
        if os.lstat(path).st_size > MAX_BYTES:
            return {}, f"memory/{BACKLOG}: over {MAX_BYTES // (1024 * 1024)} MB, not read; deferred compactions will be found again"
        data = load_json(read_bytes_nofollow(path, sole_name=False))
    except FileNotFoundError:
        return {}, None
    except (OSError, ValueError, BadFile, Refused) as exc:
        return {}, f"memory/{BACKLOG}: unreadable ({exc}); deferred compactions will be found again"
    days = data.get("days") if isinstance(data, dict) and data.get("version") == VERSION else None
    if not isinstance(days, dict):
        return {}, f"memory/{BACKLOG}: not a version {VERSION} backlog; deferred compactions will be found again"
    backlog: Backlog = {}
    streams = _stream_names(ws)
    for day, entry in days.items():
        if not (isinstance(day, str) and DATE_RE.match(day) and isinstance(entry, dict)):
            continue
        if f"{day}.jsonl" not in streams:
            continue  # no stream file: nothing to compact
        purge, reasons = entry.get("purge", []), entry.get("reasons", {})
        backlog[day] = DayWork(
            entry.get("fragmentGc") is True,
            {i for i in purge if isinstance(i, str)} if isinstance(purge, list) else set(),
            {i: r for i, r in reasons.items() if isinstance(i, str) and isinstance(r, str)}
            if isinstance(reasons, dict) else {},
        )
    return backlog, None


def _stream_names(ws: Workspace) -> set[str]:
    """The names in both stream layouts (`memory/streams/`, the flat legacy `memory/`)."""
    names: set[str] = set()
    for folder in (ws.memory / "streams", ws.memory):
        try:
            names.update(os.listdir(folder))
        except OSError:
            continue
    return names


def save_backlog(ws: Workspace, backlog: Backlog) -> None:
    """Write the backlog (byte-identical when unchanged); remove the file when nothing waits."""
    path = ws.memory / BACKLOG
    if not backlog:
        remove_file(path)
        return
    text = render_backlog(backlog)
    try:
        if read_bytes_nofollow(path, sole_name=False) == text.encode("utf-8"):
            return
    except (OSError, BadFile, Refused):
        pass
    atomic_write_text(path, text)


def render_backlog(backlog: Backlog) -> str:
    days = {
        day: {"fragmentGc": work.fragment_gc, "purge": sorted(work.purge),
              **({"reasons": dict(sorted(work.reasons.items()))} if work.reasons else {})}
        for day, work in sorted(backlog.items())
    }
    return json.dumps({"version": VERSION, "days": days}, indent=2) + "\n"
