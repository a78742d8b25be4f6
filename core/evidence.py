"""Which fragments are cited, and so protected: topics, vault, archive, pending reflections.

The citation-superset invariant is checked over `SHARD_AREAS` (what memory believes); fragment
GC additionally spares whatever a pending reflection proposes to cite or was shown, so a human
can still approve it, or reject it and release its fragments back to the tail.
"""
from __future__ import annotations

import json

from core.citations import Key, citation_keys
from core.shards import list_shard_files
from core.workspace import Workspace

SHARD_AREAS = ("topics", "vault", "archive")


def shard_area_files(ws: Workspace, areas: tuple[str, ...] = SHARD_AREAS):
    """(relpath under memory/, absolute path) of every flat shard file in the areas."""
    for area in areas:
        for slug, path in list_shard_files(ws.memory / area):
            yield f"{area}/{slug}.md", path


def cited_keys(ws: Workspace, areas: tuple[str, ...] = SHARD_AREAS) -> set[Key]:
    keys: set[Key] = set()
    for _, path in shard_area_files(ws, areas):
        keys |= citation_keys(path.read_bytes().decode("utf-8", "replace"))
    return keys


def pending_reflection_keys(ws: Workspace) -> set[Key]:
    """Citations in the proposed content of every pending reflection, and the fragments it was
    shown: until a person decides, `reject --release` must still be able to return them."""
    keys: set[Key] = set()
    folder = ws.meta_dir / "reflections"
    if not folder.is_dir():
        return keys
    for path in folder.glob("r-*.json"):
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


def gc_protected_keys(ws: Workspace) -> set[Key]:
    return cited_keys(ws) | pending_reflection_keys(ws)
