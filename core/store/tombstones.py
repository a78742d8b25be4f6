"""Tombstones: fragments a human forgot, so they never come back (memory/meta/tombstones.jsonl).

The file is an append-only log of `forget` and `unforget` records; the live set is replayed
from it, keyed by (date, id) (the record a person made). What a tombstone *refuses* is an
identity, not a place: `forgotten(ws)` is the one rule every view, the undreamed tail and the
door's citation check use — a fragment line is forgotten when its id is a tombstoned id (under
any date: an outside writer re-appending the line to today's file, a replay from git history)
or its content hash (TypeClaw's `fragment_content_hash`) is a tombstoned hash (the same text
under a new id), or its loose hash (`formats.loose_text`: the same text in another case, spacing,
compatibility letters or with a final period) is a tombstoned loose hash. A record made before
loose hashes were kept gets its loose hash computed on read from its line, while the stream
still holds it (`_loose_of_old`).
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from dreamdeck.core.errors import DreamdeckError
from dreamdeck.core.formats.events import fragment_content_hash
from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.formats.loose_text import (
    fold,
    loose_body_hash,
    loose_content_hash,
    loose_content_hashes,
    may_escape,
    needle_of,
)
from dreamdeck.core.formats.stream_lines import parse_stream_bytes
from dreamdeck.core.io.cache import MISS, StampCache, clock, file_stamp
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
    loose: str = ""  # loose_content_hash of topic+body ("" in records made before it was kept)
    body: str = ""  # loose_body_hash: the statement under any topic ("" for a short body)

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
                              _text(rec, "ts"), bool(rec.get("hard")), _text(rec, "topic"), _text(rec, "loose"),
                              _text(rec, "body"))
    return live


def _text(rec: dict, name: str) -> str:
    """A record's field as text: a field of the wrong type is read as empty (the id still holds)."""
    value = rec.get(name)
    return value if isinstance(value, str) else ""


@dataclass(frozen=True)
class Forgotten:
    """The identities the live tombstones refuse: fragment ids (under any date), exact content
    hashes and loose content hashes."""

    ids: frozenset[str] = frozenset()
    hashes: frozenset[str] = frozenset()
    loose: frozenset[str] = frozenset()
    # A line can only have forgotten content if `fold` of its raw bytes holds that fragment's
    # topic needle (`loose_text.needle_of`), or it spells a character with a `\u` escape: the
    # bytes are searched for these before any line is parsed. None: some tombstone's topic has
    # no needle (kept no topic), so every line is parsed.
    needles: frozenset[str] | None = frozenset()
    # Body hashes: a statement under any topic. There is no needle for them (it would be a word
    # of the forgotten text), so while one is live every line that may hold content is parsed.
    bodies: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.ids or self.hashes or self.loose or self.bodies)

    @property
    def by_content(self) -> bool:
        """True when some tombstone refuses content (so a line must be looked at, not just its id)."""
        return bool(self.hashes or self.loose or self.bodies)

    @classmethod
    def of(cls, stones: dict[tuple[str, str], Tombstone], old_loose: dict[tuple[str, str], str] | None = None) -> Forgotten:
        hashed = [s for s in stones.values() if s.hash or s.loose]
        needles: set[str] | None = set()
        for s in hashed:
            needle = needle_of(s.topic) if s.topic else None
            if needle is None or needles is None:
                needles = None
                continue
            needles.add(needle)
        loose = {s.loose for s in hashed if s.loose} | set((old_loose or {}).values())
        return cls(frozenset(i for _, i in stones), frozenset(s.hash for s in hashed if s.hash),
                   frozenset(loose), None if needles is None else frozenset(needles),
                   frozenset(s.body for s in stones.values() if s.body))

    def holds(self, fid: object, topic: object = None, body: object = None) -> bool:
        """True for a fragment with a forgotten id, or forgotten content (topic and body given)."""
        if fid in self.ids:
            return True
        if not self.by_content or not isinstance(topic, str) or not isinstance(body, str):
            return False
        if self._topic_may_match(topic):
            if fragment_content_hash(topic, body) in self.hashes:
                return True
            # a record holds the hash of the rule it was made under (`loose_text`): either refuses
            if self.loose and not self.loose.isdisjoint(loose_content_hashes(topic, body)):
                return True
        return bool(self.bodies) and loose_body_hash(body) in self.bodies

    def _topic_may_match(self, topic: str) -> bool:
        """False when no tombstone's topic needle is in the folded topic: then neither its exact
        nor its loose hash can match (the needle is a word run of every spelling of that topic)."""
        if self.needles is None:
            return True
        folded = fold(topic)
        return any(n in folded for n in self.needles)

    def holds_event(self, ev: dict | None) -> bool:
        """`holds` for a parsed fragment event (anything else is never forgotten)."""
        if not isinstance(ev, dict) or ev.get("type") != "fragment":
            return False
        return self.holds(ev.get("id"), ev.get("topic"), ev.get("body"))

    def could_hold_content(self, data: bytes) -> bool:
        """False when no line of `data` can have forgotten content: its lowered bytes hold no
        ASCII needle and its non-ASCII lines, folded, hold no needle (`loose_text`'s prefilter)."""
        if not self.by_content:
            return False
        if self.needles is None or self.bodies or may_escape(data):
            return True
        lowered = data.lower()  # bytes: ASCII letters only, so an ASCII line is folded whole
        if any(n in lowered for n in self._ascii_needles):
            return True
        if data.isascii():
            return False  # an ASCII line folds to ASCII: no other needle can be in it
        # only the non-ASCII lines can fold into a needle otherwise: fold just those
        wide = b"\n".join(line for line in data.split(b"\n") if not line.isascii())
        folded = fold(wide.decode("utf-8", "replace"))
        return any(n in folded for n in self.needles)

    @property
    def _ascii_needles(self) -> tuple[bytes, ...]:
        return tuple(n.encode("ascii") for n in self.needles or () if n.isascii())

    def holds_line(self, fid: str | None, raw: bytes | str) -> bool:
        """`holds` for a raw fragment line whose id is known (or None); parsed only when it may
        hold forgotten content."""
        if fid is not None and fid in self.ids:
            return True
        data = raw.encode("utf-8") if isinstance(raw, str) else raw
        if not self.could_hold_content(data):
            return False
        try:
            ev = load_json(data)
        except (ValueError, RecursionError):
            return False
        return self.holds_event(ev)


NOTHING_FORGOTTEN = Forgotten()


def forgotten(ws: Workspace) -> Forgotten:
    """The identity set of the live tombstones (see the module's docstring)."""
    stones = load_tombstones(ws)
    return Forgotten.of(stones, _loose_of_old(ws, stones))


# (day file path) -> {(date, id): loose hash} of the old records' lines it held, by the file's stamp
_OLD_LOOSE: StampCache[dict[tuple[str, str], str]] = StampCache("tombstones.old_loose", max_entries=256)


def _loose_of_old(ws: Workspace, stones: dict[tuple[str, str], Tombstone]) -> dict[tuple[str, str], str]:
    """The loose hashes of records made before they were kept, from their lines where the day's
    stream still holds them (the line whose exact hash the record kept; a hard-forgotten line
    is gone, and its record keeps only the exact hash)."""
    old: dict[str, dict[str, str]] = {}
    for s in stones.values():
        if s.hash and not s.loose:
            old.setdefault(s.date, {})[s.id] = s.hash
    found: dict[tuple[str, str], str] = {}
    for day, wanted in old.items():
        # both layouts (streams/ and the flat legacy one); streams.py imports this module
        for path in (ws.memory / "streams" / f"{day}.jsonl", ws.memory / f"{day}.jsonl"):
            found.update(_loose_in_file(path, day, wanted))
    return found


def _loose_in_file(path: Path, day: str, wanted: dict[str, str]) -> dict[tuple[str, str], str]:
    """{(day, id): loose hash} of the `wanted` lines (id -> exact hash) `path` holds."""
    stamp = file_stamp(path)
    if stamp is None:
        return {}
    key = (str(path), tuple(sorted(wanted.items())))
    hit = _OLD_LOOSE.get(key, stamp)
    if hit is not MISS:
        return hit  # type: ignore[return-value]
    started = clock()
    try:
        lines = parse_stream_bytes(read_bytes_nofollow(path, sole_name=False))
    except (DreamdeckError, OSError):
        return {}  # a link, a folder, a FIFO: never read (doctor names it)
    found = {}
    for ln in lines:
        ev = ln.event
        if (ln.kind == "fragment" and ev is not None and ev["id"] in wanted
                and fragment_content_hash(ev["topic"], ev["body"]) == wanted[ev["id"]]):
            found[(day, ev["id"])] = loose_content_hash(ev["topic"], ev["body"])
    _OLD_LOOSE.put_if_settled(key, stamp, found, started)
    return found


def tombstoned_keys(ws: Workspace) -> set[tuple[str, str]]:
    return set(load_tombstones(ws))


def record(ws: Workspace, op: str, stone: Tombstone) -> None:
    """Append one forget/unforget record durably."""
    from dreamdeck.core.io.append import append_durably

    line = json.dumps({"op": op, **asdict(stone)}, ensure_ascii=False, separators=(",", ":"))
    append_durably(tombstones_path(ws), (line + "\n").encode("utf-8"))
