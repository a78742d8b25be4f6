"""Stream compaction: TypeClaw's watermark GC and gated fragment GC, plus hard forgets.

- Watermark GC (always): per source keep only the last watermark in file order.
- Fragment GC (only after a fresh citation judgment): drop a fragment that is dreamed AND not
  cited under the same date. `cited` must include every place that protects evidence: topics,
  vault, archive and pending reflections. It may come from projections (fast), so no fragment is
  dropped on its word alone: each one is confirmed uncited against the shard files themselves,
  as this run read them or as they are now (`index.evidence.confirm_uncited`, invariant 5).
- Hard-forgotten fragments are dropped whatever else holds: exactly the meant line, by the content
  hash its tombstone recorded (`meant`), so another line sharing the id is kept.
Malformed and legacy lines are always kept; rewrites never lose a concurrent append.

A file a writer may still hold open is never rewritten (invariant 8): today's stream (in the
workspace's local day, and any later one), one written to within `[streams] quiet_minutes`, or
one a visible process holds open for writing (`io.open_writers`). `waiting_reasons` says which
days wait and why; the door records them in the compaction backlog and does them later.
"""
from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial

from dreamdeck.core.formats.events import fragment_content_hash
from dreamdeck.core.formats.stream_lines import StreamLine
from dreamdeck.core.index.evidence import Overlay, ShardReads, confirm_uncited
from dreamdeck.core.io.open_writers import writers_holding
from dreamdeck.core.store.compaction_backlog import Backlog
from dreamdeck.core.store.settings import SettingsError, StreamsSettings, load_settings
from dreamdeck.core.store.state import DreamingState
from dreamdeck.core.store.stream_rewrite import rewrite_stream
from dreamdeck.core.store.streams import read_path_for, read_stream_lines
from dreamdeck.core.workspace import Workspace

Key = tuple[str, str]


@dataclass
class CompactionResult:
    files: list[str] = field(default_factory=list)
    watermarks_dropped: int = 0
    fragment_lines_dropped: dict[Key, str] = field(default_factory=dict)  # key -> its exact line, in order
    deferred: dict[str, str] = field(default_factory=dict)  # day -> why its compaction waits
    blanked: list[Key] = field(default_factory=list)  # hard-forgotten lines overwritten in place meanwhile

    @property
    def fragments_dropped(self) -> list[Key]:
        return list(self.fragment_lines_dropped)


def quiet_seconds(ws: Workspace) -> float:
    """`[streams] quiet_minutes` in seconds; the default when dreamdeck.toml cannot be read (a bad
    settings file must not stop a change, and the default only ever makes a compaction wait)."""
    try:
        minutes = load_settings(ws.root).streams.quiet_minutes
    except (SettingsError, OSError):
        minutes = StreamsSettings().quiet_minutes
    return minutes * 60 if minutes == minutes else StreamsSettings().quiet_minutes * 60  # NaN: the default


def waiting_reasons(ws: Workspace, days: Iterable[str], today: str, *, now: float | None = None) -> dict[str, str]:
    """day -> why its stream file may not be rewritten now; days not named may be. A day
    without a file is not named (there is nothing to compact)."""
    now = time.time() if now is None else now
    quiet = quiet_seconds(ws)
    reasons: dict[str, str] = {}
    candidates: dict[str, str] = {}
    for day in sorted(days):
        path = read_path_for(ws, day)
        if path is None:
            continue
        if day >= today:
            reasons[day] = "today's stream: a writer may hold it open"
            continue
        try:
            age = now - os.stat(path).st_mtime
        except OSError:
            continue
        if age < quiet:
            reasons[day] = f"written to {max(age, 0):.0f} s ago (quiet period {quiet:.0f} s): a writer may hold it open"
        else:
            candidates[day] = str(path)
    held = writers_holding(candidates.values()) if candidates else None
    for day, held_path in candidates.items():
        pids = (held or {}).get(held_path)
        if pids:
            reasons[day] = "held open for writing by process " + ", ".join(str(p) for p in sorted(pids))
    return reasons


def _fragment_key(day: str, ln: StreamLine) -> Key:
    return (day, ln.event["id"])  # type: ignore[index]


def _candidates(ws: Workspace, state: DreamingState, cited: set[Key], work: Backlog) -> dict[Key, str]:
    """The fragments fragment GC would drop on the word of `cited` (dreamed and not in it), with
    the exact line of each as read now."""
    out: dict[Key, str] = {}
    for day, w in work.items():
        path = read_path_for(ws, day) if w.fragment_gc else None
        if path is None:
            continue
        dreamed = state.dreamed_ids(day)
        for ln in read_stream_lines(path):
            if ln.kind == "fragment":
                key = _fragment_key(day, ln)
                if key[1] in dreamed and key not in cited and key[1] not in w.purge:
                    out.setdefault(key, ln.raw.decode("utf-8"))
    return out


@dataclass
class CompactionPlan:
    """What fragment GC will take, decided before any file is rewritten: the confirmed-uncited
    fragments and the exact line of each, so the door can journal them first (a kill between
    the rewrite and the commit then loses no line the commit's note should hold)."""
    uncited: set[Key] = field(default_factory=set)
    lines: dict[Key, str] = field(default_factory=dict)


def plan_compaction(
    ws: Workspace, state: DreamingState, cited: set[Key], work: Backlog, reads: ShardReads | None = None,
    overlay: Overlay | None = None,
) -> CompactionPlan:
    """`overlay`: the shard texts a change is about to write, judged as written (a preview)."""
    candidates = _candidates(ws, state, cited, work)
    uncited = confirm_uncited(ws, set(candidates), reads, overlay=overlay)
    return CompactionPlan(uncited, {k: line for k, line in candidates.items() if k in uncited})


def is_meant(day: str, ln: StreamLine, purge: set[str], meant: dict[Key, str]) -> bool:
    """Whether `ln` is a line a hard forget purges: its id is purged on `day` and, when the
    tombstone recorded the forgotten line's content hash, its content is that one."""
    if ln.kind != "fragment" or ln.event["id"] not in purge:  # type: ignore[index]
        return False
    want = meant.get((day, ln.event["id"]))  # type: ignore[index]
    return want is None or want == fragment_content_hash(ln.event["topic"], ln.event["body"])  # type: ignore[index]


def _keep_rule(lines: list[StreamLine], day: str, uncited: set[Key], purge: set[str], meant: dict[Key, str]):
    last_watermark: dict[str, str] = {}
    for ln in lines:
        if ln.kind == "watermark":
            last_watermark[ln.event["source"]] = ln.event["id"]  # type: ignore[index]

    def keep(ln: StreamLine) -> bool:
        if ln.kind == "watermark":
            return last_watermark.get(ln.event["source"]) == ln.event["id"]  # type: ignore[index]
        if ln.kind == "fragment":
            key = _fragment_key(day, ln)
            # `uncited` holds only fragments that were dreamed when judged and then confirmed
            # uncited: a line appended since, under any id, is kept.
            return not is_meant(day, ln, purge, meant) and key not in uncited
        return True

    return keep


def compact_days(
    ws: Workspace,
    state: DreamingState,
    cited: set[Key],
    work: Backlog,
    *,
    reads: ShardReads | None = None,
    late: list | None = None,
    plan: CompactionPlan | None = None,
    meant: dict[Key, str] | None = None,
) -> CompactionResult:
    """Compact each day of `work` now (the caller has checked `waiting_reasons`). `plan`: what
    `plan_compaction` decided (made here when not given). `meant`: the content hash of each
    hard-forgotten line (its tombstone's), so only that line of its id is purged. `reads`: the shard files this run
    read, which the confirmation need not read again. `late`: see `rewrite_stream` (the grace
    period watched in the background)."""
    result = CompactionResult()
    uncited = (plan or plan_compaction(ws, state, cited, work, reads)).uncited
    meant = meant or {}
    for day in sorted(work):
        path = read_path_for(ws, day)
        if path is None:
            continue
        purge = work[day].purge
        rewritten = rewrite_stream(
            ws, path, keep_for=partial(_keep_rule, day=day, uncited=uncited, purge=purge, meant=meant),
            scrub=partial(is_meant, day, purge=purge, meant=meant),
            late=late,
        )
        if rewritten.blocked:
            result.deferred[day] = rewritten.blocked
        if rewritten.changed:
            result.files.append(ws.rel(path))
            for ln in rewritten.dropped:
                if ln.kind == "watermark":
                    result.watermarks_dropped += 1
                elif ln.kind == "fragment":
                    result.fragment_lines_dropped[_fragment_key(day, ln)] = ln.raw.decode("utf-8")
    return result
