"""How recall is shown in the app: answer rows, the why of one answer, the next prompt's header,
the questions a reflection's impact replays, and opening an answer on its own screen."""
from __future__ import annotations

from typing import Any

from rich.text import Text

# A jump to a screen whose rows may still be loading: tries, and the pause between them
JUMP_TRIES, JUMP_PAUSE = 40, 0.1


def answer_rows(blocks: list) -> list[dict[str, Any]]:
    rows = []
    for n, b in enumerate(blocks, 1):
        why = b.why
        rows.append({"key": f"{b.kind}:{b.key}", "rank": n, "kind": b.kind, "score": f"{b.score:.3g}",
                     "status": why.get("status", ""), "tier": why.get("tier") or "",
                     "shown": f"{why['access_count']}×" if why.get("access_count") else "",
                     "heading": " ".join((b.heading or b.key).split())})
    return rows


def block_detail(b) -> Text:
    """One answer with every part of its score, then its excerpt."""
    why = b.why
    text = Text()
    text.append(f"{b.kind}:{b.key}", style="bold cyan")
    text.append(f"  {b.heading}\n", style="bold")
    if why.get("ranked_by") == "strength":  # no word of the query told the matches apart
        text.append(f"score {b.score:g} = weight {why.get('weight', 1):g}, strongest first (no discriminating word)")
    else:
        text.append(f"score {b.score:g} = bm25 {why.get('bm25', 0):g} × weight {why.get('weight', 1):g}")
    text.append(f"  ·  decay {why.get('decay', 0):g} ({why.get('status', '?')})")
    if why.get("tier"):
        text.append(f"  ·  tier {why['tier']}")
    shown = why.get("access_count") or 0
    text.append(f"  ·  shown {shown}×" + (f", last {why['last_access']}" if why.get("last_access") else "") + "\n",
                style="dim" if not shown else "")
    if why.get("cut"):
        text.append("cut to fit the byte budget\n", style="yellow")
    text.append("\n" + b.excerpt + "\n\n")
    text.append({"topic": "enter: open on Topics", "vault": "enter: open on Vault",
                 "stream": "enter: open on Stream"}.get(b.kind, ""), style="dim")
    return text


# What TypeClaw put into the turn (`Injection.render`), in a person's words.
_SHOWS = {
    "infra": "shows nothing (an infrastructure turn gets no memory)",
    "failed": "shows nothing (retrieval failed)",
    "channel-index": "shows every shard's heading (a channel turn)",
    "fallback-index": "shows every shard's heading (nothing matched the question)",
    "retrieved": "shows the excerpts that match the question",
    "retrieved-channel": "shows the headings that match the question (a channel turn)",
    "empty": "shows nothing (nothing matched the question)",
    "legacy": "shows every body under the budget (TypeClaw before v0.45)",
}


def prompt_header(injection) -> str:
    """The next turn's `# Memory` section in one line: mode, budget use, what it shows."""
    if injection is None:
        return "no injection"
    plan = injection.plan
    parts = []
    if plan is not None:
        share = plan.total_bytes * 100 // plan.budget if plan.budget else 0
        parts += [f"mode {plan.mode}", f"shard bodies {plan.total_bytes:,} of the {plan.budget:,}-byte budget ({share}%)",
                  f"{len(plan.shards)} shard{'' if len(plan.shards) == 1 else 's'} from {plan.source}"]
    parts.append(_SHOWS.get(injection.render, injection.render))
    parts.append(f"the section: {len(injection.text.encode('utf-8')):,} bytes")
    return " · ".join(parts) + "\n"


def questions_text(questions: list) -> Text:
    """While the box is empty: the questions a reflection's recall impact would replay."""
    text = Text()
    if not questions:
        text.append("No questions yet. ", style="bold")
        text.append("Type one above. Questions saved with s, and the ones the agent asks most "
                    "(`dreamdeck recall`), are replayed when you check a reflection's recall impact.")
        return text
    text.append("Replayed before an approval (i on Reflections):\n", style="bold")
    for q in questions:
        mark = "★ saved" if q.source == "saved" else f"asked {q.asked}×"
        text.append(f"  {mark:<10} ", style="magenta" if q.source == "saved" else "dim")
        text.append(f"{q.query}\n")
    return text


def open_item(app, block) -> None:
    """Open an answer where it lives: a belief on Topics, a pin on Vault, a fragment on Stream."""
    if block.kind == "stream":
        day, fid = block.key.split("#", 1)
        app.pending_jump = (day, fid)
        app.switch_mode("stream")
        return
    mode = {"topic": "topics", "vault": "vault"}.get(block.kind)
    if mode is None:
        app.notify(f"{block.kind}:{block.key} has no screen of its own: it is memory/{block.path}", title="Open")
        return
    app.switch_mode(mode)
    _select_slug(app, mode, block.key, JUMP_TRIES)


def _select_slug(app, mode: str, slug: str, tries: int) -> None:
    """Put the cursor on `slug` once the screen's table holds it (its first load may be running)."""
    from dreamdeck.tui.widgets.virtual_table import VirtualTable

    screen = getattr(app, "mode_screens", {}).get(mode)
    table = next(iter(screen.query(VirtualTable)), None) if screen is not None and screen.is_mounted else None
    index = table.source.find("slug", slug) if table is not None else None
    if index is not None and table is not None:
        table.move_cursor(index)
        table.focus()
    elif tries > 0:
        app.set_timer(JUMP_PAUSE, lambda: _select_slug(app, mode, slug, tries - 1))
    else:
        app.notify(f"{slug} is not on the {mode.title()} screen (filtered out, or changed since)",
                   title="Open", severity="warning")
