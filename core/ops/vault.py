"""The vault: pinned shards (`memory/vault/<slug>.md`) that only a human changes (invariant 3).

- `pin_topic` copies a topic's current bytes into the vault. The topic stays in `topics/`, so
  TypeClaw still reads it and its citations keep protecting fragments from TypeClaw's own GC;
  the vault copy is the human's frozen version. A dream that touches a pinned topic is always
  held for review (the run sees the vault slugs), and the vault copy's citations protect their
  fragments from dreamdeck's GC.
- `pin_fragment` pins one fragment: a vault shard `pin-<date>-<first 8 of id>` whose belief is
  the fragment body's first sentence and which cites it.
- `unpin` never loses a citation (the safe option):
  1. every citation of the vault copy is held elsewhere (topics, archive, another vault file)
     → the vault file is removed;
  2. otherwise, when `topics/<slug>.md` does not exist (a pinned fragment, or a pinned topic
     that was since forgotten) → the vault copy moves to `topics/<slug>.md`, where dreams and
     decay can take it from there;
  3. otherwise (the topic copy exists and has dropped some of the vault's citations) → the
     vault copy moves to `archive/<slug>.md`, which still protects the evidence;
  4. if that slot is taken too → refused, naming the citations that would be lost.
- Every change goes through the door with `allow_vault=True` (a human action) and is audited.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from dreamdeck.core.door.apply import apply_changeset
from dreamdeck.core.door.changeset import ApplyResult, Audit, ChangeSet, Commit, FileEdit, Writes
from dreamdeck.core.errors import Refused
from dreamdeck.core.formats.citations import Key, citation_keys, format_citation, summarize_missing
from dreamdeck.core.formats.counts import counted
from dreamdeck.core.formats.shards import ShardMeta, first_belief_sentence, parse_loose_shard, render_shard
from dreamdeck.core.formats.slugs import InvalidSlug, require_slug
from dreamdeck.core.git.runner import GitError, repo_args, run_git
from dreamdeck.core.index.evidence import shard_area_files
from dreamdeck.core.index.fragment_index import FragmentIndex
from dreamdeck.core.io.no_links import read_text_nofollow
from dreamdeck.core.store.shard_files import list_shard_files
from dreamdeck.core.store.tombstones import forgotten
from dreamdeck.core.workspace import Workspace, WorkspaceError, parse_date

__all__ = [
    "VaultResult", "VaultEntry", "pin_topic", "pin_fragment", "unpin", "list_vault", "pinned_slugs",
    "fragment_pin_slug",
]

_FID = re.compile(r"^[A-Za-z0-9_-]+$")
_PIN_SLUG = re.compile(r"^pin-[0-9]{4}-[0-9]{2}-[0-9]{2}-[a-z0-9-]+$")
MAX_HEADING = 120


@dataclass
class VaultResult:
    slug: str
    message: str
    sha: str | None = None
    noop: bool = False
    moved_to: str | None = None  # unpin: where the vault copy went (None: removed)
    apply: ApplyResult | None = None

    def to_json(self) -> dict:
        return {"slug": self.slug, "message": self.message, "sha": self.sha, "noop": self.noop, "moved_to": self.moved_to}


@dataclass
class VaultEntry:
    slug: str
    heading: str
    cites: int
    citations: list[str] = field(default_factory=list)  # "DATE#ID"
    pinned_at: str | None = None  # ISO time of the commit that added it (file mtime without git)
    kind: str = "topic"  # topic | fragment
    topic: str = "none"  # same | differs | none: the topics/<slug>.md copy against the vault copy

    @property
    def topic_differs(self) -> bool:
        return self.topic == "differs"

    def to_json(self) -> dict:
        return {
            "slug": self.slug, "heading": self.heading, "cites": self.cites, "citations": self.citations,
            "pinned_at": self.pinned_at, "kind": self.kind, "topic": self.topic,
        }


def _slug(slug: str) -> str:
    try:
        return require_slug(slug)
    except InvalidSlug as exc:
        raise Refused(f"refused: {exc}") from None


def _read(ws: Workspace, rel: str) -> str | None:
    try:
        return read_text_nofollow(ws.memory / rel)
    except FileNotFoundError:
        return None


def pinned_slugs(ws: Workspace) -> frozenset[str]:
    """Slugs with a vault copy: they never decay and a dream touching them waits for a person."""
    return frozenset(slug for slug, _ in list_shard_files(ws.vault_dir))


def _pin(ws: Workspace, slug: str, text: str, recompute: bool, actor: str, what: str, base: str | None = None,
         now: datetime | None = None) -> ApplyResult:
    cs = ChangeSet(
        Commit("pin", actor, "approved", "pin", f"pin {what}", subject=f"memory: pin {slug}"),
        Writes([FileEdit(f"vault/{slug}.md", base, text, recompute=recompute)], allow_vault=True),
        audit=Audit(file_verb="PIN"),
    )
    return apply_changeset(ws, cs, now=now)


def pin_topic(
    ws: Workspace, slug: str, actor: str = "human:cli", *, refresh: bool = False, now: datetime | None = None,
) -> VaultResult:
    """Copy topics/<slug>.md byte for byte into the vault (`now`: when, for the audit; default the clock).

    Already pinned with the same bytes: a no-op. With different bytes: refused, unless
    `refresh` (the human takes the topic's current version into the vault).
    """
    slug = _slug(slug)
    topic = _read(ws, f"topics/{slug}.md")
    if topic is None:
        raise Refused(f"refused: no topic {slug!r} (memory/topics/{slug}.md)")
    current = _read(ws, f"vault/{slug}.md")
    if current == topic:
        return VaultResult(slug, f"{slug} is already pinned (the vault copy is identical)", noop=True)
    if current is not None and not refresh:
        raise Refused(
            f"refused: {slug!r} is already pinned and the topic has changed since; "
            "pin with refresh to take the topic's current version into the vault"
        )
    result = _pin(ws, slug, topic, False, actor, f"topic {slug}" + (" (refresh)" if current else ""), current, now)
    verb = "re-pinned" if current is not None else "pinned"
    return VaultResult(slug, f"{verb} {slug} (memory/vault/{slug}.md)", result.sha, apply=result)


def fragment_pin_slug(day: str, fid: str) -> str:
    head = re.sub(r"[^a-z0-9]", "-", fid[:8].lower()).strip("-") or "x"
    return f"pin-{day}-{head}"


def pin_fragment(ws: Workspace, day: str, fid: str, actor: str = "human:cli") -> VaultResult:
    """A vault shard whose belief is the fragment's first sentence and which cites it."""
    try:
        parse_date(day)
    except WorkspaceError as exc:
        raise Refused(f"refused: {exc}") from None
    if not isinstance(fid, str) or not _FID.match(fid):
        raise Refused(f"refused: {fid!r} is not a fragment id")
    stones = forgotten(ws)
    frag = FragmentIndex(ws).get(day, fid)
    if stones.holds(fid) or (frag is not None and stones.holds(fid, frag.topic, frag.body)):
        raise Refused(f"refused: streams/{day}#{fid} was forgotten; unforget it before pinning")
    if frag is None:
        raise Refused(f"refused: no fragment streams/{day}#{fid}")
    slug = fragment_pin_slug(day, fid)
    existing = _read(ws, f"vault/{slug}.md")
    if existing is not None:
        if (day, fid) in citation_keys(existing):
            return VaultResult(slug, f"streams/{day}#{fid} is already pinned as {slug}", noop=True)
        raise Refused(f"refused: memory/vault/{slug}.md exists and cites another fragment")
    belief = first_belief_sentence(frag.body) or " ".join(frag.body.split()) or frag.topic
    belief = " ".join(belief.split())
    heading = belief if len(belief) <= MAX_HEADING else belief[: MAX_HEADING - 1].rstrip() + "…"
    body = f"{belief}\n\nfragments:\n- {format_citation(day, fid)}\n"
    text = render_shard(ShardMeta(heading, 1, 1, day, None), body)
    result = _pin(ws, slug, text, True, actor, f"fragment streams/{day}#{fid} as {slug}")
    return VaultResult(slug, f"pinned streams/{day}#{fid} as {slug} (memory/vault/{slug}.md)", result.sha, apply=result)


def unpin(ws: Workspace, slug: str, actor: str = "human:cli") -> VaultResult:
    """Remove memory/vault/<slug>.md without losing a citation (see the module docstring)."""
    slug = _slug(slug)
    rel = f"vault/{slug}.md"
    text = _read(ws, rel)
    if text is None:
        raise Refused(f"refused: {slug!r} is not pinned (no memory/{rel})")
    keys = citation_keys(text)
    elsewhere: set[Key] = set()
    for other, path in shard_area_files(ws):
        if other != rel:
            elsewhere |= citation_keys(path.read_bytes().decode("utf-8", "replace"))
    only_here = keys - elsewhere
    edits = [FileEdit(rel, text, None)]
    moved_to = None
    if only_here:
        for area in ("topics", "archive"):
            target = f"{area}/{slug}.md"
            if _read(ws, target) is None:
                edits.append(FileEdit(target, None, text, recompute=False))
                moved_to = target
                break
        else:
            raise Refused(
                f"refused: unpinning {slug!r} would drop {counted(len(only_here), 'citation')} only the vault holds "
                f"({summarize_missing(sorted(only_here))}) and memory/topics/{slug}.md and "
                f"memory/archive/{slug}.md are both taken; forget those fragments or move a copy first"
            )
    cs = ChangeSet(
        Commit("unpin", actor, "approved", "pin", f"unpin {slug}" + (f" (vault copy moved to {moved_to})" if moved_to else ""),
               subject=f"memory: unpin {slug}"),
        Writes(edits, allow_vault=True),
        audit=Audit(file_verb="UNPIN"),
    )
    result = apply_changeset(ws, cs)
    msg = f"unpinned {slug}" + (
        f"; its citations are held only by the vault copy, so it moved to memory/{moved_to}" if moved_to else ""
    )
    return VaultResult(slug, msg, result.sha, moved_to=moved_to, apply=result)


def _pinned_times(ws: Workspace) -> dict[str, str]:
    """slug -> ISO commit time of the latest commit that added memory/vault/<slug>.md."""
    if repo_args(ws.root) is None:
        return {}
    try:
        out = run_git(ws.root, "log", "--diff-filter=A", "--no-renames", "--name-only",
                      "--format=%x1e%cI", "--", "memory/vault/", check=False)
    except GitError:
        return {}
    times: dict[str, str] = {}
    for block in out.split("\x1e"):
        lines = [ln.strip() for ln in block.strip().split("\n") if ln.strip()]
        if not lines:
            continue
        when, paths = lines[0], lines[1:]
        for p in paths:
            m = re.fullmatch(r"memory/vault/([^/]+)\.md", p)
            if m and m.group(1) not in times:  # newest first: the first seen is the latest pin
                times[m.group(1)] = when
    return times


def list_vault(ws: Workspace) -> list[VaultEntry]:
    """Every pinned shard, with when it was pinned and whether the topic copy has moved on."""
    times = _pinned_times(ws)
    entries = []
    for slug, path in list_shard_files(ws.vault_dir):
        text = path.read_bytes().decode("utf-8", "replace")
        loose = parse_loose_shard(text)
        keys = sorted(citation_keys(text))
        topic = _read(ws, f"topics/{slug}.md")
        pinned_at = times.get(slug) or datetime.fromtimestamp(path.stat().st_mtime).astimezone().isoformat(timespec="seconds")
        entries.append(VaultEntry(
            slug=slug, heading=loose.heading or first_belief_sentence(loose.body) or slug, cites=len(keys),
            citations=[f"{d}#{i}" for d, i in keys], pinned_at=pinned_at,
            kind="fragment" if _PIN_SLUG.match(slug) and topic is None else "topic",
            topic="none" if topic is None else "same" if topic == text else "differs",
        ))
    return entries
