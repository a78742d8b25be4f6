"""`memory/.dreaming-state.json` v2: which fragment ids dreaming has already reasoned about.

Written byte-for-byte as TypeClaw writes it (`JSON.stringify(state, null, 2) + "\\n"`), but
atomically. Loading is fail-open as in TypeClaw (a bad file means "nothing dreamed"), and the
reason is returned so callers can report it instead of silently re-dreaming everything.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from core.atomic import atomic_write_text


_PLAIN = re.compile(r"^[A-Za-z0-9_.:-]*$")


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


@dataclass
class DreamingState:
    # date -> {"dreamedIds": [...], "ts": "..."}; dict order is insertion order, as in JS.
    days: dict[str, dict[str, object]] = field(default_factory=dict)

    def dreamed_ids(self, day: str) -> set[str]:
        entry = self.days.get(day)
        return set(entry["dreamedIds"]) if entry else set()  # type: ignore[arg-type]

    def add_dreamed(self, day: str, ids: set[str] | list[str], ts: str) -> "DreamingState":
        """A new state with `ids` merged into `day` (sorted, de-duplicated); self is unchanged."""
        days = {d: dict(e) for d, e in self.days.items()}
        merged = sorted(self.dreamed_ids(day) | set(ids))
        days[day] = {"dreamedIds": merged, "ts": ts}
        return DreamingState(days)

    def remove_dreamed(self, day: str, ids: set[str], ts: str) -> "DreamingState":
        """A new state with `ids` returned to the undreamed tail of `day`."""
        days = {d: dict(e) for d, e in self.days.items()}
        if day in days:
            days[day] = {"dreamedIds": sorted(self.dreamed_ids(day) - set(ids)), "ts": ts}
        return DreamingState(days)

    def to_json(self) -> str:
        """`JSON.stringify(state, null, 2) + "\\n"`, byte for byte.

        json.dumps with indent falls back to the pure-Python encoder, which takes seconds on a
        year of ids; plain ids (the UUID alphabet) are joined directly instead.
        """
        if not self.days:
            return '{\n  "version": 2,\n  "dreamedThrough": {}\n}\n'
        parts = ['{\n  "version": 2,\n  "dreamedThrough": {\n']
        entries = []
        for day, entry in self.days.items():
            ids = entry["dreamedIds"]
            if not ids:
                id_block = "[]"
            elif _PLAIN.match("".join(ids)):  # type: ignore[arg-type]  # one C-level pass per day
                id_block = '[\n        "' + '",\n        "'.join(ids) + '"\n      ]'  # type: ignore[arg-type]
            else:
                id_block = "[\n        " + ",\n        ".join(_dumps(i) for i in ids) + "\n      ]"  # type: ignore[union-attr]
            entries.append(
                f"    {_dumps(day)}: {{\n      \"dreamedIds\": {id_block},\n      \"ts\": {_dumps(entry['ts'])}\n    }}"
            )
        parts.append(",\n".join(entries))
        parts.append("\n  }\n}\n")
        return "".join(parts)


def _validate(data: object) -> DreamingState:
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    if data.get("version") != 2:
        raise ValueError(f"version is {data.get('version')!r}, expected 2")
    through = data.get("dreamedThrough")
    if not isinstance(through, dict):
        raise ValueError("'dreamedThrough' is not an object")
    days: dict[str, dict[str, object]] = {}
    for day, entry in through.items():
        if not isinstance(entry, dict):
            raise ValueError(f"entry for {day} is not an object")
        ids = entry.get("dreamedIds")
        # C-level checks (a year holds a million ids): every item a str, none empty.
        if not isinstance(ids, list) or (ids and (set(map(type, ids)) != {str} or "" in ids)):
            raise ValueError(f"dreamedIds for {day} must be non-empty strings")
        if not isinstance(entry.get("ts"), str):
            raise ValueError(f"ts for {day} must be a string")
        days[day] = {"dreamedIds": list(ids), "ts": entry["ts"]}
    return DreamingState(days)


# path -> ((size, mtime_ns, ino), state): a year of ids is tens of megabytes of JSON, and the
# watcher and the app ask often. States are never mutated in place (updates return new ones).
_CACHE: dict[str, tuple[tuple[int, int, int], DreamingState]] = {}


def load_state(path: Path) -> tuple[DreamingState, str | None]:
    """(state, problem). A missing file is no problem; anything unreadable is empty + a reason."""
    try:
        st = os.stat(path)
        stamp = (st.st_size, st.st_mtime_ns, st.st_ino)
    except OSError:
        stamp = None
    hit = _CACHE.get(str(path))
    if stamp is not None and hit is not None and hit[0] == stamp:
        return hit[1], None
    state, problem = _load(path)
    if stamp is not None and problem is None:
        _CACHE[str(path)] = (stamp, state)
    return state, problem


def _load(path: Path) -> tuple[DreamingState, str | None]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return DreamingState(), None
    except (OSError, UnicodeDecodeError) as exc:
        return DreamingState(), f"{path.name}: unreadable ({exc})"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return DreamingState(), f"{path.name}: invalid JSON at line {exc.lineno} ({exc.msg}); every fragment would be re-dreamed"
    try:
        return _validate(data), None
    except ValueError as exc:
        return DreamingState(), f"{path.name}: {exc}; every fragment would be re-dreamed"


def save_state(path: Path, state: DreamingState) -> None:
    atomic_write_text(path, state.to_json())
