"""Reflections: what a dream proposes that waits for a person (memory/meta/reflections/r-N.json).

A reflection records, per file, the base it was made against and the proposed content; hunks
are recomputed from those two with git (stable ids), so nothing derived is stored. Deciding
a reflection (approve all, a subset of hunks, edited text, reject, release) builds a
ChangeSet and goes through the one door.
"""
from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from core.citations import Key, citation_keys, sectioned_citations
from core.changeset import ChangeSet, FileEdit, Refused, apply_changeset
from core.gitops import DREAM_EMOJI
from core.hunks import FileDiff, apply_hunks, diff_many, diff_texts
from core.shards import parse_loose_shard
from core.workspace import Workspace

OPEN = ("pending",)
_RID = re.compile(r"^r-(\d+)$")


class ReflectionError(ValueError):
    pass


def reflections_dir(ws: Workspace) -> Path:
    return ws.meta_dir / "reflections"


@dataclass
class ProposedFile:
    path: str  # relative to memory/
    base: str | None
    proposed: str | None
    pinned: bool = False

    @property
    def base_sha(self) -> str | None:
        return None if self.base is None else hashlib.sha256(self.base.encode()).hexdigest()

    def diff(self) -> FileDiff:
        # Memoized: base and proposed never change after the reflection is made, and each diff
        # is a git process (a 50-shard approval asked for 150 of them).
        known = self.known_diff()
        if known is None:
            known = diff_texts(self.path, self.base, self.proposed)
            self.remember_diff(known)
        return known

    def known_diff(self) -> FileDiff | None:
        cached = self.__dict__.get("_diff")
        return cached[1] if cached is not None and cached[0] == (self.base, self.proposed) else None

    def remember_diff(self, diff: FileDiff) -> None:
        self.__dict__["_diff"] = ((self.base, self.proposed), diff)


@dataclass
class Reflection:
    id: str
    created: str  # ISO UTC
    status: str = "pending"  # pending | approved | partial | rejected | stale
    dreamer: str = ""
    trigger: str = ""
    summary: str = ""
    questions: list[str] = field(default_factory=list)
    contradictions: list[str] = field(default_factory=list)
    archive: list[str] = field(default_factory=list)
    fragments: list[dict] = field(default_factory=list)  # {"date","id","topic","body"} shown to the dream
    files: list[ProposedFile] = field(default_factory=list)
    receipt: dict = field(default_factory=dict)
    decisions: list[dict] = field(default_factory=list)

    @property
    def number(self) -> int:
        return int(self.id[2:])

    def shown_keys(self) -> set[Key]:
        return {(f["date"], f["id"]) for f in self.fragments}

    def to_json(self) -> str:
        data = {
            "version": 1, "id": self.id, "created": self.created, "status": self.status,
            "dreamer": self.dreamer, "trigger": self.trigger, "summary": self.summary,
            "questions": self.questions, "contradictions": self.contradictions, "archive": self.archive,
            "fragments": self.fragments,
            "files": [
                {"path": f.path, "base_sha256": f.base_sha, "base": f.base, "proposed": f.proposed, "pinned": f.pinned}
                for f in self.files
            ],
            "receipt": self.receipt, "decisions": self.decisions,
        }
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str) -> "Reflection":
        d = json.loads(text)
        return cls(
            id=d["id"], created=d["created"], status=d.get("status", "pending"), dreamer=d.get("dreamer", ""),
            trigger=d.get("trigger", ""), summary=d.get("summary", ""), questions=list(d.get("questions", [])),
            contradictions=list(d.get("contradictions", [])), archive=list(d.get("archive", [])),
            fragments=list(d.get("fragments", [])),
            files=[ProposedFile(f["path"], f.get("base"), f.get("proposed"), bool(f.get("pinned"))) for f in d.get("files", [])],
            receipt=dict(d.get("receipt", {})), decisions=list(d.get("decisions", [])),
        )

    def age_days(self, now: datetime | None = None) -> int:
        now = now or datetime.now(timezone.utc)
        return max(0, (now - datetime.fromisoformat(self.created)).days)

    def hunks(self) -> list[tuple[ProposedFile, FileDiff]]:
        # The diffs not yet known come from one git process for all files, not one per file.
        todo = [f for f in self.files if f.known_diff() is None]
        if len(todo) > 1:
            for f, diff in zip(todo, diff_many([(f.path, f.base, f.proposed) for f in todo])):
                f.remember_diff(diff)
        return [(f, f.diff()) for f in self.files]


# --- storage --------------------------------------------------------------------------------
def load_reflection(ws: Workspace, rid: str) -> Reflection:
    if not _RID.match(rid or ""):
        raise ReflectionError(f"{rid!r} is not a reflection id (r-N)")
    path = reflections_dir(ws) / f"{rid}.json"
    try:
        return Reflection.from_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReflectionError(f"no reflection {rid}") from None
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise ReflectionError(f"{rid}.json is unreadable: {exc}") from None


def list_reflections(ws: Workspace, *, include_decided: bool = False) -> tuple[list[Reflection], list[str]]:
    """(reflections oldest first, problems with unreadable files)."""
    out, problems = [], []
    folder = reflections_dir(ws)
    if not folder.is_dir():
        return [], []
    for path in sorted(folder.glob("r-*.json"), key=lambda p: int(p.stem[2:]) if p.stem[2:].isdigit() else 0):
        if not include_decided and peek_status(path) not in (None, *OPEN):
            continue  # decided: months of them would otherwise be parsed whole on every apply
        try:
            r = Reflection.from_json(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            problems.append(f"{ws.rel(path)}: unreadable ({exc})")
            continue
        if include_decided or r.status in OPEN:
            out.append(r)
    return out, problems


# The head `to_json` writes: scalar top-level fields, in this order, before anything nested.
_HEAD = re.compile(r'\{\s*"version": 1,\s*"id": "r-\d+",\s*"created": "[^"\\]*",\s*"status": "([a-z]+)"')


def peek_status(path) -> str | None:
    """A reflection's status from the first bytes of its file, as `to_json` lays them out; None
    when the head is laid out otherwise (hand-edited, foreign) and only a full parse can tell."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(512).decode("utf-8", "replace")
    except OSError:
        return None
    m = _HEAD.match(head)
    return m.group(1) if m else None


def next_reflection_id(ws: Workspace) -> str:
    numbers = [int(m.group(1)) for p in reflections_dir(ws).glob("r-*.json") if (m := _RID.match(p.stem))]
    return f"r-{max(numbers, default=0) + 1}"


# --- the loss meter ---------------------------------------------------------------------------
@dataclass
class LossMeter:
    citations_dropped: list[Key] = field(default_factory=list)
    beliefs_removed: list[str] = field(default_factory=list)  # paths whose belief sentence changes
    shards_deleted: list[str] = field(default_factory=list)
    superseded_added: list[Key] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "citations_dropped": [f"{d}#{i}" for d, i in self.citations_dropped],
            "beliefs_removed": self.beliefs_removed, "shards_deleted": self.shards_deleted,
            "superseded_added": [f"{d}#{i}" for d, i in self.superseded_added],
        }


def loss_meter(files: list[ProposedFile]) -> LossMeter:
    meter = LossMeter()
    before: set[Key] = set()
    after: set[Key] = set()
    for f in files:
        before |= citation_keys(f.base or "")
        after |= citation_keys(f.proposed or "")
        if f.base is not None and f.proposed is None:
            meter.shards_deleted.append(f.path)
        if f.base is not None and f.proposed is not None:
            if parse_loose_shard(f.base).heading != parse_loose_shard(f.proposed).heading:
                meter.beliefs_removed.append(f.path)
        old_sup = sectioned_citations(parse_loose_shard(f.base or "").body).superseded_keys()
        new_sup = sectioned_citations(parse_loose_shard(f.proposed or "").body).superseded_keys()
        meter.superseded_added.extend(sorted(new_sup - old_sup))
    meter.citations_dropped = sorted(before - after)
    return meter


# --- pending-reflection.md (Moltbot §10.5) ----------------------------------------------------
def render_pending_markdown(reflections: list[Reflection]) -> str:
    if not reflections:
        return "# Reflection Summary\n\nNo reflection is pending.\n"
    parts = []
    for r in reflections:
        meter = loss_meter(r.files)
        new = [f for f in r.files if f.base is None and f.proposed is not None]
        changed = [f for f in r.files if f.base is not None and f.proposed is not None]
        lines = [f"# Reflection Summary — {r.created[:10]} ({r.id})", ""]
        if r.summary:
            lines += [r.summary, ""]
        lines.append("## 🧠 New Knowledge Extracted")
        lines += [f"- {parse_loose_shard(f.proposed).heading or f.path} (`{f.path}`)" for f in new] or ["- None this cycle"]  # type: ignore[arg-type]
        lines += ["", "## 🔗 New Connections"]
        conn = []
        for f in changed:
            added = sorted(citation_keys(f.proposed or "") - citation_keys(f.base or ""))
            if added:
                conn.append(f"- `{f.path}` ← " + ", ".join(f"streams/{d}#{i}" for d, i in added))
        lines += conn or ["- None this cycle"]
        lines += ["", "## 📦 Proposed Archival"]
        lines += [f"- {slug}" for slug in r.archive] or ["- None this cycle"]
        lines += ["", "## ⚠️ Contradictions Detected"]
        lines += [f"- {c}" for c in r.contradictions] or ["- None this cycle"]
        lines += ["", "## ✏️ Core Memory Changes"]
        for f, diff in r.hunks():
            flag = " (📌 pinned)" if f.pinned else ""
            lines.append(f"### `{f.path}` — {diff.status}{flag}")
            lines.append("```diff")
            for h in diff.hunks:
                lines.append(f"# {h.id}")
                lines.append(h.text().rstrip("\n"))
            lines.append("```")
        lines += ["", "## ❓ Questions for You"]
        lines += [f"- {q}" for q in r.questions] or ["- None"]
        lines += [
            "", "---",
            f"**Reflection**: {r.id}",
            f"**Dreamer**: {r.dreamer}",
            f"**Fragments processed**: {len(r.fragments)}",
            f"**Loss meter**: {len(meter.citations_dropped)} citations dropped, {len(meter.beliefs_removed)} beliefs rewritten, "
            f"{len(meter.shards_deleted)} shards deleted, {len(meter.superseded_added)} superseded",
            "",
            f"> Reply with `dreamdeck approve {r.id}`, `dreamdeck approve {r.id} --hunk h-…`, "
            f"or `dreamdeck reject {r.id} --reason …`.",
            "",
        ]
        parts.append("\n".join(lines))
    return "\n".join(parts)


def meta_updates(ws: Workspace, changed: list[Reflection], log_entry: str | None = None) -> dict[str, str | None]:
    """The meta files a reflection change rewrites: its JSON, pending-reflection.md, the log."""
    files: dict[str, str | None] = {f"reflections/{r.id}.json": r.to_json() for r in changed}
    current = {r.id: r for r in list_reflections(ws)[0]}
    for r in changed:
        current[r.id] = r
    still_open = sorted((r for r in current.values() if r.status in OPEN), key=lambda r: r.number)
    files["pending-reflection.md"] = render_pending_markdown(still_open)
    if log_entry:
        path = ws.meta_dir / "reflection-log.md"
        old = path.read_text(encoding="utf-8") if path.exists() else "# Reflection Log\n\n"
        files["reflection-log.md"] = old + log_entry + "\n"
    return files


# --- decisions ---------------------------------------------------------------------------------
def workspace_now(ws: Workspace, now: datetime | None = None) -> datetime:
    """`now`, else noon of `--today` when the workspace pretends a date, else the clock: ages and
    expiry follow the same day as everything else that depends on the date."""
    if now is not None:
        return now
    if ws.today_override:
        return datetime.fromisoformat(f"{ws.today_override}T12:00:00+00:00")
    return datetime.now(timezone.utc)


def _now_iso(now: datetime | None) -> str:
    return (now or datetime.now(timezone.utc)).astimezone(timezone.utc).isoformat(timespec="seconds")


def _require_open(r: Reflection, ws: Workspace, force: bool, now: datetime | None = None) -> None:
    from core.settings import load_settings

    if r.status != "pending" and not (force and r.status == "stale"):
        raise ReflectionError(f"{r.id} is {r.status}; only a pending reflection can be decided")
    expire = load_settings(ws.root).review.expire_days
    age = r.age_days(now)  # judged at the decision's own time, as mark_stale does
    if r.status == "pending" and expire and age > expire and not force:
        raise ReflectionError(f"{r.id} is {age} days old (expiry {expire}): it is stale; review it again or pass --force")


def _blame(r: Reflection, chosen: dict[str, set[str]], missing: list[Key]) -> list[str]:
    """Which chosen hunks remove the lost ids, and which unchosen hunks would have kept them."""
    lines = []
    for f, diff in r.hunks():
        for h in diff.hunks:
            removed = citation_keys("\n".join(t for k, t in h.lines if k == "-"))
            added = citation_keys("\n".join(t for k, t in h.lines if k == "+"))
            picked = h.id in chosen.get(f.path, set())
            for key in missing:
                if picked and key in removed:
                    lines.append(f"{h.id} ({f.path}) removes streams/{key[0]}#{key[1]}")
                if not picked and key in added:
                    lines.append(f"{h.id} ({f.path}) would keep streams/{key[0]}#{key[1]} but is not chosen")
    return lines


def approve(
    ws: Workspace,
    rid: str,
    *,
    hunks: list[str] | None = None,
    edited: dict[str, str | None] | None = None,
    actor: str = "human:cli",
    force: bool = False,
    now: datetime | None = None,
):
    """Apply all of a reflection, or only the chosen hunks (and/or edited texts), through the door."""
    now = workspace_now(ws, now)
    r = load_reflection(ws, rid)
    _require_open(r, ws, force, now)
    known = {h.id: f.path for f, d in r.hunks() for h in d.hunks}
    chosen: dict[str, set[str]] = {}
    if hunks is not None:
        unknown = [h for h in hunks if h not in known]
        if unknown:
            raise ReflectionError(f"{rid} has no hunk {', '.join(unknown)} (see `dreamdeck review {rid}`)")
        for h in hunks:
            chosen.setdefault(known[h], set()).add(h)
    else:
        chosen = {f.path: {h.id for h in d.hunks} for f, d in r.hunks()}
    edits: list[FileEdit] = []
    for f, diff in r.hunks():
        if edited and f.path in edited:
            edits.append(FileEdit(f.path, f.base, edited[f.path]))
            continue
        picked = chosen.get(f.path, set())
        if not diff.hunks:
            if hunks is None:
                edits.append(FileEdit(f.path, f.base, f.proposed))
            continue
        if not picked:
            continue
        whole = picked == {h.id for h in diff.hunks}  # every hunk: the proposed text itself
        edits.append(FileEdit(f.path, f.base, f.proposed if whole else apply_hunks(f.base, f.proposed, picked, f.path)))
    total = len(known)
    picked_count = sum(len(v) for v in chosen.values())
    partial = hunks is not None and picked_count < total or bool(edited)
    r.status = "partial" if partial else "approved"
    r.decisions.append({
        "at": _now_iso(now), "actor": actor, "decision": r.status,
        "hunks": sorted(h for v in chosen.values() for h in v), "edited": sorted(edited or {}),
    })
    log = f"- {_now_iso(now)} {rid} {r.status} by {actor}: {picked_count}/{total} hunks" + (
        f", edited {', '.join(sorted(edited))}" if edited else "")
    cs = ChangeSet(
        action="APPROVE", actor=actor, approval=r.status, trigger="review", ref=rid,
        summary=f"{r.status} {rid}: {r.summary or 'reflection'}",
        subject=f"dream: {r.status} {rid} ({picked_count}/{total} hunks) {random.choice(DREAM_EMOJI)}",
        edits=edits, allow_vault=False, gc_days={d for d, _ in r.shown_keys()},
        meta_files=meta_updates(ws, [r], log),
    )
    try:
        return apply_changeset(ws, cs, now=now)
    except Refused as exc:
        if exc.missing:
            blame = _blame(r, chosen, exc.missing)
            raise Refused(str(exc) + ("; " + "; ".join(blame) if blame else ""), missing=exc.missing) from None
        raise


def reject(
    ws: Workspace, rid: str, *, reason: str, release: bool = False, actor: str = "human:cli",
    now: datetime | None = None,
):
    """Nothing of the reflection is applied; with `release` its fragments go back to the tail."""
    if not reason or not reason.strip():
        raise ReflectionError("a rejection needs a reason (--reason)")
    r = load_reflection(ws, rid)
    if r.status not in ("pending", "stale"):
        raise ReflectionError(f"{rid} is {r.status}; only a pending reflection can be rejected")
    r.status = "rejected"
    r.decisions.append({"at": _now_iso(now), "actor": actor, "decision": "rejected", "reason": reason, "released": release})
    released: dict[str, set[str]] = {}
    if release:
        for d, i in r.shown_keys():
            released.setdefault(d, set()).add(i)
    log = f"- {_now_iso(now)} {rid} rejected by {actor}: {reason}" + (" (fragments released)" if release else "")
    cs = ChangeSet(
        action="REJECT", actor=actor, approval="rejected", trigger="review", ref=rid,
        summary=f"rejected {rid}: {reason}", subject=f"memory: reject {rid}",
        release=released, meta_files=meta_updates(ws, [r], log),
        audit=[("REJECT", f"memory/meta/reflections/{rid}.json", reason)],
    )
    return apply_changeset(ws, cs, now=now)


def mark_stale(ws: Workspace, *, now: datetime | None = None) -> list[str]:
    """Pending reflections older than [review] expire_days become stale: kept, never applied."""
    from core.settings import load_settings

    expire = load_settings(ws.root).review.expire_days
    stale = [r for r in list_reflections(ws)[0] if expire and r.age_days(now) > expire]
    if not stale:
        return []
    for r in stale:
        r.status = "stale"
        r.decisions.append({"at": _now_iso(now), "actor": "system:expiry", "decision": "stale"})
    cs = ChangeSet(
        action="EDIT", actor="system:expiry", approval="—", trigger="expiry",
        summary=f"marked {len(stale)} reflection(s) stale", subject="memory: expire stale reflections",
        meta_files=meta_updates(ws, stale, None),
    )
    apply_changeset(ws, cs, now=now)
    return [r.id for r in stale]
