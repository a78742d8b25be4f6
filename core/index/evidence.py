"""Which fragments are cited, and so protected: topics, vault, archive, pending reflections.

The citation-superset invariant is checked over `SHARD_AREAS` (what memory believes); fragment
GC additionally spares whatever a pending reflection proposes to cite or was shown, so a human
can still approve it, or reject it and release its fragments back to the tail.
"""
from __future__ import annotations

import json
import os
import time

from dreamdeck.core.index import citation_ranges
from dreamdeck.core.index.citation_ranges import DayScan, file_keys
from dreamdeck.core.formats.citations import Key, citation_keys
from dreamdeck.core.store.shard_files import list_shard_files
from dreamdeck.core.workspace import Workspace

SHARD_AREAS = ("topics", "vault", "archive")


def shard_area_files(ws: Workspace, areas: tuple[str, ...] = SHARD_AREAS):
    """(relpath under memory/, absolute path) of every flat shard file in the areas."""
    for area in areas:
        for slug, path in list_shard_files(ws.memory / area):
            yield f"{area}/{slug}.md", path




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
    return citation_ranges.cited_on(ws, set(days), areas, now_ns=now_ns)


def pending_reflection_keys(ws: Workspace) -> set[Key]:
    """Citations in the proposed content of every pending reflection, and the fragments it was
    shown: until a person decides, `reject --release` must still be able to return them."""
    keys: set[Key] = set()
    folder = ws.meta_dir / "reflections"
    if not folder.is_dir():
        return keys
    from dreamdeck.core.store.reflections import peek_status

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
