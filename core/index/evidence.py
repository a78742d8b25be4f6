"""Which fragments are cited, and so protected: topics, vault, archive, pending reflections.

The citation-superset invariant is checked over `SHARD_AREAS` (what memory believes); fragment
GC additionally spares whatever a pending reflection proposes to cite or was shown, so a human
can still approve it, or reject it and release its fragments back to the tail.

The GC's judgment is made in two steps, so a projection can only ever cost speed (invariant 5):
`gc_protected_keys` answers fast (the persisted citation-range projection rules out files that
cannot cite the days), and `confirm_uncited` then confirms each fragment about to be dropped
against the shard files themselves, trusting neither the projection nor any cache: every file
is either one this run read (its stamp unchanged and settled since: `ShardReads`) or read now.
A dream run has read every topic and the vault for its snapshot, so it reads again only what
changed since (its own writes) and the archive.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass

from dreamdeck.core.formats.citations import Key, citation_keys
from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.index import citation_ranges
from dreamdeck.core.index.citation_ranges import DayScan, file_keys, shard_stats
from dreamdeck.core.io.cache import Stamp, clock, settled, stamp_of
from dreamdeck.core.io.no_links import read_bytes_nofollow
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


def pending_reflection_keys(ws: Workspace, overlay: dict[str, str | None] | None = None) -> set[Key]:
    """Citations in the proposed content of every pending reflection, and the fragments it was
    shown: until a person decides, `reject --release` must still be able to return them.
    `overlay`: reflection texts a change is about to write ("reflections/r-N.json" -> text, None:
    removed), read instead of the files (a preview of that change's GC)."""
    keys: set[Key] = set()
    folder = ws.meta_dir / "reflections"
    overlay = {rel.split("/", 1)[1]: text for rel, text in (overlay or {}).items()
               if rel.startswith("reflections/r-") and rel.endswith(".json")}
    if not folder.is_dir() and not overlay:
        return keys
    from dreamdeck.core.store.reflections import peek_status

    names = {p.name for p in folder.glob("r-*.json")} | set(overlay) if folder.is_dir() else set(overlay)
    for name in sorted(names):
        path = folder / name
        if name not in overlay and peek_status(path) not in (None, "pending"):
            continue  # decided: only a pending reflection protects anything
        try:
            text = overlay[name] if name in overlay else read_bytes_nofollow(path).decode("utf-8", "replace")
            if text is None:
                continue
            data = load_json(text)
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


def gc_protected_keys(ws: Workspace, days: set[str] | None = None, overlay: Overlay | None = None) -> set[Key]:
    """What fragment GC must spare; with `days`, only what matters on those dates. `overlay`: the
    files a change is about to write, as if written (a preview of its GC, nothing read twice)."""
    pending = pending_reflection_keys(ws, overlay.meta if overlay else None)
    if days is not None:
        pending = {k for k in pending if k[0] in days}
    cited = cited_keys(ws, days=days)
    if overlay:
        # What a changed shard cites now may go (confirm_uncited, given the same overlay, keeps what
        # another file still cites); what it will cite is added.
        before = set().union(set(), *(citation_keys(t or "") for t in overlay.shards_before.values()))
        after = set().union(set(), *(citation_keys(t or "") for t in overlay.shards.values()))
        cited = (cited - before) | {k for k in after if days is None or k[0] in days}
    return cited | pending


@dataclass(frozen=True)
class Overlay:
    """The files a change is about to write, for a preview of what its GC will take: shard texts
    by absolute path (None: deleted) with what they hold now, and memory/meta files by their path
    under memory/meta/."""
    shards: dict[str, str | None]
    shards_before: dict[str, str | None]
    meta: dict[str, str | None]


@dataclass(frozen=True)
class ShardRead:
    """One shard file as a run read it: its stamp taken before the read, and the read's start."""
    stamp: Stamp
    started_ns: int
    text: str


ShardReads = dict[str, ShardRead]  # path (as a string) -> what this run read there


def read_shard(path, reads: ShardReads | None = None) -> str:
    """A shard file's text (undecodable bytes replaced), recorded in `reads` when given."""
    started = clock()
    with open(path, "rb") as fh:
        stamp = stamp_of(os.fstat(fh.fileno()))
        text = fh.read().decode("utf-8", "replace")
    if reads is not None:
        reads[str(path)] = ShardRead(stamp, started, text)
    return text


@dataclass
class Confirmation:
    """How the last `confirm_uncited` reached its answer (for tests and the benchmark)."""
    candidates: int = 0
    files: int = 0
    from_run: int = 0  # taken from what this run read
    read: int = 0  # read from disk now


_last_confirmation: Confirmation | None = None


def last_confirmation() -> Confirmation | None:
    return _last_confirmation


def confirm_uncited(
    ws: Workspace, candidates: set[Key], reads: ShardReads | None = None, areas: tuple[str, ...] = SHARD_AREAS,
    overlay: Overlay | None = None,
) -> set[Key]:
    """The candidates no shard file of the areas cites, without the word of any projection or
    cache. A file counts as read this run only if its stamp now is the one recorded before that
    read and had settled by then (git's racy rule: a change in the same clock tick as the read
    could keep the stamp); every other file is read now. Every citation holds `/DATE#`, so only
    a file holding that for a candidate's date is parsed."""
    global _last_confirmation
    scan = Confirmation(candidates=len(candidates))
    _last_confirmation = scan
    if not candidates:
        return set()
    markers = [f"/{day}#" for day in sorted({d for d, _ in candidates})]
    raw_markers = [m.encode("ascii") for m in markers]
    cited: set[Key] = set()
    ahead = dict(overlay.shards) if overlay else {}  # a preview: these texts, not the files
    for text in (t for t in ahead.values() if t is not None):
        cited |= citation_keys(text) & candidates
    for _rel, path, stamp in shard_stats(str(ws.memory), areas):
        if path in ahead:
            continue
        scan.files += 1
        prior = reads.get(path) if reads else None
        if prior is not None and prior.stamp == stamp and settled(stamp, prior.started_ns):
            scan.from_run += 1
            if any(m in prior.text for m in markers):
                cited |= citation_keys(prior.text) & candidates
            continue
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except FileNotFoundError:  # removed since the listing
            continue
        scan.read += 1
        if any(m in data for m in raw_markers):
            cited |= citation_keys(data.decode("utf-8", "replace")) & candidates
    return candidates - cited
