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

from dreamdeck.core.formats.citations import Key, citation_keys, sectioned_citations
from dreamdeck.core.door.apply import apply_changeset
from dreamdeck.core.door.changeset import Audit, ChangeSet, Commit, Evidence, FileEdit, Reference, Writes
from dreamdeck.core.errors import Refused
from dreamdeck.core.git.commit import DREAM_EMOJI
from dreamdeck.core.git.diff import FileDiff, apply_hunks, diff_many, diff_texts
from dreamdeck.core.formats.shards import parse_loose_shard
from dreamdeck.core.workspace import Workspace
from dreamdeck.core.store.reflections import OPEN
from dreamdeck.core.store.reflections import ProposedFile
from dreamdeck.core.store.reflections import Reflection
from dreamdeck.core.store.reflections import ReflectionError
from dreamdeck.core.store.reflections import list_reflections
from dreamdeck.core.store.reflections import load_reflection


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
    from dreamdeck.core.store.settings import load_settings

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
        Commit("approve", actor, r.status, "review", f"{r.status} {rid}: {r.summary or 'reflection'}",
               subject=f"dream: {r.status} {rid} ({picked_count}/{total} hunks) {random.choice(DREAM_EMOJI)}",
               ref=Reference("Reflection", rid)),
        Writes(edits, meta_files=meta_updates(ws, [r], log)),
        Evidence(gc_days={d for d, _ in r.shown_keys()}),
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
        Commit("reject", actor, "rejected", "review", f"rejected {rid}: {reason}", subject=f"memory: reject {rid}",
               ref=Reference("Reflection", rid)),
        Writes(meta_files=meta_updates(ws, [r], log)),
        Evidence(release=released),
        Audit(extra=[("REJECT", f"memory/meta/reflections/{rid}.json", reason)]),
    )
    return apply_changeset(ws, cs, now=now)


def mark_stale(ws: Workspace, *, now: datetime | None = None) -> list[str]:
    """Pending reflections older than [review] expire_days become stale: kept, never applied."""
    from dreamdeck.core.store.settings import load_settings

    expire = load_settings(ws.root).review.expire_days
    stale = [r for r in list_reflections(ws)[0] if expire and r.age_days(now) > expire]
    if not stale:
        return []
    for r in stale:
        r.status = "stale"
        r.decisions.append({"at": _now_iso(now), "actor": "system:expiry", "decision": "stale"})
    cs = ChangeSet(
        Commit("edit", "system:expiry", "—", "expiry", f"marked {len(stale)} reflection(s) stale",
               subject="memory: expire stale reflections"),
        Writes(meta_files=meta_updates(ws, stale, None)),
    )
    apply_changeset(ws, cs, now=now)
    return [r.id for r in stale]
