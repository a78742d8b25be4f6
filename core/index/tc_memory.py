"""Memory as TypeClaw's per-turn retrieval reads it (v0.45.1), for `ops.inject`.

- topics: `load-shards.ts` `loadAllShards` — every `memory/topics/*.md` (any name), its slugs sorted
  by UTF-16 code units, strict parse, malformed ones skipped with a warning, and a name that
  `topicShardPath` refuses (starting with ".", holding "..", "/" or "\\") fails the whole read;
- references: `references/load-references.ts` `loadAllReferences` (demoted ones included: the
  retrieval drops them later);
- the undreamed tail: `stream-io.ts` `readAllStreamDays` + `filterUndreamedEvents` — one entry
  per day that still has events not in the day's dreamed ids (legacy prose always counts).
  dreamdeck also leaves out fragments a person forgot (tombstones, by id and content): a
  forgotten fragment never returns, not even in TypeClaw's block as dreamdeck renders it;
- who and where: `provenance-index.ts`, the names learned from every fragment's `where`, newest
  first (`learnWhere`), which fill in a chat's name where a fragment lacks it (`enrichWhere`).

Reading a year of streams for names would cost seconds per turn, so each day's people (the
fragments that carry `who` or `where`) are kept per file stamp, in memory and in a projection
beside the locks; only a changed day file is read again.

Over ~400 lines on purpose: TypeClaw's one reading of memory for a turn (topics, references, the
tail, the names registry) is kept together, each part citing the TypeClaw function it mirrors.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dreamdeck.core.errors import BadFile
from dreamdeck.core.formats.js_text import code_unit_key
from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.formats.references import ReferenceMeta, ReferenceParseError, parse_reference
from dreamdeck.core.formats.shards import ShardParseError, parse_shard
from dreamdeck.core.formats.stream_lines import STREAM_FILE, parse_stream_bytes
from dreamdeck.core.formats.tc_text import safe_coordinate, sanitize_provenance_name
from dreamdeck.core.index.stream_scan import DreamedDays, fragment_ids
from dreamdeck.core.io.cache import MISS, StampCache, clock, file_stamp, settled
from dreamdeck.core.store.state import load_state
from dreamdeck.core.store.streams import stream_dir
from dreamdeck.core.store.tombstones import forgotten, tombstones_path
from dreamdeck.core.workspace import Workspace

if TYPE_CHECKING:
    from dreamdeck.core.index.search_feed import ChangeFeed

MAX_COORDINATES = 20_000  # provenance-index.ts: names are learned from this many newest `where`s
MAX_ALIASES = 12


class TopicReadFailed(BadFile):
    """`loadAllShards` threw: TypeClaw injects nothing this turn (its log says why)."""


@dataclass(frozen=True)
class TcShard:
    slug: str
    heading: str
    tags: tuple[str, ...] | None
    body: str
    path: str
    cites: int = 0
    days: int = 0
    last_reinforced: str = ""


@dataclass(frozen=True)
class TcReference:
    slug: str
    meta: ReferenceMeta
    body: str


@dataclass(frozen=True)
class TcDay:
    """One stream day's undreamed events (validated event dicts, file order)."""

    date: str
    events: tuple[dict[str, Any], ...]


_SHARDS: StampCache[tuple[TcShard | None, str | None]] = StampCache("typeclaw-shards", max_entries=200_000)


def _read_text(path: str) -> str:
    with open(path, "rb") as fh:
        return fh.read().decode("utf-8", "replace")


def _js_sorted(names: list[str]) -> list[str]:
    """JavaScript's `sort()` (UTF-16 code units). Without a character past U+FFFF the code units
    are the code points, so Python's own order is the same and much cheaper."""
    if not names or max(map(max, names)) <= "\uffff":
        return sorted(names)
    return sorted(names, key=code_unit_key)


_LISTED: dict[str, tuple[Any, int, tuple[list[TcShard], list[str]]]] = {}  # topics folder -> (feed, generation, answer)


def load_all_shards(ws: Workspace, feed: ChangeFeed | None = None) -> tuple[list[TcShard], list[str]]:
    """(shards, warnings) as `loadAllShards` returns them; TopicReadFailed when it throws.
    Each file is stat()ed (through the folder's descriptor) and read again only when changed;
    with a change feed (`index.search_feed`) that vouches nothing under memory/ changed since the
    last answer, that answer is given again without a stat."""
    generation = feed.barrier() if feed is not None else None
    last = _LISTED.get(str(ws.topics_dir))
    if generation is not None and last is not None and last[0] is feed and last[1] == generation:
        return list(last[2][0]), list(last[2][1])
    answer = _load_all_shards(ws)
    if generation is not None:  # a change after the barrier moves the generation on
        _LISTED[str(ws.topics_dir)] = (feed, generation, answer)
    return list(answer[0]), list(answer[1])


def _load_all_shards(ws: Workspace) -> tuple[list[TcShard], list[str]]:
    folder = str(ws.topics_dir)
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except (FileNotFoundError, NotADirectoryError):
        return [], []
    try:
        # `listShardSlugs` (load-shards.ts) sorts the slugs, not the file names: `a` comes
        # before `a-b`, though `a-b.md` sorts before `a.md`.
        slugs = _js_sorted([n[:-3] for n in os.listdir(fd) if n.endswith(".md")])
        shards, warnings = [], []
        for slug in slugs:
            name = slug + ".md"
            if ".." in slug or "/" in slug or "\\" in slug or slug.startswith("."):  # paths.ts topicShardPath
                raise TopicReadFailed(f"invalid topic slug: {json.dumps(slug, ensure_ascii=False)}")
            shard, warning = _shard(folder, fd, name, slug)
            if shard is not None:
                shards.append(shard)
            if warning is not None:
                warnings.append(warning)
        return shards, warnings
    finally:
        os.close(fd)


def _shard(folder: str, fd: int, name: str, slug: str) -> tuple[TcShard | None, str | None]:
    path = f"{folder}/{name}"
    started = clock()
    try:
        st = os.stat(name, dir_fd=fd)
    except FileNotFoundError:
        return None, None
    stamp = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
    hit = _SHARDS.get(path, stamp)
    if hit is not MISS:
        return hit  # type: ignore[return-value]
    try:
        text = _read_text(path)
    except FileNotFoundError:
        return None, None
    except IsADirectoryError:
        raise TopicReadFailed("EISDIR: illegal operation on a directory, read") from None
    try:
        meta, body = parse_shard(text)
        result: tuple[TcShard | None, str | None] = (
            TcShard(slug, meta.heading, meta.tags, body, path, meta.cites, meta.days, meta.last_reinforced), None)
    except ShardParseError as exc:
        result = (None, f"[memory] skipping malformed topic shard {slug}: {exc}")
    if _SHARDS.put_if_settled(path, stamp, result, started):
        _FRESH_SHARDS.append((path, stamp, result))
    return result


_FRESH_SHARDS: list[tuple[str, tuple, tuple[TcShard | None, str | None]]] = []  # parsed, not yet projected


def take_fresh_shards() -> list[tuple[str, tuple, tuple[TcShard | None, str | None]]]:
    """(path, stamp, (shard, warning)) parsed by this process since the last call (settled only)."""
    out = _FRESH_SHARDS[:]
    del _FRESH_SHARDS[:len(out)]
    return out


def remember_shard(path: str, stamp: tuple, result: tuple[TcShard | None, str | None]) -> None:
    """Take a shard parsed by an earlier process (`index.tc_projection`), trusted for `stamp` only."""
    _SHARDS.put(path, stamp, result)


def load_references(ws: Workspace) -> list[TcReference]:
    """`loadAllReferences`: every parseable `memory/references/*.md`, sorted; demoted kept."""
    folder = ws.references_dir
    try:
        # `listReferenceSlugs` (load-references.ts) sorts the slugs, as `loadAllShards` does.
        slugs = _js_sorted([n[:-3] for n in os.listdir(folder) if n.endswith(".md")])
    except (FileNotFoundError, NotADirectoryError):
        return []
    out = []
    for name in (slug + ".md" for slug in slugs):
        try:
            meta, body = parse_reference(_read_text(os.path.join(folder, name)))
        except (FileNotFoundError, IsADirectoryError, ReferenceParseError):
            continue
        out.append(TcReference(name[:-3], meta, body))
    return out


def stream_files(ws: Workspace) -> list[tuple[str, str]]:
    """(date, path) of every stream day, oldest first (`readAllStreamDays`' listing)."""
    folder = stream_dir(ws)
    if folder is None:
        return []
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return []
    days = [(m.group(1), os.path.join(folder, n)) for n in names if (m := STREAM_FILE.match(n))]
    return sorted(d for d in days if os.path.isfile(d[1]))


# workspace -> (signature, days): one entry per workspace, its signature checked by the caller
_UNDREAMED: StampCache[tuple[tuple, list[TcDay]]] = StampCache("typeclaw-undreamed", max_entries=64)


def undreamed_days(ws: Workspace, files: list[tuple[str, str]]) -> list[TcDay]:
    """Days with events not yet dreamed (and not forgotten), oldest first; the last answer is
    kept while the state, the tombstones and every stream file keep their stamps."""
    started = clock()
    stamps = (file_stamp(ws.state_path), file_stamp(tombstones_path(ws)), *(file_stamp(p) for _, p in files))
    signature = (tuple(files), stamps)
    hit = _UNDREAMED.get(str(ws.root), ())
    if hit is not MISS and hit[0] == signature:  # type: ignore[index]
        return hit[1]  # type: ignore[index]
    days = _undreamed_days(ws, files)
    if all(s is None or settled(s, started) for s in stamps):
        _UNDREAMED.put(str(ws.root), (), (signature, days))
    return days


def cached_undreamed(ws: Workspace) -> tuple[tuple, list[TcDay]] | None:
    """(signature, days) of the last undreamed answer kept for `ws` (for `index.tc_projection`)."""
    hit = _UNDREAMED.get(str(ws.root), ())
    return None if hit is MISS else hit  # type: ignore[return-value]


def remember_undreamed(ws: Workspace, signature: tuple, days: list[TcDay]) -> None:
    """Take an answer an earlier process computed; it is used only while its signature holds."""
    if cached_undreamed(ws) is None:
        _UNDREAMED.put(str(ws.root), (), (signature, days))


def _undreamed_days(ws: Workspace, files: list[tuple[str, str]]) -> list[TcDay]:
    from dreamdeck.core.index.undreamed import shared_digest
    from dreamdeck.core.store.reflections import held_keys

    started = clock()
    state, _ = load_state(ws.state_path)
    stones = forgotten(ws)
    held = held_keys(ws)
    # `index.undreamed`'s projection of fully dreamed days: each of its days holds only fragments
    # dreamed, forgotten by id or held. With no id forgotten and none held that day, only dreamed
    # ones: such a day is skipped unread, as the check below would skip it.
    known, shared, held_days = DreamedDays(ws), shared_digest(stones, held), {d for d, _ in held}
    out = []
    for date, path in files:
        summary = day_summary(path)
        digest = DreamedDays.digest([state.ids_digest(date), shared])
        if (not summary.has_legacy and not stones.ids and date not in held_days and state.ids_digest(date) != _NO_IDS
                and known.fully_dreamed(Path(path), digest)):
            continue
        dreamed = state.dreamed_ids(date)
        if dreamed and not summary.has_legacy and dreamed.issuperset(fragment_ids(Path(path))):
            known.mark(Path(path), digest, started)
            continue  # every fragment dreamed (undreamed watermarks are never searched)
        events = []
        for ln in parse_stream_bytes(_read_bytes(path)):
            ev = ln.event
            if ev is None or (dreamed and ev["type"] != "legacy_prose" and ev["id"] in dreamed):
                continue
            if stones.holds_event(ev):
                continue
            events.append(ev)
        if events:
            out.append(TcDay(date, tuple(events)))
    known.save()
    return out


_NO_IDS = DreamedDays.digest([])  # the digest of a day with no dreamed ids


def _read_bytes(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        return b""


# --- people: who and where, per day file -------------------------------------------------------
@dataclass(frozen=True)
class DaySummary:
    has_legacy: bool
    people: tuple[tuple[str | None, dict[str, Any] | None], ...]  # (who, where) of fragments with either, file order


_MARKERS = (b'"who"', b'"where"', b'"legacy_prose"')  # found by memchr-speed search, not a regex
_SUMMARIES: StampCache[DaySummary] = StampCache("typeclaw-day-people", max_entries=4096)
PROJECTION = "typeclaw-people.json"
_computed = [0]  # summaries read from a stream file (not the projection) since the last save


def day_summary(path: str) -> DaySummary:
    """Whether a day has legacy prose, and its fragments' who/where."""
    started, stamp = clock(), file_stamp(path)
    if stamp is None:
        return DaySummary(False, ())
    hit = _SUMMARIES.get(path, stamp)
    if hit is not MISS:
        return hit  # type: ignore[return-value]
    data = _read_bytes(path)
    if not any(marker in data for marker in _MARKERS):
        summary = DaySummary(False, ())
    else:
        people, legacy = [], False
        for ln in parse_stream_bytes(data):
            ev = ln.event
            if ev is None:
                continue
            legacy |= ev["type"] == "legacy_prose"
            if ev["type"] == "fragment" and ("who" in ev or "where" in ev):
                people.append((ev.get("who"), ev.get("where")))
        summary = DaySummary(legacy, tuple(people))
    _SUMMARIES.put_if_settled(path, stamp, summary, started)
    _computed[0] += 1
    return summary


def load_people_projection(ws: Workspace, files: list[tuple[str, str]]) -> None:
    """Seed the in-memory summaries from the projection beside the locks (a fresh process)."""
    try:
        data = load_json((ws.lock_dir / PROJECTION).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if not isinstance(data, dict):
        return
    for _, path in files:
        entry = data.get(path)
        stamp = file_stamp(path)
        if isinstance(entry, list) and len(entry) == 3 and stamp is not None and entry[0] == list(stamp):
            people = tuple((p[0], p[1]) for p in entry[2] if isinstance(p, list) and len(p) == 2)
            _SUMMARIES.put(path, stamp, DaySummary(bool(entry[1]), people))


def save_people_projection(ws: Workspace, files: list[tuple[str, str]]) -> None:
    """Write the summaries back when some were read from the streams (a projection: no fsync)."""
    if not _computed[0]:
        return
    _computed[0] = 0
    started = clock()
    out = {}
    for _, path in files:
        stamp = file_stamp(path)
        hit = _SUMMARIES.get(path, stamp) if stamp is not None else MISS
        if hit is not MISS and settled(stamp, started):  # type: ignore[arg-type]
            out[path] = [list(stamp), hit.has_legacy, [list(p) for p in hit.people]]  # type: ignore[union-attr,arg-type]
    from dreamdeck.core.io.atomic import atomic_write_text

    try:
        atomic_write_text(ws.lock_dir / PROJECTION, json.dumps(out, ensure_ascii=False), sync_dir=False)
    except OSError:
        pass  # a projection: read the streams again next time


# --- the names registry (provenance-index.ts) --------------------------------------------------
@dataclass
class Registry:
    """What `learnWhere` learned, newest first: workspace names, chat names, parent chats."""

    workspaces: dict[str, list[str]] = field(default_factory=dict)
    chats: dict[str, dict[str, Any]] = field(default_factory=dict)

    def workspace_aliases(self, where: dict[str, Any]) -> list[str]:
        return self.workspaces.get(f"{where.get('adapter')}\0{where.get('workspace')}", [])

    def chat(self, where: dict[str, Any]) -> dict[str, Any] | None:
        return self.chats.get(_chat_key(where))


def _chat_key(where: dict[str, Any]) -> str:
    return f"{where.get('adapter')}\0{where.get('workspace')}\0{where.get('chat')}"


def _observe(values: list[str], value: str | None) -> None:
    if value is not None and value not in values and len(values) < MAX_ALIASES:
        values.append(value)


def learn_registry(wheres_newest_first: list[dict[str, Any]]) -> Registry:
    """`learnWhere` over the newest `MAX_COORDINATES` coordinates, in one newest-first batch."""
    reg = Registry()
    for where in wheres_newest_first[:MAX_COORDINATES]:
        if not all(safe_coordinate(where.get(k)) for k in ("adapter", "workspace", "chat")):
            continue
        ws_name = sanitize_provenance_name(where.get("workspaceName"))
        if ws_name is not None:
            _observe(reg.workspaces.setdefault(f"{where['adapter']}\0{where['workspace']}", []), ws_name)
        record = reg.chats.setdefault(_chat_key(where), {"names": [], "parentChatNames": []})
        _observe(record["names"], sanitize_provenance_name(where.get("chatName")))
        parent = where.get("parentChat")
        if isinstance(parent, str) and safe_coordinate(parent):
            record["parentChat"] = parent  # the last one seen, the oldest, wins (as TypeClaw's loop)
        _observe(record["parentChatNames"], sanitize_provenance_name(where.get("parentChatName")))
    return reg


def enrich_where(where: dict[str, Any], reg: Registry) -> dict[str, Any]:
    """`enrichWhere`: the coordinates, safe names, and names learned for the chat."""
    out: dict[str, Any] = {k: where.get(k) for k in ("adapter", "workspace", "chat", "thread") if k in where}
    for key in ("workspaceName", "chatName"):
        name = sanitize_provenance_name(where.get(key))
        if name is not None:
            out[key] = name
    if where.get("parentChat") is not None:
        out["parentChat"] = where["parentChat"]
    name = sanitize_provenance_name(where.get("parentChatName"))
    if name is not None:
        out["parentChatName"] = name
    aliases, chat = reg.workspace_aliases(out), reg.chat(out)
    if "workspaceName" not in out and aliases:
        out["workspaceName"] = aliases[0]
    if chat is not None:
        if "chatName" not in out and chat["names"]:
            out["chatName"] = chat["names"][0]
        if "parentChat" not in out and "parentChat" in chat:
            out["parentChat"] = chat["parentChat"]
        if "parentChatName" not in out and chat["parentChatNames"]:
            out["parentChatName"] = chat["parentChatNames"][0]
    return out


def where_values(where: dict[str, Any], reg: Registry) -> list[str]:
    """`lexicalParts`' where part: workspaceValues, chatValues, threadValues."""
    chat = reg.chat(where) or {}
    values = [where.get("workspace"), where.get("workspaceName"), *reg.workspace_aliases(where),
              where.get("chat"), where.get("chatName"), where.get("parentChat"), where.get("parentChatName"),
              *chat.get("names", []), *chat.get("parentChatNames", [])]
    thread_room = where.get("parentChat") is not None or "parentChat" in chat
    values += [where.get("thread"), where.get("chat") if thread_room else None]
    return [v for v in values if v is not None]


def child_parts(citation: str, event: dict[str, Any] | None, reg: Registry) -> list[str]:
    """`lexicalParts(childFromFragment(...))`, or the unresolved form."""
    if event is None:
        return [citation, "unresolved citation"]
    parts = [citation]
    who = sanitize_provenance_name(event.get("who"))
    if who is not None:
        parts.append(who)
    parts.append(event["ts"])
    if event.get("where") is not None:
        parts += where_values(enrich_where(event["where"], reg), reg)
    return parts


def people_of(files: list[tuple[str, str]]) -> tuple[list[dict[str, Any]], set[str]]:
    """(every `where`, newest first; every who/where string, lowercased) across the streams."""
    wheres, vocab = [], set()
    for _, path in reversed(files):
        for who, where in reversed(day_summary(path).people):
            if isinstance(who, str):
                vocab.add(who.lower())
            if isinstance(where, dict):
                wheres.append(where)
                vocab.update(v.lower() for v in where.values() if isinstance(v, str))
    return wheres, vocab

