"""Tombstones: fragments a human forgot, so they never come back (memory/meta/tombstones.jsonl).

The file is an append-only log of `forget` and `unforget` records; the live set is replayed
from it. A tombstone matches a fragment by (date, id) and by content hash, so re-appending
the same text under a new id is refused too.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

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
            rec = json.loads(line)
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
        fields = {k: rec.get(k) for k in Tombstone.__dataclass_fields__}
        fields["hard"] = bool(fields.get("hard"))
        fields = {k: ("" if v is None and k not in ("hard",) else v) for k, v in fields.items()}
        live[key] = Tombstone(**fields)
    return live


def tombstoned_keys(ws: Workspace) -> set[tuple[str, str]]:
    return set(load_tombstones(ws))


def tombstoned_hashes(ws: Workspace) -> set[str]:
    return {t.hash for t in load_tombstones(ws).values() if t.hash}


def record(ws: Workspace, op: str, stone: Tombstone) -> None:
    """Append one forget/unforget record durably."""
    from dreamdeck.core.io.append import append_durably

    line = json.dumps({"op": op, **asdict(stone)}, ensure_ascii=False, separators=(",", ":"))
    append_durably(tombstones_path(ws), (line + "\n").encode("utf-8"))
