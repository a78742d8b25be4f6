"""Stream events: TypeClaw's fragment / watermark / legacy_prose lines, parsed and written byte-exact.

Events stay plain dicts so key order and unknown keys survive a round trip; `Fragment` is a
typed view for readers. Serialization is `JSON.stringify`: compact, raw UTF-8.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from dreamdeck.core.errors import BadFile
from dreamdeck.core.formats.lazy_re import lazy_re

# zod 4 `z.string().datetime()`: UTC `Z` only, any fractional precision, seconds optional, and
# only real calendar dates and clock times (zod's own regex; `[0-9]` because JS `\d` is ASCII).
_DATE = (
    r"(?:(?:[0-9]{2}(?:[2468][048]|[13579][26]|0[48])|(?:[02468][048]|[13579][26])00)-02-29"
    r"|[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
    r"|02-(?:0[1-9]|1[0-9]|2[0-8])))"
)
_ISO_Z = lazy_re(rf"^{_DATE}T(?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:\.[0-9]+)?)?Z$")
FRAGMENT_KEYS = ("type", "id", "ts", "source", "entry", "topic", "body", "references", "who", "where")
WHERE_KEYS = ("adapter", "workspace", "chat", "thread", "workspaceName", "chatName", "parentChat", "parentChatName")


class EventError(BadFile):
    """Why a line is not a valid event (used in malformed-line reports)."""


def serialize_event(event: dict[str, Any]) -> str:
    """One stream line without its newline, exactly as `JSON.stringify` writes it."""
    return json.dumps(event, ensure_ascii=False, separators=(",", ":"))


def _req_str(ev: dict, key: str, *, min_len: int = 0) -> None:
    value = ev.get(key)
    if not isinstance(value, str):
        raise EventError(f"'{key}' must be a string")
    if len(value) < min_len:
        raise EventError(f"'{key}' must not be empty")


def _check_ts(ev: dict) -> None:
    _req_str(ev, "ts")
    if not _ISO_Z.match(ev["ts"]):
        raise EventError(f"'ts' {ev['ts']!r} is not an ISO datetime in UTC Z form")


_PLAIN_FRAGMENT_KEYS = frozenset(("type", "id", "ts", "source", "entry", "topic", "body"))


def _plain_fragment(ev: object) -> bool:
    """Is `ev` a valid fragment in the append tool's plain shape (no optional keys)? The common
    line, accepted in one pass; anything else gets `validate_event`'s field-by-field reasons."""
    if type(ev) is not dict or ev.get("type") != "fragment" or not _PLAIN_FRAGMENT_KEYS.issuperset(ev):
        return False
    fid, ts = ev.get("id"), ev.get("ts")
    return (type(fid) is str and fid != "" and type(ts) is str and _ISO_Z.match(ts) is not None
            and type(ev.get("source")) is str and type(ev.get("entry")) is str
            and type(ev.get("topic")) is str and type(ev.get("body")) is str)


def validate_event(ev: object) -> dict[str, Any]:
    """The event itself when it passes TypeClaw's schema, else EventError naming the field."""
    if _plain_fragment(ev):
        return ev  # type: ignore[return-value]
    if not isinstance(ev, dict):
        raise EventError("line is not a JSON object")
    kind = ev.get("type")
    if kind == "fragment":
        _req_str(ev, "id", min_len=1)
        _check_ts(ev)
        for key in ("source", "entry", "topic", "body"):
            _req_str(ev, key)
        # zod `.optional()` accepts an absent key, never `null`.
        if "references" in ev:
            refs = ev["references"]
            if not (isinstance(refs, list) and all(isinstance(r, str) for r in refs)):
                raise EventError("'references' must be a list of strings")
        if "who" in ev:
            _req_str(ev, "who", min_len=1)
        if "where" in ev:
            where = ev["where"]
            if not isinstance(where, dict):
                raise EventError("'where' must be an object")
            for key in ("adapter", "workspace", "chat"):
                if not isinstance(where.get(key), str):
                    raise EventError(f"'where.{key}' must be a string")
            if "thread" in where and where["thread"] is not None and not isinstance(where["thread"], str):
                raise EventError("'where.thread' must be a string or null")
            for key in ("workspaceName", "chatName", "parentChat", "parentChatName"):
                if key in where and not isinstance(where[key], str):
                    raise EventError(f"'where.{key}' must be a string")
    elif kind == "watermark":
        _req_str(ev, "id", min_len=1)
        _check_ts(ev)
        _req_str(ev, "source")
        _req_str(ev, "entry")
    elif kind == "legacy_prose":
        _check_ts(ev)
        _req_str(ev, "text")
        if ev.get("origin") != "migration":
            raise EventError("'origin' of legacy_prose must be \"migration\"")
    else:
        raise EventError(f"unknown event type {kind!r}")
    return ev


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # JSON.parse rejects NaN / Infinity; Python accepts them


_DECODER = json.JSONDecoder(parse_constant=_no_constant)  # one for every line: building it per call cost a fifth of a parse


def parse_event_line(line: str) -> dict[str, Any]:
    """Parse one line; EventError (never anything else) when it is not a valid event."""
    try:
        # json.loads' own BOM refusal (and its message) for such a line; the shared decoder else.
        ev = json.loads(line, parse_constant=_no_constant) if line.startswith("\ufeff") else _DECODER.decode(line)
    except (ValueError, RecursionError) as exc:
        raise EventError(f"invalid JSON ({exc.msg if hasattr(exc, 'msg') else exc})") from None
    return validate_event(ev)


def try_parse_event_line(line: str) -> dict[str, Any] | None:
    """TypeClaw's `parseEventLine`: None for bad JSON or an invalid event."""
    try:
        return parse_event_line(line)
    except EventError:
        return None


def _normalize(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.split("\n")).strip()


def fragment_content_hash(topic: str, body: str) -> str:
    """sha256(normalize(topic) + "\\n\\n" + normalize(body)): TypeClaw's duplicate key."""
    return hashlib.sha256((_normalize(topic) + "\n\n" + _normalize(body)).encode("utf-8")).hexdigest()


def build_fragment(
    event_id: str,
    ts: str,
    *,
    source: str,
    entry: str,
    topic: str,
    body: str,
    references: list[str] | None = None,
    who: str | None = None,
    where: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A fragment dict with the append tool's key order (optional keys only when present)."""
    ev: dict[str, Any] = {
        "type": "fragment", "id": event_id, "ts": ts, "source": source,
        "entry": entry, "topic": topic, "body": body,
    }
    if references:
        ev["references"] = list(references)
    if who:
        ev["who"] = who
    if where is not None:
        ordered = {k: where[k] for k in WHERE_KEYS if k in where}
        ordered.update({k: v for k, v in where.items() if k not in ordered})
        ev["where"] = ordered
    return ev


def build_watermark(event_id: str, ts: str, *, source: str, entry: str) -> dict[str, Any]:
    return {"type": "watermark", "id": event_id, "ts": ts, "source": source, "entry": entry}


@dataclass(frozen=True)
class Fragment:
    """A typed, read-only view of a fragment event, with the stream date it lives under."""

    date: str
    id: str
    ts: str
    source: str
    entry: str
    topic: str
    body: str
    who: str | None = None
    where: dict[str, Any] | None = None
    references: tuple[str, ...] = ()
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_event(cls, date: str, ev: dict[str, Any]) -> Fragment:
        return cls(
            date=date, id=ev["id"], ts=ev["ts"], source=ev["source"], entry=ev["entry"],
            topic=ev["topic"], body=ev["body"], who=ev.get("who"), where=ev.get("where"),
            references=tuple(ev.get("references") or ()), raw=ev,
        )

    @property
    def citation(self) -> str:
        return f"streams/{self.date}#{self.id}"

    @property
    def key(self) -> tuple[str, str]:
        return (self.date, self.id)

    def to_json(self) -> dict[str, Any]:
        return {"date": self.date, **self.raw}
