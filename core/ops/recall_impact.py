"""Recall impact: what approving a reflection (all of it, or the chosen hunks) changes in what
the agent gets back for the questions it actually asks.

The questions replayed: the person's saved queries (`store.saved_queries`) first, then the most
frequent recall queries of the last `RECENT_DAYS` days of the access record (`store.access`),
each with the budget it was last asked with. Injection records are not replayed: a turn's text
is searched by TypeClaw's keyword lane, not by recall, and is rarely asked twice.

Each question is answered twice, by the same `ops.recall` ranking and budget, recording nothing:
against memory as it is, and against the memory the approval would write — the door's own dry
run (`plan_changeset`: rebased, recomputed, checked) laid over the real search index in a
transaction that is rolled back (`index.search_preview`): the preview costs what the change
costs, and its BM25 is the after-state's own. Nothing under `memory/` and nothing of the real
index changes.
An answer changes when an item enters, leaves, moves in rank, or is reworded (same item, other
heading or excerpt).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from dreamdeck.core.door.apply import plan_changeset
from dreamdeck.core.door.changeset import ChangeSet, Commit, FileEdit, Writes
from dreamdeck.core.formats.scrub import FORGOTTEN
from dreamdeck.core.index.search import Hit, SearchIndex, open_index
from dreamdeck.core.index.search_preview import ScratchIndex
from dreamdeck.core.index.search_strength import StrengthOrder
from dreamdeck.core.ops.recall import PROFILES, RecallBlock, Searchable, recall
from dreamdeck.core.ops.review import chosen_texts
from dreamdeck.core.store.access import item_key, read_access
from dreamdeck.core.store.reflections import Reflection, load_reflection
from dreamdeck.core.store.saved_queries import load_saved_queries, normal_query
from dreamdeck.core.workspace import Workspace

RECENT_DAYS = 30
TOP_QUERIES = 10
ENTERED, LEFT, MOVED, REWORDED = "entered", "left", "moved", "reworded"


@dataclass(frozen=True)
class ReplayQuery:
    query: str
    source: str  # "saved" | "frequent"
    asked: int  # times in the recent access record
    budget: str = "balanced"
    limit: int | None = None
    include_dormant: bool = False


@dataclass(frozen=True)
class Change:
    item: str  # `topic:slug`, `stream:DATE#ID`, …
    change: str  # ENTERED | LEFT | MOVED | REWORDED
    before: int | None  # rank, 1 first; None: not in that answer
    after: int | None
    heading: str

    @property
    def mark(self) -> str:
        return {ENTERED: "+", LEFT: "-", MOVED: "~", REWORDED: "*"}[self.change]

    @property
    def where(self) -> str:
        """Where the item is in the two answers, in words."""
        if self.change == ENTERED:
            return f"new at {self.after}"
        if self.change == LEFT:
            return f"was {self.before}"
        if self.change == MOVED:
            return f"{self.before} → {self.after}"
        return f"reworded at {self.after}"

    def to_json(self) -> dict[str, Any]:
        return {"item": self.item, "change": self.change, "before": self.before, "after": self.after,
                "heading": self.heading}


@dataclass(frozen=True)
class QueryImpact:
    replay: ReplayQuery
    before: list[RecallBlock]
    after: list[RecallBlock]
    changes: list[Change] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        r = self.replay
        return {"query": r.query, "source": r.source, "asked": r.asked, "budget": r.budget,
                "before": [item_key(b.kind, b.key) for b in self.before],
                "after": [item_key(b.kind, b.key) for b in self.after],
                "changes": [c.to_json() for c in self.changes]}


@dataclass(frozen=True)
class Impact:
    rid: str
    hunks: list[str] | None  # None: the whole reflection
    paths: list[str]  # the files the approval would write
    queries: list[QueryImpact]

    @property
    def changed(self) -> list[QueryImpact]:
        return [q for q in self.queries if q.changes]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.rid, "hunks": self.hunks, "paths": self.paths,
                "replayed": len(self.queries), "changed": len(self.changed),
                "queries": [q.to_json() for q in self.queries]}


def replay_queries(ws: Workspace, days: int = RECENT_DAYS, top: int = TOP_QUERIES) -> list[ReplayQuery]:
    """Saved queries, then the `top` most asked recall queries since `days` days ago."""
    since = (date.fromisoformat(ws.today()) - timedelta(days=days)).isoformat()
    asked: dict[str, list] = {}  # normal form -> [count, newest record]
    for rec in read_access(ws):  # newest first
        if rec.op != "recall" or rec.day < since or not rec.query.strip() or rec.query == FORGOTTEN:  # (hard forget)
            continue
        entry = asked.setdefault(normal_query(rec.query), [0, rec])
        entry[0] += 1
    out = [ReplayQuery(q, "saved", asked.get(normal_query(q), [0])[0]) for q in load_saved_queries(ws)]
    saved = {normal_query(r.query) for r in out}
    # most asked first; a tie goes to the one asked last (`asked` is in order of newest record)
    frequent = sorted(((n, rec) for key, (n, rec) in asked.items() if key not in saved), key=lambda e: -e[0])
    for n, rec in frequent[:top]:
        detail = rec.detail or {}
        budget = detail.get("budget") if detail.get("budget") in PROFILES else "balanced"
        limit = detail.get("limit") if isinstance(detail.get("limit"), int) and detail["limit"] > 0 else None
        out.append(ReplayQuery(rec.query, "frequent", n, str(budget), limit, detail.get("include_dormant") is True))
    return out


def approval_texts(ws: Workspace, r: Reflection, hunks: Iterable[str] | None) -> dict[str, str | None]:
    """path -> the text approving `hunks` of `r` would write, as the door would write it (the
    door's dry run: rebased onto the file as it is, frontmatter recomputed, checks passed);
    Refused when the approval would be refused."""
    texts = chosen_texts(r, hunks)
    bases = {f.path: f.base for f in r.files}
    cs = ChangeSet(Commit("approve", "system:impact", "partial", "review", f"impact preview of {r.id}"),
                   Writes([FileEdit(path, bases.get(path), text) for path, text in texts.items()]))
    return dict(plan_changeset(ws, cs).targets)


def recall_impact(ws: Workspace, rid: str, hunks: list[str] | None = None,
                  queries: list[ReplayQuery] | None = None) -> Impact:
    """Replay the questions against memory now and after the approval (module docstring)."""
    r = load_reflection(ws, rid)
    texts = approval_texts(ws, r, hunks)
    replays = replay_queries(ws) if queries is None else queries
    # One refresh, then every "before" from the index as it stands (a refresh per question would
    # cost a stat per source file each), all before the preview: it holds the index's write
    # lock until it closes, so nothing in between may need to write it.
    out: list[QueryImpact] = []
    if replays:  # nothing to ask: no preview, no write lock
        index = open_index(ws)
        index.refresh()
        as_it_stands = IndexAsItStands(index)
        befores = [_answer(ws, q, as_it_stands) for q in replays]
        with ScratchIndex(ws, texts, refresh=False) as scratch:
            afters = [_answer(ws, q, scratch) for q in replays]
        out = [QueryImpact(q, before, after, compare_answers(before, after))
               for q, before, after in zip(replays, befores, afters, strict=True)]
    return Impact(r.id, None if hunks is None else list(hunks), sorted(texts), out)


def _answer(ws: Workspace, q: ReplayQuery, index: Searchable) -> list[RecallBlock]:
    return recall(ws, q.query, budget=q.budget, limit=q.limit, include_dormant=q.include_dormant, record=False,
                  index=index)


class IndexAsItStands:
    """The workspace's index searched as it stands, without the refresh `search` does first."""

    def __init__(self, index: SearchIndex):
        self.index = index

    def search(self, query: str, limit: int = 200, order: StrengthOrder | None = None) -> list[Hit]:
        return self.index.query(query, limit, order)


def compare_answers(before: list[RecallBlock], after: list[RecallBlock]) -> list[Change]:
    """What changed between two answers to one question, in the order of the new answer, then
    what left it."""
    old = {item_key(b.kind, b.key): (n, b) for n, b in enumerate(before, 1)}
    changes = []
    for n, b in enumerate(after, 1):
        key = item_key(b.kind, b.key)
        if key not in old:
            changes.append(Change(key, ENTERED, None, n, b.heading))
        elif old[key][0] != n:
            changes.append(Change(key, MOVED, old[key][0], n, b.heading))
        elif (old[key][1].heading, old[key][1].excerpt) != (b.heading, b.excerpt):
            changes.append(Change(key, REWORDED, n, n, b.heading))
    new = {item_key(b.kind, b.key) for b in after}
    changes += [Change(key, LEFT, n, None, b.heading) for key, (n, b) in old.items() if key not in new]
    return changes
