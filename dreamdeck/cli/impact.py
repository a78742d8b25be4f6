"""`dreamdeck review r-N --impact [--hunk H ...]`: which recall answers the approval changes."""
from __future__ import annotations

from dreamdeck.cli.common import CliError, emit_json, say, truncate
from dreamdeck.core.formats.terminal_text import terminal_line


def review_impact(ws, args) -> int:
    from dreamdeck.core.ops.recall_impact import recall_impact

    if not args.impact:
        raise CliError("--hunk goes with --impact (to approve some hunks: dreamdeck approve r-N --hunk H)")
    if not args.id or not args.id.startswith("r-"):
        raise CliError("--impact needs a reflection id (r-N): `dreamdeck review` lists them")
    impact = recall_impact(ws, args.id, args.hunk)
    if args.json:
        emit_json(impact.to_json())
        return 0
    chosen = "all hunks" if impact.hunks is None else ", ".join(impact.hunks)
    say(f"{impact.rid} ({chosen}): {len(impact.changed)} of {len(impact.queries)} replayed queries change")
    if not impact.queries:
        say("no queries to replay: recall something (`dreamdeck recall QUERY`) or save a query in the app's Recall screen")
    for q in impact.changed:
        r = q.replay
        asked = f"asked {r.asked}×" if r.asked else ""
        say("", f"  {truncate(r.query, 70)!r}  ({', '.join(x for x in ('saved' if r.source == 'saved' else '', asked) if x)})")
        for c in q.changes:
            say(f"    {c.mark} {terminal_line(c.item)}  {truncate(c.heading, 60)}  ({c.where})")
    return 0
