"""Commands that change memory: remember, dream, watch, the review queue, and curation."""
from __future__ import annotations

from dreamdeck.cli.common import CliError, emit_json, open_ws, plural, say, table, truncate, warn
from dreamdeck.core.formats.counts import counted
from dreamdeck.core.formats.terminal_text import terminal_line


# --- write -----------------------------------------------------------------------------------
def cmd_remember(args) -> int:
    from dreamdeck.core.store.streams import append_fragment

    ws = open_ws(args)
    frag = append_fragment(ws, args.topic, args.text, source=args.source, who=args.who, day=args.today)
    if args.json:
        emit_json(frag.to_json())
    else:
        say(f"remembered {frag.citation}")
    return 0


def cmd_dream(args) -> int:
    from dreamdeck.core.dreaming.run import choose_dreamer, run_dream

    ws = open_ws(args)
    from dreamdeck.core.store.settings import load_settings

    settings = load_settings(ws.root)
    dreamer, why = choose_dreamer(args.dreamer or settings.dreaming.dreamer, ws)
    if not args.json:
        say(f"dreamer: {why}")
    receipt = run_dream(ws, dreamer=dreamer, review=args.review, trigger="manual", dry_run=args.dry_run)
    if args.json:
        emit_json(receipt.to_json())
    else:
        say(receipt.message or receipt.status)
        for label, items in (("created", receipt.shards_created), ("changed", receipt.shards_changed),
                             ("deleted", receipt.shards_deleted)):
            if items:
                say(f"  {label}: {', '.join(items)}")
        if receipt.pending:
            say(f"  held for review: {', '.join(receipt.pending)} → `dreamdeck review {receipt.reflection}`")
        if receipt.lost:
            say(f"  lost ids: {', '.join(receipt.lost[:10])}")
        for err in receipt.tool_errors:
            say(f"  dreamer tool error: {err}")
        if receipt.commit:
            say(f"  commit {receipt.commit[:10]}")
    return 1 if receipt.status in ("failed", "reverted") else 0


def cmd_watch(args) -> int:
    from dreamdeck.cli.watch import run_headless

    ws = open_ws(args)
    return run_headless(ws, dreamer_name=args.dreamer, review=args.review)


# --- queue -----------------------------------------------------------------------------------
def _queue(ws):
    from dreamdeck.core.ops.proposals import list_proposals
    from dreamdeck.core.store.reflections import list_reflections

    everything, problems = list_reflections(ws, include_decided=True)
    reflections = [r for r in everything if r.status in ("pending", "stale")]  # stale: shown, never applied
    proposals, p_problems = list_proposals(ws)
    return reflections, proposals, problems + list(p_problems)


def cmd_review(args) -> int:
    from dreamdeck.core.ops.reflections import workspace_now

    ws = open_ws(args)
    if args.impact or args.hunk:
        from dreamdeck.cli.impact import review_impact

        return review_impact(ws, args)
    if args.id:
        return _review_one(ws, args)
    reflections, proposals, problems = _queue(ws)
    from dreamdeck.core.ops.review import held_reflections

    held = held_reflections(ws)
    waiting = {h.rid for h in held}
    items = []
    for r in reflections:
        if r.id in waiting:
            continue  # a run that applied nothing: listed with what it holds, below
        hunks = sum(len(d.hunks) for _, d in r.hunks())
        items.append({"id": r.id, "kind": "reflection", "created": r.created, "age_days": r.age_days(workspace_now(ws)),
                      "summary": r.summary, "files": len(r.files), "hunks": hunks, "status": r.status})
    for p in proposals:
        items.append({"id": p.id, "kind": "proposal", "created": p.timestamp, "age_days": p.age_days,
                      "summary": p.content, "from": p.agent, "store": p.store, "confidence": p.confidence,
                      "status": p.status, "stale": p.stale, "conflicts": p.conflicts_with})
    items.sort(key=lambda i: i["created"])
    if args.json:
        emit_json({"items": items, "held": [h.to_json() for h in held], "problems": problems})
        return 0
    for pr in problems:
        warn(f"warning: {pr}")
    if not items and not held:
        say("Nothing to review.")
        return 0
    if items:
        say(table(
            [(i["id"], i["kind"], f"{i['age_days']}d", i["status"], truncate(i["summary"] or "", 70)) for i in items],
            ["id", "kind", "age", "status", "summary"],
        ))
    _say_held(held, first=not items)
    return 0


def _say_held(held, first: bool) -> None:
    """The reflections that hold fragments with nothing left to approve, and how to let them go."""
    if not held:
        return
    say(*([] if first else [""]), "Holding fragments for your decision (kept in the streams, never collected):")
    for h in held:
        say(f"  {h.rid} [{h.status}] holds {plural(len(h.held), 'fragment')}: {truncate(h.summary or '', 60)}",
            f"    release them to the next dream: {h.release_command}",
            f"    or forget one: {h.forget_command}")


def _say_holds(ws, r) -> None:
    """What a reflection holds, and which of it left the streams outside dreamdeck (TypeClaw's GC
    never reads reflections): those are named with the command that puts them back."""
    from dreamdeck.core.ops.protected import missing_from_streams

    gone = missing_from_streams(ws, r.held_keys())
    kept = "kept in the streams, never collected" if not gone else "never collected by dreamdeck"
    say(f"holds {plural(len(r.held), 'fragment')} for your decision ({kept}): "
        + ", ".join(f"streams/{k}" for k in r.held[:5]) + (" …" if len(r.held) > 5 else ""))
    if gone:
        say(f"  ⚠ {len(gone)} of them left the streams outside dreamdeck (TypeClaw's GC?): "
            + ", ".join(f"streams/{d}#{i}" for d, i in gone) + "; `dreamdeck doctor --fix` puts them back from git history")
    say(f"  approve: let them go as dreamed · reject {r.id} --release: dream them again · forget one: "
        "dreamdeck forget DATE#ID")


def _review_one(ws, args) -> int:
    from dreamdeck.core.ops.reflections import workspace_now

    if args.id.startswith("p-"):
        from dreamdeck.core.ops.proposals import get_proposal

        item = get_proposal(ws, args.id)
        if args.json:
            emit_json(item.to_json())
        else:
            say(item.describe())
        return 0
    from dreamdeck.core.ops.claim_review import claim_review
    from dreamdeck.core.ops.reflections import loss_meter
    from dreamdeck.core.ops.review import probe_reflection
    from dreamdeck.core.store.reflections import load_reflection

    r = load_reflection(ws, args.id)
    meter = loss_meter(r.files)
    probe = {f.path: f for f in probe_reflection(ws, r).files}
    claims = claim_review(r)
    collects, why_not = _collection_preview(ws, r)
    if args.json:
        emit_json({"claims": claims.to_json(),
            "collects": [c.to_json() for c in collects.now] if collects else None,
            "collects_waiting": [c.to_json() for c in collects.later] if collects else None,
            **({"collects_unknown": why_not} if why_not else {}),
            "id": r.id, "status": r.status, "created": r.created, "age_days": r.age_days(workspace_now(ws)), "summary": r.summary,
            "questions": r.questions, "contradictions": r.contradictions, "archive": r.archive,
            "fragments": r.fragments, "held": r.held if r.holds else [], "loss": meter.to_json(),
            "decisions": r.decisions,
            "files": [{"path": f.path, "status": d.status, "pinned": f.pinned,
                       "base_changed": probe[f.path].base_changed, "state": probe[f.path].state,
                       "hunks": [{"id": h.id, "header": h.header, "added": h.added, "removed": h.removed, "text": h.text(),
                                  "state": probe[f.path].hunks[h.id]} for h in d.hunks]} for f, d in r.hunks()],
        })
        return 0
    say(f"{r.id} [{r.status}] {r.created} ({r.age_days(workspace_now(ws))}d) by {r.dreamer}", r.summary or "", "")
    say(f"loss meter: {plural(len(meter.citations_dropped), 'citation')} dropped, "
        f"{plural(len(meter.beliefs_removed), 'belief')} rewritten, {plural(len(meter.shards_deleted), 'shard')} deleted, "
        f"{len(meter.superseded_added)} superseded")
    over = (r.receipt or {}).get("held_over_bound") if isinstance(r.receipt, dict) else None
    if isinstance(over, (int, float)):
        say(f"held over the loss bound: applied, it would leave {over:.0%} of the {counted(len(r.fragments), 'fragment')} "
            "it saw uncited with no reason given, for the GC to collect")
    _say_collection(collects, why_not)
    if r.holds:
        _say_holds(ws, r)
    for c in r.contradictions:
        say(f"⚠ contradiction: {c}")
    for q in r.questions:
        say(f"? {q}")
    _say_claims(r.id, claims)
    by_path = {c.path: c for c in claims.claims}
    for f, d in r.hunks():
        claim = by_path[f.path]
        say("", f"== {terminal_line(f.path)} ({d.status}){' 📌 pinned' if f.pinned else ''}{_FILE_STATE[probe[f.path].state]}",
            f"   {'✓ ' if claim.mechanical else ''}{claim.line}")
        for folded, dup in claim.folded:
            say(f"   duplicate folded: {folded} = {dup}")
        for h in d.hunks:
            say(f"-- {h.id}{_HUNK_STATE[probe[f.path].hunks[h.id]]}", h.text().rstrip("\n"))
    return 0


def _collection_preview(ws, r):
    """(what approving `r` whole would collect, or None with why it cannot be said)."""
    from dreamdeck.core.errors import DreamdeckError
    from dreamdeck.core.ops.review import preview_approval

    if r.status not in ("pending", "stale"):
        return None, f"{r.id} is {r.status}: approving it collects nothing"
    try:
        return preview_approval(ws, r.id), None
    except DreamdeckError as exc:
        return None, f"an approval would be refused: {exc}"


def _say_collection(collects, why_not: str | None) -> None:
    """One line per fragment approving it all removes from the streams, with its reason; then
    those whose day waits (a writer may hold the file), with why."""
    if collects is None:
        say(f"collection: {why_not}")
        return
    if not collects.now:
        say("approving it all collects nothing from the streams now")
    else:
        say(f"approving it all collects {plural(len(collects.now), 'fragment')} from the streams:")
        for c in collects.now:
            say(f"  {c.describe()}")
    if collects.later:
        say(f"and {plural(len(collects.later), 'fragment')} once their day's compaction may run:")
        for c in collects.later:
            say(f"  {c.describe()}")


def _say_claims(rid: str, claims) -> None:
    """One line per claim the reflection changes (✓: mechanical), then the folds it holds no hunk for."""
    mech = claims.mechanical_hunks
    say("", f"{plural(len(claims.claims), 'claim')}, {plural(claims.hunks, 'hunk')}, "
            f"{plural(claims.contradictions, 'flagged contradiction')}; "
        + (f"{len(mech)} mechanical (✓): `dreamdeck approve {rid} --mechanical`" if mech else "nothing mechanical"))
    for c in claims.claims:
        say(f"  {'✓' if c.mechanical else '·'} {c.line}  [{', '.join(c.hunks) or 'no hunk'}]")
    for folded, dup in claims.folded_elsewhere:
        say(f"  duplicate folded: {folded} = {dup}")


# What `review r-N` adds to a file and a hunk whose shard changed since the dream (ops.review).
_FILE_STATE = {"fresh": "", "rebases": " · ~ changed since the dream: rebases cleanly",
               "conflict": " · ⚠ changed since the dream: conflicts"}
_HUNK_STATE = {"fresh": "", "rebases": " ~ rebases onto the current text",
               "conflict": " ⚠ conflict: does not merge onto the current text; it cannot be approved"}


def _edit_in_editor(texts: dict[str, str | None]) -> dict[str, str | None]:
    """Every proposed text in $EDITOR; an emptied file means 'delete'."""
    from dreamdeck.tui.editor import edit_texts

    result = edit_texts(texts)
    assert result is not None  # the command line runs the editor in its own terminal
    if result.status != 0:
        raise CliError(f"editor exited with status {result.status}; nothing was applied", 1)
    return result.emptied_as_deleted()


def cmd_approve(args) -> int:
    ws = open_ws(args)
    if args.id.startswith("p-"):
        if args.hunk or args.edit or args.force or args.mechanical:
            raise CliError("--hunk, --mechanical, --edit and --force apply to reflections (r-N); a proposal is approved whole")
        from dreamdeck.core.ops.proposals import approve_proposal

        result = approve_proposal(ws, args.id, actor=args.actor)
        say(f"committed {args.id}" + (f" as {result.sha[:10]}" if getattr(result, "sha", None) else ""))
        return 0
    from dreamdeck.core.ops.reflections import approve
    from dreamdeck.core.ops.review import chosen_texts
    from dreamdeck.core.store.reflections import load_reflection

    hunks = list(args.hunk or [])
    if args.mechanical:
        from dreamdeck.core.ops.claim_review import mechanical_hunks

        mech = mechanical_hunks(load_reflection(ws, args.id))
        if not mech:
            raise CliError(f"{args.id} has no mechanical hunk (see `dreamdeck review {args.id}`); nothing was applied")
        hunks += [h for h in mech if h not in hunks]
    edited = None
    if args.edit:
        edited = _edit_in_editor(chosen_texts(load_reflection(ws, args.id), hunks or None))
    result = approve(ws, args.id, hunks=hunks or None, edited=edited, actor=args.actor, force=args.force)
    what = f" ({plural(len(hunks), 'hunk')}, mechanical)" if args.mechanical else ""
    say(f"applied {args.id}{what}: {plural(len(result.written), 'file')} written, {len(result.deleted)} deleted"
        + (f", rebased {', '.join(result.rebased)}" if result.rebased else "")
        + (f" → commit {result.sha[:10]}" if result.sha else ""))
    say(f"  {result.meter()}")
    return 0


def cmd_reject(args) -> int:
    ws = open_ws(args)
    if args.id.startswith("p-"):
        if args.release:
            raise CliError("--release applies to reflections (r-N); a proposal has no fragments to release")
        from dreamdeck.core.ops.proposals import reject_proposal

        reject_proposal(ws, args.id, reason=args.reason, actor=args.actor)
    else:
        from dreamdeck.core.ops.reflections import reject

        result = reject(ws, args.id, reason=args.reason, release=args.release, actor=args.actor)
    said = ""
    if getattr(args, "release", False):
        lost = _not_released(ws, args.id)
        said = " (fragments released to the next dream" + (f"; {lost} could not be put back, named below" if lost else "") + ")"
    say(f"rejected {args.id}{said}")
    if not args.id.startswith("p-"):
        _warn(result)
    return 0


def cmd_defer(args) -> int:
    ws = open_ws(args)
    if not args.id.startswith("p-"):
        raise CliError("only proposals (p-N) can be deferred; a reflection stays pending until decided")
    from dreamdeck.core.ops.proposals import defer_proposal

    defer_proposal(ws, args.id, actor=args.actor)
    say(f"deferred {args.id}")
    return 0


def cmd_propose(args) -> int:
    from dreamdeck.core.ops.proposals import propose

    ws = open_ws(args)
    entities = [e.strip() for e in (args.entities or "").split(",") if e.strip()]
    proposal, created = propose(ws, args.from_agent, args.store, args.content, confidence=args.confidence,
                                entities=entities, core_worthy=args.core_worthy)
    if args.json:
        emit_json({"id": proposal.id, "created": created})
    else:
        say(f"{'proposed' if created else 'already proposed'} {proposal.id}")
    return 0


# --- curate ----------------------------------------------------------------------------------
def cmd_edit(args) -> int:
    from dreamdeck.core.ops.edit import edit_shard, read_shard_text
    from dreamdeck.tui.editor import edit_texts

    ws = open_ws(args)
    base = read_shard_text(ws, args.slug)
    name = f"{args.slug}.md"
    result = edit_texts({name: base})
    assert result is not None  # the command line runs the editor in its own terminal
    if result.status != 0:
        raise CliError(f"the editor exited with status {result.status}: nothing was saved", 1)
    if result.texts[name] == base:
        say("edit cancelled: nothing changed")
        return 0
    applied = edit_shard(ws, args.slug, result.texts[name], actor=args.actor, base=base)
    if args.json:
        emit_json({"slug": args.slug, "sha": applied.sha, "rebased": applied.rebased})
    else:
        say(f"saved {args.slug}" + _sha(applied) + (" (rebased onto a newer version)" if applied.rebased else ""))
    return 0


def _key_or_slug(target: str):
    """`DATE#ID` (or streams/DATE#ID) names a fragment; anything else is a slug."""
    from dreamdeck.core.workspace import parse_date

    t = target.removeprefix("streams/").removeprefix("memory/")
    if "#" in t:
        day, fid = t.split("#", 1)
        return parse_date(day), fid
    return None


def cmd_pin(args) -> int:
    from dreamdeck.core.ops import vault

    ws = open_ws(args)
    key = _key_or_slug(args.target)
    if getattr(args, "restore", False):
        from dreamdeck.core.ops.protected import restore_pinned

        if key or args.refresh:
            raise CliError("--restore takes a pinned topic (SLUG) and no --refresh")
        say(f"restored {args.target} from the vault" + _sha(restore_pinned(ws, args.target, actor=args.actor)))
        return 0
    if key:
        if args.refresh:
            raise CliError("--refresh applies to topics (SLUG); a pinned fragment never changes")
        result = vault.pin_fragment(ws, key[0], key[1], actor=args.actor)
    else:
        result = vault.pin_topic(ws, args.target, actor=args.actor, refresh=args.refresh)
    noop = result.noop  # already pinned: the core's line says so; nothing committed
    say(result.message + _sha(result) if args.refresh or noop else f"pinned {args.target}" + _sha(result))
    return 0


def _sha(result) -> str:
    sha = getattr(result, "sha", None)
    return f" → commit {sha[:10]}" if sha else ""


def cmd_unpin(args) -> int:
    from dreamdeck.core.ops import vault

    ws = open_ws(args)
    result = vault.unpin(ws, args.slug, actor=args.actor)
    say(f"unpinned {args.slug}" + _sha(result))
    return 0


def cmd_vault(args) -> int:
    from dreamdeck.core.ops import vault

    ws = open_ws(args)
    entries = vault.list_vault(ws)
    if args.json:
        emit_json([e if isinstance(e, dict) else e.__dict__ for e in entries])
        return 0
    if not entries:
        say("The vault is empty. Pin a topic with `dreamdeck pin SLUG`.")
        return 0
    rows = [e if isinstance(e, dict) else e.__dict__ for e in entries]
    say(table([(r.get("slug"), truncate(str(r.get("heading", "")), 60), r.get("cites", "")) for r in rows],
              ["slug", "heading", "cites"]))
    return 0


def cmd_forget(args) -> int:
    from dreamdeck.core.ops import forget

    ws = open_ws(args)
    key = _key_or_slug(args.target)
    if key:
        result = forget.forget_fragment(ws, key[0], key[1], reason=args.reason, actor=args.actor, hard=args.hard,
                                        content=args.content)
    else:
        if args.content:
            raise CliError("--content names a line of a fragment (DATE#ID), not a topic")
        result = forget.forget_topic(ws, args.target, reason=args.reason, actor=args.actor, hard=args.hard)
    if args.json:
        emit_json(result.to_json())
        return 0
    hard = ""
    if args.hard:
        hard = (f" (hard: {forget.BLANKED})" if result.blanked else
                " (hard: its line waits in the stream, hidden, until it can be purged)" if result.waiting else
                " (hard: bytes removed)" if result.purged or not key else " (hard: no line of it was in the stream)")
    say(f"forgot {args.target}{hard}" + _sha(result))
    _warn(result)
    for line in result.remains:
        warn(f"dreamdeck: still holds it: {line}")
    return 0


def _not_released(ws, rid: str) -> int:
    """How many of a reflection's fragments its last decision could not release."""
    from dreamdeck.core.store.reflections import load_reflection

    return len(load_reflection(ws, rid).decisions[-1].get("not_released") or [])


def _warn(result) -> None:
    for line in getattr(result, "warnings", None) or []:
        warn(f"dreamdeck: warning: {line}")


def cmd_unforget(args) -> int:
    from dreamdeck.core.ops import forget

    ws = open_ws(args)
    key = _key_or_slug(args.target)
    result = forget.unforget(ws, key[0], key[1], actor=args.actor) if key else forget.unforget_topic(ws, args.target, actor=args.actor)
    say(f"unforgot {args.target}" + _sha(result))
    _warn(result)
    return 0


def cmd_tombstones(args) -> int:
    from dreamdeck.core.store.tombstones import load_tombstones

    ws = open_ws(args)
    stones = sorted(load_tombstones(ws).values(), key=lambda s: s.ts)
    if args.json:
        emit_json([s.__dict__ for s in stones])
        return 0
    if not stones:
        say("No tombstones.")
        return 0
    say(table([(f"{s.date}#{s.id}", "hard" if s.hard else "soft", s.actor, s.ts[:16], truncate(s.reason, 50)) for s in stones],
              ["fragment", "kind", "actor", "when", "reason"]))
    return 0


def cmd_rollback(args) -> int:
    from dreamdeck.core.ops import rollback

    ws = open_ws(args)
    from dreamdeck.core.git.runner import repo_args, resolve_rev

    is_date = args.to and len(args.rev) == 10 and args.rev[4] == "-"
    if repo_args(ws.root) is not None and not is_date:
        resolve_rev(ws.root, args.rev)  # an unknown revision is bad input (exit 2), as for `verify`
    if args.to:
        if args.preview:
            plan = rollback.preview_restore_to(ws, args.rev, strict=args.strict, no_redream=args.no_redream)
            emit_json(plan.to_json()) if args.json else say(plan.describe())
            return 0
        result = rollback.restore_to(ws, args.rev, strict=args.strict, no_redream=args.no_redream, actor=args.actor)
        say(f"restored memory to {args.rev}" + _sha(result))
        return 0
    if args.preview:
        plan = rollback.preview_rollback(ws, args.rev, strict=args.strict)
        if args.json:
            emit_json(plan.to_json())
        else:
            say(plan.describe())
        return 0
    result = rollback.rollback(ws, args.rev, strict=args.strict, no_redream=args.no_redream, actor=args.actor)
    say(f"rolled back {args.rev}" + _sha(result))
    return 0


def cmd_alerts(args) -> int:
    from dreamdeck.core.ops.alerts import acknowledge, check_alerts, peek_alerts
    from dreamdeck.core.store.settings import load_settings

    ws = open_ws(args)
    files = list(load_settings(ws.root).critical.files)
    if args.ack:  # the one writing form: record what is new (or the first baseline), then accept it
        had_baseline = peek_alerts(ws.root, files) is not None
        check_alerts(ws.root, files, actor=getattr(args, "actor", None) or "manual")
        if not had_baseline:
            say("recorded the critical-file baseline (the watched files as they are now)")
            return 0
        done = acknowledge(ws.root)
        say(f"acknowledged {plural(len(done), 'alert')}")
        return 0
    from dreamdeck.core.ops.alerts import linked_shard_alerts
    from dreamdeck.core.ops.protected import pinned_drift

    alerts = peek_alerts(ws.root, files)  # a read: writes nothing
    drifts = pinned_drift(ws)  # a pinned topic changed outside dreamdeck (TypeClaw's own dream)
    links = linked_shard_alerts(ws.root)  # a linked shard: every change refused until it is removed
    if alerts is None:
        if not args.json:
            say("No critical-file baseline yet: `dreamdeck alerts --ack` records the watched files as they are now.")
        if not drifts and not links:
            if args.json:
                emit_json([])
            return 0
        alerts = []
    if args.json:
        emit_json([a.__dict__ if not hasattr(a, "to_json") else a.to_json() for a in alerts] + [
            {"path": f"memory/topics/{d.slug}.md", "kind": "pinned-changed", "why": d.why,
             "restore": f"dreamdeck pin {d.slug} --restore", "accept": f"dreamdeck pin {d.slug} --refresh"}
            for d in drifts] + [link.to_json() for link in links])
        return 1 if alerts or drifts or links else 0  # the same status as the text output
    if not alerts and not drifts and not links:
        say("No critical-file alerts.")
        return 0
    for link in links:  # one line each (a file name may hold a newline)
        say(terminal_line(f"⚠ {link.text()}"))
    for a in alerts:
        say(f"⚠ {terminal_line(a.path)}: {a.kind} (detected {a.detected}) — acknowledge with `dreamdeck alerts --ack`")
    for d in drifts:
        say(f"⚠ memory/topics/{d.slug}.md: pinned, changed outside dreamdeck ({d.why}) — restore from the vault with "
            f"`dreamdeck pin {d.slug} --restore`, or accept with `dreamdeck pin {d.slug} --refresh`")
    return 1


def cmd_init(args) -> int:
    from dreamdeck.core.git.init import start_history

    ws = open_ws(args)
    sha = start_history(ws.root, actor=args.actor)
    say(f"started the git history of {ws.root}" + (f": memory/ committed as {sha[:10]}" if sha else
                                                  " (memory/ is empty: nothing to commit yet)"))
    return 0
