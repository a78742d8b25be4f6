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
- who and where (`provenance-index.ts`): `index.tc_people`, whose per-day summaries also say
  which days hold legacy prose (so the tail is found without parsing every day).

Each part cites the TypeClaw function it mirrors.
"""
from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dreamdeck.core.errors import BadFile
from dreamdeck.core.formats.js_text import code_unit_key
from dreamdeck.core.formats.references import ReferenceMeta, ReferenceParseError, parse_reference
from dreamdeck.core.formats.shards import ShardParseError, parse_shard
from dreamdeck.core.formats.stream_lines import STREAM_FILE, parse_stream_bytes
from dreamdeck.core.index.stream_scan import DreamedDays, fragment_ids
from dreamdeck.core.index.tc_people import day_summary, read_bytes
from dreamdeck.core.io.cache import MISS, StampCache, clock, file_stamp, settled
from dreamdeck.core.io.no_links import LinkRefused, open_folder, read_bytes_nofollow
from dreamdeck.core.store.state import load_state
from dreamdeck.core.store.streams import stream_dir
from dreamdeck.core.store.tombstones import forgotten, tombstones_path
from dreamdeck.core.workspace import Workspace

if TYPE_CHECKING:
    from dreamdeck.core.index.search_feed import ChangeFeed



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


def _read_text(path: str) -> str | None:
    """A memory file's text, or None for one no view reads: a symbolic or hard link (its bytes may
    be a file's outside the folder; the CLI names it), a FIFO or a device (a read would hang or
    never end). TypeClaw would follow them; dreamdeck never shows what it refuses to read."""
    try:
        return read_bytes_nofollow(path).decode("utf-8", "replace")
    except (LinkRefused, BadFile):
        return None


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
        fd = open_folder(folder)  # a linked topics/ (or memory/) is refused, one line naming it
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
        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return None, None
    if stat.S_ISDIR(st.st_mode):
        raise TopicReadFailed("EISDIR: illegal operation on a directory, read")
    if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:
        return None, None  # never read (see _read_text); read views warn about links
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
    if text is None:
        return None, None
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
            text = _read_text(os.path.join(folder, name))
            if text is None:
                continue
            meta, body = parse_reference(text)
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
    return sorted(d for d in days if _regular(d[1]))


def _regular(path: str) -> bool:
    """A real file, not a link to one (store.streams lists the same way: a link is never read)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


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
        for ln in parse_stream_bytes(read_bytes(path)):
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
