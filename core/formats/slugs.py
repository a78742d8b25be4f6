"""Slug rules, exactly TypeClaw's (`SLUG_REGEX`, `topicShardPath`, `headingToSlug`), but for one
thing: a terminal control sequence in a heading is dropped whole before slugging, where
TypeClaw's would keep its letters (`\x1b[31mred` -> `31m-red`). Such a heading never passes
TypeClaw's heading-echo test (`tc_text.slug_is_heading_echo`), so no lookup depends on it."""
from __future__ import annotations

import hashlib
import re
import unicodedata

from dreamdeck.core.errors import BadInput
from dreamdeck.core.formats.lazy_re import lazy_re
from dreamdeck.core.formats.terminal_text import visible_text

SLUG_REGEX = lazy_re(r"^[a-z0-9][a-z0-9-]{0,63}$")
MAX_SLUG = 64


class InvalidSlug(BadInput):
    pass


def is_valid_slug(slug: str) -> bool:
    return isinstance(slug, str) and SLUG_REGEX.fullmatch(slug) is not None


def require_slug(slug: object) -> str:
    """The slug itself, or InvalidSlug naming why it cannot be a file under topics/."""
    if not isinstance(slug, str) or not slug:
        raise InvalidSlug("slug must be a non-empty string")
    if ".." in slug or "/" in slug or "\\" in slug or slug.startswith("."):
        raise InvalidSlug(f"slug {slug!r} is a path, not a slug")
    if not is_valid_slug(slug):
        raise InvalidSlug(f"slug {slug!r} must match {SLUG_REGEX.pattern}")
    return slug


def heading_to_slug(heading: str, taken: set[str] | frozenset[str] = frozenset()) -> str:
    """Control sequences out, NFD, drop marks, lowercase, non-alnum runs to '-', trim, fallback,
    cut, de-collide."""
    decomposed = unicodedata.normalize("NFD", visible_text(heading))
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()
    slug = re.sub(r"[^a-z0-9]+", "-", plain).strip("-")
    if not slug:
        slug = "untitled-" + hashlib.sha256(heading.encode()).hexdigest()[:6]
    slug = slug[:MAX_SLUG]
    lowered = {t.lower() for t in taken}
    if slug.lower() not in lowered:
        return slug
    n = 2
    while True:
        suffix = f"-{n}"
        candidate = slug[: MAX_SLUG - len(suffix)] + suffix
        if candidate.lower() not in lowered:
            return candidate
        n += 1
