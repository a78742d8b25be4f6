"""Rollback: undo one memory commit, or return memory to a point in time, as a forward commit.

Moltbot §12.8 ("single file", "full session" and "point-in-time" rollback), done through the
one door so the invariants hold; never a reset.

For each shard file (topics, vault, archive) that REV changed, the target is its content at
REV^ (the pre-commit side):
- the file has not changed since REV → the REV^ bytes, verbatim (byte-identical restore);
- it has → a 3-way merge (base REV, ours = the file now, theirs = REV^) of the body with
  `git merge-file`; heading and tags merge as values; later non-overlapping changes are kept,
  overlapping parts resolve to the REV^ side (`--theirs`), and so does a file REV created
  that a later commit changed (it is deleted). `strict=True` refuses any such overlap.

Evidence:
- Fragments REV's GC dropped come back into their stream (`restore_lines`): lines present
  at REV^ and gone at REV, plus lines that were appended and collected within REV itself,
  which git never saw and which the door keeps in a git note (`refs/notes/dreamdeck-gc`).
- Citations the rollback removes (REV added them) are explicitly dropped (`allow_drop`,
  audited) and their fragments return to the undreamed tail (`release`) so the next dream
  reconsiders them; `no_redream` leaves them dreamed. Restored fragments that end up uncited
  are released too. A citation that existed at REV^ is never dropped (the door refuses).
- Fragments the rollback cites again and which are undreamed now are marked dreamed, so a
  rollback of a rollback returns to the state after the original commit.
- Tombstones hold: forgotten fragments are filtered out of restored lines and shard text.
  Tombstone records themselves are not rolled back (use forget / unforget).
- `.dreaming-state.json` is not rewound otherwise (anti-loop: what a run saw stays dreamed),
  and the rollback commit runs no GC.

`restore_to(rev_or_date)` is the same machinery with base = that revision and REV = HEAD.
"""
from __future__ import annotations

import re
from pathlib import Path

from dreamdeck.core.door.apply import apply_changeset
from dreamdeck.core.door.changeset import (
    ApplyResult,
    Audit,
    ChangeSet,
    Commit,
    Evidence,
    FileEdit,
    Reference,
    Writes,
)
from dreamdeck.core.door.checks import validate_path
from dreamdeck.core.errors import Refused
from dreamdeck.core.formats.citations import Key, citation_keys, summarize_missing
from dreamdeck.core.formats.counts import counted
from dreamdeck.core.formats.shards import parse_loose_shard, strip_citations
from dreamdeck.core.git.blobs import read_blobs, show_file, tree_files
from dreamdeck.core.git.commit import STREAM_PATH
from dreamdeck.core.git.merge import merge_shards
from dreamdeck.core.git.runner import GitError, repo_args, resolve_rev, run_git
from dreamdeck.core.index.evidence import SHARD_AREAS
from dreamdeck.core.io.no_links import read_text_nofollow
from dreamdeck.core.ops.rollback_evidence import (
    Forgotten,
    plan_citations,
    plan_restored_lines,
)
from dreamdeck.core.ops.rollback_plan import LaterCommit, PlannedFile, RollbackPlan
from dreamdeck.core.workspace import Workspace, parse_date

__all__ = [
    "RollbackPlan", "PlannedFile", "LaterCommit", "preview_rollback", "rollback", "preview_restore_to",
    "restore_to", "resolve_point",
]

_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


def _git_root(ws: Workspace) -> Path:
    if repo_args(ws.root) is None:
        raise Refused(f"refused: {ws.root} is not a git repository; there is no history to roll back")
    return ws.root


def _rev(ws: Workspace, rev: str) -> str:
    try:
        return resolve_rev(_git_root(ws), rev)
    except GitError as exc:
        raise Refused(f"refused: {exc}") from None


def _empty_tree(root: Path) -> str:
    return run_git(root, "hash-object", "-t", "tree", "/dev/null").strip()


def _subject(root: Path, sha: str) -> str:
    return run_git(root, "log", "-1", "--format=%s", sha).strip()


def _short(root: Path, sha: str) -> str:
    return run_git(root, "rev-parse", "--short", sha).strip()


def _decode(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8")


def _read(ws: Workspace, rel: str) -> str | None:
    try:
        return read_text_nofollow(ws.memory / rel)
    except FileNotFoundError:
        return None


def _is_shard(rel: str) -> bool:
    try:
        validate_path(rel, True)
        return True
    except Refused:
        return False


def _changed_paths(root: Path, a: str, b: str) -> list[str]:
    out = run_git(root, "diff", "--name-only", "--no-renames", "-z", a, b, "--", "memory/", strip=False)
    return [p for p in out.split("\0") if p]


def _body_lines(text: str | None) -> list[str]:
    if text is None:
        return []
    return [ln for ln in parse_loose_shard(text).body.split("\n") if ln.strip()]


def _later_commits(root: Path, rev: str, paths: list[str]) -> list[tuple[str, str, list[str]]]:
    """(sha, subject, memory paths) of commits after `rev` on HEAD touching `paths`, oldest first."""
    if not paths:
        return []
    out = run_git(root, "log", "--reverse", "--no-renames", "--name-only", "--format=%x1e%H%x1f%s",
                  f"{rev}..HEAD", "--", *[f"memory/{p}" for p in paths], check=False)
    result = []
    for block in out.split("\x1e"):
        if not block.strip():
            continue
        head, _, rest = block.partition("\n")
        sha, _, subject = head.partition("\x1f")
        files = [ln.strip()[len("memory/"):] for ln in rest.split("\n") if ln.strip().startswith("memory/")]
        result.append((sha.strip(), subject.strip(), [f for f in files if f in paths]))
    return result


def _cited(texts) -> set[Key]:
    return set().union(*(citation_keys(t) for t in texts))


def _shard_texts(root: Path, rev: str) -> dict[str, str]:
    files = [p for p in tree_files(root, rev, *[f"memory/{a}/" for a in SHARD_AREAS]) if _is_shard(p[len("memory/"):])]
    return {p[len("memory/"):]: b.decode("utf-8", "replace") for p, b in read_blobs(root, rev, files).items()}


def _build(ws: Workspace, base: str, rev: str, *, kind: str, subject: str, short: str, base_commit: str | None,
           strict: bool, no_redream: bool) -> RollbackPlan:
    """The plan that takes memory's shards back to `base`'s side of base..rev, and its evidence."""
    root = ws.root
    plan = RollbackPlan(kind, rev, short, subject, base_commit, no_redream=no_redream)
    changed = _changed_paths(root, base, rev)
    shard_paths = [p[len("memory/"):] for p in changed if _is_shard(p[len("memory/"):])]
    stones = Forgotten.load(ws)
    later = _later_commits(root, rev, shard_paths) if kind == "rollback" else []
    lost_by_file = _plan_files(ws, plan, base, rev, shard_paths, later, stones)
    if strict and plan.overlaps:
        raise Refused(
            f"refused (strict): later commits changed the same parts of {', '.join(plan.overlaps)}",
            conflicts=plan.overlaps,
        )
    plan.pins_affected = sorted({f.path for f in plan.files if f.pinned})
    plan.later_commits = _later_losses(root, later, lost_by_file)
    present: dict[str, set[str]] = {}  # day -> fragment ids in its stream now (read once per day)
    plan_restored_lines(ws, plan, base, rev, [p for p in changed if STREAM_PATH.match(p)], stones, present)
    plan_citations(ws, plan, _cited(_shard_texts(root, base).values()), stones, present)
    return plan


def _plan_files(ws: Workspace, plan: RollbackPlan, base: str, rev: str, shard_paths: list[str],
                later: list[tuple[str, str, list[str]]], stones: Forgotten) -> dict[str, set[str]]:
    """A PlannedFile and an edit for each shard file that is not at `base`'s side yet; returns the
    body lines of later commits each file loses."""
    pre_blobs = read_blobs(ws.root, base, [f"memory/{p}" for p in shard_paths])
    rev_blobs = read_blobs(ws.root, rev, [f"memory/{p}" for p in shard_paths])
    vault_now = {p.stem for p in ws.vault_dir.glob("*.md")} if ws.vault_dir.is_dir() else set()
    by_file: dict[str, list[str]] = {}
    for sha, _, files in later:
        for f in files:
            by_file.setdefault(f, []).append(sha)
    lost_by_file: dict[str, set[str]] = {}
    today = ws.today()
    for rel in shard_paths:
        pre, at_rev = _decode(pre_blobs.get(f"memory/{rel}")), _decode(rev_blobs.get(f"memory/{rel}"))
        now = _read(ws, rel)
        if now == pre:
            continue  # already as it was before REV
        target, action, overlap, recompute = _file_target(rel, pre, at_rev, now, today)
        hidden = stones.cited_in(target) if target is not None else set()
        if target is not None and hidden:
            plan.filtered += sorted(hidden)
            target = strip_citations(target, hidden)
            recompute = True
        if target == now:
            continue
        lost = set(_body_lines(now)) - set(_body_lines(target)) - set(_body_lines(at_rev))
        lost_by_file[rel] = lost
        area, slug = rel.split("/")[0], rel.split("/")[1][:-3]
        plan.files.append(PlannedFile(
            rel, action, overlap, [s[:7] for s in by_file.get(rel, [])], sorted(lost),
            pinned=area == "vault" or slug in vault_now,
        ))
        plan.edits.append(FileEdit(rel, now, target, recompute=recompute))
    return lost_by_file


def _file_target(rel: str, pre: str | None, at_rev: str | None, now: str | None,
                 today: str) -> tuple[str | None, str, bool, bool]:
    """(target, action, overlap, recompute) of one shard file that differs from its pre-REV side."""
    if now == at_rev:
        action = "restore" if pre is not None and at_rev is not None else "delete" if pre is None else "recreate"
        return pre, action, False, False
    if pre is None or at_rev is None or now is None:
        # REV created (or deleted) the file and a later commit changed (or deleted) it:
        # the pre-commit side wins the whole file.
        action = "delete" if pre is None else "recreate" if at_rev is None else "restore"
        return pre, action, True, False
    target, overlap = merge_shards(at_rev, now, pre, rel.split("/")[1][:-3], today, favor_theirs=True)
    return target, "merge", overlap, True


def _later_losses(root: Path, later: list[tuple[str, str, list[str]]],
                  lost_by_file: dict[str, set[str]]) -> list[LaterCommit]:
    """Each later commit on the same files, with the lines it added that go with the rollback."""
    out = []
    for sha, subj, files in later:
        lc = LaterCommit(sha, subj, files)
        for f in files:
            lost = lost_by_file.get(f)
            if not lost:
                continue
            before = _decode(show_file(root, f"{sha}^", f"memory/{f}"))
            after = _decode(show_file(root, sha, f"memory/{f}"))
            added = set(_body_lines(after)) - set(_body_lines(before))
            lc.lost += [f"{f}: {ln}" for ln in sorted(added & lost)]
        out.append(lc)
    return out


def _group(keys: list[Key]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for day, fid in keys:
        out.setdefault(day, set()).add(fid)
    return out


def _apply(ws: Workspace, plan: RollbackPlan, *, actor: str, subject: str, summary: str) -> ApplyResult:
    if plan.would_lose:
        raise Refused(
            f"refused: the rollback would drop {counted(len(plan.would_lose), 'citation')} that existed before "
            f"{plan.short}: {summarize_missing(plan.would_lose)}",
            missing=plan.would_lose,
        )
    if plan.empty:
        what = f"{plan.short}'s pre-commit side" if plan.kind == "rollback" else f"{plan.short}"
        if plan.filtered:
            raise Refused(
                f"refused: nothing to roll back: what {plan.short} removed is forgotten "
                f"({summarize_missing(plan.filtered)}) and stays so; `dreamdeck unforget` it first"
            )
        raise Refused(f"refused: nothing to roll back: memory already matches {what}")
    audit = [("REVERT", f"memory/streams/{day}.jsonl", f"restored {counted(len(lines), 'fragment')} the GC had collected")
             for day, lines in sorted(plan.restore_lines.items())]
    if plan.released:
        audit.append(("REVERT", "memory/.dreaming-state.json",
                      f"{counted(len(plan.released), 'fragment')} back to the undreamed tail"))
    cs = ChangeSet(
        Commit("revert", actor, "approved", "rollback", summary, subject=subject, ref=Reference("Reverts", plan.rev)),
        Writes(plan.edits, allow_vault=any(e.path.startswith("vault/") for e in plan.edits)),
        Evidence(advance=_group(plan.recited), release=_group(plan.released), restore_lines=plan.restore_lines,
                 allow_drop=set(plan.dropped)),
        Audit(file_verb="REVERT", extra=audit),
    )
    return apply_changeset(ws, cs)


# --- rollback of one commit ------------------------------------------------------------------
def _rollback_plan(ws: Workspace, rev: str, strict: bool, no_redream: bool) -> RollbackPlan:
    root = _git_root(ws)
    sha = _rev(ws, rev)
    head = _rev(ws, "HEAD")
    if sha != head and not _is_ancestor(root, sha, head):
        raise Refused(f"refused: {rev} is not in the history of HEAD")
    parents = run_git(root, "rev-list", "--parents", "-n", "1", sha).split()[1:]
    base_commit = parents[0] if parents else None
    base = base_commit or _empty_tree(root)
    if not _changed_paths(root, base, sha):
        raise Refused(f"refused: {rev} does not touch memory/; there is nothing to roll back")
    return _build(ws, base, sha, kind="rollback", subject=_subject(root, sha), short=_short(root, sha),
                  base_commit=base_commit, strict=strict, no_redream=no_redream)


def _is_ancestor(root: Path, a: str, b: str) -> bool:
    try:
        run_git(root, "merge-base", "--is-ancestor", a, b)
    except GitError:
        return False
    return True


def preview_rollback(ws: Workspace, rev: str, *, strict: bool = False, no_redream: bool = False) -> RollbackPlan:
    """What `rollback` would do, without writing anything (Refused on the same grounds)."""
    return _rollback_plan(ws, rev, strict, no_redream)


def rollback(
    ws: Workspace, rev: str, *, strict: bool = False, no_redream: bool = False, actor: str = "human:cli",
) -> ApplyResult:
    """Undo memory commit `rev` as a new forward commit (REVERT, approved, trigger rollback)."""
    plan = _rollback_plan(ws, rev, strict, no_redream)
    return _apply_titled(ws, plan, "rollback", actor)


# --- point in time ---------------------------------------------------------------------------
def resolve_point(ws: Workspace, rev_or_date: str) -> str:
    """A revision, or the last memory commit on or before a YYYY-MM-DD date (local time)."""
    root = _git_root(ws)
    if _DATE.match(rev_or_date):
        parse_date(rev_or_date)  # a well-shaped date must be a real day (2026-13-45 is not)
        out = run_git(root, "rev-list", "-1", f"--before={rev_or_date} 23:59:59", "HEAD", "--", "memory/", check=False).strip()
        if not out:
            raise Refused(f"refused: no memory commit on or before {rev_or_date}")
        return out
    return _rev(ws, rev_or_date)


def _restore_plan(ws: Workspace, rev_or_date: str, strict: bool, no_redream: bool) -> RollbackPlan:
    root = _git_root(ws)
    point = resolve_point(ws, rev_or_date)
    head = _rev(ws, "HEAD")
    if point != head and not _is_ancestor(root, point, head):
        raise Refused(f"refused: {rev_or_date} is not in the history of HEAD")
    short = _short(root, point)
    label = rev_or_date if _DATE.match(rev_or_date) else _subject(root, point)
    plan = _build(ws, point, head, kind="restore", subject=label, short=short, base_commit=point,
                  strict=strict, no_redream=no_redream)
    return plan


def preview_restore_to(ws: Workspace, rev_or_date: str, *, strict: bool = False, no_redream: bool = False) -> RollbackPlan:
    return _restore_plan(ws, rev_or_date, strict, no_redream)


def restore_to(
    ws: Workspace, rev_or_date: str, *, strict: bool = False, no_redream: bool = False, actor: str = "human:cli",
) -> ApplyResult:
    """Memory's shards as of a revision or date, as one forward commit (same rules as rollback)."""
    plan = _restore_plan(ws, rev_or_date, strict, no_redream)
    return _apply_titled(ws, plan, "restore to", actor)


def _apply_titled(ws: Workspace, plan: RollbackPlan, verb: str, actor: str) -> ApplyResult:
    """Apply a plan with the subject `memory: <verb> <short> (<subject>)` and a counted summary."""
    title = f"{verb} {plan.short} ({plan.subject})"
    summary = f"{title}: {counted(len(plan.edits), 'file')}" + (
        f", {counted(len(plan.restored), 'fragment')} restored" if plan.restored else "") + (
        f", {len(plan.released)} back to the tail" if plan.released else "")
    return _apply(ws, plan, actor=actor, subject=f"memory: {title}", summary=summary)
