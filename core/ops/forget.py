"""Forget: what a human wants gone, through the one door (Moltbot §8.3, Clawdapus tombstones).

Topics
- `forget_topic` (soft): the shard moves from `topics/` to `archive/<slug>.md`, byte for byte.
  TypeClaw no longer sees it, but its citations still protect the evidence (archive is a
  shard area), and `unforget_topic` moves it back.
- `forget_topic(hard=True)`: the shard is deleted and its citations are explicitly dropped
  (`allow_drop`, audited); the fragments then follow TypeClaw's GC rule (dreamed + uncited).
  With `fragments=True` every fragment it cites is also tombstoned (and, hard, purged), with
  the same rules as `forget_fragment`.
- A pinned topic must be unpinned first.

Fragments
- `forget_fragment` records a tombstone (reason, actor, content hash, topic) in
  `meta/tombstones.jsonl` and removes the citation from every shard in `topics/` and
  `archive/` (a citation *line* is removed; an inline mention in prose becomes `[forgotten]`;
  an emptied `superseded:` heading goes too). The vault is never edited: a fragment the vault
  cites is refused ("unpin first").
- A shard left with no citation keeps its prose: the belief is a synthesis that may stand on
  more than this fragment, and deleting a belief is a judgement for a person. It is listed in
  `ForgetResult.orphaned` (cites: 0, so it decays) so the caller can offer `forget_topic`.
  Only a shard left with *nothing* (no prose and no citation) is deleted.
- Soft: the bytes stay in the stream (the door keeps soft-tombstoned fragments out of the
  GC) so `unforget` can bring them back; the fragment is marked dreamed (also one no dream saw
  yet, e.g. today's), so TypeClaw's own dream and its `memory_search` tool, which take every
  fragment its state calls undreamed, never see it. TypeClaw's GC may then collect its bytes
  (dreamed, uncited); `unforget` puts them back from git history. Hard (`forget_hard`): exactly the meant line is purged
  (by its content: a line sharing its id is left; ambiguity is refused until `content` says
  which), its text leaves every file dreamdeck writes under memory/meta/, all in the forget's
  own commit; what remains (git history, GC notes, append-only logs, malformed lines) is listed
  in `ForgetResult.remains` with the commands that would remove it.

Never coming back (invariant 9): `collect_undreamed` skips tombstoned keys, `append_fragment`
refuses a tombstoned content hash, the door refuses a change that would cite a tombstoned key,
and rollback filters tombstoned keys out of the lines and shard text it restores. Views use
`visible` / `visible_filter`.

`unforget` lifts a soft tombstone (an `unforget` record), puts the bytes back if a GC outside
dreamdeck removed them (from git history or a GC note), and releases the fragment to the
undreamed tail so the next dream reconsiders it; citations are not restored (the dream
decides). A hard-forgotten fragment is refused.

Over ~400 lines on purpose: forgetting and unforgetting topics and fragments share how the
tombstones and the ChangeSet are built; finding the meant line and scrubbing its text live in
`forget_hard.py`.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime

from dreamdeck.core.door.apply import apply_changeset
from dreamdeck.core.door.changeset import ApplyResult, Audit, ChangeSet, Commit, Evidence, FileEdit, Writes
from dreamdeck.core.errors import Refused
from dreamdeck.core.formats.citations import Key, citation_keys
from dreamdeck.core.formats.counts import counted
from dreamdeck.core.formats.events import fragment_content_hash, try_parse_event_line
from dreamdeck.core.formats.loose_text import loose_body_hash, loose_content_hash
from dreamdeck.core.formats.shards import strip_citations
from dreamdeck.core.formats.slugs import InvalidSlug, require_slug
from dreamdeck.core.index.evidence import shard_area_files
from dreamdeck.core.io.no_links import read_text_nofollow
from dreamdeck.core.ops.forget_hard import (
    malformed_lines,
    meant_line,
    meta_scrubs,
    shard_pieces,
    text_pieces,
    text_remains,
    what_remains,
)
from dreamdeck.core.ops.forget_siblings import Sibling, cited_siblings
from dreamdeck.core.ops.protected import lines_from_history, missing_from_streams
from dreamdeck.core.store.tombstones import Tombstone, forgotten, load_tombstones, tombstoned_keys
from dreamdeck.core.workspace import Workspace, WorkspaceError, local_datetime_iso, parse_date

__all__ = [
    "ForgetResult", "forget_topic", "forget_fragment", "unforget", "unforget_topic",
    "list_tombstones", "visible", "visible_filter", "tombstoned_keys", "strip_citations",
]

_FID = re.compile(r"^[A-Za-z0-9_-]+$")
# A hard forget in a stream a writer may hold open: the bytes go now, the emptied line later.
BLANKED = "its bytes overwritten in place; the emptied line goes when the stream can be rewritten"


@dataclass
class ForgetResult:
    message: str
    sha: str | None = None
    tombstoned: list[Key] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)  # shard files rewritten (paths under memory/)
    deleted: list[str] = field(default_factory=list)
    orphaned: list[str] = field(default_factory=list)  # shards left with prose but no citation
    purged: bool = False
    waiting: bool = False  # hard: a line to purge waits in a stream a writer may hold open
    blanked: bool = False  # hard: meanwhile its bytes were overwritten in place (never committed)
    warnings: list[str] = field(default_factory=list)
    remains: list[str] = field(default_factory=list)  # hard: where the text still is, and the way out
    siblings: list[Sibling] = field(default_factory=list)  # the same statement, still cited under other ids
    apply: ApplyResult | None = None

    def to_json(self) -> dict:
        return {
            "message": self.message, "sha": self.sha,
            "tombstoned": [f"{d}#{i}" for d, i in self.tombstoned], "edited": self.edited,
            "deleted": self.deleted, "orphaned": self.orphaned, "purged": self.purged,
            "waiting": self.waiting, "blanked": self.blanked, "warnings": self.warnings, "remains": self.remains,
            "siblings": [s.to_json() for s in self.siblings],
        }


# --- reading ---------------------------------------------------------------------------------
def visible(ws: Workspace, day: str, fid: str) -> bool:
    """False for a forgotten fragment id (under any date: tombstones hold by identity)."""
    return not forgotten(ws).holds(fid)


def visible_filter(ws: Workspace) -> Callable[[str, str], bool]:
    """`visible` for many fragments: the tombstones are read once."""
    hidden = forgotten(ws)
    return lambda day, fid: not hidden.holds(fid)


def list_tombstones(ws: Workspace) -> list[Tombstone]:
    """The live tombstones, oldest first."""
    return sorted(load_tombstones(ws).values(), key=lambda t: (t.ts, t.date, t.id))


def _strip_edits(ws: Workspace, keys: set[Key], *, skip: set[str] = frozenset()) -> tuple[list[FileEdit], list[str]]:  # type: ignore[assignment]
    """Edits removing `keys` from every topics/ and archive/ shard; also the orphaned slugs."""
    edits: list[FileEdit] = []
    orphaned: list[str] = []
    for rel, path in shard_area_files(ws, ("topics", "archive")):
        if rel in skip:
            continue
        text = read_text_nofollow(path)
        if not (citation_keys(text) & keys):
            continue
        new = strip_citations(text, keys)
        edits.append(FileEdit(rel, text, new))
        if new is not None and not citation_keys(new):
            orphaned.append(rel)
    return edits, orphaned


def _vault_citing(ws: Workspace, keys: set[Key]) -> dict[str, set[Key]]:
    out: dict[str, set[Key]] = {}
    for rel, path in shard_area_files(ws, ("vault",)):
        hit = citation_keys(path.read_bytes().decode("utf-8", "replace")) & keys
        if hit:
            out[rel] = hit
    return out


def _require_reason(reason: str | None) -> str:
    if not reason or not reason.strip():
        raise Refused("refused: forgetting needs a reason (--reason)")
    return " ".join(reason.split())


def _check_fragment_ref(day: str, fid: str) -> None:
    try:
        parse_date(day)
    except WorkspaceError as exc:
        raise Refused(f"refused: {exc}") from None
    if not isinstance(fid, str) or not _FID.match(fid):
        raise Refused(f"refused: {fid!r} is not a fragment id")


def _slug(slug: str) -> str:
    try:
        return require_slug(slug)
    except InvalidSlug as exc:
        raise Refused(f"refused: {exc}") from None


# --- finding a fragment's bytes --------------------------------------------------------------
def _find_fragment(ws: Workspace, day: str, fid: str, content: str | None = None) -> tuple[dict | None, str | None, bool]:
    """(event, raw line, in the stream now): the meant line of the stream (`forget_hard.meant_line`,
    Refused when ambiguous), else git history or a GC note."""
    meant = meant_line(ws, day, fid, content)
    if meant.event is not None:
        return meant.event, meant.raw, True
    from dreamdeck.core.git.fragment_history import find_line_in_history

    raw = find_line_in_history(ws.root, day, fid)
    if raw is None:
        return None, None, False
    return try_parse_event_line(raw), raw, False


def _stone(day: str, fid: str, event: dict | None, reason: str, actor: str, hard: bool,
           now: datetime | None) -> Tombstone:
    topic = str(event.get("topic", "")) if event else ""
    content_hash = fragment_content_hash(event["topic"], event["body"]) if event else ""
    loose = loose_content_hash(event["topic"], event["body"]) if event else ""
    body = loose_body_hash(event["body"]) if event else ""
    return Tombstone(day, fid, content_hash, reason, actor, local_datetime_iso(now), hard, topic, loose, body)


# --- forget ----------------------------------------------------------------------------------
def forget_fragment(
    ws: Workspace, day: str, fid: str, reason: str, actor: str = "human:cli", *, hard: bool = False,
    content: str | None = None, fault: Callable[[str], None] | None = None, now: datetime | None = None,
) -> ForgetResult:
    """Tombstone one fragment and remove its citations (hard: purge its line and its text too).
    `content`: a content-hash prefix saying which line is meant when several share the id.
    `fault`: called with each step of the door by name (fault injection in tests).
    `now`: when it happens (the tombstone and the audit lines), default the clock."""
    _check_fragment_ref(day, fid)
    reason = _require_reason(reason)
    key = (day, fid)
    existing, event, in_stream = _fragment_to_forget(ws, key, hard, content)
    edits, orphaned = _strip_edits(ws, {key})
    stone = _stone(day, fid, event, reason, actor, hard, now)
    if existing is not None and not stone.hash:  # upgrade of a soft tombstone: keep what it knew
        stone = Tombstone(day, fid, existing.hash, reason, actor, stone.ts, True, existing.topic, existing.loose,
                          existing.body)
    pieces = text_pieces(event) if hard else []
    scrubs = meta_scrubs(ws, pieces)
    what = "hard-deleted" if hard else "forgotten"
    audit = [("FORGET", f"memory/streams/{day}.jsonl", f"{day}#{fid} {what}: {reason}")]
    audit += [("FORGET", f"memory/meta/{rel}", f"text of {day}#{fid} removed: {reason}") for rel in sorted(scrubs)]
    cs = ChangeSet(
        Commit("forget", actor, "approved", "forget", f"forget streams/{day}#{fid}: {reason}",
               subject=f"memory: forget streams/{day}#{fid}" + (" (hard)" if hard else "")),
        Writes(edits, meta_files=dict(scrubs)),
        Evidence(allow_drop={key}, tombstones=[("forget", stone)], purge={key} if hard and in_stream else set(),
                 scrub=pieces, advance={day: {fid}} if in_stream else {}),
        Audit(extra=audit),
    )
    result = apply_changeset(ws, cs, fault=fault, now=now)
    out = _fragment_forgotten(ws, key, hard, result, cs.evidence.purge, edits, orphaned, len(scrubs))
    if hard:
        out.remains = what_remains(ws, day, fid, pieces, malformed_lines(ws, day, fid))
    _name_siblings(ws, out, [stone], reason, hard)
    return out


def _fragment_to_forget(ws: Workspace, key: Key, hard: bool, content: str | None):
    """(its tombstone so far, its event, whether its line is in the stream), or Refused: already
    forgotten as hard as asked, known nowhere, or cited by the vault."""
    day, fid = key
    existing = load_tombstones(ws).get(key)
    if existing is not None and (existing.hard or not hard):
        kind = "hard-deleted" if existing.hard else "forgotten"
        raise Refused(f"refused: streams/{day}#{fid} is already {kind} ({existing.ts}, {existing.reason})")
    event, _raw, in_stream = _find_fragment(ws, day, fid, content)
    cited = any(key in citation_keys(p.read_bytes().decode("utf-8", "replace")) for _, p in shard_area_files(ws))
    if event is None and existing is None and not cited:
        raise Refused(f"refused: no fragment streams/{day}#{fid} (not in the stream, its history or any shard)")
    vault = _vault_citing(ws, {key})
    if vault:
        raise Refused(
            f"refused: streams/{day}#{fid} is cited by the vault ({', '.join(sorted(vault))}); unpin it first"
        )
    return existing, event, in_stream


def _fragment_forgotten(ws: Workspace, key: Key, hard: bool, result, purge: set[Key], edits: list[FileEdit],
                        orphaned: list[str], scrubbed: int) -> ForgetResult:
    """What a fragment's forget did, in words: its line purged, blanked or waiting, the files its
    text left, the shards that lost its citation and those left with none."""
    day, fid = key
    waiting = _purge_waiting(result, purge)
    purged = key in result.compaction.fragment_lines_dropped
    blanked = key in result.compaction.blanked
    what = "hard-deleted" if hard else "forgotten"
    if hard:
        what += (" (its line purged from the stream)" if purged else
                 f" ({BLANKED})" if blanked else
                 " (its line waits in the stream, hidden, until it can be purged)" if waiting else
                 " (no line of it was in the stream)")
    msg = f"{what} streams/{day}#{fid}"
    if scrubbed:
        msg += f"; its text removed from {counted(scrubbed, 'file')} under memory/meta"
    if edits:
        msg += f"; citation removed from {counted(len(edits), 'shard')}"
    out = ForgetResult(
        msg, result.sha, [key], [e.path for e in edits if e.new is not None],
        [e.path for e in edits if e.new is None], orphaned, purged, apply=result,
    )
    out.warnings += waiting
    out.waiting = bool(waiting)
    out.blanked = blanked
    if orphaned:
        out.warnings.append(
            f"left without citations (prose kept; `forget` the topic to drop it): {', '.join(orphaned)}"
        )
    return out


def _topic_fragment_stones(ws: Workspace, slug: str, keys: set[Key], reason: str, actor: str, hard: bool,
                           now: datetime | None):
    """The tombstones for a topic's fragments forgotten with it (those not already forgotten as
    hard as this), the stream lines a hard forget purges, and the text of each (hard: to leave
    memory/meta too). Refused when the vault cites one of them."""
    stones: list[tuple[str, Tombstone]] = []
    purge: set[Key] = set()
    texts: dict[Key, list[str]] = {}
    advance: dict[str, set[str]] = {}
    if not keys:
        return stones, purge, texts, advance
    vault = _vault_citing(ws, keys)
    if vault:
        raise Refused(f"refused: fragments of {slug!r} are cited by the vault ({', '.join(sorted(vault))}); unpin first")
    live = load_tombstones(ws)
    for day, fid in sorted(keys):
        if (day, fid) in live and (live[(day, fid)].hard or not hard):
            continue
        event, _raw, in_stream = _find_fragment(ws, day, fid)
        stones.append(("forget", _stone(day, fid, event, reason, actor, hard, now)))
        if in_stream:
            advance.setdefault(day, set()).add(fid)  # dreamed for TypeClaw (see `forget_fragment`)
        if hard and in_stream:
            purge.add((day, fid))
        if hard:
            texts[(day, fid)] = text_pieces(event)
    return stones, purge, texts, advance


def _topic_edits(ws: Workspace, rel: str, archive_rel: str, text: str, keys: set[Key], hard: bool) -> list[FileEdit]:
    """Hard: the topic is deleted. Soft: it moves to archive/ byte for byte (less the citations of
    fragments forgotten with it), refused when another file is already there."""
    if hard:
        return [FileEdit(rel, text, None)]
    archived = strip_citations(text, keys) if keys else text
    existing = _read(ws, archive_rel)
    if existing is not None and existing != archived:
        raise Refused(f"refused: memory/{archive_rel} already exists; move or forget it first")
    edits = [FileEdit(rel, text, None)]
    if existing is None and archived is not None:
        edits.append(FileEdit(archive_rel, None, archived, recompute=archived != text))
    return edits


def forget_topic(
    ws: Workspace, slug: str, reason: str, actor: str = "human:cli", *, hard: bool = False,
    fragments: bool = False, now: datetime | None = None,
) -> ForgetResult:
    """Soft: topics/<slug>.md moves to archive/. Hard: deleted, citations explicitly dropped.
    `now`: when it happens (the audit lines), default the clock."""
    slug = _slug(slug)
    reason = _require_reason(reason)
    rel = f"topics/{slug}.md"
    path = ws.memory / rel
    if not path.is_file():
        raise Refused(f"refused: no topic {slug!r} (memory/{rel})")
    if (ws.vault_dir / f"{slug}.md").is_file():
        raise Refused(f"refused: {slug!r} is pinned; unpin it first (`dreamdeck unpin {slug}`)")
    text = read_text_nofollow(path)
    cited = citation_keys(text)
    keys = set(cited) if fragments else set()
    stones, purge, texts, advance = _topic_fragment_stones(ws, slug, keys, reason, actor, hard, now)
    archive_rel = f"archive/{slug}.md"
    edits = _topic_edits(ws, rel, archive_rel, text, keys, hard)
    other, orphaned = _strip_edits(ws, keys, skip={rel})
    edits += other
    verb = "deleted" if hard else "archived"
    audit = [("FORGET", f"memory/{rel}", f"topic {slug} {verb}: {reason}")]
    audit += [("FORGET", f"memory/streams/{s.date}.jsonl", f"{s.date}#{s.id} forgotten with {slug}: {reason}")
              for _, s in stones]
    pieces = sorted({*(shard_pieces(text) if hard else ()), *(p for ps in texts.values() for p in ps)}, key=lambda p: (-len(p), p))
    scrubs = meta_scrubs(ws, pieces)
    audit += [("FORGET", f"memory/meta/{r}", f"text of {slug} and of fragments forgotten with it removed: {reason}")
              for r in sorted(scrubs)]
    cs = ChangeSet(
        Commit("forget", actor, "approved", "forget", f"forget topic {slug} ({verb}): {reason}",
               subject=f"memory: forget {slug}" + (" (hard)" if hard else "")),
        Writes(edits, meta_files=dict(scrubs)),
        Evidence(allow_drop=set(cited) if hard else set(keys), tombstones=stones, purge=purge,
                 scrub=pieces if hard else [], advance=advance),
        # soft: every file line says ARCHIVE (the topic moves there); hard: each file's own (DELETE, EDIT)
        Audit(file_verb=None if hard else "ARCHIVE", extra=audit),
    )
    result = apply_changeset(ws, cs, now=now)
    waiting = _purge_waiting(result, purge)
    purged = purge & set(result.compaction.fragment_lines_dropped)
    msg = f"{slug}: {'deleted' if hard else f'moved to memory/{archive_rel}'}"
    if stones:
        msg += f"; {counted(len(stones), 'fragment')} tombstoned" + (f", {counted(len(purged), 'line')} purged" if hard else "")
    out = ForgetResult(
        msg, result.sha, [s.key for _, s in stones], [e.path for e in edits if e.new is not None],
        [e.path for e in edits if e.new is None], orphaned, bool(purged), apply=result,
    )
    out.warnings += waiting
    out.waiting = bool(waiting)
    out.blanked = bool(set(result.compaction.blanked) & purge)
    if hard:
        out.remains = _topic_remains(ws, text, [s for _, s in stones], texts)
    if orphaned:
        out.warnings.append(f"left without citations (prose kept): {', '.join(orphaned)}")
    _name_siblings(ws, out, [s for _, s in stones], reason, hard)
    return out


def _topic_remains(ws: Workspace, text: str, stones: list[Tombstone], texts: dict[Key, list[str]]) -> list[str]:
    """What still holds a hard-forgotten topic's words (its shard was committed), then each
    fragment forgotten with it, as a fragment's own hard forget says it; each line once."""
    remains = text_remains(ws, shard_pieces(text))
    remains += [line for s in stones for line in what_remains(ws, s.date, s.id, texts.get(s.key, []),
                                                             malformed_lines(ws, s.date, s.id))]
    return list(dict.fromkeys(remains))


def _name_siblings(ws: Workspace, out: ForgetResult, stones: list[Tombstone], reason: str, hard: bool) -> None:
    """The same statement still cited under another id (`forget_siblings`): named, with the forget
    that strips it, in the answer and its JSON."""
    out.siblings = cited_siblings(ws, stones, reason=reason, hard=hard)
    out.warnings += [s.warning() for s in out.siblings]


def _purge_waiting(result: ApplyResult, purge: set[Key]) -> list[str]:
    """What a hard forget could not purge yet: a stream a writer may still hold open is never
    rewritten (invariant 8); its purge waits in the compaction backlog for the first change
    (or `doctor --fix`) after the file has gone quiet. Until then the tombstone hides the line."""
    blanked = set(result.compaction.blanked)
    days = sorted({d for d, i in purge if (d, i) not in blanked} & set(result.compaction.deferred))
    return [f"the bytes stay in memory/streams/{d}.jsonl until it can be rewritten "
            f"({result.compaction.deferred[d]}); the first change after that, or `dreamdeck doctor --fix`, "
            "purges them" for d in days]


def _read(ws: Workspace, rel: str) -> str | None:
    try:
        return read_text_nofollow(ws.memory / rel)
    except FileNotFoundError:
        return None


# --- unforget --------------------------------------------------------------------------------
def unforget(ws: Workspace, day: str, fid: str, actor: str = "human:cli") -> ForgetResult:
    """Lift a soft tombstone: visible again and back on the undreamed tail; hard ones refused."""
    _check_fragment_ref(day, fid)
    stone = load_tombstones(ws).get((day, fid))
    if stone is None:
        raise Refused(f"refused: streams/{day}#{fid} is not forgotten")
    if stone.hard:
        raise Refused(
            f"refused: streams/{day}#{fid} was hard-deleted ({stone.ts}: {stone.reason}); "
            "its bytes were purged and it cannot be restored"
        )
    event, raw, in_stream = _find_fragment(ws, day, fid)
    restore: dict[str, list[str]] = {}
    warnings: list[str] = []
    if not in_stream:
        if raw is not None:
            restore[day] = [raw]
        else:
            warnings.append(f"streams/{day}#{fid} is no longer in the stream or its history; only the tombstone is lifted")
    cs = ChangeSet(
        Commit("unforget", actor, "approved", "forget", f"unforget streams/{day}#{fid}",
               subject=f"memory: unforget streams/{day}#{fid}"),
        # The record says who lifted it and when (the forget's own record keeps who forgot it).
        evidence=Evidence(tombstones=[("unforget", replace(stone, actor=actor, ts=local_datetime_iso()))],
                          release={day: {fid}}, restore_lines=restore),
        audit=Audit(extra=[("UNFORGET", f"memory/streams/{day}.jsonl",
                            f"{day}#{fid} visible again, back on the undreamed tail" + (" (bytes restored)" if restore else ""))]),
    )
    result = apply_changeset(ws, cs)
    msg = f"unforgot streams/{day}#{fid}: visible again; the next dream reconsiders it"
    return ForgetResult(msg, result.sha, [(day, fid)], warnings=warnings, apply=result)


def unforget_topic(ws: Workspace, slug: str, actor: str = "human:cli") -> ForgetResult:
    """Move archive/<slug>.md back to topics/ (byte for byte)."""
    slug = _slug(slug)
    archive_rel, rel = f"archive/{slug}.md", f"topics/{slug}.md"
    text = _read(ws, archive_rel)
    if text is None:
        raise Refused(f"refused: no archived topic {slug!r} (memory/{archive_rel})")
    if _read(ws, rel) is not None:
        raise Refused(f"refused: memory/{rel} exists; forget or rename it before restoring the archived copy")
    # TypeClaw's GC never reads archive/: what it collected comes back from git history with the topic.
    restore, _unfound = lines_from_history(ws, missing_from_streams(ws, citation_keys(text)))
    cs = ChangeSet(
        Commit("unforget", actor, "approved", "forget", f"unforget topic {slug}", subject=f"memory: unforget {slug}"),
        Writes([FileEdit(archive_rel, text, None), FileEdit(rel, None, text, recompute=False)]),
        evidence=Evidence(restore_lines=restore),
        audit=Audit(file_verb="UNFORGET"),
    )
    result = apply_changeset(ws, cs)
    return ForgetResult(f"{slug}: moved back to memory/{rel}", result.sha, edited=[rel], deleted=[archive_rel], apply=result)
