"""A stream line as a row of the stream table: what `StreamView.row` hands a reader."""
from __future__ import annotations

from datetime import datetime
from typing import Any

from dreamdeck.core.formats.events import EventError, parse_event_line


def local_time(ts: str) -> str:
    """`2026-05-22T10:30:01.123Z` as local `HH:MM:SS` (the stream's date is local too)."""
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).astimezone().strftime("%H:%M:%S")
    except (ValueError, AttributeError):
        return ""


def fragment_row(date: str, raw: str) -> dict[str, Any]:
    """A row for a table: date, id, ts, time, topic, body, who, source, plus the raw JSON text."""
    try:
        ev = parse_event_line(raw)
        if ev.get("type") != "fragment":
            raise EventError(f"a {ev.get('type')} line, not a fragment")
    except EventError as exc:
        return {"date": date, "id": "", "ts": "", "time": "", "topic": "⚠ malformed line", "body": str(exc),
                "who": "", "source": "", "raw": raw, "malformed": True, "key": ""}
    return {
        "date": date, "id": ev["id"], "ts": ev["ts"], "time": local_time(ev["ts"]), "topic": ev["topic"],
        "body": ev["body"], "who": ev.get("who") or "", "source": ev.get("source", ""), "raw": raw,
        "malformed": False, "key": f"{date}#{ev['id']}",
    }


def placeholder_row(date: str) -> dict[str, Any]:
    """A row whose bytes changed under the index: shown until the next refresh re-indexes the day."""
    return {"date": date, "id": "", "ts": "", "time": "", "topic": "…", "who": "", "source": "",
            "body": "(this day was rewritten; re-reading)", "raw": "", "malformed": True, "key": ""}
