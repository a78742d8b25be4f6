"""Which fragments are cited, and so protected: topics, vault, archive, pending reflections.

The citation-superset invariant is checked over `SHARD_AREAS` (what memory believes); fragment
GC additionally spares whatever a pending reflection proposes to cite or was shown, so a human
can still approve it, or reject it and release its fragments back to the tail.
"""
from __future__ import annotations

import json
import os
import time

from core import citation_ranges
from core.citation_ranges import DayScan, Stamp, settled, stamp_of
from core.citations import Key, citation_keys
from core.shards import list_shard_files
from core.workspace import Workspace

SHARD_AREAS = ("topics", "vault", "archive")


def shard_area_files(ws: Workspace, areas: tuple[str, ...] = SHARD_AREAS):
    """(relpath under memory/, absolute path) of every flat shard file in the areas."""
    for area in areas:
        for slug, path in list_shard_files(ws.memory / area):
            yield f"{area}/{slug}.md", path


# path -> ((size, mtime_ns, ctime_ns, ino), keys): a process-local projection so a run that
# already read every shard, or a second scan in the same process, re-reads only files that
# changed. ctime is in the stamp (a back-dated mtime cannot hide a rewrite), and only a file
# that had settled (see `citation_ranges.settled`) is remembered.
_KEYS_CACHE: dict[str, tuple[Stamp, frozenset[Key]]] = {}


def _stamp(path) -> Stamp | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return stamp_of(st)


def file_keys(path, text: str | None = None) -> frozenset[Key]:
    """Citation keys of one shard file, from the cache when the file is unchanged."""
    started = time.time_ns()
    stamp = _stamp(path)
    hit = _KEYS_CACHE.get(str(path))
    if stamp is not None and hit is not None and hit[0] == stamp:
        return hit[1]
    if text is None:
        try:
            text = open(path, "rb").read().decode("utf-8", "replace")
        except FileNotFoundError:
            return frozenset()
    keys = frozenset(citation_keys(text))
    if stamp is not None and settled(stamp, started):
        _KEYS_CACHE[str(path)] = (stamp, keys)
    return keys


def cited_keys(ws: Workspace, areas: tuple[str, ...] = SHARD_AREAS, days: set[str] | None = None) -> set[Key]:
    """Every (date, id) cited in the areas; with `days`, only citations under those dates."""
    if days is None:
        keys: set[Key] = set()
        for _, path in shard_area_files(ws, areas):
            keys.update(file_keys(path))
        return keys
    return cited_on_days(ws, days, areas).keys


def cited_on_days(
    ws: Workspace, days: set[str], areas: tuple[str, ...] = SHARD_AREAS, now_ns: int | None = None,
) -> DayScan:
    """The day-scoped question (the GC's): the persisted citation-range projection rules out,
    without opening them, the files whose citations cannot reach those dates; the rest are read
    (or taken from the in-process cache). The result says how many files were read. `now_ns`
    is the clock the racy-timestamp rule measures against (default: now)."""
    return citation_ranges.cited_on(ws, set(days), areas, _KEYS_CACHE, now_ns=now_ns)


def pending_reflection_keys(ws: Workspace) -> set[Key]:
    """Citations in the proposed content of every pending reflection, and the fragments it was
    shown: until a person decides, `reject --release` must still be able to return them."""
    keys: set[Key] = set()
    folder = ws.meta_dir / "reflections"
    if not folder.is_dir():
        return keys
    from core.reflections import peek_status

    for path in folder.glob("r-*.json"):
        if peek_status(path) not in (None, "pending"):
            continue  # decided: only a pending reflection protects anything
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        if data.get("status") != "pending":
            continue
        for change in data.get("files", []):
            keys |= citation_keys(change.get("proposed") or "")
        for shown in data.get("fragments", []):
            if isinstance(shown, dict) and isinstance(shown.get("date"), str) and isinstance(shown.get("id"), str):
                keys.add((shown["date"], shown["id"]))
    return keys


def gc_protected_keys(ws: Workspace, days: set[str] | None = None) -> set[Key]:
    """What fragment GC must spare; with `days`, only what matters on those dates."""
    pending = pending_reflection_keys(ws)
    if days is not None:
        pending = {k for k in pending if k[0] in days}
    return cited_keys(ws, days=days) | pending
