"""What the search index holds for each source: a document per belief, reference and fragment.

A document is what a search can return: its kind (`topic`, `vault`, `reference`, `stream`), key
(slug, or `DATE#ID` for a fragment), heading, excerpt, the words it is found by (title and
body, already run through `formats.search_terms.index_text`) and the facts decay needs (`info`).

A belief is found by its own words only: heading, slug, tags and the prose of its body. Its
citation lines (`fragments:` and `superseded:`) are not words of it, so a superseded citation is
never a hook, and neither is any fragment's text: a dreamed fragment is represented by the
belief that cites it, never by itself.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from dreamdeck.core.formats.citations import active_days
from dreamdeck.core.formats.references import ReferenceParseError, parse_reference
from dreamdeck.core.formats.search_terms import index_text
from dreamdeck.core.formats.shards import Shard, derive_heading, meta_from_head, parse_loose_shard, strength_of

EXCERPT_CHARS = 480

_PLAIN = "\n- streams/"  # how nearly every citation line starts (most of a shard is these lines)
_PLAIN_SIZE = len("2026-01-01#019e0000-0000-7000-8000-000000000001")
_SHAPE = itemgetter(4, 10)  # where a plain piece has its date's "-" and the "#"
# Any citation line or section heading, without crossing into the next line (formats.citations
# has the same rules line by line); run on what the fast pass left.
_NOISE_LINE = re.compile(
    r"^(?:[^\S\n]|-)*(?:(?:streams|memory)/[0-9]{4}-[0-9]{2}-[0-9]{2}#[A-Za-z0-9_-]+"
    r"|(?:fragments|superseded)[^\S\n]*:)[^\S\n]*(?:\n|\Z)",
    re.M | re.I,
)
_BLANK_RUN = re.compile(r"\n{3,}")


@dataclass(frozen=True)
class DocData:
    kind: str
    key: str
    path: str  # relative to memory/
    heading: str
    excerpt: str
    title_terms: str
    body_terms: str
    info: dict[str, Any] = field(default_factory=dict)


def prose_of(body: str) -> str:
    """A shard body without its citation lines and section headings, blank runs collapsed.
    The usual citation lines are dropped by splitting on their prefix (a C-speed pass); the
    regex reads only what is left."""
    if "\r" in body:
        body = body.replace("\r\n", "\n")
    pieces = ("\n" + body).split(_PLAIN)
    # a piece that is exactly `DATE#ID` with a UUID-long id, up to the next line of its kind;
    # the ones between the first and the last are checked in C first (nearly always all of them)
    lines, middle = pieces[1:], pieces[1:-1]
    if set(map(len, middle)) <= {_PLAIN_SIZE} and set(map(_SHAPE, middle)) <= {("-", "#")}:
        lines = lines[-1:]
    odd = [p for p in lines if len(p) != _PLAIN_SIZE or p[10] != "#" or p[4] != "-"]
    rest = pieces[0] + "".join(_PLAIN + p for p in odd)
    return _BLANK_RUN.sub("\n\n", _NOISE_LINE.sub("", rest)).strip()


def cut(text: str, limit: int = EXCERPT_CHARS) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def shard_doc(kind: str, slug: str, rel: str, data: bytes) -> DocData:
    """A topic or vault shard. One TypeClaw cannot parse is still found (by its loose heading
    and prose), so nobody loses sight of it; its counts come from its body."""
    meta = meta_from_head(data)  # the strength table's own reading, memoized
    if meta is not None:  # a head without CR that parses strictly: the body follows "\n---" + 1
        body = data[data.find(b"\n---", 4) + 5:].decode("utf-8", "replace")
        shard = Shard(slug, None, "", meta, body, None)  # type: ignore[arg-type]
    else:
        shard = Shard.from_text(slug, None, data.decode("utf-8", "replace"))  # type: ignore[arg-type]
    body = shard.body
    if shard.meta is None and body.startswith("\ufeff"):
        # TypeClaw reads a shard behind a byte-order mark as all body, frontmatter included (its
        # error is kept in `info`); recall shows what a person wrote: the heading and prose after it.
        body = parse_loose_shard(body[1:]).body
    prose = prose_of(body)
    if shard.meta is not None:
        heading = shard.meta.heading
        tags = list(shard.meta.tags or ())
        info = {"cites": shard.meta.cites, "days": shard.meta.days, "last": shard.meta.last_reinforced}
    else:
        heading = parse_loose_shard(shard.body.removeprefix("\ufeff")).heading or derive_heading("", body, slug)
        tags = []
        cites, days, last = strength_of(shard.body, "")
        info = {"cites": cites, "days": days, "last": last or None, "parse_error": shard.error}
    active = active_days(shard.body)
    if active is not None:  # fewer than `days`: what it superseded never strengthens it
        info["active_days"] = active
    title = "\n".join([heading, slug.replace("-", " "), " ".join(tags)])
    return DocData(kind, slug, rel, heading, cut(prose or heading), index_text(title), index_text(prose), info)


def reference_doc(slug: str, rel: str, text: str) -> DocData | None:
    """A reference, as TypeClaw's retrieval reads it; a demoted or malformed one is not searched."""
    try:
        meta, body = parse_reference(text)
    except ReferenceParseError:
        return None
    if meta.demoted:
        return None
    info = {"origin": meta.origin, "created": meta.created[:10], "last": meta.last_accessed[:10],
            "access_count": meta.access_count, "pinned": meta.pinned}
    title = "\n".join([meta.title, slug.replace("-", " "), " ".join(meta.tags)])
    return DocData("reference", slug, rel, meta.title, cut(body or meta.title), index_text(title), index_text(body), info)


def stream_doc(date: str, fid: str, topic: str, body: str, source: str, ts: str, who: str | None) -> DocData:
    """An undreamed fragment: found by its topic and body until a dream makes it a belief."""
    info = {"date": date, "ts": ts, "source": source, "who": who}
    return DocData("stream", f"{date}#{fid}", f"streams/{date}.jsonl", topic, cut(body or topic),
                   index_text(topic), index_text(body), info)
