"""TypeClaw's per-turn retrieval for an agent without the vector index (v0.45.1, spec §4.4).

`vector/hybrid.ts` `hybridSearch` with an empty vector lane is its keyword lane (`keywordLane`)
fused by reciprocal rank (`fuseLanes`): the rank of each item is the rank of its first keyword
match, so fusing keeps first-seen order. The keyword lane (through `search-tool.ts`):
1. phrase: the whole prompt, lowercased, as a substring of each document (`searchAll`): topics
   in slug order, then references, then undreamed stream days newest first; at most 20;
2. only if that found nothing: any of the prompt's content words (`distinctHybridContentTokens`:
   English stopwords dropped), ASCII words on alphanumeric boundaries, others as substrings,
   ranked by how many words each document holds (`searchAllRanked`); at most 20.
A topic's document is built by `index.tc_documents` (fast, or whole when the prompt needs it).
A fragment hit becomes every topic citing it actively; superseded fragments are dropped; at most
10 results (`TOP_K`).
"""
from __future__ import annotations

import hashlib
import heapq
import re
from collections import Counter
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from dreamdeck.core.formats.js_text import js_split_whitespace, js_trim
from dreamdeck.core.formats.jscompat import locale_compare_key
from dreamdeck.core.formats.lazy_re import lazy_re
from dreamdeck.core.formats.memory_block import RetrievedItem
from dreamdeck.core.formats.tc_text import excerpt, format_citation, sanitize_provenance_name
from dreamdeck.core.index.tc_documents import (
    fast_docs_exact,
    stream_documents,
    topic_facts,
    whole_documents,
)
from dreamdeck.core.index.tc_haystack import Haystack, haystack
from dreamdeck.core.index.tc_memory import TcDay, TcShard, load_all_shards, load_references, stream_files, undreamed_days
from dreamdeck.core.index.tc_people import (
    Registry,
    enrich_where,
    learn_registry,
    load_people_projection,
    people_of,
    save_people_projection,
)
from dreamdeck.core.index.tc_provenance import DAYS_FILENAME
from dreamdeck.core.io.cache import StampCache
from dreamdeck.core.workspace import Workspace

TOP_K = 10  # index.ts VECTOR_TURN_TOP_K
KEYWORD_MAX = 2 * TOP_K  # hybridSearch asks the keyword lane for topK * 2
LEGACY_HEADING = "[legacy prose from pre-shard migration]"

_CORE = lazy_re(r"^[^a-z0-9]+|[^a-z0-9]+$")
# vector/hybrid.ts HYBRID_PROMPT_STOPWORDS: words a prompt's keyword lane ignores.
HYBRID_STOPWORDS = frozenset("""
a an the and or but i me my mine you your yours he him his she her hers it its we us our ours they them
their theirs this that these those here there what when where who whom whose why how which is am are was
were be been being do does did doing have has had having can could should would will may might must about
as at by for from in into of on onto to with without over under after before between up down out off say
said thing things stuff
""".split())

# --- tokens and matchers ------------------------------------------------------------------------
def content_tokens(prompt: str) -> list[str]:
    """`distinctHybridContentTokens`: distinct lowercased words, English stopwords dropped (judged
    on the word's ASCII core; a word with no core survives only if it has non-ASCII text)."""
    out: list[str] = []
    for token in js_split_whitespace(prompt.lower()):
        if not token or token in out:
            continue
        core = _CORE.sub("", token)
        if not core:
            if token.isascii():
                continue
        elif re.fullmatch(r"[a-z]+", core) and core in HYBRID_STOPWORDS:
            continue
        out.append(token)
    return out


_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def token_matcher(token: str):
    """`buildTokenMatcher(token, 'ascii-boundary')`, on an already lowercased haystack: an ASCII
    token between non-[a-z0-9] characters (or the ends), any other token as a substring. Found
    with `str.find` and its neighbours checked, which is what the boundary regex does, faster."""
    if not token.isascii():
        return lambda lower: token in lower
    size = len(token)

    def matches(lower: str) -> bool:
        at = lower.find(token)
        while at != -1:
            end = at + size
            if (at == 0 or lower[at - 1] not in _ALNUM) and (end == len(lower) or lower[end] not in _ALNUM):
                return True
            at = lower.find(token, at + 1)
        return False

    return matches


def split_body_lines(text: str) -> list[str]:
    """search-tool.ts `splitBodyLines`: split on \\n, a final empty line dropped."""
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


# --- the turn -----------------------------------------------------------------------------------
@dataclass
class TurnMemory:
    """What one turn's retrieval reads (`index.tc_memory` loads it)."""

    shards: list[TcShard]
    references: list[Any]  # TcReference
    days: list[TcDay]  # undreamed, oldest first
    registry: Registry
    vocab: set[str]
    files: list[tuple[str, str]]  # every stream day (date, path), to resolve citations
    days_store: Path | None = None  # where the stream days' provenance records are kept


@dataclass(frozen=True)
class _Match:
    source: str  # topic | reference | stream | legacy
    ref: Any
    date: str = ""
    excerpt: str = ""  # legacy prose: the match's own excerpt, which keys it


def _reference_pieces(ref) -> list[str]:
    return [ref.slug, ref.meta.title, *ref.meta.tags, *split_body_lines(ref.body)]


def _candidates(mem: TurnMemory, topic_docs: list[str], stream_docs: dict[str, str], hit, topics=None):
    """(match, score text) of everything `hit` (a predicate on lowercased text) matches, in
    `searchAll` order: topics, references, stream days newest first. `topics`, when given, are
    the indexes of the topics that match (found in the haystack), in order."""
    if topics is None:
        topics = [n for n, (shard, doc) in enumerate(zip(mem.shards, topic_docs, strict=True))
                  if any(hit(t.lower()) for t in shard.tags or ()) or hit(doc)]
    for n in topics:
        yield _Match("topic", mem.shards[n]), topic_docs[n]
    for ref in mem.references:
        if any(hit(p.lower()) for p in _reference_pieces(ref)):
            yield _Match("reference", ref), "\n".join([ref.slug, ref.meta.title, *ref.meta.tags, ref.body]).lower()
    for day in reversed(mem.days):
        for ev in day.events:
            if ev["type"] == "fragment":
                doc = stream_docs[format_citation(day.date, ev["id"])].lower()
                if hit(doc):
                    yield _Match("stream", ev, day.date), doc
            elif ev["type"] == "legacy_prose":
                lines = split_body_lines(ev["text"])
                first = next((n for n, line in enumerate(lines) if hit(line.lower())), None)
                if first is not None:
                    around = "\n".join(lines[max(0, first - 3):first + 4])  # search-tool.ts excerptForLine
                    yield _Match("legacy", ev, day.date, around), ev["text"].lower()


def _tag_hits(mem: TurnMemory, hit) -> set[int]:
    return {n for n, shard in enumerate(mem.shards) if shard.tags and any(hit(t.lower()) for t in shard.tags)}


def keyword_lane(mem: TurnMemory, prompt: str, whole_docs: bool = False) -> list[_Match]:
    """`keywordLane`: phrase first, then ranked content words; at most KEYWORD_MAX matches.
    `whole_docs` builds TypeClaw's documents whole even when the fast ones are exact (tests).
    Topics are found through one haystack of their documents (`index.tc_haystack`) unless the
    prompt holds a "\0"; then each document is asked."""
    facts = [topic_facts(s) for s in mem.shards]
    tokens = content_tokens(prompt)
    templates = ["streams", *(["memory"] if any(f.memory_prefix for f in facts) else [])]
    if not whole_docs and fast_docs_exact(prompt, tokens, templates, mem.vocab):
        topic_docs = [f.fast_doc for f in facts]
        hay = haystack(topic_docs)
    else:
        topic_docs = whole_documents(mem.shards, facts, mem.files, mem.registry, mem.days_store)
        hay = Haystack(topic_docs)
    stream_docs = stream_documents(mem.days, mem.registry)
    needle = prompt.lower()
    fast = "\0" not in needle

    def has_phrase(h: str) -> bool:
        return needle in h

    topics = sorted(set(hay.containing(needle)) | _tag_hits(mem, has_phrase)) if fast else None
    phrase = [m for m, _ in islice(_candidates(mem, topic_docs, stream_docs, has_phrase, topics), KEYWORD_MAX)]
    if phrase:
        return phrase
    if not tokens or (len(tokens) == 1 and tokens[0] == js_trim(prompt).lower()):
        return []
    matchers = [token_matcher(t) for t in tokens]
    last: list = [None, 0]  # the text `hit` counted last, and its count: a document is scored once

    def hit(text: str) -> bool:
        last[0], last[1] = text, sum(1 for m in matchers if m(text))
        return last[1] > 0

    ranked = []
    if fast:  # the topics' own ranking first (they come first in `searchAll`), without a match object each
        counts: Counter[int] = Counter()
        for token in tokens:
            counts.update(hay.with_word(token))
        ids = sorted(counts.keys() | _tag_hits(mem, hit))
        best = heapq.nsmallest(KEYWORD_MAX, ((-counts[k], n, k) for n, k in enumerate(ids)))
        ranked = [(score, n, _Match("topic", mem.shards[k])) for score, n, k in best]
        rest = _candidates(mem, topic_docs, stream_docs, hit, [])
    else:
        ids, rest = [], _candidates(mem, topic_docs, stream_docs, hit)
    for n, (match, text) in enumerate(rest, start=len(ids)):
        score = last[1] if last[0] is text else sum(1 for m in matchers if m(text))
        ranked.append((-score, n, match))
    ranked.sort(key=lambda r: r[:2])
    return [match for _, _, match in ranked[:KEYWORD_MAX]]


def _legacy_key(date: str, text: str) -> str:
    return f"{date}#legacy-{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()[:12]}"


def fuse(mem: TurnMemory, matches: list[_Match]) -> list[RetrievedItem]:
    """`fuseLanes` + `resolveToParents` with an empty vector lane: first-seen order, a fragment
    as every topic citing it actively, superseded fragments and demoted references dropped."""
    parents, superseded = _parent_links(mem, {m.ref["id"] for m in matches if m.source == "stream"})
    topics = {s.slug: s for s in mem.shards}
    seen: dict[str, RetrievedItem] = {}
    # Items first matched at the same rank: `key.localeCompare` (ICU), accents included, so a
    # topic `é` comes before `t9` (hybrid.ts `fuseLanes`).
    for m in matches:
        for fused, item in sorted(_resolve(m, topics, parents, superseded, mem.registry),
                                  key=lambda g: locale_compare_key(g[1].key)):
            seen.setdefault(fused, item)
    return list(seen.values())[:TOP_K]


def _parent_links(mem: TurnMemory, ids: set[str]) -> tuple[dict[str, list[str]], set[str]]:
    """parent-link.ts `buildParentLinks`, for the fragment ids that matched only: each id's
    actively citing slugs (shard order), and the ids only ever cited as superseded."""
    parents: dict[str, list[str]] = {}
    superseded: set[str] = set()
    if not ids:
        return parents, superseded
    for shard in mem.shards:
        f = topic_facts(shard)
        for fid in ids & f.active_ids:
            parents.setdefault(fid, []).append(shard.slug)
        superseded |= ids & f.superseded_ids
    return parents, superseded - parents.keys()


def _topic_item(shard: TcShard) -> RetrievedItem:
    return RetrievedItem("topic", shard.slug, shard.heading, excerpt(shard.body, shard.heading))


def _resolve(m: _Match, topics, parents, superseded, reg: Registry) -> list[tuple[str, RetrievedItem]]:
    if m.source == "topic":
        return [(f"topic:{m.ref.slug}", _topic_item(m.ref))]
    if m.source == "reference":
        ref = m.ref
        if ref.meta.demoted:
            return []
        return [(f"reference:{ref.slug}", RetrievedItem("reference", ref.slug, ref.meta.title, excerpt(ref.body, ref.meta.title)))]
    if m.source == "legacy":
        key = _legacy_key(m.date, m.excerpt)
        if key != _legacy_key(m.date, m.ref["text"]):
            return []  # TypeClaw keys the match by its excerpt and the item by the text: no item
        return [(f"stream:{key}", RetrievedItem("stream", key, LEGACY_HEADING, excerpt(m.ref["text"], LEGACY_HEADING)))]
    ev = m.ref
    citing = [topics[s] for s in parents.get(ev["id"], []) if s in topics]
    if citing:
        return [(f"topic:{s.slug}", _topic_item(s)) for s in citing]
    if ev["id"] in superseded:
        return []
    where = enrich_where(ev["where"], reg) if ev.get("where") is not None else None
    item = RetrievedItem("stream", f"{m.date}#{ev['id']}", ev["topic"], excerpt(ev["body"], ev["topic"]),
                         sanitize_provenance_name(ev.get("who")), ev["ts"], where)
    return [(f"stream:{item.key}", item)]


# workspaces whose people this process took from the projection (emptied with every cache, as a
# fresh process starts)
_SEEDED: StampCache[bool] = StampCache("typeclaw-people-seeded")


def read_turn_memory(ws: Workspace, shards: list[TcShard] | None = None) -> TurnMemory:
    """Everything one turn's retrieval reads (`hybridSearch`'s loads); `shards` when the turn
    already loaded them (TypeClaw loads them twice per turn, with the same result)."""
    if shards is None:
        shards, _ = load_all_shards(ws)
    files = stream_files(ws)
    if _SEEDED.get(str(ws.root), ()) is not True:  # a fresh process takes the people of old days from the projection
        _SEEDED.put(str(ws.root), (), True)
        load_people_projection(ws, files)
    wheres, vocab = people_of(files)
    save_people_projection(ws, files)
    return TurnMemory(shards, load_references(ws), undreamed_days(ws, files), learn_registry(wheres), vocab, files,
                      ws.lock_dir / DAYS_FILENAME)


def hybrid_search(ws: Workspace, prompt: str, shards: list[TcShard] | None = None) -> list[RetrievedItem]:
    """`hybridSearch(prompt, store, agentDir, 10)` with an empty vector lane."""
    mem = read_turn_memory(ws, shards)
    return fuse(mem, keyword_lane(mem, prompt))
