"""`dreamdeck verify [REV]`: every citation present at REV and missing now (invariant 1's audit).

Now = topics ∪ vault ∪ archive on disk (an archived topic still holds its evidence). A citation
a human explicitly forgot (a live tombstone) is listed separately: it is gone on purpose.

Fast on a year of memory: a shard file whose bytes are the very blob it was at REV (same git
blob id, computed from the bytes read now) has the same citations then and now, so only the
files that changed are parsed on both sides. A citation of a changed file at REV that no changed
file holds now is looked for in the unchanged files by its id's bytes, and a file that holds
them is parsed to confirm it; only when very many are in question is everything parsed.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from dreamdeck.core.formats.citations import Key, citation_keys
from dreamdeck.core.git.blobs import blob_id, read_blobs, tree_blob_ids
from dreamdeck.core.git.runner import resolve_rev
from dreamdeck.core.index.evidence import SHARD_AREAS, shard_area_files
from dreamdeck.core.io.no_links import read_bytes_nofollow
from dreamdeck.core.store.tombstones import tombstoned_keys
from dreamdeck.core.workspace import Workspace

SEARCH_LIMIT = 256  # beyond this many candidates, parsing every unchanged file is the cheaper way


@dataclass
class VerifyResult:
    rev: str
    checked: int = 0  # citations of the files that changed since REV (the others cannot lose any)
    files: int = 0  # shard files at REV
    changed: int = 0  # of them, changed or gone since
    missing: list[Key] = field(default_factory=list)
    forgotten: list[Key] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.missing

    def to_json(self) -> dict:
        return {
            "rev": self.rev, "checked": self.checked, "files": self.files, "changed": self.changed, "ok": self.ok,
            "missing": [f"{d}#{i}" for d, i in self.missing],
            "forgotten": [f"{d}#{i}" for d, i in self.forgotten],
        }


def _flat_shards(ids: dict[str, str]) -> dict[str, str]:
    return {p: sha for p, sha in ids.items() if p.count("/") == 2 and p.endswith(".md")}  # as loaders see them


def verify(ws: Workspace, rev: str = "HEAD") -> VerifyResult:
    sha = resolve_rev(ws.root, rev)
    then_ids = _flat_shards(tree_blob_ids(ws.root, sha, *(f"memory/{a}/" for a in SHARD_AREAS)))
    wide = any(len(v) == 64 for v in then_ids.values())
    now: dict[str, bytes] = {f"memory/{rel}": read_bytes_nofollow(path) for rel, path in shard_area_files(ws)}
    same = {p for p, data in now.items() if then_ids.get(p) == blob_id(data, wide)}
    then = set()
    for data in read_blobs(ws.root, sha, [p for p in then_ids if p not in same]).values():
        then |= citation_keys(data.decode("utf-8", "replace"))
    held = set()
    for p, data in now.items():
        if p not in same:
            held |= citation_keys(data.decode("utf-8", "replace"))
    gone = _not_in(then - held, [now[p] for p in sorted(same)])
    stones = tombstoned_keys(ws)
    return VerifyResult(
        rev=sha, checked=len(then), files=len(then_ids), changed=len(set(then_ids) - same),
        missing=sorted(k for k in gone if k not in stones),
        forgotten=sorted(k for k in gone if k in stones),
    )


def _not_in(candidates: set[Key], texts: list[bytes]) -> set[Key]:
    """The candidates no text cites."""
    if not candidates:
        return set()
    if len(candidates) > SEARCH_LIMIT:
        found: set[Key] = set()
        for data in texts:
            found |= citation_keys(data.decode("utf-8", "replace"))
        return candidates - found
    joined = b"\0".join(texts)
    starts, at = [], 0
    for data in texts:
        starts.append(at)
        at += len(data) + 1
    left = set(candidates)
    for day, fid in candidates:
        needle = fid.encode()
        pos = joined.find(needle)
        while pos != -1 and (day, fid) in left:
            i = _owner(starts, pos)
            if (day, fid) in citation_keys(texts[i].decode("utf-8", "replace")):
                left.discard((day, fid))
            pos = joined.find(needle, starts[i] + len(texts[i]))  # the next file holding the id
    return left


def _owner(starts: list[int], pos: int) -> int:
    import bisect

    return bisect.bisect_right(starts, pos) - 1
