"""What a rollback does to evidence (see `rollback`'s docstring): fragment lines collected since the
base come back into their streams unless forgotten; citations it removes are released to the
undreamed tail; fragments it cites again are marked dreamed; a citation present at the base is
never lost.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dreamdeck.core.formats.citations import Key, citation_keys
from dreamdeck.core.formats.events import try_parse_event_line
from dreamdeck.core.formats.stream_lines import parse_stream_bytes
from dreamdeck.core.git.blobs import show_file
from dreamdeck.core.git.notes import read_gc_lines
from dreamdeck.core.git.runner import run_git
from dreamdeck.core.index.evidence import shard_area_files
from dreamdeck.core.ops.rollback_plan import RollbackPlan
from dreamdeck.core.store.state import load_state
from dreamdeck.core.store.streams import read_path_for, read_stream_lines
from dreamdeck.core.store.tombstones import Forgotten as Identity
from dreamdeck.core.store.tombstones import forgotten
from dreamdeck.core.workspace import Workspace


@dataclass(frozen=True)
class Forgotten:
    """What the tombstones keep out of a rollback: the store's identity rule (`tombstones.forgotten`:
    a forgotten id under any date, or forgotten content) applied to lines and citations."""
    identity: Identity

    @classmethod
    def load(cls, ws: Workspace) -> Forgotten:
        return cls(forgotten(ws))

    def holds(self, key: Key, raw: str) -> bool:
        return self.identity.holds_line(key[1], raw)

    def cited_in(self, text: str) -> set[Key]:
        """The citations of `text` that name a forgotten id (under any date)."""
        return {k for k in citation_keys(text) if k[1] in self.identity.ids}

    def keep_out(self, keys: set[Key]) -> set[Key]:
        return {k for k in keys if k[1] in self.identity.ids}


def plan_restored_lines(ws: Workspace, plan: RollbackPlan, base: str, rev: str, stream_paths: list[str],
                        stones: Forgotten, present: dict[str, set[str]]) -> None:
    """Evidence GC'd between base and rev, absent now, goes back into the streams (not the forgotten)."""
    root = ws.root
    candidates: dict[Key, str] = {}
    for p in stream_paths:
        day = Path(p).stem
        rev_ids = {ln.event["id"] for ln in parse_stream_bytes(show_file(root, rev, p) or b"") if ln.kind == "fragment"}  # type: ignore[index]
        for ln in parse_stream_bytes(show_file(root, base, p) or b""):
            if ln.kind == "fragment" and ln.event["id"] not in rev_ids:  # type: ignore[index]
                candidates.setdefault((day, ln.event["id"]), ln.raw.decode("utf-8"))  # type: ignore[index]
    span = f"{plan.base}..{rev}" if plan.base else rev
    for sha in run_git(root, "rev-list", span, check=False).split():
        for day, raw in read_gc_lines(root, sha):
            ev = try_parse_event_line(raw)
            if ev and ev.get("type") == "fragment":
                candidates.setdefault((day, ev["id"]), raw)
    for day, fid in sorted(candidates):
        if fid in _present_ids(ws, present, day):
            continue
        raw = candidates[(day, fid)]
        if stones.holds((day, fid), raw):
            plan.filtered.append((day, fid))
            continue
        plan.restore_lines.setdefault(day, []).append(raw)
        plan.restored.append((day, fid))
    plan.filtered = sorted(set(plan.filtered))


def plan_citations(ws: Workspace, plan: RollbackPlan, cited_base: set[Key], stones: Forgotten,
                   present: dict[str, set[str]]) -> None:
    """What the rollback removes (dropped, released), brings back (recited) and must not lose."""
    now_files = {rel: p.read_bytes().decode("utf-8", "replace") for rel, p in shard_area_files(ws)}
    after_files = {**now_files, **{e.path: e.new for e in plan.edits}}
    cited_now = set().union(*(citation_keys(t) for t in now_files.values()))
    cited_after = set().union(*(citation_keys(t) for t in after_files.values() if t is not None))
    removed = cited_now - cited_after
    lost = removed & cited_base
    plan.would_lose = sorted(lost - stones.keep_out(lost))
    plan.dropped = sorted(removed - cited_base)
    if not plan.no_redream:
        plan.released = sorted(set(plan.dropped) | {k for k in plan.restored if k not in cited_after})
    state, _ = load_state(ws.state_path)
    restored = set(plan.restored)
    plan.recited = [
        (day, fid) for day, fid in sorted(cited_after - cited_now)
        if (day, fid) in restored or (fid in _present_ids(ws, present, day) and fid not in state.dreamed_ids(day))
    ]


def _present_ids(ws: Workspace, cache: dict[str, set[str]], day: str) -> set[str]:
    """The fragment ids in `day`'s stream now, read once per plan."""
    if day not in cache:
        path = read_path_for(ws, day)
        cache[day] = {ln.event["id"] for ln in read_stream_lines(path) if ln.kind == "fragment"} if path else set()  # type: ignore[index]
    return cache[day]
