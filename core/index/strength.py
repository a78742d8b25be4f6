"""The strength table: how strong each belief is, from the shards alone (no stream scan).

Columns are TypeClaw's (slug, heading, cites, days, last reinforced, age) plus the wording tier
of the promotion ladder and Moltbot's decay score and status. Values come from the strict
frontmatter, as TypeClaw's table does; a shard TypeClaw cannot parse is still listed, with
counts taken from its body and its parse error, so nobody loses sight of it.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path

from dreamdeck.core.errors import BadInput
from dreamdeck.core.formats.jscompat import js_utc_day, locale_compare_key
from dreamdeck.core.formats.shards import (
    Shard,
    ShardMeta,
    ShardParseError,
    meta_from_head,
    parse_shard,
    strength_of,
)
from dreamdeck.core.store.settings import DecaySettings
from dreamdeck.core.store.shard_files import (
    list_shard_paths,
    read_shard,
    read_shard_meta,
)

COLUMNS = ("slug", "heading", "cites", "days", "last_reinforced", "age", "tier", "score", "status")


def ladder_tier(days: int) -> str:
    """Promotion is gated on distinct days, never on cites."""
    if days >= 7:
        return "always"
    if days >= 3:
        return "consistently"
    if days == 2:
        return "observed"
    return "mentioned"


_ISO_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")


def iso_utc_day(value: str) -> int | None:
    """TypeClaw's `parseIsoDateUtc`, in days: `Date.UTC` of a YYYY-MM-DD shape, impossible dates
    rolled over (2026-02-31 is March 3rd, 0000-00-00 is 1899-11-30); None for any other shape."""
    m = _ISO_DATE.fullmatch(value)
    return js_utc_day(int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def age_days(today: str, last: str) -> int | None:
    """TypeClaw's `daysBetween`: whole days from `last` to `today`, clamped at 0 (a future date
    is 0 days old); None when either is not shaped YYYY-MM-DD."""
    now, then = iso_utc_day(today), iso_utc_day(last)
    if now is None or then is None:
        return None
    return max(0, now - then)


def decay_score(days: int, age: int | None, decay: DecaySettings) -> float:
    """Moltbot §9.1 with base 1, access = distinct reinforcement days; clamped to [0, 1]."""
    if age is None:
        return 0.0
    raw = math.exp(-decay.lambda_ * age) * math.log2(days + 1) * decay.type_weight
    return max(0.0, min(1.0, raw))


def decay_status(score: float, decay: DecaySettings) -> str:
    """Moltbot §9.2 bands; the archive band's floor is configurable."""
    if score >= 0.5:
        return "active"
    if score >= 0.2:
        return "fading"
    if score >= decay.archive_threshold:
        return "dormant"
    return "archived"


@dataclass(frozen=True)
class StrengthRow:
    slug: str
    heading: str
    cites: int
    days: int
    last_reinforced: str
    age: int | None
    tier: str
    score: float
    status: str
    pinned: bool = False
    parse_error: str | None = None

    def to_json(self) -> dict[str, object]:
        # Spelled out: dataclasses.asdict deep-copies and costs a tenth of a second per 10k rows.
        return {
            "slug": self.slug, "heading": self.heading, "cites": self.cites, "days": self.days,
            "last_reinforced": self.last_reinforced, "age": self.age, "tier": self.tier,
            "score": round(self.score, 4), "status": self.status, "pinned": self.pinned,
            "parse_error": self.parse_error,
        }


def row_for(shard: Shard, today: str, decay: DecaySettings, pinned: bool = False) -> StrengthRow:
    if shard.meta is not None:
        return _row_from_meta(shard.slug, shard.meta, today, decay, pinned)
    cites, days, last = strength_of(shard.body, today)
    return _row(shard.slug, "", cites, days, last, today, decay, pinned, shard.error)


def row_from_text(slug: str, path: str | Path, text: str, today: str, decay: DecaySettings,
                  pinned: bool = False) -> StrengthRow:
    """A row from a shard's text already in hand: its head when that parses strictly (as
    `strength_table` reads files), the whole shard otherwise."""
    meta = meta_from_head(text)
    if meta is not None:
        return _row_from_meta(slug, meta, today, decay, pinned)
    return row_for(Shard.from_text(slug, Path(path), text), today, decay, pinned)


def _row_from_meta(slug: str, meta: ShardMeta, today: str, decay: DecaySettings, pinned: bool,
                   ages: dict[str, int | None] | None = None) -> StrengthRow:
    return _row(slug, meta.heading, meta.cites, meta.days, meta.last_reinforced, today, decay, pinned, None, ages)


def _row(slug: str, heading: str, cites: int, days: int, last: str, today: str, decay: DecaySettings,
         pinned: bool, error: str | None, ages: dict[str, int | None] | None = None) -> StrengthRow:
    if ages is None:
        age = age_days(today, last)
    else:  # a table has a few hundred distinct dates for thousands of shards
        age = ages[last] if last in ages else ages.setdefault(last, age_days(today, last))
    score = 1.0 if pinned else decay_score(days, age, decay)  # pinned items never decay
    return StrengthRow(
        slug=slug, heading=heading, cites=cites, days=days, last_reinforced=last,
        age=age, tier=ladder_tier(days), score=score,
        status="pinned" if pinned else decay_status(score, decay),
        pinned=pinned, parse_error=error,
    )


def strength_table(
    topics_dir: Path, today: str, decay: DecaySettings, pinned: frozenset[str] | set[str] = frozenset()
) -> list[StrengthRow]:
    """One row per shard, in TypeClaw's order: cites desc, days desc, last desc, slug asc.

    Only a shard's frontmatter is read when its first bytes hold it and it parses strictly;
    any other shard is read whole, as `row_for` takes it."""
    rows = []
    ages: dict[str, int | None] = {}
    for slug, path in list_shard_paths(topics_dir):
        meta = read_shard_meta(path)
        if meta is not None:
            rows.append(_row_from_meta(slug, meta, today, decay, slug in pinned, ages))
        else:
            rows.append(row_for(read_shard(slug, Path(path)), today, decay, slug in pinned))
    return sort_rows(rows)


# Slugs whose code-point order is already `localeCompare`'s (ICU puts `-` before digits before
# letters too): the usual case, sorted without building collation keys.
_PLAIN_SLUGS = re.compile(r"[a-z0-9-]*")


def _slug_order(rows: list[StrengthRow]) -> list[StrengthRow]:
    """Rows by slug as `a.slug.localeCompare(b.slug)` orders them."""
    if _PLAIN_SLUGS.fullmatch("".join(map(attrgetter("slug"), rows))):
        return sorted(rows, key=attrgetter("slug"))
    return sorted(rows, key=lambda r: (locale_compare_key(r.slug), r.slug))


def sort_rows(rows: list[StrengthRow], column: str | None = None, reverse: bool = False) -> list[StrengthRow]:
    if column is None:
        # TypeClaw's `compareShardStrengths`: cites desc, days desc, lastReinforced desc (a string
        # compare: 2026-13-01 after 2026-03-01), slug asc by `localeCompare`.
        rows = _slug_order(rows)
        rows.sort(key=attrgetter("last_reinforced"), reverse=True)
        rows.sort(key=attrgetter("cites", "days"), reverse=True)
        return rows
    if column not in COLUMNS:
        raise BadInput(f"unknown column {column!r}; choose one of {', '.join(COLUMNS)}")
    # None ages sort last; ties broken by slug so the order is stable and reproducible.
    def key(r: StrengthRow) -> tuple:
        value = getattr(r, column)
        return (value is None, value if value is not None else 0)
    return sorted(sorted(rows, key=lambda r: r.slug), key=key, reverse=reverse)


def prompt_rows(shards: Iterable[tuple[str, str]], today: str) -> list[StrengthRow]:
    """The strength rows of the dreamer's prompt from (slug, text) pairs already read, as
    TypeClaw's `loadTopicStrengths` builds them: strict frontmatter only, unparseable shards left
    out (its `loadAllShards` skips them; the app's table keeps them, with why), values as written,
    in `compareShardStrengths` order. The prompt renders them as data (`prompt.py`), not as
    TypeClaw's markdown table, which a heading could break out of."""
    rows = []
    ages: dict[str, int | None] = {}
    decay = DecaySettings()  # the prompt shows no score; any settings will do
    for slug, text in shards:
        meta = meta_from_head(text)
        if meta is None:
            try:
                meta = parse_shard(text)[0]
            except ShardParseError:
                continue
        rows.append(_row_from_meta(slug, meta, today, decay, False, ages))
    return sort_rows(rows)
