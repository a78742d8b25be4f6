"""Topic shards: TypeClaw's strict 5-key frontmatter, its tolerant fallback, and the recompute.

python-frontmatter is the framework (Post, handler protocol); `TypeClawHandler` is the strict
format itself. `frontmatter.loads` strips the text, which would lose a body's leading and
trailing newlines, so we call the handler's split/load directly and never let YAML near a
heading.
"""
from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

import frontmatter
from frontmatter.default_handlers import BaseHandler

from dreamdeck.core.io.cache import MISS, StampCache
from dreamdeck.core.formats.citations import (
    CITATION,
    CITATION_LINE,
    REFERENCES_HEADING,
    SECTION_HEADING,
    Key,
    citation_keys,
    parse_citations,
    strip_citation_lines,
)
from dreamdeck.core.errors import BadFile

KEYS = ("heading", "cites", "days", "lastReinforced", "tags")
DATE_VALUE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")  # JS \d: ASCII only
BLOCK_TAG = re.compile(r"^  - (.*)$")


class ShardParseError(BadFile):
    pass


@dataclass(frozen=True)
class ShardMeta:
    heading: str
    cites: int
    days: int
    last_reinforced: str
    tags: tuple[str, ...] | None = None  # None: no tags line; (): `tags: []`


CANONICAL_INT = re.compile(r"0|[1-9][0-9]*")


def _canonical_int(key: str, value: str) -> int:
    if not CANONICAL_INT.fullmatch(value):
        raise ShardParseError(f"frontmatter field '{key}': expected a non-negative integer, got {value!r}")
    return int(value)


def _inline_tags(value: str) -> tuple[str, ...]:
    if not (value.startswith("[") and value.endswith("]")):
        raise ShardParseError(f"frontmatter field 'tags': expected [a, b], got {value!r}")
    inner = value[1:-1].strip()
    if not inner:
        return ()
    return tuple(t.strip() for t in inner.split(","))


class TypeClawHandler(BaseHandler):
    """TypeClaw's `parseShard` / `renderShard` as a python-frontmatter handler."""

    FM_BOUNDARY = re.compile(r"^-{3}$", re.MULTILINE)  # required by BaseHandler; split() is ours
    START_DELIMITER = "---"
    END_DELIMITER = "---"

    def detect(self, text: str) -> bool:
        return text.replace("\r\n", "\n").startswith("---\n")

    def split(self, text: str) -> tuple[str, str]:
        text = text.replace("\r\n", "\n")
        if not text.startswith("---\n"):
            raise ShardParseError("missing frontmatter: the file must start with '---'")
        end = text.find("\n---", 4)
        if end < 0:
            raise ShardParseError("frontmatter is not closed: no '---' line after it")
        return text[4:end], text[end + 5:]

    def load(self, fm: str, **kwargs: object) -> dict[str, object]:
        data: dict[str, object] = {}
        block_tags: list[str] | None = None
        for raw in fm.split("\n"):
            if block_tags is not None:
                m = BLOCK_TAG.match(raw)
                if m:
                    block_tags.append(m.group(1).strip())
                    continue
                data["tags"] = tuple(block_tags)
                block_tags = None
            if not raw.strip():
                continue
            if ":" not in raw:
                raise ShardParseError(f"frontmatter line {raw!r}: expected 'key: value'")
            key, value = raw.split(":", 1)
            key, value = key.strip(), value.strip()
            if key not in KEYS:
                raise ShardParseError(f"frontmatter field '{key}': unknown")
            if key == "heading":
                data["heading"] = value
            elif key in ("cites", "days"):
                data[key] = _canonical_int(key, value)
            elif key == "lastReinforced":
                if not DATE_VALUE.match(value):
                    raise ShardParseError(f"frontmatter field 'lastReinforced': expected YYYY-MM-DD, got {value!r}")
                data[key] = value
            elif value:
                data["tags"] = _inline_tags(value)
            else:
                block_tags = []
        if block_tags is not None:
            data["tags"] = tuple(block_tags)
        if not data.get("heading"):
            raise ShardParseError("frontmatter field 'heading': required and non-empty")
        for key in ("cites", "days", "lastReinforced"):
            if key not in data:
                raise ShardParseError(f"frontmatter field '{key}': required")
        return data

    def export(self, metadata: dict[str, object], **kwargs: object) -> str:
        lines = [
            f"heading: {metadata['heading']}",
            f"cites: {metadata['cites']}",
            f"days: {metadata['days']}",
            f"lastReinforced: {metadata['lastReinforced']}",
        ]
        tags = metadata.get("tags")
        if tags is not None:
            lines.append(f"tags: [{', '.join(tags)}]")  # type: ignore[arg-type]
        return "\n".join(lines)

    def format(self, post: frontmatter.Post, **kwargs: object) -> str:
        # No strip: the body is verbatim, leading and trailing newlines included.
        return f"---\n{self.export(post.metadata)}\n---\n{post.content}"


HANDLER = TypeClawHandler()


def _meta(fm: str) -> ShardMeta:
    data = HANDLER.load(fm)
    return ShardMeta(
        heading=str(data["heading"]),
        cites=int(data["cites"]),  # type: ignore[arg-type]
        days=int(data["days"]),  # type: ignore[arg-type]
        last_reinforced=str(data["lastReinforced"]),
        tags=data.get("tags"),  # type: ignore[arg-type]
    )


def parse_shard(text: str) -> tuple[ShardMeta, str]:
    """Strict parse: (meta, body) or ShardParseError with TypeClaw's reason."""
    fm, body = HANDLER.split(text)
    return _meta(fm), body


HEAD_BYTES = 4096


def meta_from_head(head: str | bytes) -> ShardMeta | None:
    """`read_shard_meta` for text (or bytes) already in hand: only the first HEAD_BYTES are looked at.

    Byte offsets are character offsets here: the frontmatter is found by ASCII markers, and
    UTF-8 never puts an ASCII byte inside a multi-byte character.
    """
    if isinstance(head, bytes):
        if not head.startswith(b"---\n"):
            return None
        end = head.find(b"\n---", 4, HEAD_BYTES)
        if end < 0 or b"\r" in head[:end]:
            return None
        raw = head[4:end].decode("utf-8", "replace")
    else:
        if not head.startswith("---\n"):
            return None
        end = head.find("\n---", 4, HEAD_BYTES)
        if end < 0 or "\r" in head[:end]:
            return None
        raw = head[4:end]
    hit = _META_MEMO.get(raw, ())
    if hit is not MISS:
        return hit  # type: ignore[return-value]
    try:
        meta: ShardMeta | None = _meta(raw)
    except ShardParseError:
        meta = None
    _META_MEMO.put(raw, (), meta)
    return meta


# frontmatter text -> its strict parse (None when it fails): the app and the watcher re-read
# the same 10,000 heads again and again; ShardMeta is frozen, so sharing one is safe. Bounded:
# a long-lived app sees many versions of shards.
_META_MEMO: StampCache[ShardMeta | None] = StampCache("shard-frontmatter", max_entries=200_000)


def render_shard(meta: ShardMeta, body: str) -> str:
    metadata: dict[str, object] = {
        "heading": meta.heading, "cites": meta.cites, "days": meta.days,
        "lastReinforced": meta.last_reinforced,
    }
    if meta.tags is not None:
        metadata["tags"] = meta.tags
    return frontmatter.dumps(frontmatter.Post(body, handler=HANDLER, **metadata), handler=HANDLER)


@dataclass(frozen=True)
class LooseShard:
    heading: str
    tags: tuple[str, ...] | None
    body: str
    warnings: tuple[str, ...]


def parse_loose_shard(text: str) -> LooseShard:
    """TypeClaw's `parseLooseShard`: keep heading and well-formed tags, drop everything else."""
    text = text.replace("\r\n", "\n")
    if not text.startswith("---\n") or text.find("\n---", 4) < 0:
        return LooseShard("", None, text, ())
    fm, body = HANDLER.split(text)
    heading = ""
    tags: tuple[str, ...] | None = None
    warnings: list[str] = []
    lines = fm.split("\n")
    i = 0
    while i < len(lines):
        raw = lines[i]
        i += 1
        if ":" not in raw:
            continue
        key, value = (s.strip() for s in raw.split(":", 1))
        if key == "heading":
            heading = value
        elif key == "tags":
            if value:
                try:
                    tags = _inline_tags(value)
                except ShardParseError:
                    warnings.append(f"dropping malformed tags {value!r}")
            else:
                block: list[str] = []
                while i < len(lines) and BLOCK_TAG.match(lines[i]):
                    block.append(BLOCK_TAG.match(lines[i]).group(1).strip())  # type: ignore[union-attr]
                    i += 1
                tags = tuple(block)
    return LooseShard(heading, tags, body, tuple(warnings))


_SENTENCE_END = re.compile(r"[。！？؟।!?]|\.(?=\s|$)")


def first_belief_sentence(body: str) -> str:
    """The first sentence of the prose: citations and references stripped, leading '#' unwrapped."""
    lines: list[str] = []
    in_refs = False
    for line in strip_citation_lines(body).split("\n"):
        if REFERENCES_HEADING.match(line):
            in_refs = True
            continue
        if in_refs and re.match(r"^\s*-\s+\S", line):
            continue
        in_refs = False
        lines.append(line)
    prose = "\n".join(lines).strip()
    if not prose:
        return ""
    first = prose.split("\n\n", 1)[0].replace("\n", " ").strip()
    first = re.sub(r"^#+\s*", "", first)
    m = _SENTENCE_END.search(first)
    return (first[: m.end()] if m else first).strip()


def derive_heading(existing: str, body: str, slug: str) -> str:
    if existing.strip():
        return existing.strip()
    for line in body.split("\n"):
        if line.startswith("## ") and line[3:].strip():
            return line[3:].strip()
    return first_belief_sentence(body) or slug


def strength_of(body: str, today: str) -> tuple[int, int, str]:
    """(cites, days, lastReinforced) from the body's section-blind citations."""
    cmap = parse_citations(body)
    cites = sum(len(ids) for ids in cmap.values())
    last = max(cmap) if cmap else today
    return cites, len(cmap), last


def recompute_shard_text(text: str, slug: str, today: str) -> tuple[str, list[str]]:
    """TypeClaw's `recomputeShardFrontmatter`: the shard's canonical bytes and any warnings."""
    try:
        meta, body = parse_shard(text)
        heading, tags, warnings = meta.heading, meta.tags, []
    except ShardParseError:
        loose = parse_loose_shard(text)
        heading, tags, body, warnings = loose.heading, loose.tags, loose.body, list(loose.warnings)
    cites, days, last = strength_of(body, today)
    meta = ShardMeta(derive_heading(heading, body, slug), cites, days, last, tags)
    return render_shard(meta, body), warnings


@dataclass(frozen=True)
class Shard:
    """One file under topics/ (or vault/): its bytes, and the strict parse or why it failed."""

    slug: str
    path: Path
    text: str
    meta: ShardMeta | None
    body: str
    error: str | None

    @property
    def ok(self) -> bool:
        return self.meta is not None

    @classmethod
    def from_text(cls, slug: str, path: Path, text: str) -> "Shard":
        try:
            meta, body = parse_shard(text)
            return cls(slug, path, text, meta, body, None)
        except ShardParseError as exc:
            return cls(slug, path, text, None, parse_loose_shard(text).body, str(exc))


def add_citation_lines(text: str, keys: list[tuple[str, str]], today: str) -> str:
    """Citations-only edit: insert `- streams/DATE#ID` lines under the body's last
    `fragments:` heading (or a new one at the end), leaving every other byte as it is.
    A strictly-parsed shard also gets its counts recomputed."""
    if not keys:
        return text
    crlf = "\r\n" in text
    lines = text.split("\n")  # under CRLF each line keeps its "\r"
    body_start = 0
    if text.replace("\r\n", "\n").startswith("---\n"):
        # TypeClaw closes the frontmatter at the first "\n---" from index 4.
        close = next((i for i in range(2, len(lines)) if lines[i].startswith("---")), None)
        if close is not None:
            body_start = close + 1
    heads = [
        i for i in range(body_start, len(lines))
        if (m := SECTION_HEADING.match(lines[i])) and m.group(1).lower() == "fragments"
    ]
    if heads:
        at = heads[-1] + 1
        while at < len(lines) and CITATION_LINE.match(lines[at]):
            at += 1
        eol = "\r" if crlf and at < len(lines) else ""
        out = "\n".join(lines[:at] + [f"- streams/{k[0]}#{k[1]}" + eol for k in keys] + lines[at:])
    else:
        nl = "\r\n" if crlf else "\n"
        base = text.rstrip("\r\n")
        out = (base + nl + nl if base else "") + "fragments:" + nl + nl.join((f"- streams/{d}#{i}" for d, i in keys)) + nl
    try:
        meta, body = parse_shard(out)
    except ShardParseError:
        return out
    cites, days, last = strength_of(body, today)
    return render_shard(ShardMeta(meta.heading, cites, days, last, meta.tags), body)


FORGOTTEN = "[forgotten]"


# --- text ------------------------------------------------------------------------------------
def strip_citations(text: str, keys: set[Key]) -> str | None:
    """`text` without any citation of `keys`; None when nothing (no prose, no citation) is left.

    Citation lines go; an inline mention becomes `[forgotten]`; a `superseded:` heading whose
    every citation went is removed. Everything else is kept byte for byte.
    """
    if not keys or not (citation_keys(text) & keys):
        return text
    lines = text.split("\n")
    out: list[str] = []
    heading_at: int | None = None  # index in `out` of the last superseded: heading
    had_cites = kept_cites = False

    def close_heading() -> None:
        if heading_at is not None and had_cites and not kept_cites:
            out[heading_at] = None  # type: ignore[call-overload]
            if heading_at > 0 and out[heading_at - 1] == "":  # its blank separator goes with it
                out[heading_at - 1] = None  # type: ignore[call-overload]

    for line in lines:
        m = SECTION_HEADING.match(line)
        if m:
            close_heading()
            heading_at = len(out) if m.group(1).lower() == "superseded" else None
            had_cites = kept_cites = False
            out.append(line)
            continue
        cm = CITATION_LINE.match(line)
        if cm:
            had_cites = True
            if (cm.group(2), cm.group(3)) in keys:
                continue
            kept_cites = True
            out.append(line)
            continue
        out.append(CITATION.sub(lambda mm: FORGOTTEN if (mm.group(2), mm.group(3)) in keys else mm.group(0), line))
    close_heading()
    result = "\n".join(ln for ln in out if ln is not None)
    body = parse_loose_shard(result).body
    if not citation_keys(body) and not strip_citation_lines(body).replace(FORGOTTEN, "").strip(" \n.,;:-"):
        return None
    return result
