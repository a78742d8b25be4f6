"""`memory/.dreaming-state.json` v2: which fragment ids dreaming has already reasoned about.

Written byte-for-byte as TypeClaw writes it (`JSON.stringify(state, null, 2) + "\\n"`), but
atomically. Loading is fail-open as in TypeClaw (a bad file means "nothing dreamed"), and the
reason is returned so callers can report it instead of silently re-dreaming everything.
"""
from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.formats.lazy_re import lazy_re
from dreamdeck.core.io.atomic import atomic_write_bytes
from dreamdeck.core.io.cache import MISS, StampCache, clock, file_stamp
from dreamdeck.core.io.no_links import read_bytes_nofollow
from dreamdeck.core.store.state_index import StateIndex, crc_of, forget_index, read_index, write_index

# What JSON.stringify(state, null, 2) + "\n" writes around the days.
_HEAD = b'{\n  "version": 2,\n  "dreamedThrough": {\n'
_TAIL = b"\n  }\n}\n"

# The characters JSON.stringify writes as they are: printable ASCII but `"` and `\\`.
_PLAIN_BYTES = bytes(c for c in range(0x20, 0x7F) if chr(c) not in '"\\')


_SURROGATE = lazy_re("[\ud800-\udfff]")


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
        id_block = "[\n        " + ",\n        ".join(_dumps(i) for i in ids) + "\n      ]"  # type: ignore[union-attr, attr-defined]
    return f"    {_dumps(day)}: {{\n      \"dreamedIds\": {id_block},\n      \"ts\": {_dumps(entry['ts'])}\n    }}"


class LazyDays(Mapping):
    """date -> entry, in file order, each day parsed from the state file's bytes when first asked
    (see `core.state_index`): a run needs one or two days of a year."""

    def __init__(self, order: list[str], raw: bytes, spans: dict[str, tuple[int, int]],
                 entries: dict[str, dict[str, object]] | None = None):
        self._order, self._raw, self._spans = order, raw, spans
        self._entries: dict[str, dict[str, object]] = {} if entries is None else entries

    def __getitem__(self, day: str) -> dict[str, object]:
        entry = self._entries.get(day)
        if entry is None:
            if day not in self._spans:
                raise KeyError(day)
            start, end = self._spans[day]
            parsed = _validate({"version": 2, "dreamedThrough": load_json(b"{" + self._raw[start:end] + b"}")})
            entry = self._entries[day] = dict(parsed.days)[day]
        return entry

    def __iter__(self):
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    def parsed(self) -> set[str]:
        """The days parsed so far."""
        return set(self._entries)

    def replaced(self, day: str, entry: dict[str, object]) -> LazyDays:
        """A new mapping with `day` set to `entry` (appended when new); self is unchanged."""
        order = self._order if day in self._spans or day in self._entries else [*self._order, day]
        return LazyDays(order, self._raw, self._spans, {**self._entries, day: entry})


@dataclass
class DreamingState:
    # date -> {"dreamedIds": [...], "ts": "..."}; dict order is insertion order, as in JS.
    days: Mapping[str, dict[str, object]] = field(default_factory=dict)  # or LazyDays
    # date -> its rendered JSON: a year of ids is tens of megabytes to render, and an update
    # changes one or two days, so a state derived from a rendered one renders only those.
    _rendered: dict[str, bytes | memoryview] = field(default_factory=dict, compare=False, repr=False)
    _digests: dict[str, str] = field(default_factory=dict, compare=False, repr=False)  # the same, for ids_digest

    def dreamed_ids(self, day: str) -> set[str]:
        entry = self.days.get(day)
        return set(entry["dreamedIds"]) if entry else set()  # type: ignore[arg-type, call-overload]

    def ids_digest(self, day: str) -> str:
        """A fingerprint of the day's dreamed-id list (what projections of "fully dreamed" key on)."""
        digest = self._digests.get(day)
        if digest is None:
            entry = self.days.get(day)
            ids = entry["dreamedIds"] if entry else []
            digest = hashlib.sha1("\n".join(ids).encode("utf-8", "surrogatepass")).hexdigest()  # type: ignore[arg-type]
            self._digests[day] = digest
        return digest

    def _with_day(self, day: str, entry: dict[str, object]) -> DreamingState:
        days: Mapping[str, dict[str, object]]
        if isinstance(self.days, LazyDays):
            days = self.days.replaced(day, entry)  # the other days stay unparsed
        else:
            days = {d: dict(e) for d, e in self.days.items()}
            days[day] = entry
        return DreamingState(days, {d: r for d, r in self._rendered.items() if d != day},
                             {d: h for d, h in self._digests.items() if d != day})

    def add_dreamed(self, day: str, ids: set[str] | list[str], ts: str) -> DreamingState:
        """A new state with `ids` merged into `day` (sorted, de-duplicated); self is unchanged."""
        return self._with_day(day, {"dreamedIds": sorted(self.dreamed_ids(day) | set(ids)), "ts": ts})

    def remove_dreamed(self, day: str, ids: set[str], ts: str) -> DreamingState:
        """A new state with `ids` returned to the undreamed tail of `day`."""
        if day not in self.days:
            return DreamingState(self.days, dict(self._rendered), dict(self._digests))  # never mutated in place
        return self._with_day(day, {"dreamedIds": sorted(self.dreamed_ids(day) - set(ids)), "ts": ts})

    def advanced(self, advance: Mapping[str, Iterable[str]], release: Mapping[str, Iterable[str]], ts: str) -> DreamingState:
        """A new state with the `advance` ids marked dreamed and the `release` ids back on the tail."""
        state = self
        for day, ids in advance.items():
            state = state.add_dreamed(day, set(ids), ts)
        for day, ids in release.items():
            state = state.remove_dreamed(day, set(ids), ts)
        return state

    def to_json(self) -> str:
        """`JSON.stringify(state, null, 2) + "\\n"`, byte for byte."""
        return b"".join(self.json_parts()).decode("utf-8")

    def json_parts(self) -> list:
        """`to_json` as UTF-8 pieces, written one after another without joining: a year of ids
        is tens of megabytes, and every copy of that costs page faults.

        json.dumps with indent falls back to the pure-Python encoder, which takes seconds on a
        year of ids; plain ids (the UUID alphabet) are joined directly instead.
        """
        if not self.days:
            return [b'{\n  "version": 2,\n  "dreamedThrough": {}\n}\n']
        rendered = self._rendered
        parts = [_HEAD]
        for n, day in enumerate(self.days):
            chunk = rendered.get(day)
            if chunk is None:
                chunk = rendered[day] = _render_day(day, self.days[day]).encode("utf-8")
            chunk = bytes(chunk) if isinstance(chunk, memoryview) else chunk
            if n:
                parts.append(b",\n")
            parts.append(chunk)
        parts.append(_TAIL)
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


# path -> state: a year of ids is tens of megabytes of JSON, and the watcher and the app ask
# often. States are never mutated in place (updates return new ones). A state just written is
# not cached until its file settles; until then a load takes it from the index (no parse).
_CACHE: StampCache[DreamingState] = StampCache("dreaming-state")


def load_state(path: Path) -> tuple[DreamingState, str | None]:
    """(state, problem). A missing file is no problem; anything unreadable is empty + a reason."""
    started = clock()
    stamp = file_stamp(path)
    if stamp is not None:
        hit = _CACHE.get(str(path), stamp)
        if hit is not MISS:
            return hit, None  # type: ignore[return-value]
    state, problem = _load(path)
    if stamp is not None and problem is None:
        _CACHE.put_if_settled(str(path), stamp, state, started)
    return state, problem


def _load(path: Path) -> tuple[DreamingState, str | None]:
    try:
        raw = read_bytes_nofollow(path)
    except FileNotFoundError:
        return DreamingState(), None
    except OSError as exc:
        return DreamingState(), f"{path.name}: unreadable ({exc})"
    indexed = _from_index(path, raw)
    if indexed is not None:
        return indexed, None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return DreamingState(), f"{path.name}: unreadable ({exc})"
    try:
        data = load_json(text)
    except json.JSONDecodeError as exc:
        return DreamingState(), f"{path.name}: invalid JSON at line {exc.lineno} ({exc.msg}); every fragment would be re-dreamed"
    try:
        return _validate(data), None
    except ValueError as exc:
        return DreamingState(), f"{path.name}: {exc}; every fragment would be re-dreamed"


def _from_index(path: Path, raw: bytes) -> DreamingState | None:
    """The state without parsing it, when the file is byte for byte what dreamdeck last wrote."""
    index = read_index(path)
    if index is None or index.size != len(raw) or index.crc != zlib.crc32(raw):
        return None
    # The layout around the days, as json_parts writes it (the CRC says so; checked anyway).
    expected_end = len(raw) - len(_TAIL)
    cursor = len(_HEAD)
    if not index.days or raw[:cursor] != _HEAD or raw[expected_end:] != _TAIL:
        return None
    for n, (_day, start, end, _digest) in enumerate(index.days):
        if start != cursor + (2 if n else 0) or (n and raw[cursor:start] != b",\n"):
            return None
        cursor = end
    if cursor != expected_end:
        return None
    view = memoryview(raw)
    order = [d for d, _, _, _ in index.days]
    spans = {d: (a, b) for d, a, b, _ in index.days}
    if len(spans) != len(order):
        return None
    return DreamingState(
        LazyDays(order, raw, spans),
        {d: view[a:b] for d, a, b, _ in index.days},
        {d: h for d, _, _, h in index.days},
    )


def save_state(path: Path, state: DreamingState) -> None:
    parts = state.json_parts()
    atomic_write_bytes(path, parts)
    # Where each day sits in what was just written, for a fresh process (core.state_index).
    if state.days:
        spans, cursor = [], len(parts[0])
        for n, day in enumerate(state.days):
            start = cursor + (2 if n else 0)
            cursor = start + len(state._rendered[day])
            spans.append((day, start, cursor, state.ids_digest(day)))
        write_index(path, StateIndex(sum(len(p) for p in parts), crc_of(parts), tuple(spans)))
    else:
        forget_index(path)
