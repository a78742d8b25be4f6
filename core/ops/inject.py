"""inject: the `# Memory` block TypeClaw v0.45.1 puts into the next turn, byte for byte.

TypeClaw renders memory per turn, into the user message (spec §4; `bundled-plugins/memory/
index.ts` `renderVectorTurnMemory`), for an agent without the vector index as follows:
0. infra turns (`isInternalInfraTurn`: a system origin, a subagent spawned by one, the dreaming
   cron's subagent) get nothing;
1. the plan (`load-memory.ts` `loadMemoryInjectionPlan`, `injection-plan.ts`
   `buildInjectionPlan`): the root `MEMORY.md` as one pseudo-shard when `memory/topics` does not
   exist (cut at 12288 UTF-16 units + "\\n\\n[truncated]"), else every topic shard; `direct` when
   the bodies' UTF-8 bytes fit the budget (default 16384, at least 4096), else `index`;
2. a channel under the budget gets the headings index of every shard, nothing searched;
3. everything else is retrieved (`index.keyword_lane`): a channel gets the retrieved headings
   (or nothing); any other origin gets the retrieved excerpts, or, when nothing matched, the
   headings index of every shard; within a session an excerpt already shown unchanged is
   named instead of repeated (`turn-dedup.ts`, `InjectSession`).
What dreamdeck does differently, on purpose: it never creates TypeClaw's vector store
(`memory/.vectors/index.db`, which a real turn creates), never bumps a reference's access count
in its file, leaves out fragments a person forgot, and records what it returned in the access
record (`store.access`) instead. With the vector index present, TypeClaw would also use its
vector lane, which dreamdeck does not reproduce (`Injection.vector_index` says so).

`mode="direct"` renders the pre-v0.45 section instead (spec Appendix A, before 2026-06-16:
every body under the budget, headings with counts over it): for old workspaces only.
"""
from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from dreamdeck.core.errors import BadInput
from dreamdeck.core.formats.js_text import fnv1a_utf16, utf8_len, utf16_len, utf16_prefix
from dreamdeck.core.formats.memory_block import (
    IndexedShard,
    RetrievedItem,
    render_legacy_section,
    render_retrieved,
    render_retrieved_channel,
    render_topic_index,
)
from dreamdeck.core.index import tc_projection as projection
from dreamdeck.core.index.keyword_lane import hybrid_search
from dreamdeck.core.index.search_feed import ChangeFeed
from dreamdeck.core.index.tc_memory import TopicReadFailed, load_all_shards
from dreamdeck.core.io.append import Flusher
from dreamdeck.core.io.no_links import read_fd, refuse_unusual
from dreamdeck.core.store.access import item_key, record_access
from dreamdeck.core.workspace import Workspace

DEFAULT_BUDGET = 16384  # injection-plan.ts DEFAULT_INJECTION_BUDGET_BYTES
MIN_BUDGET = 4096  # the memory config's minimum for injectionBudgetBytes
MEMORY_MD_UNITS = 12288  # load-memory.ts MAX_FILE_BYTES, counted in UTF-16 units
DREAMING_JOB = "__plugin_memory_dreaming"
MODES = ("turn", "direct")
Search = Callable[[Workspace, str], list[RetrievedItem]]


@dataclass
class Plan:
    """`InjectionPlan`: direct or index, the shards, their body bytes, where they came from."""

    mode: str
    shards: list[IndexedShard]
    total_bytes: int
    budget: int
    source: str  # "topics" or "MEMORY.md"

    def to_json(self) -> dict[str, Any]:
        return {"mode": self.mode, "bytes": self.total_bytes, "budget": self.budget, "source": self.source,
                "shards": [s.slug for s in self.shards]}


@dataclass
class InjectSession:
    """What was injected this session (`turn-dedup.ts` `InjectedMemoryState`): key -> hash."""

    shown: dict[str, str] = field(default_factory=dict)

    def partition(self, items: list[RetrievedItem]) -> list[tuple[RetrievedItem, bool]]:
        """`partitionRetrievedMemoryItems`: (item, changed since last shown) in rank order."""
        out = []
        for item in items:
            key, digest = f"{item.source}:{item.key}", fnv1a_utf16(f"{item.heading}\0{item.excerpt}")
            changed = self.shown.get(key) != digest
            if changed:
                self.shown[key] = digest
            out.append((item, changed))
        return out


@dataclass
class Injection:
    text: str
    origin: dict[str, Any] | None
    render: str  # infra | failed | channel-index | fallback-index | retrieved | retrieved-channel | empty | legacy
    plan: Plan | None = None
    results: list[RetrievedItem] = field(default_factory=list)
    log: str | None = None  # TypeClaw's `[vector-retrieval]` log line for this turn
    warnings: list[str] = field(default_factory=list)
    vector_index: bool = False

    def to_json(self) -> dict[str, Any]:
        plan = self.plan.to_json() if self.plan else {"mode": None, "bytes": 0, "budget": None, "source": None, "shards": []}
        return {**plan, "origin": (self.origin or {}).get("kind"), "render": self.render,
                "results": [r.to_json() for r in self.results], "log": self.log, "warnings": self.warnings,
                "vector_index": self.vector_index, "text": self.text}


def normalize_origin(origin: object) -> dict[str, Any] | None:
    """None (TypeClaw's undefined), "main" (a TUI turn), "channel", or a SessionOrigin dict."""
    if origin is None or isinstance(origin, dict):
        return origin  # type: ignore[return-value]
    if origin in ("main", "tui"):
        return {"kind": "tui"}
    if origin == "channel":
        return {"kind": "channel"}
    raise BadInput(f"unknown origin {origin!r}; choose main or channel")


def is_infra_turn(origin: dict[str, Any] | None) -> bool:
    """index.ts `isInternalInfraTurn`."""
    if origin is None:
        return False
    if origin.get("kind") == "system":
        return True
    if origin.get("kind") != "subagent":
        return False
    parent = origin.get("spawnedByOrigin") or {}
    return parent.get("kind") == "system" or (parent.get("kind") == "cron" and parent.get("jobId") == DREAMING_JOB)


def injection_plan(ws: Workspace, budget: int, feed: ChangeFeed | None = None) -> tuple[Plan, list[str]]:
    """`loadMemoryInjectionPlan` + `buildInjectionPlan`; TopicReadFailed when TypeClaw's throws."""
    root_memory = _read_memory_md(ws)
    if root_memory is not None and not ws.topics_dir.exists():
        pseudo = IndexedShard("pre-migration-content", "[PRE-MIGRATION CONTENT]", root_memory, 0, 0, "unknown",
                              str(ws.root / "MEMORY.md"))
        return _plan([pseudo], budget, "MEMORY.md"), []
    shards, warnings = load_all_shards(ws, feed)  # TcShard has IndexedShard's fields
    return _plan(shards, budget, "topics"), warnings  # type: ignore[arg-type]


# a body's bytes, remembered per body text (the same strings every turn while no shard changed)
_body_bytes = lru_cache(maxsize=1 << 16)(utf8_len)


def _plan(shards: list[IndexedShard], budget: int, source: str) -> Plan:
    total = sum(map(_body_bytes, [s.body for s in shards]))
    return Plan("direct" if total <= budget else "index", shards, total, budget, source)


def _read_memory_md(ws: Workspace) -> str | None:
    """load-memory.ts `readEntry(agentDir, 'MEMORY.md')` with its 12288-unit cap."""
    path = ws.root / "MEMORY.md"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))  # a FIFO never blocks the open
    except FileNotFoundError:
        return None
    try:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise TopicReadFailed("EISDIR: illegal operation on a directory, read")
        # a FIFO or a device would hang the read or never end it: one line naming it
        raw = read_fd(fd, refuse_unusual(fd, path, sole_name=False).st_size).decode("utf-8", "replace")
    finally:
        os.close(fd)
    return raw if utf16_len(raw) <= MEMORY_MD_UNITS else utf16_prefix(raw, MEMORY_MD_UNITS) + "\n\n[truncated]"


def _check(query: object, budget: object, mode: str) -> None:
    if not isinstance(query, str):
        raise BadInput("inject needs the turn's text (a string; it may be empty)")
    if not isinstance(budget, int) or isinstance(budget, bool) or budget < MIN_BUDGET:
        raise BadInput(f"injection budget must be at least {MIN_BUDGET} bytes, as TypeClaw's config requires (got {budget!r})")
    if mode not in MODES:
        raise BadInput(f"unknown mode {mode!r}; choose turn or direct")


def inject(ws: Workspace, query: str = "", *, origin: object = None, budget: int = DEFAULT_BUDGET,
           session: InjectSession | None = None, search: Search | None = None, mode: str = "turn",
           record: bool = True, feed: ChangeFeed | None = None, flusher: Flusher | None = None) -> Injection:
    """The block for a turn whose user text is `query` (see the module docstring); `feed`, a
    running change feed over memory/ (`index.search_feed`), spares re-proving every shard fresh;
    `flusher`: the access record's fsync comes soon after (`io.append.Flusher`)."""
    _check(query, budget, mode)
    kind = normalize_origin(origin)
    if is_infra_turn(kind):
        return Injection("", kind, "infra")
    vectors = (ws.memory / ".vectors" / "index.db").exists()
    projection.seed(ws)
    try:
        plan, warnings = injection_plan(ws, budget, feed)
    except TopicReadFailed as exc:
        return Injection("", kind, "failed", log=f"vector-retrieval failed: {exc}", vector_index=vectors)
    out = _render(ws, query, kind, plan, session, search, mode)
    projection.save(ws)
    out.warnings, out.vector_index = warnings, vectors
    if record and out.text:  # what the agent was shown: retrieved items (a headings index shows none)
        record_access(ws, "inject", query, [item_key(r.source, r.key) for r in out.results],
                      {"origin": (kind or {}).get("kind"), "render": out.render, "budget": budget}, flusher=flusher)
    return out


def _render(ws: Workspace, query: str, kind: dict[str, Any] | None, plan: Plan, session: InjectSession | None,
            search: Search | None, mode: str) -> Injection:
    """index.ts `renderVectorTurnMemory` from the plan on (or the old section, `mode="direct"`)."""
    channel = (kind or {}).get("kind") == "channel"
    if mode == "direct":
        return Injection(render_legacy_section(plan.shards, plan.mode, channel), kind, "legacy", plan)
    if plan.mode == "direct" and channel:
        log = f"[vector-retrieval] mode=index topics={len(plan.shards)} channel=forced"
        return Injection(render_topic_index(plan.shards, channel=True), kind, "channel-index", plan, log=log)
    started = time.perf_counter()
    try:
        loaded = plan.shards if plan.source == "topics" else None  # the shards this turn read
        results = search(ws, query) if search is not None else hybrid_search(ws, query, loaded)  # type: ignore[arg-type]
    except TopicReadFailed as exc:
        return Injection("", kind, "failed", plan, log=f"vector-retrieval failed: {exc}")
    elapsed = int((time.perf_counter() - started) * 1000)
    fallback = not channel and not results and bool(plan.shards)
    log = _retrieval_log(results, elapsed, fallback)
    if fallback:
        return Injection(render_topic_index(plan.shards, channel=False), kind, "fallback-index", plan, log=log)
    if channel:
        return Injection(render_retrieved_channel(results), kind, "retrieved-channel" if results else "empty", plan, results, log)
    entries = (session or InjectSession()).partition(results)
    return Injection(render_retrieved(entries), kind, "retrieved" if results else "empty", plan, results, log)


def _retrieval_log(results: list[RetrievedItem], elapsed_ms: int, fallback: bool) -> str:
    topics = sum(1 for r in results if r.source == "topic")
    refs = sum(1 for r in results if r.source == "reference")
    line = (f"[vector-retrieval] mode=index topic_results={topics} stream_results={len(results) - topics - refs} "
            f"reference_results={refs} elapsed_ms={elapsed_ms}")
    return line + (" suppressed=1" if not results else "") + (" fallback=topic-index" if fallback else "")
