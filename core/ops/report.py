"""Reports that read memory for a person: a shard with its evidence."""
from __future__ import annotations

from dreamdeck.core.errors import BadInput, NotFound
from dreamdeck.core.formats.citations import parse_citations, sectioned_citations
from dreamdeck.core.formats.slugs import InvalidSlug, require_slug
from dreamdeck.core.index.fragment_index import FragmentIndex
from dreamdeck.core.store.shard_files import read_shard
from dreamdeck.core.store.tombstones import tombstoned_keys
from dreamdeck.core.workspace import Workspace


def shard_report(ws: Workspace, slug: str, folder: str = "topics") -> dict:
    """A shard with every citation resolved to its fragment (`dreamdeck show`, the Topics pane).

    NotFound when there is no such shard; BadInput for a slug that is not one."""
    try:
        require_slug(slug)
    except InvalidSlug as exc:
        raise BadInput(str(exc)) from None
    path = (ws.topics_dir if folder == "topics" else ws.vault_dir) / f"{slug}.md"
    if not path.is_file():
        raise NotFound(f"no topic {slug!r} in memory/{folder}/ (see `dreamdeck topics`)")
    shard = read_shard(slug, path)
    sections = sectioned_citations(shard.body)
    index = FragmentIndex(ws)
    stones = tombstoned_keys(ws)
    resolved = []
    for day, ids in sorted(parse_citations(shard.body).items()):
        for fid in sorted(ids):
            frag = None if (day, fid) in stones else index.get(day, fid)
            resolved.append({
                "citation": f"streams/{day}#{fid}", "date": day, "id": fid,
                "section": "superseded" if fid in sections.superseded.get(day, ()) else "fragments",
                "found": frag is not None, "forgotten": (day, fid) in stones,
                "topic": frag.topic if frag else None, "body": frag.body if frag else None,
                "source": frag.source if frag else None, "ts": frag.ts if frag else None,
                "who": frag.who if frag else None,
            })
    meta = shard.meta
    return {
        "slug": slug, "path": ws.rel(path), "parse_ok": shard.ok, "parse_error": shard.error,
        "heading": meta.heading if meta else None, "cites": meta.cites if meta else None,
        "days": meta.days if meta else None, "lastReinforced": meta.last_reinforced if meta else None,
        "tags": list(meta.tags) if meta and meta.tags is not None else None,
        "citations_by_date": {d: sorted(ids) for d, ids in sorted(parse_citations(shard.body).items())},
        "active": [f"{d}#{i}" for d, i in sorted(sections.active_keys())],
        "superseded": [f"{d}#{i}" for d, i in sorted(sections.superseded_keys())],
        "fragments": resolved, "body": shard.body, "pinned": (ws.vault_dir / f"{slug}.md").is_file(),
    }
