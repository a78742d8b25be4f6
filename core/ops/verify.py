"""`dreamdeck verify [REV]`: every citation present at REV and missing now (invariant 1's audit).

Now = topics ∪ vault ∪ archive on disk (an archived topic still holds its evidence). A citation
a human explicitly forgot (a live tombstone) is listed separately: it is gone on purpose.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from dreamdeck.core.formats.citations import Key, citation_keys
from dreamdeck.core.index.evidence import SHARD_AREAS, cited_keys
from dreamdeck.core.git.blobs import read_blobs, tree_files
from dreamdeck.core.git.runner import resolve_rev
from dreamdeck.core.store.tombstones import tombstoned_keys
from dreamdeck.core.workspace import Workspace


@dataclass
class VerifyResult:
    rev: str
    checked: int = 0
    missing: list[Key] = field(default_factory=list)
    forgotten: list[Key] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.missing

    def to_json(self) -> dict:
        return {
            "rev": self.rev, "checked": self.checked, "ok": self.ok,
            "missing": [f"{d}#{i}" for d, i in self.missing],
            "forgotten": [f"{d}#{i}" for d, i in self.forgotten],
        }


def citations_at(ws: Workspace, rev: str) -> set[Key]:
    paths = [
        p for p in tree_files(ws.root, rev, *(f"memory/{a}/" for a in SHARD_AREAS))
        if p.count("/") == 2 and p.endswith(".md")  # flat files only, as loaders see them
    ]
    keys: set[Key] = set()
    for data in read_blobs(ws.root, rev, paths).values():
        keys |= citation_keys(data.decode("utf-8", "replace"))
    return keys


def verify(ws: Workspace, rev: str = "HEAD") -> VerifyResult:
    sha = resolve_rev(ws.root, rev)
    then = citations_at(ws, sha)
    gone = then - cited_keys(ws)
    stones = tombstoned_keys(ws)
    return VerifyResult(
        rev=sha, checked=len(then),
        missing=sorted(k for k in gone if k not in stones),
        forgotten=sorted(k for k in gone if k in stones),
    )
