"""TypeClaw's reference files (`memory/references/<slug>.md`): `references/frontmatter.ts`.

A reference is a document the agent stored (a runbook, an external page), with its own
frontmatter: title, origin, created, lastAccessed, accessCount, pinned, demoted, tags.
Parsed here as TypeClaw parses it, to search and show it; dreamdeck never rewrites one.
"""
from __future__ import annotations

from dataclasses import dataclass

from dreamdeck.core.errors import BadFile
from dreamdeck.core.formats.lazy_re import lazy_re

ORIGINS = ("episode", "curated", "external")
_ISO_TZ = lazy_re(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:Z|[+-][0-9]{2}:[0-9]{2})")
_INT = lazy_re(r"0|[1-9][0-9]*")


class ReferenceParseError(BadFile):
    pass


@dataclass(frozen=True)
class ReferenceMeta:
    title: str
    origin: str
    created: str
    last_accessed: str
    access_count: int
    pinned: bool
    demoted: bool
    tags: tuple[str, ...]


def _value(key: str, raw: str) -> object:
    if key == "title":
        return raw
    if key == "origin":
        if raw not in ORIGINS:
            raise ReferenceParseError(f"frontmatter field 'origin': expected episode | curated | external, got '{raw}'")
        return raw
    if key in ("created", "lastAccessed"):
        if not _ISO_TZ.fullmatch(raw):
            raise ReferenceParseError(f"frontmatter field '{key}': expected ISO 8601 datetime with timezone, got '{raw}'")
        return raw
    if key == "accessCount":
        if not _INT.fullmatch(raw):  # Number(v) printing back as v: a canonical integer
            raise ReferenceParseError(f"frontmatter field 'accessCount': expected non-negative integer, got '{raw}'")
        return int(raw)
    if key in ("pinned", "demoted"):
        if raw not in ("true", "false"):
            raise ReferenceParseError(f"frontmatter field '{key}': expected boolean, got '{raw}'")
        return raw == "true"
    raise ReferenceParseError(f"frontmatter field '{key}': unknown")


def _fields(fm: str) -> dict[str, object]:
    values: dict[str, object] = {}
    lines = fm.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or ":" not in line:
            continue
        key, rest = (part.strip() for part in line.split(":", 1))
        if key != "tags":
            values[key] = _value(key, rest)
        elif not rest:
            items = []
            while i < len(lines) and lines[i].startswith("  - "):
                items.append(lines[i][4:].strip())
                i += 1
            values["tags"] = tuple(items)
        elif rest.startswith("[") and rest.endswith("]"):
            values["tags"] = tuple(t.strip() for t in rest[1:-1].split(",") if t.strip())
        else:
            raise ReferenceParseError(f"frontmatter field 'tags': expected array, got '{rest}'")
    return values


def parse_reference(text: str) -> tuple[ReferenceMeta, str]:
    """`parseReference`: (meta, body) or ReferenceParseError with TypeClaw's reason."""
    text = text.replace("\r\n", "\n")
    end = text.find("\n---", 4) if text.startswith("---\n") else -1
    if end < 0:
        raise ReferenceParseError("frontmatter delimiter missing")
    v = _fields(text[4:end])
    if not isinstance(v.get("title"), str) or not v["title"]:
        raise ReferenceParseError("frontmatter field 'title': required")
    for key, kind in (("origin", "expected episode | curated | external"),
                      ("created", "expected ISO 8601 datetime with timezone"), ("pinned", "expected boolean")):
        if key not in v:
            raise ReferenceParseError(f"frontmatter field '{key}': {kind}, got 'undefined'")
    if "tags" not in v:
        raise ReferenceParseError("frontmatter field 'tags': expected array, got 'undefined'")
    meta = ReferenceMeta(
        title=str(v["title"]), origin=str(v["origin"]), created=str(v["created"]),
        last_accessed=str(v.get("lastAccessed", v["created"])), access_count=int(v.get("accessCount", 0)),  # type: ignore[call-overload]
        pinned=bool(v["pinned"]), demoted=bool(v.get("demoted", False)), tags=v["tags"],  # type: ignore[arg-type]
    )
    return meta, text[end + 5:]
