"""What dreamdeck protects outside `topics/`, checked against what TypeClaw's own dreaming may do.

TypeClaw's GC keeps a fragment only when a flat `topics/*.md` cites it; it never reads the vault,
the archive or dreamdeck's reflections. So when TypeClaw dreams the same folder, fragments that
dreamdeck protects there (held by a reflection, cited by a pinned or soft-forgotten topic) can
leave the streams. They are found here (`missing_protected`: `doctor`, and every approval that
would cite them) and put back from git history through the one door (`restore_lines`).
A pinned topic whose `topics/` copy was changed by anyone but dreamdeck (TypeClaw's dream) is
`pinned_drift`: restore it from the vault (`restore_pinned`) or accept it (`pin --refresh`).
"""
from __future__ import annotations

from dataclasses import dataclass

from dreamdeck.core.door.changeset import ApplyResult, Audit, ChangeSet, Commit, Evidence, FileEdit, Writes
from dreamdeck.core.errors import Refused
from dreamdeck.core.formats.citations import Key, citation_keys, summarize_missing
from dreamdeck.core.formats.counts import counted
from dreamdeck.core.git.blobs import show_file
from dreamdeck.core.git.fragment_history import find_line_in_history
from dreamdeck.core.git.runner import repo_args, run_git
from dreamdeck.core.index.evidence import pending_reflection_keys, shard_area_files
from dreamdeck.core.index.stream_scan import fragment_ids
from dreamdeck.core.ops.doctor_memory import held_in_streams
from dreamdeck.core.store.reflections import held_keys
from dreamdeck.core.store.shard_files import list_shard_files
from dreamdeck.core.store.streams import read_path_for
from dreamdeck.core.store.tombstones import tombstoned_keys
from dreamdeck.core.workspace import Workspace

OUTSIDE_TOPICS = ("vault", "archive")


def protected_keys(ws: Workspace) -> dict[Key, str]:
    """(date, id) -> where dreamdeck protects it outside topics/ (the first place found)."""
    where: dict[Key, str] = {}
    for rel, path in shard_area_files(ws, OUTSIDE_TOPICS):
        for key in citation_keys(path.read_bytes().decode("utf-8", "replace")):
            where.setdefault(key, f"memory/{rel}")
    for key in held_keys(ws) | pending_reflection_keys(ws):
        where.setdefault(key, "memory/meta/reflections")
    return where


def missing_from_streams(ws: Workspace, keys) -> list[Key]:
    """The keys no stream holds, leaving out forgotten ones (a forget removes them on purpose):
    each stream file the keys are on is scanned (an approval asks this of what it cites)."""
    stones = tombstoned_keys(ws)
    present: dict[str, set[str]] = {}
    missing = []
    for day, fid in sorted(set(keys)):
        if (day, fid) in stones:
            continue
        if day not in present:
            path = read_path_for(ws, day)
            present[day] = set(fragment_ids(path)) if path is not None else set()
        if fid not in present[day]:
            missing.append((day, fid))
    return missing


def missing_protected(ws: Workspace) -> dict[Key, str]:
    """Protected fragments that left the streams, with where each is protected. The streams are
    asked through doctor's record (`doctor_memory.held_in_streams`): a year of streams is read
    again only where a file changed."""
    where = protected_keys(ws)
    stones = tombstoned_keys(ws)
    held = held_in_streams(ws, where)
    return {k: w for k, w in where.items() if k not in held and k not in stones}


def put_back_from_history(ws: Workspace, keys) -> tuple[dict[str, list[str]], list[Key]]:
    """For the `keys` no stream holds (forgotten ones aside): (day -> their raw lines from git
    history, to restore in the change; the keys git does not hold either)."""
    if not keys:
        return {}, []
    return lines_from_history(ws, missing_from_streams(ws, keys))


def lines_from_history(ws: Workspace, keys) -> tuple[dict[str, list[str]], list[Key]]:
    """(day -> raw lines found in git history, keys found nowhere)."""
    lines: dict[str, list[str]] = {}
    unfound: list[Key] = []
    for day, fid in sorted(keys):
        raw = find_line_in_history(ws.root, day, fid)
        if raw is None:
            unfound.append((day, fid))
        else:
            lines.setdefault(day, []).append(raw)
    return lines, unfound


def restore_missing(ws: Workspace, actor: str = "system:doctor") -> tuple[ApplyResult | None, list[Key], list[Key]]:
    """Put every missing protected fragment back from git history, in one audited commit.
    Returns (result or None, restored keys, keys git history does not hold)."""
    from dreamdeck.core.door.apply import apply_changeset  # here: a read-only doctor never pays the door's imports
    missing = missing_protected(ws)
    lines, unfound = lines_from_history(ws, missing)
    restored = [k for k in missing if k not in unfound]
    if not restored:
        return None, [], unfound
    summary = f"restored {counted(len(restored), 'protected fragment')} from git history: {summarize_missing(restored)}"
    cs = ChangeSet(
        Commit("restore", actor, "auto", "doctor --fix", summary, subject="memory: restore protected fragments"),
        evidence=Evidence(restore_lines=lines),
        audit=Audit(extra=[("APPEND", "memory/streams", summary)]),
    )
    return apply_changeset(ws, cs), restored, unfound


# --- pinned topics changed outside dreamdeck ----------------------------------------------------
@dataclass(frozen=True)
class PinnedDrift:
    slug: str
    why: str  # "uncommitted" | the commit (short sha) that changed it without dreamdeck


def _changed_by_dreamdeck(ws: Workspace, rel: str) -> str | None:
    """None when the file is as dreamdeck's last commit of it left it; else why not."""
    if repo_args(ws.root) is None:
        return None
    committed = show_file(ws.root, "HEAD", rel)
    try:
        on_disk = (ws.root / rel).read_bytes()
    except OSError:
        on_disk = None
    if committed != on_disk:
        return "uncommitted"
    out = run_git(ws.root, "log", "-1", "--format=%h%x00%(trailers:key=Change-Id,valueonly)", "--", rel, check=False)
    sha, _, change = out.partition("\x00")
    return None if not sha or change.strip() else f"commit {sha}"


def pinned_drift(ws: Workspace) -> list[PinnedDrift]:
    """Pinned topics whose topics/ copy differs from the vault and was last changed outside dreamdeck."""
    out = []
    for slug, vault_path in list_shard_files(ws.vault_dir):
        topic = ws.topics_dir / f"{slug}.md"
        if not topic.is_file() or topic.read_bytes() == vault_path.read_bytes():
            continue
        why = _changed_by_dreamdeck(ws, ws.rel(topic))
        if why is not None:
            out.append(PinnedDrift(slug, why))
    return out


def restore_pinned(ws: Workspace, slug: str, actor: str = "human:cli") -> ApplyResult:
    """Put the vault copy back into topics/ (what the person pinned), through the door."""
    from dreamdeck.core.door.apply import apply_changeset  # here: a read-only doctor never pays the door's imports
    vault = ws.vault_path(slug)
    if not vault.is_file():
        raise Refused(f"refused: {slug!r} is not pinned (no memory/vault/{slug}.md)")
    topic = ws.topic_path(slug)
    current = topic.read_bytes().decode("utf-8") if topic.is_file() else None
    text = vault.read_bytes().decode("utf-8")
    cs = ChangeSet(
        Commit("revert", actor, "approved", "pin", f"restore topic {slug} from the vault",
               subject=f"memory: restore {slug} from the vault"),
        Writes([FileEdit(f"topics/{slug}.md", current, text, recompute=False)]),
        audit=Audit(file_verb="REVERT"),
    )
    return apply_changeset(ws, cs)
