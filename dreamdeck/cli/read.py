"""Read-only commands: topics, show, stream, dreams, log, audit, verify, review (doctor: `cli.doctor`)."""
from __future__ import annotations

import sys

from dreamdeck.cli.common import CliError, emit_json, open_ws, plural, say, table, truncate, warn
from dreamdeck.core.formats.terminal_text import terminal_line
from dreamdeck.core.index.shard_heads import ShardHeads
from dreamdeck.core.index.strength import COLUMNS, sort_rows, strength_table
from dreamdeck.core.ops.report import shard_report
from dreamdeck.core.store.settings import load_settings


def _pinned(ws) -> frozenset[str]:
    from dreamdeck.core.store.shard_files import list_shard_files

    return frozenset(slug for slug, _ in list_shard_files(ws.vault_dir))


def cmd_topics(args) -> int:
    ws = open_ws(args)
    settings = load_settings(ws.root)
    rows = strength_table(ws.topics_dir, ws.today(), settings.decay, _pinned(ws), heads=ShardHeads.of(ws))
    if args.sort:
        column, _, direction = args.sort.partition(":")
        if column not in COLUMNS:
            raise CliError(f"unknown column {column!r}; choose one of {', '.join(COLUMNS)}")
        if direction not in ("", "asc", "desc"):
            raise CliError(f"unknown sort direction {direction!r}; use asc or desc (e.g. --sort {column}:desc)")
        if direction and args.reverse:
            raise CliError(f"--reverse contradicts {args.sort}; give one direction")
        rows = sort_rows(rows, column, reverse=(direction == "desc") or (args.reverse and not direction))
    elif args.reverse:
        rows.reverse()
    if args.json:
        emit_json([r.to_json() for r in rows])
        return 0
    if not rows:
        say("No topics yet. Append fragments with `dreamdeck remember TEXT --topic T`, then `dreamdeck dream`.")
        return 0
    say(table(
        [(r.slug, truncate(r.heading or "(untitled)", 60), r.cites, r.days, r.last_reinforced,
          "—" if r.age is None else r.age, r.tier, f"{r.score:.2f}", r.status + (" ⚠ unparseable" if r.parse_error else ""),
          r.access_count)
         for r in rows],
        ["slug", "heading", "cites", "days", "last reinforced", "age", "tier", "score", "status", "shown"],
        align="llrrlrlrlr",
    ))
    return 0


def cmd_show(args) -> int:
    ws = open_ws(args)
    rep = shard_report(ws, args.slug, "vault" if args.vault else "topics")
    if args.json:
        emit_json(rep)
        return 0
    status = "ok" if rep["parse_ok"] else f"UNPARSEABLE: {rep['parse_error']}"
    say(terminal_line(rep["heading"] or "(no heading)"), f"{terminal_line(rep['path'])}  [{status}]" + ("  📌 pinned" if rep["pinned"] else ""))
    if rep["parse_ok"]:
        say(f"cites {rep['cites']} · days {rep['days']} · last reinforced {rep['lastReinforced']}"
            + (f" · tags {', '.join(rep['tags'])}" if rep["tags"] else ""))
    say("", rep["body"].rstrip(), "")
    say("Citations:")
    for f in rep["fragments"]:
        mark = "" if f["section"] == "fragments" else " (superseded)"
        if f["forgotten"]:
            say(f"  {f['citation']}{mark}: forgotten")
        elif not f["found"]:
            say(f"  {f['citation']}{mark}: ⚠ fragment not found in the streams")
        else:
            who = f" — {f['who']}" if f["who"] else ""
            say(f"  {f['citation']}{mark}", f"    [{f['topic']}] {truncate(f['body'], 200)}",
                f"    {f['date']} · source {f['source']}{who}")
    return 0


def _print_fragment(frag, as_json: bool) -> None:
    if as_json:
        import json

        from dreamdeck.core.formats.terminal_text import terminal_json

        print(terminal_json(json.dumps(frag.to_json(), ensure_ascii=False)))
    else:
        # One fragment, one line: a body holding a newline must not forge a second fragment line.
        who = f" ({frag.who})" if frag.who else ""
        say(terminal_line(f"{frag.ts}  {frag.date}#{frag.id}  [{frag.topic}]{who} {frag.body}"))


def cmd_stream(args) -> int:
    from dreamdeck.core.formats.events import Fragment
    from dreamdeck.core.store.streams import list_stream_days, read_path_for, read_stream_lines
    from dreamdeck.core.store.tombstones import forgotten
    from dreamdeck.core.workspace import parse_date

    if args.date and args.all:
        raise CliError("--date and --all contradict each other; give one")
    ws = open_ws(args)
    stones = forgotten(ws)  # by identity: a forgotten id under any date, or its content
    days = [d for d, _ in list_stream_days(ws)]
    if args.date:
        day = parse_date(args.date)
        days = [day]
    elif not args.all:
        days = days[-1:] if days else []
    shown: set[tuple[str, str]] = set()
    hidden = 0
    for day in days:
        path = read_path_for(ws, day)
        if path is None:
            continue
        lines = read_stream_lines(path)
        for ln in lines:
            if ln.kind != "fragment":
                continue
            if stones.holds_event(ln.event):
                hidden += 1
                continue
            shown.add((day, ln.event["id"]))
            _print_fragment(Fragment.from_event(day, ln.event), args.json)
        _say_skipped(ws, path, lines)
    sys.stdout.flush()
    if not args.follow:
        if not shown:  # never silence: say why there is nothing (stdout stays empty and parseable)
            _say_nothing_shown(days, hidden)
        return 0
    return _follow(ws, args, shown)


def _say_nothing_shown(days: list[str], hidden: int) -> None:
    if not days:
        warn("dreamdeck: no stream days yet (`dreamdeck remember TEXT --topic T` appends one)")
        return
    where = f"on {days[0]}" if len(days) == 1 else f"in {len(days)} days"
    warn(f"dreamdeck: no fragment to show {where}" + (f" ({hidden} forgotten, hidden)" if hidden else ""))


def _say_skipped(ws, path, lines) -> None:
    """Malformed lines are skipped, never silently: one line on stderr per file (stdout stays parseable)."""
    from dreamdeck.core.store.streams import problems_of

    bad = [p.lineno for p in problems_of(ws, path, lines)]
    if bad:
        where = ", ".join(map(str, bad[:10])) + (f" and {len(bad) - 10} more" if len(bad) > 10 else "")
        sys.stdout.flush()
        warn(f"dreamdeck: skipped {plural(len(bad), 'malformed line')} in {ws.rel(path)} "
             f"(line{'s' if len(bad) > 1 else ''} {where}); `dreamdeck doctor` says more")


def _follow(ws, args, shown: set[tuple[str, str]]) -> int:
    """Tail today's stream by byte offset; a rewrite (compaction) is detected by inode/size."""
    from dreamdeck.cli.stop_signals import stop_signals
    from dreamdeck.core.formats.events import Fragment, try_parse_event_line
    from dreamdeck.core.store.streams import write_path_for
    from dreamdeck.core.store.tombstones import forgotten

    day = args.date or ws.today()
    path = write_path_for(ws, day)
    # Start from the top and skip what was printed: an append landing between the first dump
    # and this point is then never missed.
    pos, inode = 0, (path.stat().st_ino if path.exists() else None)
    seen: set[str] = {fid for d, fid in shown if d == day}  # never print a fragment twice
    with stop_signals() as (stop, _received):
        while not stop.is_set():
            if path.exists():
                st = path.stat()
                if st.st_ino != inode or st.st_size < pos:
                    inode, pos = st.st_ino, 0  # rewritten: re-read, skipping ids already shown
                with open(path, "rb") as fh:
                    fh.seek(pos)
                    data = fh.read()
                cut = data.rfind(b"\n") + 1
                pos += cut
                stones = forgotten(ws)  # read again: a forget made while following holds at once
                for raw in data[:cut].split(b"\n"):
                    ev = try_parse_event_line(raw.decode("utf-8", "replace")) if raw.strip() else None
                    if ev and ev.get("type") == "fragment" and ev["id"] not in seen and not stones.holds_event(ev):
                        seen.add(ev["id"])
                        _print_fragment(Fragment.from_event(day, ev), args.json)
                sys.stdout.flush()
            today = ws.today() if not args.date else day
            if today != day:
                day, path, pos, inode = today, write_path_for(ws, today), 0, None
            stop.wait(0.1)
    return 0


def cmd_dreams(args) -> int:
    from dreamdeck.core.git.history import list_dreams

    ws = open_ws(args)
    dreams = list_dreams(ws.root, args.limit)
    receipts = _receipts_by_commit(ws) if dreams else {}
    if args.json:
        # TypeClaw's `typeclaw memory dreams --json --details` objects (detail always included),
        # with dreamdeck's actor / approval / trigger / ref after them, then the run's receipt:
        # what it left uncited on purpose (folded duplicates, declared noise with its reason).
        emit_json([_with_receipt(d.to_dream_json(), receipts.get(d.sha)) for d in dreams])
        return 0
    if not dreams:
        say("No dream commits yet.")
        return 0
    for d in dreams:
        say(f"{d.sha[:10]}  {d.date[:16].replace('T', ' ')}  {d.emoji or ''} {d.summary or ''}  "
            f"[{', '.join(d.categories)}]  {d.actor}")
        detail = d.detail
        if detail is None:
            continue
        for t in detail.changed_topics:
            counts = f"  +{t.additions} -{t.deletions}" if t.additions is not None else ""
            say(f"    {t.status} {terminal_line(t.path)}{counts}")
        for name, _ in detail.created_skills:
            say(f"    new skill '{terminal_line(name)}'")
        if detail.added_fragments:
            say(f"    {plural(len(detail.added_fragments), 'fragment')} added")
        for warning in detail.parse_warnings:
            say(f"    ⚠ {warning}")
        _say_uncited(receipts.get(d.sha))
    return 0


_UNCITED_SHOWN = 10  # folded duplicates, then noise, per dream; the receipt holds them all


def _receipts_by_commit(ws) -> dict[str, dict]:
    """Dream commit sha -> the receipt committed with it."""
    from dreamdeck.core.dreaming.receipts import list_receipts
    from dreamdeck.core.git.history import receipt_commits

    receipts = list_receipts(ws, 200)
    if not receipts:
        return {}
    shas = receipt_commits(ws.root)
    return {shas[r["id"]]: r for r in receipts if r.get("id") in shas}


def _uncited(receipt: dict, key: str) -> dict[str, str]:
    found = receipt.get(key)
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}


def _with_receipt(dream: dict, receipt: dict | None) -> dict:
    """The dream's JSON with its receipt's id and what it left uncited on purpose (None and
    empty for a commit no dreamdeck receipt came with, e.g. TypeClaw's own dreams)."""
    receipt = receipt or {}
    return {**dream, "receipt": receipt.get("id"), "folded": _uncited(receipt, "folded"),
            "noise": _uncited(receipt, "noise")}


def _say_uncited(receipt: dict | None) -> None:
    if not receipt:
        return
    lines = [f"    folded streams/{fragment} (duplicates streams/{duplicate})"
             for fragment, duplicate in _uncited(receipt, "folded").items()]
    lines += [f"    noise streams/{fragment} ({reason})" for fragment, reason in _uncited(receipt, "noise").items()]
    for line in lines[:_UNCITED_SHOWN]:
        say(line)
    if len(lines) > _UNCITED_SHOWN:
        say(f"    … {len(lines) - _UNCITED_SHOWN} more left uncited: memory/meta/receipts/{receipt.get('id')}.json")


def cmd_log(args) -> int:
    from dreamdeck.core.git.history import list_memory_commits

    ws = open_ws(args)
    commits = list_memory_commits(ws.root, args.limit)
    if args.json:
        emit_json([c.to_json() for c in commits])
        return 0
    if not commits:
        say("No memory commits yet.")
        return 0
    say(table(
        [(c.sha[:10], c.date[:16].replace("T", " "), c.actor, c.approval, c.trigger, c.ref, truncate(c.subject, 60))
         for c in commits],
        ["commit", "date", "actor", "approval", "trigger", "ref", "subject"],
    ))
    return 0


def cmd_collected(args) -> int:
    """The GC note of one commit: every line it collected, with its reason (the audit line names
    only the first twenty)."""
    from dreamdeck.core.git.notes import read_gc_entries
    from dreamdeck.core.git.runner import resolve_rev

    ws = open_ws(args)
    sha = resolve_rev(ws.root, args.rev)
    entries = read_gc_entries(ws.root, sha)
    if args.json:
        emit_json({"commit": sha, "collected": [
            {"fragment": f"{e.day}#{e.fid}", "reason": e.reason or None, "line": e.line} for e in entries]})
        return 0
    if not entries:
        say(f"{sha[:10]} collected nothing from the streams (no GC note on it)")
        return 0
    say(f"{sha[:10]} collected {plural(len(entries), 'fragment line')} from the streams:")
    for e in entries:
        say(f"  streams/{terminal_line(f'{e.day}#{e.fid}')}: {e.reason or 'no reason recorded (a note older than reasons)'}")
    return 0


def cmd_audit(args) -> int:
    from dreamdeck.core.store.audit import read_entries

    ws = open_ws(args)
    entries = read_entries(ws.root, action=args.action, actor=args.actor, file=args.file, since=args.since, until=args.until)
    if args.json:
        emit_json([e.__dict__ for e in entries])
        return 0
    if not entries:
        say("No audit entries match.")
        return 0
    for e in entries:
        say(f"{e.timestamp} | {e.action} | {e.file} | {e.actor} | {e.approval} | {e.summary}")
    return 0


def cmd_verify(args) -> int:
    from dreamdeck.core.ops.verify import verify

    ws = open_ws(args)
    result = verify(ws, args.rev)
    if args.json:
        emit_json(result.to_json())
    else:
        say(f"compared {plural(result.files, 'shard file')} at {result.rev[:10]}: {result.changed} changed since, "
            f"{plural(result.checked, 'citation')} of theirs checked")
        for d, i in result.forgotten:
            say(f"  forgotten (tombstoned): streams/{d}#{i}")
        for d, i in result.missing:
            say(f"  MISSING: streams/{d}#{i}")
        say("ok: nothing lost" if result.ok else f"{plural(len(result.missing), 'citation')} missing")
    return 0 if result.ok else 1
