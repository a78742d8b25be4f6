"""Searching the streams day by day: a filter over text, topic, source, who and a day range.

A year of streams is too much to read up front, so a search walks the days newest first and
reports after each one (a UI shows progress and the matches so far, and can stop it between
two days). Inside a day the raw bytes are searched first, in C: only the lines that contain
every word are parsed, and a word must match a fragment's own fields (its topic, body, who or
source), never a JSON key. Forgotten (tombstoned) fragments never match.

The query is one line of words and `key:value` terms:

    pnpm topic:deploy source:slack who:dana from:2026-05-01 to:2026-05-20   (day:2026-05-21 for one day)

Matching is case-insensitive and by substring; words are ANDed, as are the terms.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from dreamdeck.core.errors import BadInput
from dreamdeck.core.index.stream_days import index_bytes
from dreamdeck.core.index.stream_plan import list_days
from dreamdeck.core.index.stream_rows import fragment_row
from dreamdeck.core.store.streams import stream_dir
from dreamdeck.core.store.tombstones import forgotten
from dreamdeck.core.workspace import Workspace, WorkspaceError, parse_date

FIELDS = ("topic", "source", "who")
DAY_TERMS = ("from", "to", "day")


@dataclass(frozen=True)
class StreamQuery:
    words: tuple[str, ...] = ()
    topic: str = ""
    source: str = ""
    who: str = ""
    since: str | None = None  # first day, inclusive
    until: str | None = None  # last day, inclusive

    @property
    def empty(self) -> bool:
        return not (self.words or self.topic or self.source or self.who or self.since or self.until)

    def describe(self) -> str:
        parts = [*self.words]
        parts += [f"{k}:{getattr(self, k)}" for k in FIELDS if getattr(self, k)]
        if self.since and self.since == self.until:
            parts.append(f"day:{self.since}")
        else:
            parts += [f"from:{self.since}"] if self.since else []
            parts += [f"to:{self.until}"] if self.until else []
        return " ".join(parts)

    def wants_day(self, day: str) -> bool:
        return (self.since is None or day >= self.since) and (self.until is None or day <= self.until)

    def needles(self) -> list[bytes]:
        """Lowercase byte strings every matching line must contain (a cheap first cut). Only plain
        ASCII terms: JSON may escape anything else, and bytes lowercase only ASCII."""
        return [w.encode("ascii") for w in (*self.words, self.topic, self.source, self.who)
                if w and w.isascii() and '"' not in w and "\\" not in w]

    def matches(self, row: dict[str, Any]) -> bool:
        """Does a fragment row (`stream_view.fragment_row`) match? Words may be in any field."""
        if row.get("malformed"):
            return False
        fields = {k: str(row.get(k) or "").casefold() for k in ("topic", "body", "who", "source")}
        if any(getattr(self, k) and getattr(self, k) not in fields[k] for k in FIELDS):
            return False
        text = "\n".join(fields.values())
        return all(w in text for w in self.words)


def parse_query(text: str) -> StreamQuery:
    """The query in a filter box; BadInput for a day that is not YYYY-MM-DD or a range backwards."""
    words: list[str] = []
    terms: dict[str, str] = {}
    for token in text.split():
        key, sep, value = token.partition(":")
        key = key.casefold()
        if sep and value and (key in FIELDS or key in DAY_TERMS):
            terms[key] = value
        else:
            words.append(token.casefold())
    days: dict[str, str] = {}
    for key in DAY_TERMS:
        if key in terms:
            try:
                days[key] = parse_date(terms[key])
            except WorkspaceError:
                raise BadInput(f"{key}:{terms[key]} is not a day (YYYY-MM-DD)") from None
    since, until = days.get("from"), days.get("to")
    if "day" in days:
        since = until = days["day"]
    if since and until and since > until:
        raise BadInput(f"from:{since} is after to:{until}")
    topic, source, who = (terms.get(k, "").casefold() for k in FIELDS)
    return StreamQuery(tuple(words), topic, source, who, since, until)


@dataclass
class DayMatches:
    """One searched day: its matches (file order) and where the search stands."""
    date: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    searched: int = 0  # days searched so far, this one included
    total: int = 0  # days the search will look at


def search_days(ws: Workspace, query: StreamQuery) -> Iterator[DayMatches]:
    """Newest day first, one `DayMatches` per day in the query's range (none when there are none)."""
    days = [(d, p) for d, p in list_days(stream_dir(ws)) if query.wants_day(d)]
    hidden = forgotten(ws)
    needles = query.needles()
    for n, (date, path) in enumerate(reversed(days), 1):
        found = DayMatches(date, searched=n, total=len(days))
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:  # vanished (a rewrite renames over it): nothing to show for it now
            yield found
            continue
        starts, ends, _scanned, _hidden = index_bytes(data, 0)
        for start, end in zip(starts, ends):
            line = data[start:end]
            if needles:
                low = line.lower()
                if not all(needle in low for needle in needles):
                    continue
            text = line.decode("utf-8", "replace")
            row = fragment_row(date, text)
            if not hidden.holds_line(row["id"], text) and query.matches(row):
                found.rows.append(row)
        yield found
