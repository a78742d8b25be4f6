"""What a person needs to review a reflection (the app's Reflections screen and `dreamdeck review
r-N` show the same): whether each hunk still applies as the dream made it, rebases onto a shard
that changed since, or conflicts with it; and the texts a choice of hunks gives (what `E` and
`dreamdeck approve --edit` open in the editor).

A changed shard is dry-run through the door's own rebase (`plan_changeset`): nothing is written,
and what is called a conflict here is exactly what an approval would be refused for.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from dreamdeck.core.door.apply import plan_changeset
from dreamdeck.core.door.changeset import ChangeSet, Commit, FileEdit, Writes
from dreamdeck.core.door.collection import CollectionPreview
from dreamdeck.core.door.preview import preview_collection
from dreamdeck.core.errors import DreamdeckError, Refused
from dreamdeck.core.git.diff import apply_hunks
from dreamdeck.core.io.no_links import read_text_nofollow
from dreamdeck.core.store.reflections import Reflection, ReflectionError, load_reflection
from dreamdeck.core.workspace import Workspace

__all__ = ["FRESH", "REBASES", "CONFLICT", "FileProbe", "ReflectionProbe", "probe_conflicts", "probe_reflection",
           "chosen_texts", "preview_approval", "HeldReflection", "held_reflections"]

FRESH = "fresh"  # the shard is as the dream saw it: the hunk applies as made
REBASES = "rebases"  # the shard changed since; the hunk merges onto it (3-way)
CONFLICT = "conflict"  # the shard changed since and the hunk does not merge: it cannot be approved


@dataclass(frozen=True)
class FileProbe:
    path: str  # relative to memory/
    base_changed: bool  # the file on disk is no longer the text the dream proposed against
    state: str  # FRESH | REBASES | CONFLICT (CONFLICT when the whole proposal or any hunk conflicts)
    hunks: dict[str, str] = field(default_factory=dict)  # hunk id -> FRESH | REBASES | CONFLICT

    def to_json(self) -> dict:
        return {"path": self.path, "base_changed": self.base_changed, "state": self.state, "hunks": dict(self.hunks)}


@dataclass(frozen=True)
class ReflectionProbe:
    rid: str
    files: list[FileProbe]

    def state_of(self, hunk_id: str) -> str:
        for f in self.files:
            if hunk_id in f.hunks:
                return f.hunks[hunk_id]
        raise ReflectionError(f"{self.rid} has no hunk {hunk_id}")

    @property
    def conflicts(self) -> list[str]:
        """The hunks that cannot be approved, in the reflection's order."""
        return [h for f in self.files for h, state in f.hunks.items() if state == CONFLICT]

    def to_json(self) -> dict:
        return {"id": self.rid, "files": [f.to_json() for f in self.files]}


def _current(ws: Workspace, rel: str) -> str | None:
    """The file's text now; None when it does not exist."""
    try:
        return read_text_nofollow(ws.memory / rel)
    except FileNotFoundError:
        return None


def _conflicts(ws: Workspace, path: str, base: str | None, new: str | None) -> bool:
    """Would the door refuse `new` for `path` as a conflict? (a dry run; nothing is written)"""
    cs = ChangeSet(Commit("approve", "system:review", "partial", "review", "dry merge check"),
                   Writes([FileEdit(path, base, new)]))
    try:
        plan_changeset(ws, cs)
    except Refused as exc:
        return bool(exc.conflicts)
    except DreamdeckError:  # another refusal (a hunk alone may drop a citation): said when applying
        return False
    return False


def _probe_file(ws: Workspace, f, diff) -> FileProbe:
    try:
        changed = _current(ws, f.path) != f.base
    except (OSError, UnicodeDecodeError):  # unreadable now: nothing can be merged onto it
        return FileProbe(f.path, True, CONFLICT, {h.id: CONFLICT for h in diff.hunks})
    if not changed:
        return FileProbe(f.path, False, FRESH, {h.id: FRESH for h in diff.hunks})
    hunks = {}
    for h in diff.hunks:
        alone = apply_hunks(f.base, f.proposed, {h.id}, f.path)
        hunks[h.id] = CONFLICT if _conflicts(ws, f.path, f.base, alone) else REBASES
    whole = CONFLICT if _conflicts(ws, f.path, f.base, f.proposed) else REBASES
    state = CONFLICT if whole == CONFLICT or CONFLICT in hunks.values() else REBASES
    return FileProbe(f.path, True, state, hunks)


def probe_reflection(ws: Workspace, r: Reflection) -> ReflectionProbe:
    """Each file and hunk of `r` against the shards as they are now."""
    return ReflectionProbe(r.id, [_probe_file(ws, f, diff) for f, diff in r.hunks()])


def probe_conflicts(ws: Workspace, rid: str) -> ReflectionProbe:
    """Which hunks of reflection `rid` apply as made, rebase, or conflict (nothing is written)."""
    return probe_reflection(ws, load_reflection(ws, rid))


def chosen_texts(r: Reflection, hunks: Iterable[str] | None) -> dict[str, str | None]:
    """path -> the text the file gets when these hunks are approved (None: every hunk).

    As `approve` applies them: a file with a chosen hunk gets its chosen hunks; a file without
    hunks (its change has no lines) only comes with the whole reflection.
    """
    files = r.hunks()
    known = {h.id for _, d in files for h in d.hunks}
    chosen = set(known if hunks is None else hunks)
    unknown = sorted(chosen - known)
    if unknown:
        raise ReflectionError(f"{r.id} has no hunk {', '.join(unknown)} (see `dreamdeck review {r.id}`)")
    texts: dict[str, str | None] = {}
    for f, diff in files:
        ids = {h.id for h in diff.hunks}
        if not ids:
            if hunks is None:
                texts[f.path] = f.proposed
        elif ids <= chosen:
            texts[f.path] = f.proposed
        elif ids & chosen:
            texts[f.path] = apply_hunks(f.base, f.proposed, ids & chosen, f.path)
    return texts


def preview_approval(ws: Workspace, rid: str, hunks: list[str] | None = None,
                     rejected: list[str] | None = None) -> CollectionPreview:
    """Every fragment approving `hunks` of `rid` (None: all) would remove from the streams, with its
    reason, and those whose day waits: the door's own judgment on the approval's ChangeSet."""
    from dreamdeck.core.ops.reflections import approval_changeset

    cs, _blame = approval_changeset(ws, rid, hunks=hunks, rejected=rejected, force=True)
    return preview_collection(ws, cs)


@dataclass(frozen=True)
class HeldReflection:
    """A reflection with nothing left to approve that still holds fragments for a decision: a
    rejected one, the rest of a partial approval, or a run that applied nothing (reverted or
    refused). What it holds is kept in the streams, never dreamed again, until released
    (`reject ID --release`) or forgotten."""
    rid: str
    status: str
    summary: str
    held: list[str]  # "DATE#ID" still held (a forgotten one is no longer counted)

    @property
    def release_command(self) -> str:
        return f'dreamdeck reject {self.rid} --release --reason "…"'

    @property
    def forget_command(self) -> str:
        return f'dreamdeck forget {self.held[0]} --reason "…"' if self.held else ""

    def to_json(self) -> dict:
        return {"id": self.rid, "status": self.status, "summary": self.summary, "held": list(self.held),
                "release": self.release_command, "forget": self.forget_command}


def held_reflections(ws: Workspace) -> list[HeldReflection]:
    """Every reflection that holds fragments and has no hunk left to review, oldest first."""
    from dreamdeck.core.store.reflections import list_reflections
    from dreamdeck.core.store.tombstones import load_tombstones

    reflections, _problems = list_reflections(ws, include_decided=True)
    stones = load_tombstones(ws)
    out = []
    for r in sorted(reflections, key=lambda r: r.number):
        if not r.holds or (r.status in ("pending", "stale") and r.files):
            continue  # nothing held, or still under review with its hunks
        held = [k for k in r.held if tuple(k.split("#", 1)) not in stones]
        if held:
            out.append(HeldReflection(r.id, r.status, r.summary, held))
    return out
