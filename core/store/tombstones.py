"""Tombstones: fragments a human forgot, so they never come back (memory/meta/tombstones.jsonl).

The file is an append-only log of `forget` and `unforget` records; the live set is replayed
from it, keyed by (date, id) (the record a person made). What a tombstone *refuses* is an
identity, not a place: `forgotten(ws)` is the one rule every view, the undreamed tail and the
door's citation check use — a fragment line is forgotten when its id is a tombstoned id (under
any date: an outside writer re-appending the line to today's file, a replay from git history)
or its content hash (TypeClaw's `fragment_content_hash`) is a tombstoned hash (the same text
under a new id).
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from dreamdeck.core.formats.events import fragment_content_hash
from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.io.no_links import read_bytes_nofollow
from dreamdeck.core.workspace import Workspace


@dataclass(frozen=True)
class Tombstone:
    date: str
    id: str
    hash: str  # fragment_content_hash of topic+body
    reason: str
    actor: str
    ts: str
    hard: bool = False  # the bytes were also removed from the stream
    topic: str = ""  # kept so `tombstones` can say what was forgotten without the bytes

    @property
    def key(self) -> tuple[str, str]:
        return (self.date, self.id)


def tombstones_path(ws: Workspace) -> Path:
    return ws.meta_dir / "tombstones.jsonl"


def load_tombstones(ws: Workspace) -> dict[tuple[str, str], Tombstone]:
    """The live tombstones by (date, id). Unreadable lines are skipped (they never un-forget)."""
    live: dict[tuple[str, str], Tombstone] = {}
    try:
        # bytes that are not UTF-8 spoil only their own line (skipped below), never the file
        text = read_bytes_nofollow(tombstones_path(ws)).decode("utf-8", "replace")
    except FileNotFoundError:
        return live
    # split("\n"), not splitlines(): a reason may hold U+2028 or U+0085, which stay raw in JSON
    # and would cut the record in two, silently un-forgetting its fragment.
    for line in text.split("\n"):
        if not line.strip():
            continue
        try:
            rec = load_json(line)
            key = (rec["date"], rec["id"])
        except (json.JSONDecodeError, KeyError, TypeError):
            continue
        if not (isinstance(key[0], str) and isinstance(key[1], str)):
            continue
        if rec.get("op") == "unforget":
            stone = live.get(key)
            if stone is not None and not stone.hard:
                del live[key]
            continue
        # a field of the wrong type is read as empty: the id still holds, and no reader meets a list
        live[key] = Tombstone(key[0], key[1], _text(rec, "hash"), _text(rec, "reason"), _text(rec, "actor"),
                              _text(rec, "ts"), bool(rec.get("hard")), _text(rec, "topic"))
    return live


def _text(rec: dict, name: str) -> str:
    """A record's field as text: a field of the wrong type is read as empty (the id still holds)."""
    value = rec.get(name)
    return value if isinstance(value, str) else ""


@dataclass(frozen=True)
class Forgotten:
    """The identities the live tombstones refuse: fragment ids (under any date) and content hashes."""

    ids: frozenset[str] = frozenset()
    hashes: frozenset[str] = frozenset()
    # A line can only hash to a forgotten hash if it holds that fragment's topic: the raw bytes
    # are searched for these (the topic's first normalized line, JSON-escaped both ways) before
    # any line is parsed. None: some tombstone kept no topic, so every line is parsed.
    topics: frozenset[bytes] | None = frozenset()

    def __bool__(self) -> bool:
        return bool(self.ids or self.hashes)

    @classmethod
    def of(cls, stones: dict[tuple[str, str], Tombstone]) -> Forgotten:
        hashed = [s for s in stones.values() if s.hash]
        needles: set[bytes] | None = set()
        for s in hashed:
            first = s.topic.strip().split("\n")[0].rstrip() if isinstance(s.topic, str) else ""
            if not first or needles is None:
                needles = None
                continue
            needles |= {json.dumps(first, ensure_ascii=a)[1:-1].encode("utf-8") for a in (False, True)}
        return cls(frozenset(i for _, i in stones), frozenset(s.hash for s in hashed),
                   None if needles is None else frozenset(needles))

    def holds(self, fid: object, topic: object = None, body: object = None) -> bool:
        """True for a fragment with a forgotten id, or forgotten content (topic and body given)."""
        if fid in self.ids:
            return True
        if not self.hashes or not isinstance(topic, str) or not isinstance(body, str):
            return False
        return fragment_content_hash(topic, body) in self.hashes

    def holds_event(self, ev: dict | None) -> bool:
        """`holds` for a parsed fragment event (anything else is never forgotten)."""
        if not isinstance(ev, dict) or ev.get("type") != "fragment":
            return False
        return self.holds(ev.get("id"), ev.get("topic"), ev.get("body"))

    def could_hold_content(self, data: bytes) -> bool:
        """False when no line of `data` can have forgotten content (one search per topic)."""
        if not self.hashes:
            return False
        return self.topics is None or any(t in data for t in self.topics)

    def holds_line(self, fid: str | None, raw: bytes | str) -> bool:
        """`holds` for a raw fragment line whose id is known (or None); parsed only when hashes exist."""
        if fid is not None and fid in self.ids:
            return True
        if not self.hashes:
            return False
        data = raw.encode("utf-8") if isinstance(raw, str) else raw
        if self.topics is not None and not any(t in data for t in self.topics):
            return False
        try:
            ev = load_json(data)
        except (ValueError, RecursionError):
            return False
        return self.holds_event(ev)


NOTHING_FORGOTTEN = Forgotten()


def forgotten(ws: Workspace) -> Forgotten:
    """The identity set of the live tombstones (see the module's docstring)."""
    return Forgotten.of(load_tombstones(ws))


def tombstoned_keys(ws: Workspace) -> set[tuple[str, str]]:
    return set(load_tombstones(ws))


def tombstoned_hashes(ws: Workspace) -> set[str]:
    return {t.hash for t in load_tombstones(ws).values() if t.hash}


def record(ws: Workspace, op: str, stone: Tombstone) -> None:
    """Append one forget/unforget record durably."""
    from dreamdeck.core.io.append import append_durably

    line = json.dumps({"op": op, **asdict(stone)}, ensure_ascii=False, separators=(",", ":"))
    append_durably(tombstones_path(ws), (line + "\n").encode("utf-8"))
