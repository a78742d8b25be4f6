"""The strength table: how strong each belief is, from the shards alone (no stream scan).

Columns are TypeClaw's (slug, heading, cites, days, last reinforced, age) plus the wording tier
of the promotion ladder and Moltbot's decay score and status. Values come from the strict
frontmatter, as TypeClaw's table does; a shard TypeClaw cannot parse is still listed, with
counts taken from its body and its parse error, so nobody loses sight of it.

Decay is Moltbot §9.1, `base × e^(−λ × days since last access) × log2(access count + 1) ×
type weight`, clamped to [0, 1], with real access from the access record (`store.access`).
An access (§9.4) is either a reinforcement — each distinct day a dream cited new evidence for
the belief ("a new episode references the memory"), or the memory's arrival for an item that
has no days — or a time the agent was shown the item (a recall or an injection returned it).
So the count is days + times shown, and the last access is the later of the last reinforcement
and the last day shown. Base relevance is by how the memory arrived (`BASE_RELEVANCE`), the type
weight by store (`TYPE_WEIGHT`); the vault is exempt (score 1, status `pinned`).
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, overload

from dreamdeck.core.errors import BadInput
from dreamdeck.core.formats.jscompat import js_utc_day, locale_compare_key
from dreamdeck.core.formats.lazy_re import lazy_re
from dreamdeck.core.io.cache import clock
from dreamdeck.core.store.access import Usage, access_summary, item_key
from dreamdeck.core.store.settings import DecaySettings

if TYPE_CHECKING:  # the shard parser (and YAML) is imported by the functions that read shards:
    # recall only scores (`decay_score`, `topic_decay`), and a fresh `dreamdeck recall` need not load it
    from dreamdeck.core.formats.shards import Shard, ShardMeta
    from dreamdeck.core.index.shard_heads import ShardHeads

COLUMNS = ("slug", "heading", "cites", "days", "last_reinforced", "age", "tier", "score", "status",
           "access_count", "last_access")

# Moltbot §9.1 base relevance: 1.0 for an explicit "remember", 0.7 auto-detected, 0.5 inferred.
# TypeClaw keeps no record of how a topic arrived, and every topic is dreamed from what the
# agent observed: auto-detected. A fragment a person wrote (`dreamdeck remember`) is explicit.
BASE_RELEVANCE = {"explicit": 1.0, "auto": 0.7, "inferred": 0.5}
TOPIC_BASE = BASE_RELEVANCE["auto"]
# Moltbot §9.1 type weight by store: topics are semantic memory (`[decay] type_weight`, 1.2),
# stream fragments episodic, references procedural (runbooks, documents). The vault never decays.
TYPE_WEIGHT = {"episodic": 0.8, "procedural": 1.0}


def ladder_tier(days: int) -> str:
    """Promotion is gated on distinct days, never on cites."""
    if days >= 7:
        return "always"
    if days >= 3:
        return "consistently"
    if days == 2:
        return "observed"
    return "mentioned"


_ISO_DATE = lazy_re(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")


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


def decay_score(accesses: int, days_since_access: int | None, decay: DecaySettings,
                base: float = 1.0, type_weight: float | None = None) -> float:
    """Moltbot §9.1, clamped to [0, 1]; `type_weight` defaults to the topics' (`[decay]`)."""
    if days_since_access is None:
        return 0.0
    weight = decay.type_weight if type_weight is None else type_weight
    raw = base * math.exp(-decay.lambda_ * days_since_access) * math.log2(accesses + 1) * weight
    return max(0.0, min(1.0, raw))


def last_access_of(last_reinforced: str, usage: Usage | None) -> str:
    """The later of the last reinforcement and the last day the item was shown."""
    return last_reinforced if usage is None or usage.last_day <= last_reinforced else usage.last_day


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
    access_count: int = 0  # times a recall or an injection returned it (the access record)
    last_access: str | None = None  # the last day it was shown, None when never
    own_days: int | None = None  # the days of its own evidence when a superseded section makes them fewer

    @property
    def active_days(self) -> int:
        """The days of the belief's own evidence: what its tier and score count."""
        return self.days if self.own_days is None else self.own_days

    def to_json(self) -> dict[str, object]:
        # Spelled out: dataclasses.asdict deep-copies and costs a tenth of a second per 10k rows.
        return {
            "slug": self.slug, "heading": self.heading, "cites": self.cites, "days": self.days,
            "last_reinforced": self.last_reinforced, "age": self.age, "tier": self.tier,
            "score": round(self.score, 4), "status": self.status, "pinned": self.pinned,
            "parse_error": self.parse_error, "access_count": self.access_count, "last_access": self.last_access,
            "active_days": self.active_days,
        }


def row_for(shard: Shard, today: str, decay: DecaySettings, pinned: bool = False,
            usage: Usage | None = None) -> StrengthRow:
    from dreamdeck.core.formats.shards import strength_of

    if shard.meta is not None:
        return _row_from_meta(shard.slug, shard.meta, today, decay, pinned, usage,
                              active=_active(shard.body, shard.meta.days))
    cites, days, last = strength_of(shard.body, today)
    return _row(shard.slug, "", cites, days, last, _active(shard.body, days), today, decay, pinned, shard.error,
                usage)


def row_from_text(slug: str, path: str | Path, text: str, today: str, decay: DecaySettings,
                  pinned: bool = False, usage: Usage | None = None) -> StrengthRow:
    """A row from a shard's text already in hand: its head when that parses strictly (as
    `strength_table` reads files), the whole shard otherwise."""
    from dreamdeck.core.formats.shards import Shard, meta_from_head

    meta = meta_from_head(text)
    if meta is not None:
        return _row_from_meta(slug, meta, today, decay, pinned, usage, active=_active(text, meta.days))
    return row_for(Shard.from_text(slug, Path(path), text), today, decay, pinned, usage)


def _row_from_meta(slug: str, meta: ShardMeta, today: str, decay: DecaySettings, pinned: bool,
                   usage: Usage | None = None, memo: dict[tuple, tuple] | None = None,
                   active: int | None = None) -> StrengthRow:
    return _row(slug, meta.heading, meta.cites, meta.days, meta.last_reinforced,
                meta.days if active is None else active, today, decay, pinned, None, usage, memo)


def _active(text: str, days: int) -> int:
    """The days of a shard's own evidence (`citations.active_days`); its `days` without a
    superseded section. The frontmatter holds no citation line, so the whole text will do."""
    from dreamdeck.core.formats.citations import active_days

    active = active_days(text)
    return days if active is None else active


def usage_of_belief(access: dict[str, Usage], slug: str) -> Usage | None:
    """How often the belief `slug` was shown, as a topic or as its pinned vault copy."""
    a, b = access.get(item_key("topic", slug)), access.get(item_key("vault", slug))
    if a is None or b is None:
        return a or b
    return Usage(a.count + b.count, max(a.last_day, b.last_day))


def topic_decay(days: int, last_reinforced: str, usage: Usage | None, today: str, decay: DecaySettings,
                ages: dict[str, int | None] | None = None) -> float:
    """A topic's Moltbot score: accesses = reinforcement days (its arrival when it has none) +
    times shown; see the module docstring."""
    last = last_access_of(last_reinforced, usage)
    if ages is None:
        since = age_days(today, last)
    else:  # a table has a few hundred distinct dates for thousands of shards
        since = ages[last] if last in ages else ages.setdefault(last, age_days(today, last))
    return decay_score(max(days, 1) + (usage.count if usage else 0), since, decay, base=TOPIC_BASE)


def _row(slug: str, heading: str, cites: int, days: int, last: str, active: int, today: str,
         decay: DecaySettings, pinned: bool, error: str | None, usage: Usage | None = None,
         memo: dict[tuple, tuple] | None = None) -> StrengthRow:
    """One row; with `memo`, what follows from (active days, last, usage, pinned) alone is worked
    out once per distinct value (a table has a few thousand of them for 100,000 shards). The tier
    and the score follow the belief's own evidence (`active`), never evidence it overturned;
    `cites` and `days` stay TypeClaw's counts, as its recompute writes them."""
    if memo is None:
        age, tier, score, status = _derived(active, last, usage, pinned, today, decay)
    else:
        key = (active, last, usage, pinned)
        derived = memo.get(key)
        if derived is None:
            derived = memo[key] = _derived(active, last, usage, pinned, today, decay)
        age, tier, score, status = derived
    return StrengthRow(slug, heading, cites, days, last, age, tier, score, status, pinned, error,
                       usage.count if usage else 0, usage.last_day if usage else None,
                       None if active == days else active)


def _derived(days: int, last: str, usage: Usage | None, pinned: bool, today: str,
             decay: DecaySettings) -> tuple[int | None, str, float, str]:
    """(age, tier, score, status) of a row."""
    score = 1.0 if pinned else topic_decay(days, last, usage, today, decay)  # pinned items never decay
    return age_days(today, last), ladder_tier(days), score, "pinned" if pinned else decay_status(score, decay)


def strength_table(
    topics_dir: Path, today: str, decay: DecaySettings, pinned: frozenset[str] | set[str] = frozenset(),
    access: dict[str, Usage] | None = None, heads: ShardHeads | None = None,
) -> list[StrengthRow]:
    """One row per shard, in TypeClaw's order: cites desc, days desc, last desc, slug asc.

    Only a shard's frontmatter is read when its first bytes hold it and it parses strictly;
    any other shard is read whole, as `row_for` takes it. With `heads` (the folder's persisted
    projection, `ShardHeads.of(ws)`), an unchanged file's head comes from it and is not opened.
    `access` (item key -> Usage) defaults to the access record of the memory folder `topics_dir`
    is in."""
    from dreamdeck.core.store.shard_files import read_shard, read_shard_head, shard_listing

    if access is None:
        access = access_summary(Path(topics_dir).parent)
    rows = []
    memo: dict[tuple, tuple] = {}
    started = clock()
    listed, linked = shard_listing(topics_dir)
    if heads is not None:
        heads.linked = linked  # the same pass's links: the Dream tab's badge (index.shard_links)
    for slug, path in listed:
        usage = usage_of_belief(access, slug) if access else None
        if heads is not None:
            head = heads.head(slug, path, started)
        else:
            read = read_shard_head(path)
            head = None if read is None else (read[0].heading, read[0].cites, read[0].days, read[0].last_reinforced,
                                              read[1])
        if head is not None:
            rows.append(_row(slug, *head, today, decay, slug in pinned, None, usage, memo))
        else:
            rows.append(row_for(read_shard(slug, Path(path)), today, decay, slug in pinned, usage))
    rows = sort_rows(rows)
    if heads is not None:
        heads.save([r.slug for r in rows])  # in the table's order: the next first paint reads it so
    return rows


class ProjectedRows(Sequence[StrengthRow]):
    """The strength table as the projection last recorded it, in its order, each row built when
    asked for: what a fresh process can paint before opening or even listing the shards. Not
    proven: a shard may have changed, come or gone since; `strength_table` is the proof. Pinned
    status and access are read now (the vault's listing, the access record)."""

    def __init__(self, heads: ShardHeads, today: str, decay: DecaySettings,
                 pinned: frozenset[str] | set[str] = frozenset(), access: dict[str, Usage] | None = None):
        self._heads, self._today, self._decay, self._pinned = heads, today, decay, pinned
        self._access = access or {}
        self._n = len(heads)
        self._memo: dict[tuple, tuple] = {}

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, index: int) -> StrengthRow: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[StrengthRow]: ...

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._n))]
        if not -self._n <= index < self._n:
            raise IndexError(index)
        slug, head = self._heads.recorded(index)
        usage = usage_of_belief(self._access, slug) if self._access else None
        return _row(slug, *head, self._today, self._decay, slug in self._pinned, None, usage, self._memo)


def projected_table(heads: ShardHeads, today: str, decay: DecaySettings,
                    pinned: frozenset[str] | set[str] = frozenset(),
                    access: dict[str, Usage] | None = None) -> ProjectedRows:
    """The rows the projection recorded (see ProjectedRows); `access` as in `strength_table`."""
    if access is None:
        access = access_summary(Path(heads.folder).parent)
    return ProjectedRows(heads, today, decay, pinned, access)


# Slugs whose code-point order is already `localeCompare`'s (ICU puts `-` before digits before
# letters too): the usual case, sorted without building collation keys.
_PLAIN_SLUGS = lazy_re(r"[a-z0-9-]*")


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
    from dreamdeck.core.formats.shards import ShardParseError, meta_from_head, parse_shard

    rows = []
    memo: dict[tuple, tuple] = {}
    decay = DecaySettings()  # the prompt shows no score; any settings will do
    for slug, text in shards:
        meta = meta_from_head(text)
        if meta is None:
            try:
                meta = parse_shard(text)[0]
            except ShardParseError:
                continue
        rows.append(_row_from_meta(slug, meta, today, decay, False, memo=memo))
    return sort_rows(rows)
