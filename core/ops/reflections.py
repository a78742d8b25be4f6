"""Reflections: what a dream proposes that waits for a person (memory/meta/reflections/r-N.json).

A reflection records, per file, the base it was made against and the proposed content; hunks
are recomputed from those two with git (stable ids), so nothing derived is stored. Deciding
a reflection (approve all, a subset of hunks, edited text, reject, release) builds a
ChangeSet and goes through the one door.
"""
from __future__ import annotations

import random
from datetime import UTC, datetime

from dreamdeck.core.door.apply import apply_changeset, plan_changeset
from dreamdeck.core.door.changeset import Audit, ChangeSet, CollectionRecord, Commit, Evidence, FileEdit, Reference, Writes
from dreamdeck.core.errors import Refused
from dreamdeck.core.formats.citations import Key, citation_keys, summarize_missing
from dreamdeck.core.formats.counts import counted
from dreamdeck.core.formats.shards import parse_loose_shard
from dreamdeck.core.git.commit import DREAM_EMOJI
from dreamdeck.core.git.diff import apply_hunks
from dreamdeck.core.ops.claim_review import what_an_approval_applies
from dreamdeck.core.ops.loss_meter import loss_meter
from dreamdeck.core.ops.protected import put_back_from_history
from dreamdeck.core.store.reflections import OPEN, ProposedFile, Reflection, ReflectionError, list_reflections, load_reflection
from dreamdeck.core.store.tombstones import tombstoned_keys
from dreamdeck.core.workspace import Workspace


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
    return datetime.now(UTC)


def _now_iso(now: datetime | None) -> str:
    return (now or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="seconds")


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


def _chosen_hunks(r: Reflection, rid: str, hunks: list[str] | None) -> tuple[dict[str, str], dict[str, set[str]]]:
    """(hunk id -> file, file -> the hunk ids approved): the named hunks, or every hunk."""
    known = {h.id: f.path for f, d in r.hunks() for h in d.hunks}
    if hunks is None:
        return known, {f.path: {h.id for h in d.hunks} for f, d in r.hunks()}
    unknown = [h for h in hunks if h not in known]
    if unknown:
        raise ReflectionError(f"{rid} has no hunk {', '.join(unknown)} (see `dreamdeck review {rid}`)")
    chosen: dict[str, set[str]] = {}
    for h in hunks:
        chosen.setdefault(known[h], set()).add(h)
    return known, chosen


def _approved_edits(r: Reflection, chosen: dict[str, set[str]], everything: bool,
                    edited: dict[str, str | None] | None) -> list[FileEdit]:
    """The file edits an approval makes: an edited text as written, a file whose every hunk is
    chosen as proposed, otherwise the chosen hunks applied to its base."""
    edits: list[FileEdit] = []
    for f, diff in r.hunks():
        if edited and f.path in edited:
            edits.append(FileEdit(f.path, f.base, edited[f.path]))
            continue
        picked = chosen.get(f.path, set())
        if not diff.hunks:
            if everything:
                edits.append(FileEdit(f.path, f.base, f.proposed))
            continue
        if not picked:
            continue
        whole = picked == {h.id for h in diff.hunks}  # every hunk: the proposed text itself
        edits.append(FileEdit(f.path, f.base, f.proposed if whole else apply_hunks(f.base, f.proposed, picked, f.path)))
    return edits


def approve(
    ws: Workspace,
    rid: str,
    *,
    hunks: list[str] | None = None,
    edited: dict[str, str | None] | None = None,
    actor: str = "human:cli",
    force: bool = False,
    now: datetime | None = None,
    rejected: list[str] | None = None,
):
    """Apply all of a reflection, or only the chosen hunks (and/or edited texts), through the door.

    With `hunks`, the hunks neither chosen nor `rejected` stay pending in the same reflection,
    and the fragments behind rejected ones stay held until released or forgotten."""
    now = workspace_now(ws, now)
    cs, blame = approval_changeset(ws, rid, hunks=hunks, edited=edited, actor=actor, force=force, now=now,
                                   rejected=rejected)
    try:
        return apply_changeset(ws, cs, now=now)
    except Refused as exc:
        raise blame(exc) from None


def approval_changeset(
    ws: Workspace, rid: str, *, hunks: list[str] | None = None, edited: dict[str, str | None] | None = None,
    actor: str = "human:cli", force: bool = False, now: datetime | None = None, rejected: list[str] | None = None,
):
    """(the ChangeSet an approval applies, a function turning a refusal into one that names the
    hunks to blame). Nothing is written: `approve` applies it, `review` previews its collection."""
    now = workspace_now(ws, now)
    r = load_reflection(ws, rid)
    _require_open(r, ws, force, now)
    _refuse_if_dreamed_elsewhere(ws, r, force)
    known, chosen = _chosen_hunks(r, rid, hunks)
    turned_down = set(rejected or ()) & set(known) - {h for v in chosen.values() for h in v}
    edits = _approved_edits(r, chosen, hunks is None, edited)
    total, picked_count = len(known), sum(len(v) for v in chosen.values())
    partial = hunks is not None and picked_count < total or bool(edited)
    decision = "partial" if partial else "approved"
    applied = what_an_approval_applies(r, [e.path for e in edits], chosen, edited, picked_count, total)
    r.decisions.append({
        "at": _now_iso(now), "actor": actor, "decision": decision, "files": sorted(e.path for e in edits),
        "hunks": sorted(h for v in chosen.values() for h in v), "edited": sorted(edited or {}),
        **({"rejected_hunks": sorted(turned_down)} if turned_down else {}),
    })

    def blame(exc: Refused) -> Refused:
        if not exc.missing:
            return exc
        said = _blame(r, chosen, exc.missing)
        return Refused(str(exc) + ("; " + "; ".join(said) if said else ""), missing=exc.missing)

    try:  # (a partial approval plans its result first: a refusal is blamed the same way)
        advance = _settle_held(ws, r, edits, chosen if partial and not edited else None, decision, turned_down)
        log = f"- {_now_iso(now)} {rid} {decision} by {actor}: {picked_count}/{total} hunks" + (
            f", edited {', '.join(sorted(edited))}" if edited else "")
        cs = ChangeSet(
            Commit("approve", actor, decision, "review", f"{decision} {rid}: {applied}",
                   subject=f"dream: {decision} {rid} ({picked_count}/{total} hunks) {random.choice(DREAM_EMOJI)}",
                   ref=Reference("Reflection", rid)),
            Writes(edits, meta_files=meta_updates(ws, [r], log),
                   collection_record=CollectionRecord(f"reflections/{r.id}.json", ("decisions", -1))),
            Evidence(advance=advance, gc_days={d for d, _ in r.shown_keys()},
                     restore_lines=_lines_to_restore(ws, r, edits), gc_reasons=given_reasons(r.receipt)),
        )
    except Refused as exc:
        raise blame(exc) from None
    return cs, blame


def given_reasons(receipt: object) -> dict[str, str]:
    """Why a dream left fragments uncited, from its receipt: "DATE#ID" -> a named duplicate, or
    the dreamer's noise rule (the GC's reasons when its apply, or an approval, lets them go)."""
    receipt = receipt if isinstance(receipt, dict) else {}
    out: dict[str, str] = {}
    for field_name, say in (("noise", "noise: {}"), ("folded", "duplicate of streams/{}")):
        given = receipt.get(field_name)
        if isinstance(given, dict):
            out.update({str(k): say.format(v) for k, v in given.items() if isinstance(v, str)})
    return out


def _dreamed_elsewhere(ws: Workspace, state, r: Reflection) -> list[Key]:
    """Held fragments the state calls dreamed, a forgotten one aside: TypeClaw dreamed them."""
    dreamed = {k for k in r.held_keys() if k[1] in state.dreamed_ids(k[0])}
    return sorted(dreamed - tombstoned_keys(ws)) if dreamed else []


def _refuse_if_dreamed_elsewhere(ws: Workspace, r: Reflection, force: bool) -> None:
    """A reflection's held fragments are never marked dreamed by dreamdeck; if the state says they
    are, TypeClaw's own dream consolidated them since: the proposal is stale, not applied blind."""
    from dreamdeck.core.store.state import load_state

    if force:
        return
    dreamed = _dreamed_elsewhere(ws, load_state(ws.state_path)[0], r)
    if dreamed:
        raise ReflectionError(
            f"{r.id} is stale: {len(dreamed)} of its fragments were dreamed outside dreamdeck since "
            f"(TypeClaw's own dreaming?), e.g. streams/{dreamed[0][0]}#{dreamed[0][1]}; review it again, "
            f"reject it, or pass --force")


def _settle_held(ws: Workspace, r: Reflection, edits: list[FileEdit], chosen: dict[str, set[str]] | None,
                 decision: str, turned_down: set[str]) -> dict[str, set[str]]:
    """What an approval marks dreamed, and what the reflection keeps holding (updated in `r`).

    A whole approval lets go of every held fragment (the person accepted what the dream left
    uncited). A partial one marks dreamed only what the applied text cites: the fragments behind
    undecided hunks stay held by the reflection, which stays open with those hunks (`chosen`), and
    an edited approval keeps the rest held until `reject --release` or a forget."""
    held = r.held_keys()
    if decision == "approved":
        let_go = held
    else:
        cited: set[Key] = set()
        for edit in edits:
            cited |= citation_keys(edit.new or "")
        let_go = held & cited
    r.held = sorted(f"{d}#{i}" for d, i in held - let_go)
    r.status = decision
    if chosen is not None:
        r.files = _undecided_files(ws, r, edits, chosen, turned_down)
        if r.files:
            r.status = "pending"  # the undecided hunks wait in the same reflection
    advance: dict[str, set[str]] = {}
    for d, i in let_go:
        advance.setdefault(d, set()).add(i)
    return advance


def _lines_to_restore(ws: Workspace, r: Reflection, edits: list[FileEdit]) -> dict[str, list[str]]:
    """Fragments this approval cites, or the reflection still holds, that left the streams (TypeClaw's
    own GC never reads reflections): put back from git history in the same change. A cited one
    git does not hold refuses the approval: a shard is never applied citing what no stream holds."""
    cited: set[Key] = set()
    for edit in edits:
        cited |= citation_keys(edit.new or "")
    lines, unfound = put_back_from_history(ws, cited | r.held_keys())
    lost = sorted(set(unfound) & cited)
    if lost:
        raise Refused(f"refused: {r.id} cites {counted(len(lost), 'fragment')} that no stream holds and git history does "
                      f"not have: {', '.join(f'streams/{d}#{i}' for d, i in lost[:3])}")
    return lines


def _undecided_files(ws: Workspace, r: Reflection, edits: list[FileEdit], chosen: dict[str, set[str]],
                     turned_down: set[str]) -> list[ProposedFile]:
    """The files with hunks nobody decided, each re-based on the text this approval writes (as
    the door will write it) and proposing only those hunks: the remaining hunks are exactly the
    undecided ones (rejected hunks are no longer proposed)."""
    targets = plan_changeset(ws, ChangeSet(Commit("approve", "system:review", "partial", "review", "plan"),
                                           Writes(list(edits)))).targets if edits else {}
    out = []
    for f, diff in r.hunks():
        ids = {h.id for h in diff.hunks}
        picked = chosen.get(f.path, set())
        undecided = ids - picked - turned_down
        if not undecided:
            continue  # every hunk decided (or no lines to decide)
        base = targets[f.path] if f.path in targets else f.base
        proposed = f.proposed if not (ids & turned_down) else apply_hunks(f.base, f.proposed, picked | undecided, f.path)
        if base != proposed:
            out.append(ProposedFile(f.path, base, proposed, f.pinned))
    return out


def reject(
    ws: Workspace, rid: str, *, reason: str, release: bool = False, actor: str = "human:cli",
    now: datetime | None = None,
):
    """Nothing of the reflection is applied; with `release` its fragments go back to the tail."""
    if not reason or not reason.strip():
        raise ReflectionError("a rejection needs a reason (--reason)")
    r = load_reflection(ws, rid)
    # A decided reflection that still holds fragments (rejected, or the rest of an edited
    # approval) can let them go later: `reject ID --release`.
    late_release = release and r.holds and r.status in ("rejected", "partial")
    if r.status not in ("pending", "stale") and not late_release:
        raise ReflectionError(f"{rid} is {r.status}; only a pending reflection can be rejected")
    r.status = r.status if late_release else "rejected"
    # What it holds (never marked dreamed); a reflection from before holding: all it was shown.
    keys = (r.held_keys() if r.held else r.shown_keys()) if release else set()
    restore, unfound = put_back_from_history(ws, keys)  # released: dreamed again, what TypeClaw's GC took put back
    released: dict[str, set[str]] = {}
    for d, i in keys - set(unfound):
        released.setdefault(d, set()).add(i)
    lost = {"not_released": [f"{d}#{i}" for d, i in unfound]} if unfound else {}  # what git lacks too is not released
    r.decisions.append({"at": _now_iso(now), "actor": actor, "decision": "released" if late_release else "rejected",
                        "reason": reason, "released": release, **lost})
    log = f"- {_now_iso(now)} {rid} rejected by {actor}: {reason}" + (" (fragments released)" if release else "")
    cs = ChangeSet(
        Commit("reject", actor, "rejected", "review", f"rejected {rid}: {reason}", subject=f"memory: reject {rid}",
               ref=Reference("Reflection", rid)),
        Writes(meta_files=meta_updates(ws, [r], log)),
        Evidence(release=released, restore_lines=restore),
        Audit(extra=[("REJECT", f"memory/meta/reflections/{rid}.json", reason)]),
    )
    result = apply_changeset(ws, cs, now=now)
    if unfound:  # never claimed released: named, with why
        result.warnings.append(f"not released, cannot be put back (in no stream nor git history): {summarize_missing(unfound)}")
    return result


def mark_stale(ws: Workspace, *, now: datetime | None = None) -> list[str]:
    """Pending reflections older than [review] expire_days become stale: kept, never applied."""
    from dreamdeck.core.store.settings import load_settings
    from dreamdeck.core.store.state import load_state

    expire = load_settings(ws.root).review.expire_days
    state = load_state(ws.state_path)[0]
    stale = []
    for r in list_reflections(ws)[0]:
        # Expired, or consolidated by TypeClaw's own dreaming since: kept, never applied blind.
        why = "expired" if expire and r.age_days(now) > expire else \
            "dreamed outside dreamdeck" if _dreamed_elsewhere(ws, state, r) else None
        if why:
            r.status = "stale"
            r.decisions.append({"at": _now_iso(now), "actor": "system:expiry", "decision": "stale", "why": why})
            stale.append(r)
    if not stale:
        return []
    cs = ChangeSet(Commit("edit", "system:expiry", "—", "expiry", f"marked {counted(len(stale), 'reflection')} stale",
                          subject="memory: expire stale reflections"),
                   Writes(meta_files=meta_updates(ws, stale, None)))
    apply_changeset(ws, cs, now=now)
    return [r.id for r in stale]
