"""Citations: `streams/DATE#ID` links from shards to fragments (TypeClaw's `citations.ts`).

Two views, as TypeClaw keeps them:
- `parse_citations` is section-blind and matches anywhere (inline prose too). GC, the
  superset check and the frontmatter recompute use it.
- `sectioned_citations` reads citation *lines* under `fragments:` / `superseded:` headings.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from dreamdeck.core.formats.jscompat import JS_LINE_BREAKS, JS_SPACE, js_trim
from dreamdeck.core.formats.lazy_re import lazy_re

# JS `\w` and `\d` are ASCII-only and JS `\s` is its own set; Python's differ, so the classes are
# spelled out. re.A keeps case-insensitivity ASCII as JavaScript's is without the `u` flag
# (Python would let `ſtreams` match `streams`). `\Z`: JS `$` without `m` is the very end only.
_S = f"[{JS_SPACE}]"
CITATION = lazy_re(r"(streams|memory)/([0-9]{4}-[0-9]{2}-[0-9]{2})#([A-Za-z0-9_-]+)")
CITATION_LINE = lazy_re(
    rf"^[{JS_SPACE}-]*(streams|memory)/([0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}})#([A-Za-z0-9_-]+){_S}*\Z", re.I | re.A
)
SECTION_HEADING = lazy_re(rf"^[{JS_SPACE}-]*(fragments|superseded){_S}*:{_S}*\Z", re.I | re.A)
REFERENCES_HEADING = lazy_re(rf"^[{JS_SPACE}-]*references{_S}*:{_S}*\Z", re.I | re.A)
_OTHER_LINE_BREAK = lazy_re(f"[{JS_LINE_BREAKS[1:]}]")  # CR, U+2028, U+2029

CitationMap = dict[str, set[str]]
Key = tuple[str, str]  # (date, id)


def parse_citations(text: str) -> CitationMap:
    """date -> ids for every citation anywhere in `text` (both prefixes, case-sensitive)."""
    out: CitationMap = {}
    for _, day, cid in CITATION.findall(text):
        out.setdefault(day, set()).add(cid)
    return out


def citation_keys(text: str) -> set[Key]:
    return {(day, cid) for _, day, cid in CITATION.findall(text)}


_CITATION_KEY = lazy_re(r"(?:streams|memory)/([0-9]{4}-[0-9]{2}-[0-9]{2}#[A-Za-z0-9_-]+)")  # CITATION, key as one group


def citation_key_texts(text: str, start: int = 0) -> set[str]:
    """`citation_keys` of `text[start:]` as `DATE#ID` strings (doctor's record keeps them so),
    from one search (no copy of the text from `start`)."""
    return set(_CITATION_KEY.findall(text, start))


def count(cmap: CitationMap) -> int:
    return sum(len(ids) for ids in cmap.values())


def keys_of(cmap: CitationMap) -> set[Key]:
    return {(day, cid) for day, ids in cmap.items() for cid in ids}


def merge_into(target: CitationMap, other: CitationMap) -> CitationMap:
    for day, ids in other.items():
        target.setdefault(day, set()).update(ids)
    return target


def normalize_citation(text: str) -> str:
    """`memory/DATE#ID` -> `streams/DATE#ID`; idempotent."""
    return CITATION.sub(lambda m: f"streams/{m.group(2)}#{m.group(3)}", text)


def format_citation(day: str, cid: str) -> str:
    return f"streams/{day}#{cid}"


@dataclass
class Sections:
    active: CitationMap = field(default_factory=dict)
    superseded: CitationMap = field(default_factory=dict)

    def active_keys(self) -> set[Key]:
        return keys_of(self.active)

    def superseded_keys(self) -> set[Key]:
        return keys_of(self.superseded)


def sectioned_citations(body: str) -> Sections:
    """TypeClaw `splitCitationRefsBySection`: citation lines by section; before any heading counts
    as active; a fragment id that is active (under any date) is not also superseded."""
    result = Sections()
    section = "fragments"
    for line in body.split("\n"):
        heading = SECTION_HEADING.match(line)
        if heading:
            section = heading.group(1).lower()
            continue
        m = match_citation_line(line)
        if m:
            bucket = result.active if section == "fragments" else result.superseded
            bucket.setdefault(m.group(2), set()).add(m.group(3))
    active_ids = {cid for ids in result.active.values() for cid in ids}
    for day in list(result.superseded):
        result.superseded[day] -= active_ids
        if not result.superseded[day]:
            del result.superseded[day]
    return result


def active_days(body: str) -> int | None:
    """The distinct dates a belief's own evidence holds: the citations outside its `superseded:`
    sections (inline prose included, as TypeClaw's `days` counts them). None when the body has
    no superseded section: then TypeClaw's `days` is already that count. The ladder word and the
    decay score read it, so an overturned claim's days never strengthen the claim that replaced it."""
    if "superseded" not in body.lower():  # 6x faster than a case-blind search; a false hit only costs the walk
        return None
    section, found = "fragments", False
    dates: set[str] = set()
    for line in body.split("\n"):
        heading = SECTION_HEADING.match(line)
        if heading:
            section = heading.group(1).lower()
            found = found or section == "superseded"
        elif section != "superseded":
            dates.update(m.group(2) for m in CITATION.finditer(line))
    return len(dates) if found else None


def match_citation_line(line: str) -> re.Match[str] | None:
    """TypeClaw's `CITATION_LINE` (flag `m`) on one `\n`-split line: JavaScript's `^`/`$` also
    match at CR, U+2028 and U+2029, so a line holding one of those is a citation line when any
    of its pieces is (a lone-CR file is one "line" of citations and prose)."""
    m = CITATION_LINE.match(line)
    if m or not _OTHER_LINE_BREAK.search(line):
        return m
    for piece in _OTHER_LINE_BREAK.split(line):
        if m := CITATION_LINE.match(piece):
            return m
    return None


def without_active_citations(body: str) -> str:
    """The body minus citation lines in the active section, blank runs collapsed."""
    out: list[str] = []
    section = "fragments"
    for line in body.split("\n"):
        m = SECTION_HEADING.match(line)
        if m:
            section = m.group(1).lower()
        elif CITATION_LINE.match(line) and section == "fragments":
            continue
        out.append(line.rstrip())
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()


def strip_citation_lines(body: str) -> str:
    """TypeClaw's `stripCitationLines`: prose only, citation lines and section headings removed,
    runs of blank (whitespace-only) lines collapsed to one, trimmed."""
    kept: list[str] = []
    blank_before = False
    for line in body.split("\n"):
        if match_citation_line(line) or SECTION_HEADING.match(line):
            continue
        blank = not js_trim(line)
        if not (blank and blank_before):
            kept.append(line)
        blank_before = blank
    return js_trim("\n".join(kept))


def missing_citations(before: CitationMap, after: CitationMap) -> list[Key]:
    """(date, id) cited before and not under the same date after, sorted by date then id."""
    missing = [
        (day, cid)
        for day, ids in before.items()
        for cid in ids
        if cid not in after.get(day, ())
    ]
    return sorted(missing)


def summarize_missing(missing: list[Key], limit: int = 3) -> str:
    """First few ids, then `(+N more)`, as TypeClaw's violation warning does."""
    shown = ", ".join(f"{d}#{i}" for d, i in missing[:limit])
    extra = len(missing) - limit
    return shown + (f" (+{extra} more)" if extra > 0 else "")


