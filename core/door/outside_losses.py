"""Fragments that left the streams by another writer (TypeClaw's GC, a hand edit), found by
comparing the stream files with the last commit dreamdeck made (issue 10, items 1 and 6).

The comparison: a fragment line dreamdeck's last commit (the newest with its `Change-Id:`) holds
in a stream, and the working file no longer holds, went some other way, unless a tombstone, the
journal of a change in progress (its GC lines and purges), a receipt or a GC note written since
explains it. `doctor` reports what it finds (`ops.unrecorded_loss`); and the door, before it
commits stream files, records what it finds (`find_outside_losses`), so its own commit never
absorbs a loss silently: the lines go into the commit's GC note (reason `LEFT_BY_ANOTHER_WRITER`),
an audit line names them, and `memory/meta/outside-losses.json` (`store.outside_losses`) keeps
them for `doctor` until they are restored or a person accepts them.

Cheap on a large workspace: the base commit's blob id of each stream file (one `git ls-tree`)
is compared with the working file's, taken from git's index when the file's stat is the one the
index recorded (`git.index_stat`), and computed from its bytes only otherwise; only the files
whose blob differs are parsed, with their base blob. Without git, or before dreamdeck's first
commit, there is nothing to compare with and nothing is found.
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field

from dreamdeck.core.door.journal import Journal, TornJournal, read_journal, write_journal
from dreamdeck.core.formats.citations import Key, summarize_missing
from dreamdeck.core.formats.counts import counted
from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.formats.stream_lines import STREAM_FILE, parse_stream_bytes
from dreamdeck.core.git.blobs import blob_id, show_file, tree_blob_ids
from dreamdeck.core.git.commit import OWN_CHANGE_GREP
from dreamdeck.core.git.index_stat import index_entries
from dreamdeck.core.git.notes import line_id, read_gc_lines
from dreamdeck.core.git.runner import repo_args, run_git
from dreamdeck.core.io.no_links import LinkRefused, read_bytes_nofollow
from dreamdeck.core.store.outside_losses import RECORD, load_outside_losses, save_outside_losses
from dreamdeck.core.store.tombstones import tombstoned_keys
from dreamdeck.core.workspace import Workspace

STREAMS = "memory/streams/"
RECEIPTS = "memory/meta/receipts/"
LEFT_BY_ANOTHER_WRITER = "left by another writer (not dreamdeck): recorded before dreamdeck's commit"


@dataclass
class OutsideLosses:
    """What left the stream files since `base` (dreamdeck's last commit) with no record."""
    base: str = ""
    lines: dict[str, dict[str, str]] = field(default_factory=dict)  # stream file -> id -> raw line at base

    def keys(self) -> list[Key]:
        return sorted((rel[len(STREAMS):-len(".jsonl")], fid) for rel, ids in self.lines.items() for fid in ids)

    def day_lines(self) -> list[tuple[str, str]]:
        """(day, raw line) of each, as a GC note holds them."""
        return [(rel[len(STREAMS):-len(".jsonl")], raw) for rel, ids in sorted(self.lines.items())
                for _fid, raw in sorted(ids.items())]


def find_outside_losses(ws: Workspace, journal: Journal | None = None,
                        taken: Iterable[tuple[str, str]] = ()) -> OutsideLosses:
    """The comparison. `journal`: the change in progress (None: read the one on disk, if any);
    `taken`: (day, raw line) its GC took, when the journal does not hold them yet."""
    root = ws.root
    if repo_args(root) is None:
        return OutsideLosses()
    base = run_git(root, "log", "-1", "--format=%H", "-E", f"--grep={OWN_CHANGE_GREP}", check=False).strip()
    if not base:
        return OutsideLosses()
    changed = [rel for rel in _changed_streams(ws, base) if STREAM_FILE.match(rel[len(STREAMS):])]
    found = OutsideLosses(base)
    if not changed:
        return found
    receipts = run_git(root, "diff", "--name-only", "-z", base, "HEAD", "--", RECEIPTS, check=False, strip=False)
    explained = _explained(ws, base, [p for p in receipts.split("\0") if p], journal, taken)
    for rel in changed:
        try:
            now = _working(ws, rel)
        except LinkRefused:
            continue  # a link: doctor reports it on its own, and the door refuses to commit it
        day = rel[len(STREAMS):-len(".jsonl")]
        held = _lines(now)
        lost = {fid: raw for fid, raw in _lines(show_file(root, base, rel)).items()
                if fid not in held and (day, fid) not in explained}
        if lost:
            found.lines[rel] = lost
    return found


def record_outside_losses(ws: Workspace, journal: Journal, gc_lines: list[tuple[str, str]],
                          warnings: list[str]) -> None:
    """The door commits the stream files as they are: what another writer removed since
    dreamdeck's last commit is found first (once: kept in the journal), and recorded with the
    commit (its GC note and an audit line, by `door.finish`; `memory/meta/outside-losses.json`
    here, for `doctor`), never absorbed silently (issue 10, item 1). A record that cannot be read
    is not written over (`doctor` names it)."""
    if journal.outside_lines is None:
        found = find_outside_losses(ws, journal, gc_lines)
        if not found.lines:
            return  # looked again by a recovery, if a kill comes first: nothing is recorded yet
        journal.outside_lines, journal.outside_base = found.day_lines(), found.base
        write_journal(ws, journal)
    if not journal.outside_lines:
        return
    keys = _keys(journal)
    warnings.append(f"{counted(len(keys), 'fragment')} had left the streams by another writer since dreamdeck's commit "
                    f"{journal.outside_base[:10]}: {summarize_missing(keys, 5)}; recorded in memory/{RECORD} "
                    "(`dreamdeck doctor` names them until they are restored or accepted)")
    losses, problem = load_outside_losses(ws)
    if problem is None:
        wanted = {**losses, **{k: journal.outside_base for k in keys}}
        if wanted != losses:
            save_outside_losses(ws, wanted)


def outside_summary(journal: Journal) -> str:
    """The audit line's words for what another writer removed before this change's commit."""
    keys = _keys(journal)
    return (f"{counted(len(keys), 'fragment')} left the streams by another writer, not dreamdeck, since commit "
            f"{journal.outside_base[:10]}: {summarize_missing(keys, 20)}; recorded in memory/{RECORD} "
            "until restored or accepted")


def _keys(journal: Journal) -> list[Key]:
    return [(day, line_id(raw)) for day, raw in journal.outside_lines or []]


def _changed_streams(ws: Workspace, base: str) -> list[str]:
    """The stream files of `base` whose working file is gone or holds another blob. A file whose
    stat is the one git's index recorded holds the index's blob: only the others are read."""
    entries, index_mtime = index_entries(ws.root, STREAMS)
    changed = []
    for rel, want in sorted(tree_blob_ids(ws.root, base, STREAMS).items()):
        try:
            st = os.lstat(ws.root / rel)
        except OSError:
            changed.append(rel)
            continue
        entry = entries.get(rel)
        if entry is not None and entry.holds(st, index_mtime):
            now = entry.blob
        else:
            try:
                data = _working(ws, rel)
            except LinkRefused:
                continue
            now = blob_id(data, sha256=len(want) == 64) if data is not None else ""
        if now != want:
            changed.append(rel)
    return changed


def _lines(data: bytes | None) -> dict[str, str]:
    """id -> raw line of each fragment line (the first of an id)."""
    out: dict[str, str] = {}
    for ln in parse_stream_bytes(data or b""):
        if ln.kind == "fragment" and ln.event is not None:
            fid = ln.event.get("id")
            if isinstance(fid, str):
                out.setdefault(fid, ln.raw.decode("utf-8", "replace"))
    return out


def _working(ws: Workspace, rel: str) -> bytes | None:
    """The working file's bytes; None when it is gone or unreadable. LinkRefused for a link."""
    try:
        return read_bytes_nofollow(ws.root / rel, sole_name=False)  # a stream: a rewrite links it a moment
    except OSError:
        return None


def _explained(ws: Workspace, base: str, receipts: list[str], journal: Journal | None,
               taken: Iterable[tuple[str, str]]) -> set[Key]:
    """Removals with a record: tombstones, the change in progress (its GC lines and purges),
    receipts written since the base commit, and GC notes on commits after it."""
    keys = set(tombstoned_keys(ws))
    if journal is None:
        try:
            journal = read_journal(ws)
        except TornJournal:
            journal = None
    if journal is not None:
        keys |= set(journal.evidence.purge)
        keys |= {(day, line_id(line)) for day, line in journal.gc_lines or []}
    keys |= {(day, line_id(line)) for day, line in taken}
    for rel in receipts:
        try:
            keys |= _receipt_keys(_working(ws, rel))
        except LinkRefused:
            continue
    for sha in run_git(ws.root, "rev-list", f"{base}..HEAD", check=False).split():
        keys |= {(day, line_id(line)) for day, line in read_gc_lines(ws.root, sha)}
    return keys


def _receipt_keys(data: bytes | None) -> set[Key]:
    try:
        receipt = load_json(data or b"")
    except ValueError:
        return set()
    refs = list(receipt.get("fragments_dropped") or []) if isinstance(receipt, dict) else []
    return {tuple(r.split("#", 1)) for r in refs if isinstance(r, str) and "#" in r}  # type: ignore[misc]
