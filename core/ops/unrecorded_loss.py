"""Fragments that left the streams with no recorded reason (issue 10, item 6): `doctor`'s
"unrecorded-loss" finding.

Every removal dreamdeck makes is recorded: its commit (trailers, `Change-Id:`), the GC note on
it, the receipt, a tombstone; one still in progress is in the journal. So a fragment the last
commit dreamdeck made holds in a stream, and the working file no longer holds, went some other
way (by hand, or by TypeClaw's own GC), unless a tombstone, the journal, a receipt or a GC note
written since explains it.

Cheap on a large workspace: the base commit's blob id of each stream file (one `git ls-tree`)
is compared with the working file's, taken from git's index when the file's stat is the one the
index recorded (`git.index_stat`), and computed from its bytes only otherwise; only the files
whose blob differs are parsed, with their base blob. Without git, or before dreamdeck's
first commit, there is nothing to compare with and nothing is said.
"""
from __future__ import annotations

import os

from dreamdeck.core.door.journal import TornJournal, read_journal
from dreamdeck.core.formats.citations import Key
from dreamdeck.core.formats.counts import counted
from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.formats.stream_lines import STREAM_FILE, fragment_line_ids
from dreamdeck.core.git.blobs import blob_id, show_file, tree_blob_ids
from dreamdeck.core.git.index_stat import index_entries
from dreamdeck.core.git.notes import line_id, read_gc_lines
from dreamdeck.core.git.runner import repo_args, run_git
from dreamdeck.core.io.no_links import LinkRefused, read_bytes_nofollow
from dreamdeck.core.store.tombstones import tombstoned_keys
from dreamdeck.core.workspace import Workspace

KIND = "unrecorded-loss"
STREAMS = "memory/streams/"
RECEIPTS = "memory/meta/receipts/"


def unrecorded_losses(ws: Workspace) -> list[tuple[str, str]]:
    """(stream file, what left it with no recorded reason), one per stream file."""
    root = ws.root
    if repo_args(root) is None:
        return []
    base = run_git(root, "log", "-1", "--format=%H", "--grep=^Change-Id: ", check=False).strip()
    if not base:
        return []
    changed = [rel for rel in _changed_streams(ws, base) if STREAM_FILE.match(rel[len(STREAMS):])]
    if not changed:
        return []
    receipts = run_git(root, "diff", "--name-only", "-z", base, "HEAD", "--", RECEIPTS, check=False, strip=False)
    explained = _explained(ws, base, [p for p in receipts.split("\0") if p])
    out = []
    for rel in changed:
        day = rel[len(STREAMS):-len(".jsonl")]
        lost = sorted(fid for fid in _ids(show_file(root, base, rel)) - _ids(_working(ws, rel))
                      if (day, fid) not in explained)
        if lost:
            shown = ", ".join(f"{day}#{fid}" for fid in lost[:3]) + (f" (+{len(lost) - 3} more)" if len(lost) > 3 else "")
            out.append((rel, f"{counted(len(lost), 'fragment')} left this stream with no recorded reason since dreamdeck's "
                             f"commit {base[:10]} (removed by hand, or by TypeClaw's own GC?): {shown}; "
                             f"`git show {base[:10]}:{rel}` still holds them"))
    return out


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
            data = _working(ws, rel)
            now = blob_id(data, sha256=len(want) == 64) if data is not None else ""
        if now != want:
            changed.append(rel)
    return changed


def _ids(data: bytes | None) -> set[str]:
    return set(fragment_line_ids(data)) if data else set()


def _working(ws: Workspace, rel: str) -> bytes | None:
    try:
        return read_bytes_nofollow(ws.root / rel, sole_name=False)  # a stream: a rewrite links it a moment
    except (OSError, LinkRefused):  # gone, or a link (doctor reports links on their own)
        return None


def _explained(ws: Workspace, base: str, receipts: list[str]) -> set[Key]:
    """Removals with a record: tombstones, the journal of a change in progress (its GC lines and
    purges), receipts written since the base commit, and GC notes on commits after it."""
    keys = set(tombstoned_keys(ws))
    try:
        journal = read_journal(ws)
    except TornJournal:
        journal = None
    if journal is not None:
        keys |= set(journal.evidence.purge)
        keys |= {(day, line_id(line)) for day, line in journal.gc_lines or []}
    for rel in receipts:
        keys |= _receipt_keys(_working(ws, rel))
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
