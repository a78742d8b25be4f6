"""`doctor`'s examination of memory's files, reading again only the files that changed.

Findings, in this order: each shard's (TypeClaw cannot parse it; stale frontmatter), citations
no stream holds (sorted), malformed stream lines (day by day), a corrupt dreaming state. Each
file's part is kept in `doctor_record` under the file's stamp; a run reads every stream and
shard file whose stamp moved (or that is new, or whose record is missing), and then checks
again only the citations of the shards it read and the citations pointing into the stream days
it read. The same code runs on a throwaway in-memory record when the record cannot be used.
"""
from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

from dreamdeck.core.formats.citations import CITATION, Key, citation_keys
from dreamdeck.core.formats.shards import ShardParseError, parse_shard, recompute_shard_text
from dreamdeck.core.formats.stream_lines import fragment_line_ids, stream_problems
from dreamdeck.core.index.evidence import SHARD_AREAS
from dreamdeck.core.io.cache import Stamp, clock, settled, stamp_of
from dreamdeck.core.io.no_links import read_bytes_nofollow
from dreamdeck.core.ops import doctor_record
from dreamdeck.core.ops.doctor_record import Record, Row, stamp_text
from dreamdeck.core.store.shard_files import list_shard_paths
from dreamdeck.core.store.state import load_state
from dreamdeck.core.store.streams import list_stream_days
from dreamdeck.core.store.tombstones import tombstoned_keys
from dreamdeck.core.workspace import Workspace

T = TypeVar("T")


def examine_memory(ws: Workspace) -> list[Row]:
    """The findings as rows. A record that SQLite finds damaged mid-run is dropped and the
    examination done again without it."""
    return _with_record(ws, _examine)


def held_in_streams(ws: Workspace, keys: Iterable[Key]) -> set[Key]:
    """The keys some stream holds now, from the record (only stream files whose stamp moved are
    read): what `ops.protected` asks of a year of streams for the fragments it protects."""
    keys = list(keys)

    def ask(ws: Workspace, record: Record) -> set[Key]:
        record.recheck_citations(_refresh_streams(ws, record, _stream_files(ws)))
        return record.held(keys)

    return _with_record(ws, ask)


def _with_record(ws: Workspace, work: Callable[[Workspace, Record], T]) -> T:
    try:
        with doctor_record.opened(ws) as record:
            return work(ws, record)
    except sqlite3.DatabaseError as exc:
        if not doctor_record.busy(exc):
            doctor_record.discard(ws)  # damaged: the next run builds it again
    with doctor_record.opened(ws, in_memory=True) as record:
        return work(ws, record)


def _examine(ws: Workspace, record: Record) -> list[Row]:
    today = ws.today()
    shards = [(f"{area}/{slug}.md", path, _lstamp(path))  # strings: 10,000 Paths cost more than the stats
              for area in SHARD_AREAS for slug, path in list_shard_paths(ws.memory / area)]
    streams = _stream_files(ws)
    record.recheck_citations(_refresh_streams(ws, record, streams))
    _refresh_shards(record, shards, today)
    rows: list[Row] = []
    found = record.shard_findings()
    for rel, _shard, _stamp in shards:
        rows += found.get(rel, [])
    rows += _missing_rows(record, tombstoned_keys(ws))
    problems = record.stream_problems()
    for day, _stream, _stamp in streams:
        rows += problems.get(day, [])
    state_problem = _state_problem(ws, record)
    if state_problem:
        rows.append(["corrupt-state", "memory/.dreaming-state.json", state_problem, False])
    return rows


def _stream_files(ws: Workspace) -> list[tuple[str, Path, Stamp | None]]:
    return [(day, path, _lstamp(path)) for day, path in list_stream_days(ws)]


def _lstamp(path: str | Path) -> Stamp | None:
    """The file's own stamp (a link put in its place has another inode, so it is read and refused)."""
    try:
        return stamp_of(os.lstat(path))
    except FileNotFoundError:
        return None


def _recordable(stamp: Stamp | None, started: int) -> str | None:
    """The stamp to record a read under: none when the file changed within the racy window."""
    return stamp_text(stamp) if stamp is not None and settled(stamp, started) else None


def _refresh_streams(ws: Workspace, record: Record, streams: list[tuple[str, Path, Stamp | None]]) -> set[str]:
    """Read every stream file not recorded under its stamp now; the days read or gone."""
    known = record.stream_rows()
    changed: set[str] = set()
    for day, path, stamp in streams:
        source = str(path)
        was = known.pop(day, None)
        if stamp is not None and was == (source, stamp_text(stamp)):
            continue
        started = clock()
        stamp = _lstamp(path)  # taken again right before the read that is recorded under it
        try:
            data = read_bytes_nofollow(path, sole_name=False)  # a stream: a rewrite links it a moment
        except FileNotFoundError:
            data = b""
        rel = ws.rel(path)
        problems = [["malformed-line", f"{rel}:{lineno}", reason, False] for lineno, reason in stream_problems(data)]
        record.put_stream(day, source, _recordable(stamp, started), fragment_line_ids(data), problems)
        changed.add(day)
    for day in known:  # its file is gone
        record.drop_stream(day)
        changed.add(day)
    return changed


def _refresh_shards(record: Record, shards: list[tuple[str, str, Stamp | None]], today: str) -> None:
    """Read every shard file not recorded under its stamp (and, when it matters, today's date)."""
    known = record.shard_rows()
    for rel, path, stamp in shards:
        was = known.pop(rel, None)
        if stamp is not None and was is not None and was[0] == stamp_text(stamp) and was[1] in (None, today):
            continue
        started = clock()
        stamp = _lstamp(path)
        try:
            text = read_bytes_nofollow(path).decode("utf-8", "replace")
        except FileNotFoundError:
            record.drop_shard(rel)  # removed since the listing
            continue
        findings, uses_today = examine_shard(rel, rel.rsplit("/", 1)[1][:-3], text, today)
        record.put_shard(rel, _recordable(stamp, started), today if uses_today else None,
                         findings, citation_keys(text))
    for rel in known:  # its file is gone
        record.drop_shard(rel)
    record.flush()


def examine_shard(rel: str, slug: str, text: str, today: str) -> tuple[list[Row], bool]:
    """(one shard's findings, whether they depend on today's date: a shard whose body cites
    nothing is reinforced "today" by TypeClaw's recompute)."""
    try:
        _meta, body = parse_shard(text)
    except ShardParseError as exc:
        return [["unparseable", f"memory/{rel}",
                 f"TypeClaw cannot parse it ({exc}); its citations do not protect their fragments", True]], False
    if recompute_shard_text(text, slug, today)[0] != text:
        found = [["stale-frontmatter", f"memory/{rel}", "cites/days/lastReinforced disagree with the body", True]]
    else:
        found = []
    return found, CITATION.search(body) is None


def _missing_rows(record: Record, stones: set[Key]) -> list[Row]:
    missing = sorted((rel, day, fid) for rel, day, fid in record.uncited_citations() if (day, fid) not in stones)
    return [["missing-fragment", f"memory/{rel}", f"cites streams/{day}#{fid}, which no stream holds",
             not rel.startswith("topics/")]  # outside topics/: restored from git history
            for rel, day, fid in missing]


def _state_problem(ws: Workspace, record: Record) -> str | None:
    started = clock()
    stamp = _lstamp(ws.state_path)
    known, problem = record.single("state", stamp_text(stamp))
    if known:
        return problem
    problem = load_state(ws.state_path)[1]
    record.put_single("state", _recordable(stamp, started), problem)
    return problem
