"""What a change's collection step takes from the streams, and why (issue 10, item 6).

`plan_collection` is the one judgment: the door's `finish` acts on it, and `preview_collection`
runs it for a change that is not applied yet, with the files that change would write laid over
the disk (`index.evidence.Overlay`), so `review r-N` and the app's confirm list exactly what the
apply will remove. Each fragment gets its reason: forgotten (a hard forget), the reason its
change gave (a named duplicate, a dreamer's noise rule), or "dreamed, uncited, no reason given";
a fragment whose day waits (a writer may hold its file: invariant 8) is listed with why it waits.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from dreamdeck.core.door.compaction import CompactionPlan, is_meant, plan_compaction, waiting_reasons
from dreamdeck.core.formats.citations import Key
from dreamdeck.core.index.evidence import Overlay, ShardReads, gc_protected_keys
from dreamdeck.core.store.compaction_backlog import Backlog, DayWork, merge_work
from dreamdeck.core.store.state import DreamingState, load_state
from dreamdeck.core.store.streams import read_path_for, read_stream_lines
from dreamdeck.core.store.tombstones import load_tombstones
from dreamdeck.core.workspace import Workspace

FORGOTTEN = "forgotten (hard forget)"
NO_REASON = "dreamed, uncited: no reason given"


@dataclass(frozen=True)
class Collected:
    """One fragment line the collection removes (or will, once its day's wait is over)."""
    day: str
    fid: str
    reason: str
    line: str  # the exact line
    waits: str = ""  # why its day's compaction waits ("" : removed by this change)

    @property
    def key(self) -> str:
        return f"{self.day}#{self.fid}"

    def describe(self) -> str:
        return f"streams/{self.key}: {self.reason}" + (f" (waits: {self.waits})" if self.waits else "")

    def to_json(self) -> dict:
        return {"fragment": self.key, "reason": self.reason, "waits": self.waits or None}


@dataclass
class CollectionPlan:
    """The days that are compacted now and those that wait (day -> why), with what protects."""
    ready: Backlog
    waiting: dict[str, str]
    state: DreamingState | None = None
    protected: set[Key] = field(default_factory=set)
    meant: dict[Key, str] = field(default_factory=dict)
    gc: CompactionPlan = field(default_factory=CompactionPlan)


def work_of(gc_days: set[str], topics_changed: bool, purge: set[Key], reasons: dict[str, str]) -> Backlog:
    """A change's own compaction: its days (fragment GC when a topic changed, with the reasons
    the change gave, which a deferred compaction must still know), its purges."""
    work: Backlog = {day: DayWork(fragment_gc=topics_changed) for day in gc_days}
    if topics_changed:
        for key, why in reasons.items():
            day, _, fid = key.partition("#")
            if day in work:
                work[day].reasons[fid] = why
    for day, fid in purge:
        work = merge_work(work, {day: DayWork(purge={fid})})
    return work


def reasons_of_work(work: Backlog) -> dict[str, str]:
    """"day#id" -> the reason given for it, by this change or by the one whose compaction waited."""
    return {f"{day}#{fid}": why for day, w in work.items() for fid, why in w.reasons.items()}


def plan_collection(ws: Workspace, work: Backlog, today: str, state: DreamingState | None, *,
                    reads: ShardReads | None = None, overlay: Overlay | None = None) -> CollectionPlan:
    """Which days of `work` are compacted now, and which fragments fragment GC takes there."""
    waiting = waiting_reasons(ws, work, today)
    cp = CollectionPlan({day: w for day, w in work.items() if day not in waiting}, waiting)
    if not cp.ready:
        return cp
    cp.state = state if state is not None else load_state(ws.state_path)[0]
    # A soft-forgotten fragment keeps its bytes (unforget can bring it back). Only citations
    # under the compacted dates can pin anything there, so only those are gathered.
    stones = load_tombstones(ws)
    cp.protected = gc_protected_keys(ws, set(cp.ready), overlay) | {k for k, s in stones.items() if not s.hard}
    # A hard forget purges the meant line only: the one whose content its tombstone recorded
    # (read from the tombstones, so a purge the backlog carries keeps its aim).
    cp.meant = {k: s.hash for k, s in stones.items() if s.hard and s.hash}
    cp.gc = plan_compaction(ws, cp.state, cp.protected, cp.ready, reads, overlay)
    return cp


def reason_of(key: Key, purged: bool, given: dict[str, str]) -> str:
    return FORGOTTEN if purged else given.get(f"{key[0]}#{key[1]}", NO_REASON)


def collected_now(ws: Workspace, cp: CollectionPlan, given: dict[str, str]) -> list[Collected]:
    """Every fragment line the plan removes now: fragment GC's and the hard forgets' purges."""
    out = [Collected(d, i, reason_of((d, i), False, given), line) for (d, i), line in cp.gc.lines.items()]
    for day, w in sorted(cp.ready.items()):
        out += [Collected(day, ln.event["id"], FORGOTTEN, ln.raw.decode("utf-8"))  # type: ignore[index]
                for ln in _lines(ws, day) if is_meant(day, ln, w.purge, cp.meant)]
    return sorted(out, key=lambda c: (c.day, c.fid, c.line))


def collected_later(ws: Workspace, work: Backlog, waiting: dict[str, str], state: DreamingState,
                    protected_overlay: Overlay | None, given: dict[str, str]) -> list[Collected]:
    """What the waiting days would give up once their wait is over, judged as if it were now."""
    if not waiting:
        return []
    later = {day: work[day] for day in waiting if day in work}
    stones = load_tombstones(ws)
    protected = gc_protected_keys(ws, set(later), protected_overlay) | {k for k, s in stones.items() if not s.hard}
    meant = {k: s.hash for k, s in stones.items() if s.hard and s.hash}
    gc = plan_compaction(ws, state, protected, later, None, protected_overlay)
    out = [Collected(d, i, reason_of((d, i), False, given), line, waiting[d]) for (d, i), line in gc.lines.items()]
    for day, w in sorted(later.items()):
        out += [Collected(day, ln.event["id"], FORGOTTEN, ln.raw.decode("utf-8"), waiting[day])  # type: ignore[index]
                for ln in _lines(ws, day) if is_meant(day, ln, w.purge, meant)]
    return sorted(out, key=lambda c: (c.day, c.fid, c.line))


def _lines(ws: Workspace, day: str):
    path = read_path_for(ws, day)
    return read_stream_lines(path) if path is not None else []


@dataclass
class CollectionPreview:
    """What applying a change would remove from the streams now, and what would wait."""
    now: list[Collected] = field(default_factory=list)
    later: list[Collected] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"collects": [c.to_json() for c in self.now], "waiting": [c.to_json() for c in self.later]}
