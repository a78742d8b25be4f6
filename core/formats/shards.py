"""Topic shards: TypeClaw's strict 5-key frontmatter, its tolerant fallback, and the recompute.

python-frontmatter is the framework (Post, handler protocol); `TypeClawHandler` is the strict
format itself. `frontmatter.loads` strips the text, which would lose a body's leading and
trailing newlines, so we call the handler's split/load directly and never let YAML near a
heading.

Over ~400 lines on purpose: TypeClaw's `parseShard`, `parseLooseShard`, `renderShard` and
`recomputeShardFrontmatter`, and the two citation edits made on a shard's text, share one set of
delimiter rules; the belief sentence lives in `belief.py`, the JavaScript semantics in `jscompat.py`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import frontmatter
from frontmatter.default_handlers import BaseHandler

from dreamdeck.core.errors import BadFile
from dreamdeck.core.formats.belief import first_belief_sentence, synthesize_heading  # noqa: F401 (re-exported)
from dreamdeck.core.formats.citations import (
    CITATION,
    CITATION_LINE,
    SECTION_HEADING,
    Key,
    citation_keys,
    parse_citations,
    strip_citation_lines,
)
from dreamdeck.core.formats.jscompat import js_canonical_uint, js_trim
from dreamdeck.core.formats.lazy_re import lazy_re
from dreamdeck.core.io.cache import MISS, StampCache

DATE_VALUE = lazy_re(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")  # JS `\d` is ASCII; used with fullmatch
BLOCK_ITEM = "  - "  # exactly two spaces: one or three spaces end the block (an empty list)

# TypeClaw tests `key in FRONTMATTER_PARSERS`, a plain object, so Object.prototype's names count
# as known keys: these are read and ignored, and these three throw the engine's TypeError.
PROTOTYPE_KEYS_IGNORED = frozenset({
    "toString", "valueOf", "constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable",
    "toLocaleString", "__lookupGetter__", "__lookupSetter__",
})
PROTOTYPE_KEYS_THROWING = {
    "__proto__": "is not a function", "__defineGetter__": "invalid getter usage",
    "__defineSetter__": "invalid setter usage",
}


class ShardParseError(BadFile):
    pass


@dataclass(frozen=True)
class ShardMeta:
    heading: str
    cites: int
    days: int
    last_reinforced: str
    tags: tuple[str, ...] | None = None  # None: no tags line; (): `tags: []`


def _inline_tags(value: str) -> tuple[str, ...] | None:
    """`[a, b]` -> its items, trimmed, empty ones dropped (`[a, , b]`, `[,]`); None when not a list.

    Mirrors the inline branch of TypeClaw's `parseFrontmatterBlock` and `parseLooseTags`."""
    if not (value.startswith("[") and value.endswith("]")):
        return None
    return tuple(t for t in map(js_trim, value[1:-1].split(",")) if t)


def _block_tags(lines: list[str], i: int) -> tuple[tuple[str, ...], int]:
    """The `  - item` lines from index i: (items, the index after them). Empty items are kept."""
    items = []
    while i < len(lines) and lines[i].startswith(BLOCK_ITEM):
        items.append(js_trim(lines[i][4:]))
        i += 1
    return tuple(items), i


def _split_line(line: str) -> tuple[str, str] | None:
    """`key: value` at the first colon, both trimmed as JavaScript trims; None without a colon."""
    colon = line.find(":")
    if colon < 0:
        return None
    return js_trim(line[:colon]), js_trim(line[colon + 1:])


def _field_error(key: str, problem: str) -> ShardParseError:
    return ShardParseError(f"frontmatter field '{key}': {problem}")


def parse_frontmatter(fm: str) -> ShardMeta:
    """TypeClaw's `parseFrontmatterBlock`, rule for rule, with its error messages.

    Lines without a colon (blank ones included) are skipped; the last of a repeated key wins;
    counts must read back identically as a JavaScript number; the date is shape-checked only."""
    text: dict[str, str] = {}  # heading, lastReinforced: kept as written (trimmed)
    counts: dict[str, int] = {}  # cites, days
    tags: tuple[str, ...] | None = None
    lines = fm.split("\n")
    i = 0
    while i < len(lines):
        pair = _split_line(lines[i])
        i += 1
        if pair is None:
            continue
        key, value = pair
        if key == "tags":
            if value:
                tags = _inline_tags(value)
                if tags is None:
                    raise _field_error("tags", f"expected array, got '{value}'")
            else:
                tags, i = _block_tags(lines, i)
        elif key == "heading" or key == "lastReinforced":
            text[key] = value
        elif key == "cites" or key == "days":
            number = js_canonical_uint(value)
            if number is None:
                raise _field_error(key, f"expected non-negative integer, got '{value}'")
            counts[key] = number
        elif key in PROTOTYPE_KEYS_THROWING:
            raise _field_error(key, PROTOTYPE_KEYS_THROWING[key])
        elif key not in PROTOTYPE_KEYS_IGNORED:
            raise _field_error(key, "unknown")
    heading = text.get("heading")
    if not heading:
        raise _field_error("heading", "required")
    for key in ("cites", "days"):
        if key not in counts:
            raise _field_error(key, "expected integer, got 'undefined'")
    last = text.get("lastReinforced", "undefined")
    if not DATE_VALUE.fullmatch(last):
        raise _field_error("lastReinforced", f"expected YYYY-MM-DD, got '{last}'")
    return ShardMeta(heading, counts["cites"], counts["days"], last, tags)


def split_frontmatter(text: str) -> tuple[str, str] | None:
    """(frontmatter, body) as TypeClaw's `parseShard` cuts them, or None without a frontmatter.

    CRLF becomes LF (a lone CR stays); the text must start with exactly `---\n`; the first line
    from the second on that *starts* with `---` closes it (`----`, `--- `, `---x` too), and
    exactly one more character after those three dashes is skipped before the body."""
    text = text.replace("\r\n", "\n")
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---", 4)
    if end < 0:
        return None
    return text[4:end], text[end + 5:]


class TypeClawHandler(BaseHandler):
    """TypeClaw's `parseShard` / `renderShard` as a python-frontmatter handler."""

    FM_BOUNDARY = lazy_re(r"^-{3}$", re.MULTILINE)  # required by BaseHandler; split() is ours
    START_DELIMITER = "---"
    END_DELIMITER = "---"

    def detect(self, text: str) -> bool:
        return text.replace("\r\n", "\n").startswith("---\n")

    def split(self, text: str) -> tuple[str, str]:
        parts = split_frontmatter(text)
        if parts is None:
            raise ShardParseError("frontmatter delimiter missing")
        return parts

    def load(self, fm: str, **kwargs: object) -> dict[str, object]:
        meta = parse_frontmatter(fm)
        data: dict[str, object] = {
            "heading": meta.heading, "cites": meta.cites, "days": meta.days, "lastReinforced": meta.last_reinforced,
        }
        if meta.tags is not None:
            data["tags"] = meta.tags
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


def parse_shard(text: str) -> tuple[ShardMeta, str]:
    """TypeClaw's `parseShard`: (meta, body) or ShardParseError with TypeClaw's own message."""
    fm, body = HANDLER.split(text)
    return parse_frontmatter(fm), body


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
    meta: ShardMeta | None = canonical_meta(raw)
    if meta is not None:
        return meta  # cheaper than the memo's lookup
    hit = _META_MEMO.get(raw, ())
    if hit is not MISS:
        return hit  # type: ignore[return-value]
    try:
        meta = parse_frontmatter(raw)
    except ShardParseError:
        meta = None
    _META_MEMO.put(raw, (), meta)
    return meta


# The shape TypeClaw's recompute and dreamdeck's render write, in that order, with counts in the
# exactly-representable range: read by one expression (a fresh process reads 100,000 heads).
_CANONICAL = lazy_re(
    r"heading: ([^\n]+)\ncites: (0|[1-9][0-9]{0,14})\ndays: (0|[1-9][0-9]{0,14})\nlastReinforced: ([0-9]{4}-[0-9]{2}-[0-9]{2})"
)


def canonical_meta(fm: str) -> ShardMeta | None:
    """`parse_frontmatter`'s answer for the canonical shape, or None: then the line rules decide."""
    m = _CANONICAL.fullmatch(fm)
    if m is None:
        return None
    heading = m.group(1)
    if js_trim(heading) != heading or not heading:
        return None  # a heading JavaScript would trim: the line rules say what it becomes
    return ShardMeta(heading, int(m.group(2)), int(m.group(3)), m.group(4), None)


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
    """What TypeClaw's `parseLooseShard` salvages from a shard the strict parser refuses."""

    found: bool  # False: no frontmatter at all (or unclosed); `body` is then the whole text as read
    heading: str  # "" when absent or empty
    tags: tuple[str, ...] | None
    tags_malformed: bool
    body: str


def parse_loose_shard(text: str) -> LooseShard:
    """TypeClaw's `parseLooseShard` (and `parseShardTolerantly`'s fallback to the raw text).

    Only `heading` and `tags` are read, every other line is ignored; each `tags` key replaces
    both the tags and the malformed flag (so good-then-bad drops them all, as TypeClaw does)."""
    parts = split_frontmatter(text)
    if parts is None:
        # TypeClaw keeps the raw text as the body: CRLF, a BOM, an unclosed block and all.
        return LooseShard(False, "", None, False, text)
    fm, body = parts
    heading, tags, malformed = "", None, False
    lines = fm.split("\n")
    i = 0
    while i < len(lines):
        pair = _split_line(lines[i])
        i += 1
        if pair is None:
            continue
        key, value = pair
        if key == "heading":
            heading = value
        elif key == "tags":  # `parseLooseTags`
            if value:
                tags = _inline_tags(value)
                malformed = tags is None
            else:
                (tags, i), malformed = _block_tags(lines, i), False
    return LooseShard(True, heading, tags, malformed, body)


def derive_heading(existing: str, body: str, slug: str) -> str:
    """`heading || synthesizeHeadingFromBody(body) || slug`, as `recomputeShardFrontmatter` picks it."""
    return js_trim(existing) or synthesize_heading(body) or slug


def strength_of(body: str, today: str) -> tuple[int, int, str]:
    """(cites, days, lastReinforced) from the body's section-blind citations: TypeClaw's
    `recomputeShardFrontmatter` counts (an id under two dates counts twice; no citation: today)."""
    cmap = parse_citations(body)
    cites = sum(len(ids) for ids in cmap.values())
    last = max(cmap) if cmap else today
    return cites, len(cmap), last


def recompute_shard_text(text: str, slug: str, today: str) -> tuple[str, list[str]]:
    """TypeClaw's `recomputeShardFrontmatter` (with `parseShardTolerantly`): the shard's canonical
    text and the warnings TypeClaw logs. Unchanged text means TypeClaw would not write the file."""
    warnings: list[str] = []
    try:
        meta, body = parse_shard(text)
        heading, tags = meta.heading, meta.tags
    except ShardParseError:
        loose = parse_loose_shard(text)
        heading, tags, body = loose.heading, loose.tags, loose.body
        if loose.tags_malformed:
            warnings.append(f"[dreaming] shard {slug}: dropping malformed tags")
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
    def from_text(cls, slug: str, path: Path, text: str) -> Shard:
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
