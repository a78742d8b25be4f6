"""TypeClaw's text rules for what its memory block shows, exactly as v0.45.1 applies them.

Each function names the TypeClaw function it mirrors (paths relative to TypeClaw's
`src/bundled-plugins/memory/`). They differ on purpose from dreamdeck's own helpers where
TypeClaw's bytes differ: JavaScript's `/im` citation-line regex, its whitespace set, its
sentence rule. dreamdeck's own code keeps using `formats.citations` and `formats.shards`.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from dreamdeck.core.formats.js_text import JS_WS_CLASS, js_trim, js_trim_start, utf16_len
from dreamdeck.core.formats.lazy_re import lazy_re
from dreamdeck.core.formats.secrets import detect_secrets
from dreamdeck.core.formats.slugs import heading_to_slug

_WS = JS_WS_CLASS[1:-1]  # the class body, to combine with other characters
_TERMINATORS = "\r\u2028\u2029"  # with the `m` flag, JS `^`/`$` also stop at these (never \n: lines are split on it)

# citations.ts CITATION_LINE = /^[\s-]*(streams|memory)\/(\d{4}-\d{2}-\d{2})#([\w-]+)\s*$/im
# `^`/`$` under `m` match at the line's ends and at \r, U+2028, U+2029 inside it; `/i` without
# `u` folds ASCII only (re.ASCII keeps Python from matching 'ſ' or the Kelvin sign).
_CITATION_LINE = lazy_re(
    rf"(?<![^{_TERMINATORS}])[{_WS}-]*(streams|memory)/([0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}})#([A-Za-z0-9_-]+)"
    rf"[{_WS}]*(?=[{_TERMINATORS}]|\Z)",
    re.I | re.A,
)
# citations.ts SECTION_HEADING = /^[\s-]*(fragments|superseded)\s*:\s*$/i (no `m`: whole line)
_SECTION_HEADING = lazy_re(rf"[{_WS}-]*(fragments|superseded)[{_WS}]*:[{_WS}]*", re.I | re.A)
# belief-sentence.ts REFERENCES_HEADING and SENTENCE_END (the `u` flag: code points)
_REFERENCES_HEADING = lazy_re(rf"[{_WS}-]*references[{_WS}]*:[{_WS}]*", re.I | re.A)
_SENTENCE_END = lazy_re(rf"[。！？؟।!?]|\.(?=[{_WS}]|\Z)")
_ATX = lazy_re(rf"^#{{1,6}}[{_WS}]+")


def citation_in_line(line: str) -> tuple[str, str] | None:
    """citations.ts `CITATION_LINE.exec(line)`: (date, fragment id) or None."""
    m = _CITATION_LINE.search(line)
    return (m.group(2), m.group(3)) if m else None


def is_section_heading(line: str) -> str | None:
    m = _SECTION_HEADING.fullmatch(line)
    return m.group(1).lower() if m else None


def format_citation(date: str, fragment_id: str) -> str:
    """citations.ts `formatCitation`."""
    return f"streams/{date}#{fragment_id}"


@dataclass(frozen=True)
class CitationSections:
    """citations.ts `splitCitationRefsBySection`: canonical citations, first-seen order."""

    active: tuple[tuple[str, str], ...]
    superseded: tuple[tuple[str, str], ...]


def split_sections(body: str) -> CitationSections:
    """Lines before any heading are active; a superseded id also cited actively is dropped."""
    active: dict[str, tuple[str, str]] = {}
    superseded: dict[str, tuple[str, str]] = {}
    current = active
    for line in body.split("\n"):
        heading = is_section_heading(line)
        if heading is not None:
            current = superseded if heading == "superseded" else active
            continue
        found = citation_in_line(line)
        if found is not None:
            current[format_citation(*found)] = found
    active_ids = {fid for _, fid in active.values()}
    kept = tuple(c for c in superseded.values() if c[1] not in active_ids)
    return CitationSections(tuple(active.values()), kept)


def strip_citation_lines(body: str) -> str:
    """citations.ts `stripCitationLines`: no citation lines or section headings, blank runs
    collapsed, trimmed."""
    out: list[str] = []
    prev_blank = False
    for line in body.split("\n"):
        if citation_in_line(line) is not None or is_section_heading(line) is not None:
            continue
        blank = js_trim(line) == ""
        if blank and prev_blank:
            continue
        out.append(line)
        prev_blank = blank
    return js_trim("\n".join(out))


def first_belief_sentence(body: str) -> str | None:
    """belief-sentence.ts `firstBeliefSentence`: the first sentence of the first prose line."""
    for raw in strip_citation_lines(body).split("\n"):
        line = js_trim(raw)
        if not line or _REFERENCES_HEADING.fullmatch(line):
            continue
        unwrapped = js_trim(_ATX.sub("", line, count=1))
        if unwrapped:
            m = _SENTENCE_END.search(unwrapped)
            return unwrapped if m is None else js_trim(unwrapped[: m.end()])
    return None


def _echo_safe(ch: str) -> bool:
    return (ch.isascii() and ch.isalnum()) or re.fullmatch(JS_WS_CLASS, ch) is not None \
        or unicodedata.category(ch).startswith("P")


def slug_is_heading_echo(heading: str, slug: str) -> bool:
    """slug.ts `slugIsHeadingEcho`: the heading, diacritics folded, is ASCII letters, digits,
    whitespace and punctuation only, and slugifies to `slug`. (`headingToSlug` equals
    dreamdeck's `heading_to_slug` on every heading that passes the first test.)"""
    folded = re.sub("[\u0300-\u036f]", "", unicodedata.normalize("NFD", heading))
    if not all(_echo_safe(ch) for ch in folded):
        return False
    return heading_to_slug(heading) == slug


def excerpt(body: str, fallback: str) -> str:
    """vector/hybrid.ts `excerpt`: the trimmed body's first 7 lines, or `fallback` when empty."""
    trimmed = js_trim(body)
    if not trimmed:
        return fallback
    return "\n".join(trimmed.split("\n")[:7])


MAX_PROVENANCE_NAME = 256
_UNSAFE_RANGES = (
    (0x00, 0x1F), (0x7F, 0x9F), (0xAD, 0xAD), (0x34F, 0x34F), (0x180E, 0x180E), (0x61C, 0x61C),
    (0x200E, 0x200F), (0x2028, 0x202E), (0x2061, 0x2064), (0x2066, 0x2069), (0x200B, 0x200D),
    (0x2060, 0x2060), (0xFEFF, 0xFEFF), (0xE0000, 0xE007F),
)
_PROMPT_SHAPING_CHARS = set("`*_[]<>|\\")
_ORDERED_ITEM = lazy_re(r"[0-9]{1,9}[.)]" + JS_WS_CLASS)


def _unsafe_unicode(value: str) -> bool:
    return any(lo <= ord(ch) <= hi for ch in value for lo, hi in _UNSAFE_RANGES)


def _prompt_shaping(value: str) -> bool:
    if any(ch in _PROMPT_SHAPING_CHARS for ch in value) or "![" in value:
        return True
    trimmed = js_trim_start(value)
    return trimmed.startswith(("#", ">", "---", "- ", "+ ")) or _ORDERED_ITEM.match(trimmed) is not None


def sanitize_provenance_name(value: str | None) -> str | None:
    """provenance-sanitize.ts `sanitizeProvenanceName`: the name, or None when unsafe to show."""
    if not isinstance(value, str) or not value or utf16_len(value) > MAX_PROVENANCE_NAME:
        return None
    if _unsafe_unicode(value) or _prompt_shaping(value) or detect_secrets(value):
        return None
    return value


def safe_coordinate(value: object) -> bool:
    """provenance-sanitize.ts `isSafeProvenanceCoordinate`."""
    return isinstance(value, str) and 0 < utf16_len(value) <= MAX_PROVENANCE_NAME \
        and not _unsafe_unicode(value)
