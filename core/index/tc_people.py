"""Who and where, as TypeClaw's provenance index learns them (v0.45.1, `provenance-index.ts`),
for `ops.inject`: the names learned from every fragment's `where`, newest first (`learnWhere`),
which fill in a chat's name where a fragment lacks it (`enrichWhere`), and the parts of a
citation's child line they give (`child_parts`).

Reading a year of streams for names would cost seconds per turn, so each day's people (the
fragments that carry `who` or `where`, and whether the day holds legacy prose) are kept per file
stamp, in memory and in a projection beside the locks; only a changed day file is read again.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from dreamdeck.core.errors import BadFile
from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.formats.stream_lines import parse_stream_bytes
from dreamdeck.core.formats.tc_text import safe_coordinate, sanitize_provenance_name
from dreamdeck.core.io.cache import MISS, StampCache, clock, file_stamp, settled
from dreamdeck.core.io.no_links import LinkRefused, read_bytes_nofollow
from dreamdeck.core.workspace import Workspace

MAX_COORDINATES = 20_000  # provenance-index.ts: names are learned from this many newest `where`s
MAX_ALIASES = 12


def read_bytes(path: str) -> bytes:
    """A stream day's bytes; nothing for one gone or refused (`tc_memory._read_text`'s rule; a
    second hard link is allowed: a stream rewrite links the old inode for a moment)."""
    try:
        return read_bytes_nofollow(path, sole_name=False)
    except (FileNotFoundError, LinkRefused, BadFile):
        return b""


# --- people: who and where, per day file -------------------------------------------------------
@dataclass(frozen=True)
class DaySummary:
    has_legacy: bool
    people: tuple[tuple[str | None, dict[str, Any] | None], ...]  # (who, where) of fragments with either, file order


_MARKERS = (b'"who"', b'"where"', b'"legacy_prose"')  # found by memchr-speed search, not a regex
_SUMMARIES: StampCache[DaySummary] = StampCache("typeclaw-day-people", max_entries=4096)
PROJECTION = "typeclaw-people.json"
_computed = [0]  # summaries read from a stream file (not the projection) since the last save


def day_summary(path: str) -> DaySummary:
    """Whether a day has legacy prose, and its fragments' who/where."""
    started, stamp = clock(), file_stamp(path)
    if stamp is None:
        return DaySummary(False, ())
    hit = _SUMMARIES.get(path, stamp)
    if hit is not MISS:
        return hit  # type: ignore[return-value]
    data = read_bytes(path)
    if not any(marker in data for marker in _MARKERS):
        summary = DaySummary(False, ())
    else:
        people, legacy = [], False
        for ln in parse_stream_bytes(data):
            ev = ln.event
            if ev is None:
                continue
            legacy |= ev["type"] == "legacy_prose"
            if ev["type"] == "fragment" and ("who" in ev or "where" in ev):
                people.append((ev.get("who"), ev.get("where")))
        summary = DaySummary(legacy, tuple(people))
    _SUMMARIES.put_if_settled(path, stamp, summary, started)
    _computed[0] += 1
    return summary


def load_people_projection(ws: Workspace, files: list[tuple[str, str]]) -> None:
    """Seed the in-memory summaries from the projection beside the locks (a fresh process)."""
    try:
        data = load_json((ws.lock_dir / PROJECTION).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if not isinstance(data, dict):
        return
    for _, path in files:
        entry = data.get(path)
        stamp = file_stamp(path)
        if isinstance(entry, list) and len(entry) == 3 and stamp is not None and entry[0] == list(stamp):
            people = tuple((p[0], p[1]) for p in entry[2] if isinstance(p, list) and len(p) == 2)
            _SUMMARIES.put(path, stamp, DaySummary(bool(entry[1]), people))


def save_people_projection(ws: Workspace, files: list[tuple[str, str]]) -> None:
    """Write the summaries back when some were read from the streams (a projection: no fsync)."""
    if not _computed[0]:
        return
    _computed[0] = 0
    started = clock()
    out = {}
    for _, path in files:
        stamp = file_stamp(path)
        hit = _SUMMARIES.get(path, stamp) if stamp is not None else MISS
        if hit is not MISS and settled(stamp, started):  # type: ignore[arg-type]
            out[path] = [list(stamp), hit.has_legacy, [list(p) for p in hit.people]]  # type: ignore[union-attr,arg-type]
    from dreamdeck.core.io.atomic import atomic_write_text

    try:
        atomic_write_text(ws.lock_dir / PROJECTION, json.dumps(out, ensure_ascii=False), sync_dir=False)
    except OSError:
        pass  # a projection: read the streams again next time


# --- the names registry (provenance-index.ts) --------------------------------------------------
@dataclass
class Registry:
    """What `learnWhere` learned, newest first: workspace names, chat names, parent chats."""

    workspaces: dict[str, list[str]] = field(default_factory=dict)
    chats: dict[str, dict[str, Any]] = field(default_factory=dict)

    def workspace_aliases(self, where: dict[str, Any]) -> list[str]:
        return self.workspaces.get(f"{where.get('adapter')}\0{where.get('workspace')}", [])

    def chat(self, where: dict[str, Any]) -> dict[str, Any] | None:
        return self.chats.get(_chat_key(where))


def _chat_key(where: dict[str, Any]) -> str:
    return f"{where.get('adapter')}\0{where.get('workspace')}\0{where.get('chat')}"


def _observe(values: list[str], value: str | None) -> None:
    if value is not None and value not in values and len(values) < MAX_ALIASES:
        values.append(value)


def learn_registry(wheres_newest_first: list[dict[str, Any]]) -> Registry:
    """`learnWhere` over the newest `MAX_COORDINATES` coordinates, in one newest-first batch."""
    reg = Registry()
    for where in wheres_newest_first[:MAX_COORDINATES]:
        if not all(safe_coordinate(where.get(k)) for k in ("adapter", "workspace", "chat")):
            continue
        ws_name = sanitize_provenance_name(where.get("workspaceName"))
        if ws_name is not None:
            _observe(reg.workspaces.setdefault(f"{where['adapter']}\0{where['workspace']}", []), ws_name)
        record = reg.chats.setdefault(_chat_key(where), {"names": [], "parentChatNames": []})
        _observe(record["names"], sanitize_provenance_name(where.get("chatName")))
        parent = where.get("parentChat")
        if isinstance(parent, str) and safe_coordinate(parent):
            record["parentChat"] = parent  # the last one seen, the oldest, wins (as TypeClaw's loop)
        _observe(record["parentChatNames"], sanitize_provenance_name(where.get("parentChatName")))
    return reg


def enrich_where(where: dict[str, Any], reg: Registry) -> dict[str, Any]:
    """`enrichWhere`: the coordinates, safe names, and names learned for the chat."""
    out: dict[str, Any] = {k: where.get(k) for k in ("adapter", "workspace", "chat", "thread") if k in where}
    for key in ("workspaceName", "chatName"):
        name = sanitize_provenance_name(where.get(key))
        if name is not None:
            out[key] = name
    if where.get("parentChat") is not None:
        out["parentChat"] = where["parentChat"]
    name = sanitize_provenance_name(where.get("parentChatName"))
    if name is not None:
        out["parentChatName"] = name
    aliases, chat = reg.workspace_aliases(out), reg.chat(out)
    if "workspaceName" not in out and aliases:
        out["workspaceName"] = aliases[0]
    if chat is not None:
        if "chatName" not in out and chat["names"]:
            out["chatName"] = chat["names"][0]
        if "parentChat" not in out and "parentChat" in chat:
            out["parentChat"] = chat["parentChat"]
        if "parentChatName" not in out and chat["parentChatNames"]:
            out["parentChatName"] = chat["parentChatNames"][0]
    return out


def where_values(where: dict[str, Any], reg: Registry) -> list[str]:
    """`lexicalParts`' where part: workspaceValues, chatValues, threadValues."""
    chat = reg.chat(where) or {}
    values = [where.get("workspace"), where.get("workspaceName"), *reg.workspace_aliases(where),
              where.get("chat"), where.get("chatName"), where.get("parentChat"), where.get("parentChatName"),
              *chat.get("names", []), *chat.get("parentChatNames", [])]
    thread_room = where.get("parentChat") is not None or "parentChat" in chat
    values += [where.get("thread"), where.get("chat") if thread_room else None]
    return [v for v in values if v is not None]


def child_parts(citation: str, event: dict[str, Any] | None, reg: Registry) -> list[str]:
    """`lexicalParts(childFromFragment(...))`, or the unresolved form."""
    if event is None:
        return [citation, "unresolved citation"]
    parts = [citation]
    who = sanitize_provenance_name(event.get("who"))
    if who is not None:
        parts.append(who)
    parts.append(event["ts"])
    if event.get("where") is not None:
        parts += where_values(enrich_where(event["where"], reg), reg)
    return parts


def people_of(files: list[tuple[str, str]]) -> tuple[list[dict[str, Any]], set[str]]:
    """(every `where`, newest first; every who/where string, lowercased) across the streams."""
    wheres, vocab = [], set()
    for _, path in reversed(files):
        for who, where in reversed(day_summary(path).people):
            if isinstance(who, str):
                vocab.add(who.lower())
            if isinstance(where, dict):
                wheres.append(where)
                vocab.update(v.lower() for v in where.values() if isinstance(v, str))
    return wheres, vocab

