"""What the agent gets back: recall, inject, and the access record of what it was shown."""
from __future__ import annotations

import sys

from dreamdeck.cli.common import CliError, emit_json, open_ws, say, truncate, warn, warn_linked
from dreamdeck.core.formats.terminal_text import terminal_line, terminal_text


def _count(value: str | None, flag: str) -> int | None:
    """A whole number from the command line, or one clear line (argparse would print usage)."""
    if value is None:
        return None
    try:
        number = int(value)
    except ValueError:
        raise CliError(f"{flag} {value!r}: expected a whole number") from None
    return number


def _has_memory(ws) -> bool:
    return ws.memory.is_dir() or (ws.root / "MEMORY.md").is_file()


def cmd_recall(args) -> int:
    from dreamdeck.core.index.search import open_index
    from dreamdeck.core.ops.recall import recall

    ws = open_ws(args)
    if args.save or args.unsave or args.saved:
        return _saved_questions(ws, args)
    blocks = recall(ws, args.query if args.query is not None else "", budget=args.budget,
                    limit=_count(args.limit, "--limit"), include_dormant=args.include_dormant,
                    max_bytes=_count(args.max_bytes, "--max-bytes"))
    for rel, why in open_index(ws).linked:  # the shard files its sweep left out
        warn_linked(rel, why)
    if args.json:
        emit_json([b.to_json() for b in blocks])
        return 0
    if not blocks:
        say("Nothing in memory matches that.")
        return 0
    for n, b in enumerate(blocks, 1):
        why = b.why
        parts = [why["status"], *([why["tier"]] if why["tier"] else []),
                 *([f"shown {why['access_count']}×"] if why["access_count"] else [])]
        ranked = "by strength" if why.get("ranked_by") == "strength" else f"bm25 {why['bm25']:g}"
        say(f"{n}. {b.kind}:{terminal_line(b.key)}  score {b.score:g}  ({', '.join(parts)}; {ranked}, decay {why['decay']:g})",
            f"   {truncate(b.heading, 100)}")
        for line in b.excerpt.splitlines()[:6]:
            if line.strip() and line.strip() != b.heading.strip():
                say(f"     {truncate(line, 100)}")
    return 0


def _saved_questions(ws, args) -> int:
    """`recall --save Q`, `--unsave Q` (through the door: a commit and an audit line), `--saved`."""
    from dreamdeck.core.ops.saved_queries import save_query, unsave_query
    from dreamdeck.core.store.saved_queries import SAVED_FILE, load_saved_queries

    query = args.query if args.query is not None else ""
    if args.saved:
        listed = load_saved_queries(ws)
        if args.json:
            emit_json({"saved_queries": listed})
        elif not listed:
            say("No saved questions: `dreamdeck recall --save QUESTION` adds one for `review r-N --impact`.")
        else:
            say(*(f"{n}. {q}" for n, q in enumerate(listed, 1)))
        return 0
    changed = save_query(ws, query, actor=args.actor) if args.save else unsave_query(ws, query, actor=args.actor)
    shown = " ".join(query.split())
    if args.json:
        emit_json({"query": query, "saved" if args.save else "unsaved": changed, "saved_queries": load_saved_queries(ws)})
    elif args.save:
        say(f"saved {shown!r}: `review r-N --impact` replays it (memory/meta/{SAVED_FILE})" if changed
            else f"{shown!r} is saved already; nothing changed")
    else:
        say(f"unsaved {shown!r}" if changed else f"{shown!r} was not saved; nothing changed")
    return 0


def cmd_inject(args) -> int:
    """TypeClaw's `# Memory` section. Piped (an agent runtime reads it), stdout is the section byte
    for byte as TypeClaw renders it, control characters and all: the agent must get what TypeClaw
    would give it. At a terminal a person reads it, and a terminal obeys ESC, NUL and the bidi
    overrides instead of showing them (a shard could retitle the window or reorder a line): there
    the section is shown through the terminal-safe rule, with one line on stderr saying what
    was escaped and how to get the bytes (pipe it)."""
    from dreamdeck.core.formats.js_text import printable
    from dreamdeck.core.ops.inject import inject

    ws = open_ws(args)
    if not _has_memory(ws):
        raise CliError(f"no memory in {ws.root}: there is neither a memory/ folder nor a MEMORY.md")
    budget = _count(args.budget, "--budget")
    result = inject(ws, args.query, origin=args.origin, budget=16384 if budget is None else budget, mode=args.mode)
    if args.json:
        emit_json(result.to_json())
        return 0
    if result.text:
        section = printable(result.text)
        shown = terminal_text(section) if sys.stdout.isatty() else section
        sys.stdout.write(shown + "\n")
        if shown != section:
            warn("dreamdeck: control characters in memory are shown escaped on this terminal; "
                 "piped, `dreamdeck inject` writes the section byte for byte")
    else:
        warn(f"dreamdeck: nothing would be injected this turn ({result.render})")
    return 0


def cmd_access(args) -> int:
    from dreamdeck.core.store.access import read_access

    ws = open_ws(args)
    limit = _count(args.limit, "--limit")
    if limit is not None and limit < 1:
        raise CliError(f"--limit {limit}: expected 1 or more")
    records = read_access(ws, limit)
    if args.json:
        emit_json([r.to_json() for r in records])
        return 0
    if not records:
        say("Nothing recorded yet: `dreamdeck recall` and `dreamdeck inject` record what they return.")
        return 0
    for r in records:
        shown = ", ".join(map(terminal_line, r.items)) if r.items else "(headings only)" if r.op == "inject" else "(nothing)"
        say(f"{r.ts[:16].replace('T', ' ')}  {r.op:<6}  {truncate(r.query, 50)!r}  → {truncate(shown, 120)}")
    return 0
