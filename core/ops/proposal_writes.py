"""What approving a proposal writes: its fragment line (or the one an interrupted approval left)
and, for a semantic or vault proposal, the topic (and vault) shard edits citing it.
"""
from __future__ import annotations

import re
from datetime import timedelta

from dreamdeck.core.door.changeset import FileEdit
from dreamdeck.core.formats.citations import CITATION, Key, citation_keys, format_citation
from dreamdeck.core.formats.events import build_fragment, fragment_content_hash, serialize_event
from dreamdeck.core.formats.ids import new_event_id, timestamp_from_id
from dreamdeck.core.formats.pending_memories import Proposal
from dreamdeck.core.formats.secrets import secret_families
from dreamdeck.core.formats.shards import ShardMeta, add_citation_lines, render_shard, strength_of
from dreamdeck.core.io.no_links import read_text_nofollow
from dreamdeck.core.ops.proposal_fields import ProposalRefused, parse_time
from dreamdeck.core.store.streams import list_stream_days, read_stream_lines, write_path_for
from dreamdeck.core.store.tombstones import forgotten
from dreamdeck.core.workspace import Workspace

MAX_HEADING = 120
_SENTENCE = re.compile(r"^(.+?[.!?。！？])(?=\s|$)")


def _neutral(text: str) -> str:
    """Content as prose in a shard: a citation-looking string must not become a citation."""
    return CITATION.sub(lambda m: f"{m.group(1)}/{m.group(2)} #{m.group(3)}", text)


def _belief(content: str) -> str:
    belief = " ".join(_neutral(content).split())
    if not belief.endswith((".", "!", "?", "…", "。", "！", "？")):
        belief += "."  # also keeps a bare `fragments:` from reading as a section heading
    return belief


def _heading(belief: str, slug: str) -> str:
    m = _SENTENCE.match(belief)
    heading = (m.group(1) if m else belief).rstrip(".!?。！？ ").strip()
    if len(heading) > MAX_HEADING:
        heading = heading[:MAX_HEADING].rsplit(" ", 1)[0].rstrip(",;: ") + "…"
    return heading or slug


def new_shard_text(content: str, citation: str, slug: str, today: str) -> str:
    """A shard whose belief is the proposal's content, citing its fragment."""
    belief = _belief(content)
    body = f"{belief}\n\nfragments:\n- {citation}\n"
    cites, days, last = strength_of(body, today)
    return render_shard(ShardMeta(_heading(belief, slug), cites, days, last, None), body)


def _own_fragment(ws: Workspace, p: Proposal, source: str, content_hash: str) -> Key | None:
    """The fragment an earlier, interrupted approval of this proposal left (same source, entry
    and content), so approving again finishes the job instead of refusing a duplicate."""
    t = parse_time(p.timestamp)
    since = (t - timedelta(days=1)).date().isoformat() if t is not None else ""
    for day, path in list_stream_days(ws):
        if day < since:
            continue
        for ln in read_stream_lines(path):
            ev = ln.event
            if (
                ln.kind == "fragment" and ev.get("source") == source and ev.get("entry") == p.id  # type: ignore[union-attr]
                and fragment_content_hash(ev["topic"], ev["body"]) == content_hash  # type: ignore[index]
            ):
                return (day, ev["id"])  # type: ignore[index]
    return None


def fragment_for(ws: Workspace, p: Proposal, source: str, topic: str, today: str) -> tuple[Key, str | None]:
    """(key, line to append or None when reusing): the checks `append_fragment` makes, done
    up front because the line itself is appended by the door with the rest of the change."""
    refused = f"cannot approve {p.id}: refused:"
    for label, text in (("proposer", source), ("topic", topic), ("content", p.content)):
        families = secret_families(text)
        if families:
            raise ProposalRefused(f"{refused} the {label} contains a secret ({', '.join(families)}); nothing was written")
    content_hash = fragment_content_hash(topic, p.content)
    if forgotten(ws).holds(None, topic, p.content):  # the exact or the loose content
        raise ProposalRefused(f"{refused} this content was forgotten (tombstoned); nothing was written")
    own = _own_fragment(ws, p, source, content_hash)
    if own is not None:
        return own, None
    path = write_path_for(ws, today)
    for ln in read_stream_lines(path):
        if ln.kind == "fragment" and fragment_content_hash(ln.event["topic"], ln.event["body"]) == content_hash:  # type: ignore[index]
            raise ProposalRefused(
                f"{refused} duplicate of fragment {ln.event['id']} in {ws.rel(path)}; nothing was written"  # type: ignore[index]
            )
    eid = new_event_id()
    event = build_fragment(eid, timestamp_from_id(eid), source=source, entry=p.id, topic=topic, body=p.content)
    return (today, eid), serialize_event(event)


def _read(path) -> str | None:
    try:
        return read_text_nofollow(path)
    except FileNotFoundError:
        return None


def shard_edits(ws: Workspace, p: Proposal, slug: str, key: Key, today: str) -> tuple[list[FileEdit], str]:
    """(edits, the file the COMMIT audit line names)."""
    citation = format_citation(*key)
    if p.store not in ("semantic", "vault"):
        return [], ws.rel(write_path_for(ws, key[0]))
    areas = ("topics",) if p.store == "semantic" else ("vault", "topics")
    edits = []
    for area in areas:
        rel = f"{area}/{slug}.md"
        current = _read(ws.memory / rel)
        if current is None:
            edits.append(FileEdit(rel, None, new_shard_text(p.content, citation, slug, today)))
        elif key not in citation_keys(current):
            edits.append(FileEdit(rel, current, add_citation_lines(current, [key], today)))
    return edits, f"memory/{areas[0]}/{slug}.md"
