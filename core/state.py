"""`memory/.dreaming-state.json` v2: which fragment ids dreaming has already reasoned about.

Written byte-for-byte as TypeClaw writes it (`JSON.stringify(state, null, 2) + "\\n"`), but
atomically. Loading is fail-open as in TypeClaw (a bad file means "nothing dreamed"), and the
reason is returned so callers can report it instead of silently re-dreaming everything.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from core.atomic import atomic_write_bytes


# The characters JSON.stringify writes as they are: printable ASCII but `"` and `\\`.
_PLAIN_BYTES = bytes(c for c in range(0x20, 0x7F) if chr(c) not in '"\\')


_SURROGATE = re.compile("[\ud800-\udfff]")


def _dumps(value: object) -> str:
    # JSON.stringify writes non-ASCII raw but a lone surrogate as an escape (well-formed JSON).
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False))


def _plain(ids: list[str]) -> bool:
    """No id needs escaping (one C-level pass over all of them; the UUID alphabet always passes)."""
    joined = "".join(ids)
    return joined.isascii() and not joined.encode("ascii").translate(None, _PLAIN_BYTES)


def _render_day(day: str, entry: dict[str, object]) -> str:
    ids = entry["dreamedIds"]
    if not ids:
        id_block = "[]"
    elif _plain(ids):  # type: ignore[arg-type]
        id_block = '[\n        "' + '",\n        "'.join(ids) + '"\n      ]'  # type: ignore[arg-type]
    else:
        id_block = "[\n        " + ",\n        ".join(_dumps(i) for i in ids) + "\n      ]"  # type: ignore[union-attr]
    return f"    {_dumps(day)}: {{\n      \"dreamedIds\": {id_block},\n      \"ts\": {_dumps(entry['ts'])}\n    }}"


@dataclass
class DreamingState:
    # date -> {"dreamedIds": [...], "ts": "..."}; dict order is insertion order, as in JS.
    days: dict[str, dict[str, object]] = field(default_factory=dict)
    # date -> its rendered JSON: a year of ids is tens of megabytes to render, and an update
    # changes one or two days, so a state derived from a rendered one renders only those.
    _rendered: dict[str, bytes] = field(default_factory=dict, compare=False, repr=False)
    _digests: dict[str, str] = field(default_factory=dict, compare=False, repr=False)  # the same, for ids_digest

    def dreamed_ids(self, day: str) -> set[str]:
        entry = self.days.get(day)
        return set(entry["dreamedIds"]) if entry else set()  # type: ignore[arg-type]

    def ids_digest(self, day: str) -> str:
        """A fingerprint of the day's dreamed-id list (what projections of "fully dreamed" key on)."""
        digest = self._digests.get(day)
        if digest is None:
            entry = self.days.get(day)
            ids = entry["dreamedIds"] if entry else []
            digest = hashlib.sha1("\n".join(ids).encode("utf-8", "surrogatepass")).hexdigest()  # type: ignore[arg-type]
            self._digests[day] = digest
        return digest

    def _with_day(self, day: str, entry: dict[str, object]) -> "DreamingState":
        days = {d: dict(e) for d, e in self.days.items()}
        days[day] = entry
        return DreamingState(days, {d: r for d, r in self._rendered.items() if d != day},
                             {d: h for d, h in self._digests.items() if d != day})

    def add_dreamed(self, day: str, ids: set[str] | list[str], ts: str) -> "DreamingState":
        """A new state with `ids` merged into `day` (sorted, de-duplicated); self is unchanged."""
        return self._with_day(day, {"dreamedIds": sorted(self.dreamed_ids(day) | set(ids)), "ts": ts})

    def remove_dreamed(self, day: str, ids: set[str], ts: str) -> "DreamingState":
        """A new state with `ids` returned to the undreamed tail of `day`."""
        if day not in self.days:
            return DreamingState({d: dict(e) for d, e in self.days.items()}, dict(self._rendered), dict(self._digests))
        return self._with_day(day, {"dreamedIds": sorted(self.dreamed_ids(day) - set(ids)), "ts": ts})

    def to_json(self) -> str:
        """`JSON.stringify(state, null, 2) + "\\n"`, byte for byte."""
        return b"".join(self.json_parts()).decode("utf-8")

    def json_parts(self) -> list[bytes]:
        """`to_json` as UTF-8 pieces, written one after another without joining: a year of ids
        is tens of megabytes, and every copy of that costs page faults.

        json.dumps with indent falls back to the pure-Python encoder, which takes seconds on a
        year of ids; plain ids (the UUID alphabet) are joined directly instead.
        """
        if not self.days:
            return [b'{\n  "version": 2,\n  "dreamedThrough": {}\n}\n']
        rendered = self._rendered
        parts = [b'{\n  "version": 2,\n  "dreamedThrough": {\n']
        for n, (day, entry) in enumerate(self.days.items()):
            chunk = rendered.get(day)
            if chunk is None:
                chunk = rendered[day] = _render_day(day, entry).encode("utf-8")
            if n:
                parts.append(b",\n")
            parts.append(chunk)
        parts.append(b"\n  }\n}\n")
        return parts


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
    atomic_write_bytes(path, state.json_parts())
    # What was just written is known: the next load (the app, the watcher's next run, the GC
    # right after) takes it from here while the file keeps this stamp.
    try:
        st = os.stat(path)
    except OSError:
        return
    _CACHE[str(path)] = ((st.st_size, st.st_mtime_ns, st.st_ino), state)
