"""Recall: what the agent gets back for a question — ranked, decay-aware, cut to a budget.

One call in, a bounded list of blocks out (`RecallBlock`), shaped so a memory-plane service can
serve it as it is. The steps:
1. the search index (`index.search`, refreshed from the files first) finds documents by BM25;
2. decay (Moltbot §9, `index.strength`) shapes the ranking: active and pinned items rank by
   relevance alone, fading ones are deprioritized (relevance × their decay score), dormant ones
   only come back when asked (`include_dormant`), archived ones never; the vault never decays;
3. a pinned belief is shown once, as its vault copy;
4. the budget (joelclaw's profiles: lean 2–3 hits, balanced 5–7, deep 10–15; `auto` picks one
   from the query) cuts the list: hits past the profile's minimum must score at least
   `TAIL_RATIO` of the best, and the blocks' bytes never exceed the byte budget (the last block's
   excerpt is shortened to fit, or it is left out);
5. what was returned is appended to the access record (`store.access`), which feeds decay.
Steps 2–4 look only at the best `FIRST_CANDIDATES` documents by BM25 first, and at four times
more while a document below them could still change the answer (`_rank`, `_cut`): decay and the
vault only multiply BM25 by a weight in [0, 1], so one below scores at most the last one's BM25.
The answer is always the one ranking every match would give (a match as `index.search` finds it:
a word in half the documents or more, which BM25 weighs at ~0, is not asked for when the query
holds a rarer one, `index.search_cut`).

A query with no discriminating word (every word it matches by is in half the documents or more:
"user" where every belief is about the user) is not ranked by BM25, whose differences there are
~1e-6 and say nothing about relevance; its matches come strongest first (`index.search_strength`:
pinned, then by the decay value before clamping, so more reinforced and more recently used
memories first), and a block's score is its decay weight alone (`why["ranked_by"]` is
"strength", `why["bm25"]` None). The index picks the strongest in SQL, so this too looks only
at the first candidates, and the same statuses and budgets apply.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any, Protocol

from dreamdeck.core.errors import BadInput, NotFound
from dreamdeck.core.formats.lazy_re import lazy_re
from dreamdeck.core.formats.search_terms import content_words
from dreamdeck.core.index.search import Hit, open_index
from dreamdeck.core.index.search_strength import StrengthOrder, decay_inputs, own_days
from dreamdeck.core.index.strength import age_days, decay_score, decay_status, ladder_tier, usage_of_belief
from dreamdeck.core.io.append import Flusher
from dreamdeck.core.store.access import Usage, access_summary, item_key, record_access
from dreamdeck.core.store.settings import DecaySettings, load_settings
from dreamdeck.core.workspace import Workspace

BUDGETS = ("lean", "balanced", "deep", "auto")
TAIL_RATIO = 0.3
FIRST_CANDIDATES = 32  # hits ranked first; four times more each time one below could still overtake
_DEEP_WORDS = lazy_re(r"\b(why|how|compare|explain|debug|difference|history|versus|vs)\b")


class Searchable(Protocol):
    def search(self, query: str, limit: int = 200, order: StrengthOrder | None = None) -> list[Hit]: ...


@dataclass(frozen=True)
class Profile:
    name: str
    min_hits: int
    max_hits: int
    max_bytes: int


PROFILES = {
    "lean": Profile("lean", 2, 3, 1_500),
    "balanced": Profile("balanced", 5, 7, 4_000),
    "deep": Profile("deep", 10, 15, 12_000),
}


@dataclass(frozen=True)
class RecallBlock:
    """One thing the agent is shown: kind (`topic`, `vault`, `stream`, `reference`), key (slug or
    `DATE#ID`), heading, excerpt, the final score, and why (bm25, decay, status, tier, access)."""

    kind: str
    key: str
    heading: str
    excerpt: str
    score: float
    why: dict[str, Any] = field(default_factory=dict)
    path: str = ""

    @property
    def size(self) -> int:
        """What the block costs the budget: the UTF-8 bytes of its heading and excerpt."""
        return block_size(self.heading, self.excerpt)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "key": self.key, "heading": self.heading, "excerpt": self.excerpt,
                "score": self.score, "why": self.why, "path": self.path}


def block_size(heading: str, excerpt: str) -> int:
    return len(heading.encode("utf-8")) + 1 + len(excerpt.encode("utf-8"))


def choose_profile(query: str) -> Profile:
    """`auto`: a word or two is a lookup (lean); a long or why/how question wants depth."""
    words = content_words(query)
    if words <= 2 and "?" not in query:
        return PROFILES["lean"]
    if words >= 9 or (words >= 4 and _DEEP_WORDS.search(query.lower())):
        return PROFILES["deep"]
    return PROFILES["balanced"]


def _check(ws: Workspace, query: object, budget: str, limit: int | None, max_bytes: int | None) -> Profile:
    if not isinstance(query, str) or not query.strip():
        raise BadInput("recall needs a query: say what to remember")
    if budget not in BUDGETS:
        raise BadInput(f"unknown budget {budget!r}; choose one of {', '.join(BUDGETS)}")
    if limit is not None and (not isinstance(limit, int) or limit < 1):
        raise BadInput(f"limit must be a whole number of results, 1 or more (got {limit!r})")
    if max_bytes is not None and (not isinstance(max_bytes, int) or max_bytes < 1):
        raise BadInput(f"max_bytes must be a whole number of bytes, 1 or more (got {max_bytes!r})")
    if not ws.memory.is_dir():
        raise NotFound(f"no memory in {ws.root}: there is no memory/ folder (append a fragment first)")
    return choose_profile(query) if budget == "auto" else PROFILES[budget]


def recall(ws: Workspace, query: str, budget: str = "balanced", limit: int | None = None,
           include_dormant: bool = False, max_bytes: int | None = None, record: bool = True,
           index: Searchable | None = None, now: datetime | None = None,
           flusher: Flusher | None = None) -> list[RecallBlock]:
    """What the agent should remember for `query`, best first, within the budget (module
    docstring). `record=False` leaves the access record alone (a preview, not a recall);
    `index` searches another index than the workspace's (a preview's `ScratchIndex`); `now` is
    when the recall happened, as recorded (default: the clock); `flusher`: the record's fsync
    comes soon after (`io.append.Flusher`)."""
    profile = _check(ws, query, budget, limit, max_bytes)
    if index is None:
        live = open_index(ws)
        live.refresh()  # once: each wider look below asks the index as it stands
        search = live.query
    else:
        search = index.search
    access, today, decay = access_summary(ws.memory, ws.lock_dir), ws.today(), load_settings(ws.root).decay
    rank = partial(_rank, access=access, today=today, decay=decay, include_dormant=include_dormant, vault=_vault_slugs(ws))
    order = StrengthOrder(today, decay, access)
    k = FIRST_CANDIDATES
    while True:
        hits = search(query, k, order)
        ranked, bound = rank(hits, len(hits) < k)
        blocks = _cut(ranked, profile, limit, max_bytes, bound)
        if blocks is not None:
            break
        k *= 4
    if record:
        record_access(ws, "recall", query, [item_key(b.kind, b.key) for b in blocks],
                      {"budget": profile.name, "limit": limit, "include_dormant": include_dormant}, now=now,
                      flusher=flusher)
    return blocks


def _vault_slugs(ws: Workspace) -> frozenset[str]:
    try:
        return frozenset(n[:-3] for n in os.listdir(ws.memory / "vault") if n.endswith(".md"))
    except (FileNotFoundError, NotADirectoryError):
        return frozenset()


def _rank(hits: list[Hit], complete: bool, *, access: dict[str, Usage], today: str, decay: DecaySettings,
          include_dormant: bool, vault: frozenset[str]) -> tuple[list[RecallBlock], float | None]:
    """The hits as blocks, best first, and the most any block not among them may score (None:
    the hits are every match). When they are only the best by BM25, only the blocks no other
    match could overtake (decay and the vault only ever multiply BM25 by a weight in [0, 1]),
    up to the first topic whose pinned copy might be among the others (its score is the bound)."""
    if hits and hits[0].by_strength:
        return _rank_by_strength(hits, complete, access, today, decay, include_dormant)
    bound = None
    pinned = {h.key for h in hits if h.kind == "vault"}
    out = []
    for hit in hits:
        if hit.kind == "topic" and hit.key in pinned:
            continue  # the belief is shown once, as the copy a person pinned
        score, status, tier, usage = _decay_of(hit, access, today, decay)
        if status == "archived" or (status == "dormant" and not include_dormant):
            continue
        weight = 1.0 if status in ("active", "pinned") else score
        why = {"bm25": _sig(hit.relevance), "decay": _sig(score), "status": status, "tier": tier,
               "weight": _sig(weight), "access_count": usage.count if usage else 0,
               "last_access": usage.last_day if usage else None}
        out.append(RecallBlock(hit.kind, hit.key, hit.heading, hit.excerpt, hit.relevance * weight, why, hit.path))
    out.sort(key=lambda b: (-b.score, b.kind, b.key))
    if not complete and hits:
        # A match not among the hits scores at most the last hit's BM25, and one that ties with
        # it comes after it in (kind, key) order (`index.search.query_connection`).
        last = hits[-1]
        bound, sure = last.relevance, 0
        while sure < len(out) and (out[sure].score > bound or (
                out[sure].score == bound and (out[sure].kind, out[sure].key) <= (last.kind, last.key))):
            if out[sure].kind == "topic" and out[sure].key in vault:
                bound = out[sure].score  # it, and what follows it, may yet be shown
                break
            sure += 1
        out = out[:sure]
    blocks = [RecallBlock(b.kind, b.key, b.heading, b.excerpt, _sig(b.score), b.why, b.path) for b in out]
    return blocks, bound


def _rank_by_strength(hits: list[Hit], complete: bool, access: dict[str, Usage], today: str, decay: DecaySettings,
                      include_dormant: bool) -> tuple[list[RecallBlock], float | None]:
    """`_rank` for hits strongest first (a query with no discriminating word): their order is
    kept, each scores its decay weight, and every match not among them comes after the last
    (so scores at most its weight). A pinned copy comes before its topic, so a topic whose copy
    matched is seen with it."""
    pinned = {h.key for h in hits if h.kind == "vault"}
    out = []
    weight = 1.0
    for hit in hits:
        score, status, tier, usage = _decay_of(hit, access, today, decay)
        weight = 1.0 if status in ("active", "pinned") else score
        if (hit.kind == "topic" and hit.key in pinned) or status == "archived" or (status == "dormant" and not include_dormant):
            continue
        why = {"bm25": None, "ranked_by": "strength", "decay": _sig(score), "status": status, "tier": tier,
               "weight": _sig(weight), "access_count": usage.count if usage else 0,
               "last_access": usage.last_day if usage else None}
        out.append(RecallBlock(hit.kind, hit.key, hit.heading, hit.excerpt, _sig(weight), why, hit.path))
    return out, (None if complete else weight)


def _sig(x: float) -> float:
    """Six significant digits: BM25 gives a word found in most documents a relevance near 1e-6
    (its IDF floor), which fixed decimals would show as 0."""
    return float(f"{x:.6g}")


def _decay_of(hit: Hit, access: dict[str, Usage], today: str, decay: DecaySettings):
    """(decay score, status, wording tier, usage) of one hit, by its store (`index.strength`;
    its inputs: `index.search_strength.decay_inputs`, which the strength ranking uses too)."""
    topical = hit.kind in ("topic", "vault")
    usage = usage_of_belief(access, hit.key) if topical else access.get(item_key(hit.kind, hit.key))
    tier = ladder_tier(own_days(hit.info)) if topical else None
    inputs = decay_inputs(hit.kind, hit.info, usage, today)
    if inputs.pinned:
        return 1.0, "pinned", tier, usage
    score = decay_score(inputs.accesses, age_days(today, inputs.last), decay, base=inputs.base,
                        type_weight=inputs.type_weight)
    return score, decay_status(score, decay), tier, usage


def _cut(ranked: list[RecallBlock], profile: Profile, limit: int | None, max_bytes: int | None,
         bound: float | None = None) -> list[RecallBlock] | None:
    """The blocks within the budget. `ranked` may be only the first blocks of the whole ranking,
    every other one scoring `bound` at most: None when the answer depends on one of those."""
    max_hits = profile.max_hits if limit is None else limit
    min_hits = min(profile.min_hits, max_hits)
    budget = profile.max_bytes if max_bytes is None else max_bytes
    out: list[RecallBlock] = []
    used = 0
    for block in ranked[:max_hits]:
        if len(out) >= min_hits and block.score < TAIL_RATIO * ranked[0].score:
            return out
        if used + block.size > budget:
            fitted = _fit(block, budget - used)
            if fitted is not None:
                out.append(fitted)
            return out
        out.append(block)
        used += block.size
    if bound is None or len(ranked) >= max_hits:
        return out
    # The next block is one not ranked here: it is cut for sure only by the tail rule.
    if ranked and len(out) >= min_hits and _sig(bound) < TAIL_RATIO * ranked[0].score:
        return out
    return None


def _fit(block: RecallBlock, room: int) -> RecallBlock | None:
    """The block with its excerpt shortened (ending in "…") to fit `room` bytes, or None."""
    spare = room - block_size(block.heading, "…")
    if spare < 16:  # not even a line of excerpt fits: leave it out
        return None
    cut = block.excerpt.encode("utf-8")[:spare].decode("utf-8", "ignore").rstrip()
    fitted = RecallBlock(block.kind, block.key, block.heading, cut + "…", block.score, {**block.why, "cut": True}, block.path)
    return fitted if fitted.size <= room else None
