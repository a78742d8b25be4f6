"""A change's collection, before it is applied: `preview_collection(ws, cs)` lists every fragment
line applying `cs` now would remove from the streams, with its reason, and those whose day waits.

It runs the door's own steps without writing: the checked plan (`plan_changeset`), the state the
change would leave (`next_state`), the change's work merged with the backlog, and the one
judgment `collection.plan_collection`, with the shard and reflection files the change writes laid
over the disk. So what it lists is what `finish` then removes (a test holds the two equal).
"""
from __future__ import annotations

from dreamdeck.core.door.apply import plan_changeset
from dreamdeck.core.door.changeset import ChangeSet
from dreamdeck.core.door.collection import (
    CollectionPreview,
    collected_later,
    collected_now,
    plan_collection,
    reasons_of_work,
    work_of,
)
from dreamdeck.core.door.state import next_state
from dreamdeck.core.index.evidence import Overlay
from dreamdeck.core.io.no_links import read_text_nofollow
from dreamdeck.core.store.compaction_backlog import load_backlog, merge_work
from dreamdeck.core.store.state import load_state
from dreamdeck.core.workspace import Workspace


def _now_text(ws: Workspace, rel: str) -> str | None:
    try:
        return read_text_nofollow(ws.memory / rel)
    except FileNotFoundError:
        return None


def preview_collection(ws: Workspace, cs: ChangeSet, today: str | None = None) -> CollectionPreview:
    """What applying `cs` now would collect (Refused as the apply would be, nothing written)."""
    today = today or ws.today()
    targets = plan_changeset(ws, cs, today).targets
    before = {rel: _now_text(ws, rel) for rel in targets}
    changed = {rel: t for rel, t in targets.items() if before[rel] != t}
    overlay = Overlay(
        shards={str(ws.memory / rel): t for rel, t in changed.items()},
        shards_before={str(ws.memory / rel): before[rel] for rel in changed},
        meta=dict(cs.writes.meta_files),
    )
    e = cs.evidence
    topics_changed = any(rel.startswith("topics/") for rel in changed)
    work = merge_work(load_backlog(ws)[0], work_of(e.gc_days, topics_changed, e.purge, e.gc_reasons))
    if not work:
        return CollectionPreview()
    state = next_state(ws, e.advance, e.release, e.state_ts) if e.advance or e.release else load_state(ws.state_path)[0]
    cp = plan_collection(ws, work, today, state, overlay=overlay)
    given = reasons_of_work(work)
    return CollectionPreview(collected_now(ws, cp, given), collected_later(ws, work, cp.waiting, state, overlay, given))
