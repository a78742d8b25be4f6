"""`doctor`'s examination of memory's files, reading again only the files that changed.

Findings, in this order: each shard's (TypeClaw cannot parse it; stale frontmatter), citations
no stream holds (sorted), malformed stream lines (day by day), a corrupt dreaming state. Each
file's part is kept in `doctor_record` under the file's stamp; a run reads every stream and
shard file whose stamp moved (or that is new, or whose record is missing). The citations are
checked again only where that can change the answer: the shards read, the shards missing
something on a stream day read, and, when ids left a day, the shards citing one of them. The
same code runs on a throwaway in-memory record when the record cannot be used.
"""
from __future__ import annotations

import os
import sqlite3
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from contextlib import ExitStack
from operator import itemgetter
from pathlib import Path
from typing import TypeVar

from dreamdeck.core.formats.citations import CITATION, Key, citation_key_texts
from dreamdeck.core.formats.shards import ShardParseError, canonical_meta, parse_shard, recompute_shard_text
from dreamdeck.core.index.evidence import SHARD_AREAS
from dreamdeck.core.io.cache import Stamp, clock, settled, stamp_of
from dreamdeck.core.io.gc_pause import paused_gc
from dreamdeck.core.io.no_links import OpenFolder
from dreamdeck.core.ops import doctor_record
from dreamdeck.core.ops.doctor_record import Record, Row, stamp_text
from dreamdeck.core.ops.doctor_streams import Reads, StateRead, lstamp, read_day, read_state
from dreamdeck.core.store.shard_files import list_shard_paths
from dreamdeck.core.store.streams import list_stream_days
from dreamdeck.core.store.tombstones import tombstoned_keys
from dreamdeck.core.workspace import Workspace

T = TypeVar("T")


def examine_memory(ws: Workspace, meanwhile: Callable[[], object] | None = None) -> list[Row]:
    """The findings as rows. A record that SQLite finds damaged mid-run is dropped and the
    examination done again without it. `meanwhile` (work of the caller's that needs no record)
    runs while a worker reads the streams, once the shards are judged."""
    return _with_record(ws, lambda ws, record: _examine(ws, record, meanwhile))


def held_in_streams(ws: Workspace, keys: Iterable[Key]) -> set[Key]:
    """The keys some stream holds now, from the record (only stream files whose stamp moved are
    read): what `ops.protected` asks of a year of streams for the fragments it protects."""
    keys = list(keys)

    def ask(ws: Workspace, record: Record) -> set[Key]:
        held = _refresh_streams(ws, record, _stream_files(ws))
        return {(day, fid) for day, fid in keys if held.holds(f"{day}#{fid}")}

    return _with_record(ws, ask)


def _with_record(ws: Workspace, work: Callable[[Workspace, Record], T]) -> T:
    with paused_gc():  # a first run holds a million keys in sets: no collection walks them
        return _with_record_now(ws, work)


def _with_record_now(ws: Workspace, work: Callable[[Workspace, Record], T]) -> T:
    try:
        with doctor_record.opened(ws) as record:
            return work(ws, record)
    except sqlite3.DatabaseError as exc:
        if not doctor_record.busy(exc):
            doctor_record.discard(ws)  # damaged: the next run builds it again
    with doctor_record.opened(ws, in_memory=True) as record:
        return work(ws, record)


class Held:
    """Whether the streams hold a `DATE#ID` key, as recorded this run. A day read this run is
    asked through a set of its keys (a first run asks a million); a day the record kept is asked
    by a search in its ids as stored (a run after a few shards changed asks thousands, over most
    days: building their sets would cost more than the searches; protection asks ~20 keys a day,
    and a set of a day's ids costs ~50 searches)."""

    def __init__(self, record: Record, fresh: dict[str, str]):
        self.record = record
        self.fresh = fresh  # day -> its ids one a line, of the stream days read this run
        self.keys: set[str] = set()  # the keys of the fresh days asked for so far
        self.loaded: set[str] = set()
        self.stored: dict[str, str] = {}  # day -> "\n" + its recorded ids, one a line + "\n"

    def holds(self, key: str) -> bool:
        if key in self.keys:
            return True
        day = key[:10]  # a key's date: its first ten characters
        if day in self.fresh:
            self._load(day)
            return key in self.keys
        fid = key[11:]
        if not fid or "\n" in fid:
            return False  # no stream id is empty or spans lines (a search for one would match across lines)
        if day not in self.stored:
            self.stored[day] = "\n" + self.record.stream_id_lines(day) + "\n"
        return f"\n{fid}\n" in self.stored[day]

    def absent(self, keys: set[str]) -> set[str]:
        """The keys no stream holds. Each day read this run takes its keys out of them, straight
        from its ids (a first run: a million keys, and no set of them built); each key left is
        then asked for (on a day the record kept)."""
        rest = keys.difference(self.keys)
        for day, ids in self.fresh.items():
            if ids and day not in self.loaded and rest:
                prefix = f"{day}#"
                rest.difference_update((prefix + ids.replace("\n", "\n" + prefix)).split("\n"))
        return {key for key in rest if not self.holds(key)}

    def missing(self, keys: Collection[str]) -> list[str]:
        """The keys no stream holds, sorted."""
        if self.keys.issuperset(keys):
            return []
        return sorted(key for key in keys if not self.holds(key))

    def _load(self, day: str) -> None:
        if day not in self.loaded:
            self.loaded.add(day)
            ids = self.fresh[day]
            if ids:  # every id prefixed with its day by one replace and one split, in C
                prefix = f"{day}#"
                self.keys.update((prefix + ids.replace("\n", "\n" + prefix)).split("\n"))


def _examine(ws: Workspace, record: Record, meanwhile: Callable[[], object] | None) -> list[Row]:
    today = ws.today()
    streams = _stream_files(ws)
    state_known, state_problem = record.single("state", stamp_text(lstamp(ws.state_path)))
    # In a worker when many bytes, which also proves the state file when the record does not know it.
    with Reads(_to_read(record, streams), state=None if state_known else str(ws.state_path)) as reads:
        shards = [(f"{area}/{slug}.md", path)  # strings: 10,000 Paths cost more than the stats
                  for area in SHARD_AREAS for slug, path in list_shard_paths(ws.memory / area)]
        judged, gone = _judge_shards(record, shards, today, reads.send_keys if reads.worker is not None else None)
        if meanwhile is not None:
            meanwhile()
        held = _refresh_streams(ws, record, streams, reads)
        _record_shards(record, judged, gone, held, reads)
        if not state_known:
            state_problem = _record_state(record, ws.state_path, reads.state())
    rows: list[Row] = []
    found = record.shard_findings()
    for rel, _shard in shards:
        rows += found.get(rel, [])
    rows += _missing_rows(record, tombstoned_keys(ws))
    problems = record.stream_problems()
    for day, _stream, _stamp in streams:
        rows += problems.get(day, [])
    if state_problem:
        rows.append(["corrupt-state", "memory/.dreaming-state.json", state_problem, False])
    return rows


def _stream_files(ws: Workspace) -> list[tuple[str, Path, Stamp | None]]:
    return [(day, path, lstamp(path)) for day, path in list_stream_days(ws)]


def _recordable(stamp: Stamp | None, started: int) -> str | None:
    """The stamp to record a read under: none when the file changed within the racy window."""
    return stamp_text(stamp) if stamp is not None and settled(stamp, started) else None


def _to_read(record: Record, streams: list[tuple[str, Path, Stamp | None]]) -> list[tuple[str, str]]:
    """(day, path) of the stream files not recorded under their stamp now."""
    known = record.stream_rows()
    return [(day, str(path)) for day, path, stamp in streams
            if stamp is None or known.get(day) != (str(path), stamp_text(stamp))]


def _refresh_streams(ws: Workspace, record: Record, streams: list[tuple[str, Path, Stamp | None]],
                     reads: Reads | None = None) -> Held:
    """Read every stream file not recorded under its stamp now (`reads`: what a worker read), and
    check again the citations whose answer that can change; what the streams hold, as recorded now."""
    known = record.stream_rows()
    fresh: dict[str, str] = {}
    left: set[str] = set()  # DATE#ID keys that left a day read again
    for day, path, stamp in streams:
        source = str(path)
        was = known.pop(day, None)
        if stamp is not None and was == (source, stamp_text(stamp)):
            continue
        stamp, started, ids, problems = reads.day(source) if reads is not None else read_day(source)
        rel = ws.rel(path)
        rows = [["malformed-line", f"{rel}:{lineno}", reason, False] for lineno, reason in problems]
        fresh[day] = ids
        if was is not None:
            left.update(map(f"{day}#".__add__, set(record.stream_ids(day)).difference(ids.split("\n"))))
        record.put_stream(day, source, _recordable(stamp, started), ids, rows)
    for day in known:  # its file is gone
        fresh[day] = ""
        left.update(map(f"{day}#".__add__, record.stream_ids(day)))
        record.drop_stream(day)
    held = Held(record, fresh)
    if fresh:
        _recheck_citations(record, held, set(fresh), left)
    return held


def _recheck_citations(record: Record, held: Held, days: set[str], left: set[str]) -> None:
    """Each recorded shard whose missing keys can have changed: one missing something on a day
    read again (it may be back), or citing a key that left (a scan of every shard's keys)."""
    again = {rel for rel, missing in record.shards_missing().items() if any(key[:10] in days for key in missing)}
    if left:
        again.update(rel for rel, keys in record.shard_keys() if not left.isdisjoint(keys))
    for rel, keys in list(record.shard_keys(sorted(again))):
        record.set_missing(rel, held.missing(keys))


Judged = tuple[str, "str | None", "str | None", list[Row], str]  # rel, stamp, date used, findings, keys one a line


KEYS_BATCH = 250  # shards whose keys go to the stream worker together (~1 MB)


def _judge_shards(record: Record, shards: list[tuple[str, str]], today: str,
                  send: Callable[[dict[str, str], bool], object] | None = None) -> tuple[list[Judged], list[str]]:
    """(each shard file not recorded under its stamp — and, when it matters, today's date — read
    and judged; the recorded shards whose file is gone). Nothing is written here. `send`, when
    given, takes the judged shards' citation keys grouped by their date (`_by_date`) `KEYS_BATCH`
    shards at a time as they are judged, and whether they are the last: the stream worker, which
    checks them a day at a time, then only looks them up once it has read the streams (grouped
    there, the keys waited in the pipe until the worker had read every day, and the grouping was
    then on the first run's longest path), and no key outlives its shard here."""
    known = record.shard_rows()
    judged: list[Judged] = []
    batch: defaultdict[str, list[str]] = defaultdict(list)  # date -> the keys of the shards judged since the last `send`
    in_batch = 0
    gone: list[str] = []
    with ExitStack() as open_folders:
        folders: dict[str, OpenFolder] = {}  # area -> its folder, open
        for rel, path in shards:
            was = known.pop(rel, None)
            if was is not None and was[0] is not None and was[1] in (None, today) and was[0] == stamp_text(lstamp(path)):
                continue  # a shard with no row yet (a first run) is not stat'ed twice
            area, name = rel.split("/", 1)  # a listed shard lies directly in its area's folder
            if area not in folders:
                folders[area] = open_folders.enter_context(OpenFolder(os.path.dirname(path)))
            started = clock()
            try:  # examined only: a hard-linked shard is listed (`doctor`), never written, and the rest still checked
                st, data = folders[area].read(name, sole_name=False)
            except FileNotFoundError:
                gone.append(rel)  # removed since the listing
                continue
            findings, uses_today, keys = examine_shard(rel, name[:-3], data.decode("utf-8", "replace"), today)
            # The keys' text is kept, not their set (a first run's million keys in sets cost
            # 33,000 page faults).
            judged.append((rel, _recordable(stamp_of(st), started), today if uses_today else None, findings,
                           "\n".join(keys)))
            if send is not None:
                _by_date(keys, batch)
                in_batch += 1
                if in_batch == KEYS_BATCH:
                    send(_joined(batch), False)
                    batch, in_batch = defaultdict(list), 0
    if send is not None:
        send(_joined(batch), True)
    return judged, gone + list(known)


def _by_date(keys: Iterable[str], into: defaultdict[str, list[str]]) -> None:
    """Add each `DATE#ID` key to the list of its date (its first ten characters)."""
    for key in keys:
        into[key[:10]].append(key)


def _joined(by_date: dict[str, list[str]]) -> dict[str, str]:
    """Each date's keys one a line: one string a date to pickle, not one a key."""
    return {day: "\n".join(keys) for day, keys in by_date.items()}


def _record_shards(record: Record, judged: list[Judged], gone: list[str], held: Held, reads: Reads) -> None:
    """Record the shards judged and forget the ones gone; then check their citations together
    (the worker that read the streams, when one did, answers which keys its days do not hold:
    the rows are written while it looks them up)."""
    for rel, stamp, day, findings, text in judged:
        record.put_shard(rel, stamp, day, findings, text, [])
    for rel in gone:
        record.drop_shard(rel)
    record.flush()
    not_read = reads.not_held() if judged else set()
    if not_read is None:
        absent = held.absent(set().union(*(text.split("\n") for *_, text in judged if text)))
    else:
        absent = {key for key in not_read if not held.holds(key)}  # a day the record kept
    if absent:
        for rel, _stamp, _day, _findings, text in judged:
            keys = text.split("\n") if text else []
            if not absent.isdisjoint(keys):
                record.set_missing(rel, sorted(absent.intersection(keys)))


def examine_shard(rel: str, slug: str, text: str, today: str) -> tuple[list[Row], bool, set[str]]:
    """(one shard's findings, whether they depend on today's date — a shard whose body cites
    nothing is reinforced "today" by TypeClaw's recompute —, its `DATE#ID` citation keys)."""
    quick = _canonical_shard(rel, text, today)
    if quick is not None:
        return quick
    keys = citation_key_texts(text)
    try:
        _meta, body = parse_shard(text)
    except ShardParseError as exc:
        return [["unparseable", f"memory/{rel}",
                 f"TypeClaw cannot parse it ({exc}); its citations do not protect their fragments", True]], False, keys
    found = [] if recompute_shard_text(text, slug, today)[0] == text else [_stale(rel)]
    return found, CITATION.search(body) is None, keys


def _stale(rel: str) -> Row:
    return ["stale-frontmatter", f"memory/{rel}", "cites/days/lastReinforced disagree with the body", True]


_DATE_OF_KEY = itemgetter(slice(0, 10))  # a DATE#ID key's date: its first ten characters


def _canonical_shard(rel: str, text: str, today: str) -> tuple[list[Row], bool, set[str]] | None:
    """`examine_shard` for a shard in the canonical shape (`shards.canonical_meta`: what TypeClaw's
    recompute and dreamdeck write, no CR, closed by exactly `---` and a newline), or None. Then
    the strict parse is that meta, and the recompute writes these very bytes exactly when the
    counts agree: cites = the body's distinct keys, days = their distinct dates, lastReinforced =
    the latest (today when none). tests/test_doctor_shard_fast_path.py holds it to the strict path."""
    if not text.startswith("---\n") or "\r" in text:
        return None
    end = text.find("\n---", 4)
    if end < 0 or text[end + 4:end + 5] != "\n":
        return None
    meta = canonical_meta(text[4:end])
    if meta is None:
        return None
    body_keys = citation_key_texts(text, end + 5)
    current = meta.cites == len(body_keys)
    if current:  # the dates only when the count agrees
        days = set(map(_DATE_OF_KEY, body_keys))
        current = (meta.days, meta.last_reinforced) == (len(days), max(days, default=today))
    keys = body_keys | citation_key_texts(text[:end + 5]) if "/" in meta.heading else body_keys
    return [] if current else [_stale(rel)], not body_keys, keys


def _missing_rows(record: Record, stones: set[Key]) -> list[Row]:
    missing = sorted((rel, key[:10], key[11:]) for rel, keys in record.shards_missing().items() for key in keys)
    return [["missing-fragment", f"memory/{rel}", f"cites streams/{day}#{fid}, which no stream holds",
             not rel.startswith("topics/")]  # outside topics/: restored from git history
            for rel, day, fid in missing if (day, fid) not in stones]


def _record_state(record: Record, path: Path, proven: StateRead | None) -> str | None:
    """The dreaming state file's problem, recorded under its stamp: as the stream worker proved
    it (`proven`: the worker, which was waiting for the shards' keys, took that work off this
    process's longest path), else read here."""
    stamp, started, problem = proven if proven is not None else read_state(str(path))
    record.put_single("state", _recordable(stamp, started), problem)
    return problem
