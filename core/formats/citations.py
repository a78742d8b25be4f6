"""Citations: `streams/DATE#ID` links from shards to fragments (TypeClaw's `citations.ts`).

Two views, as TypeClaw keeps them:
- `parse_citations` is section-blind and matches anywhere (inline prose too). GC, the
  superset check and the frontmatter recompute use it.
- `sectioned_citations` reads citation *lines* under `fragments:` / `superseded:` headings.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

# JS `\w` and `\d` are ASCII-only; Python's are Unicode, so spell the classes out.
CITATION = re.compile(r"(streams|memory)/([0-9]{4}-[0-9]{2}-[0-9]{2})#([A-Za-z0-9_-]+)")
CITATION_LINE = re.compile(r"^[\s-]*(streams|memory)/([0-9]{4}-[0-9]{2}-[0-9]{2})#([A-Za-z0-9_-]+)\s*$", re.I)
SECTION_HEADING = re.compile(r"^[\s-]*(fragments|superseded)\s*:\s*$", re.I)
REFERENCES_HEADING = re.compile(r"^\s*references\s*:\s*$", re.I)

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
    """Citation lines by section; before any heading counts as active; active beats superseded."""
    result = Sections()
    section = "fragments"
    for line in body.split("\n"):
        heading = SECTION_HEADING.match(line)
        if heading:
            section = heading.group(1).lower()
            continue
        m = CITATION_LINE.match(line)
        if m:
            bucket = result.active if section == "fragments" else result.superseded
            bucket.setdefault(m.group(2), set()).add(m.group(3))
    for day, ids in result.active.items():
        if day in result.superseded:
            result.superseded[day] -= ids
            if not result.superseded[day]:
                del result.superseded[day]
    return result


def strip_citation_lines(body: str) -> str:
    """Prose only: citation lines and section headings removed, blank runs collapsed, trimmed."""
    kept = [
        line for line in body.split("\n")
        if not CITATION_LINE.match(line) and not SECTION_HEADING.match(line)
    ]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(kept))
    return text.strip()


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


