"""How strong each document is as a memory: recall's order for a query no word of which
discriminates.

BM25 floors the IDF of a word held by half the documents or more at 1e-6 (`index.search_cut`).
When every word of a query that matches anything is floored, BM25's differences between two
documents are ~1e-6 — how often each holds the words and how long it is, under an IDF that says
the words are everywhere — and nothing about relevance: the query has no discriminating word
("user", "user consistently" in a memory where every belief says "The user consistently …").
Such a query ranks its matches by how strong each is as a memory instead. The one thing BM25
does tell there is kept: a document holding every word of the query (that matches anything)
scores one floor per word above one holding fewer, so those holding every word come first, then
the others. In each, pinned items first (the vault, a pinned reference), then by Moltbot's decay
value before it is clamped to 1, `base × type weight × log2(accesses + 1) × e^(−λ × days since
last access)` (`index.strength`; the same inputs recall's decay weight uses: `decay_inputs`), so
more reinforced and more recently used memories come first; ties in (kind, key) order. BM25 is not computed for them:
FTS5 can score a chosen row only by searching the whole index again (~1 ms a row), and under
the floor it would only order the ties by length.

SQLite does the ranking, so Python sees the k rows kept, never every match: each document stores
`lw` = ln(base × its store's fixed type weight × log2(accesses + 1)), its last-access day (days
since 1970; `NO_DATE` when it has none: age 0, as recall reads a missing day as today) and
whether it is pinned (`stored_columns`). The log of the decay value is then `lw + ln(topic type
weight) − λ × max(0, today − day)`. Each connection keeps that sum for every document in a temp
table (`Strengths`), with what the `ORDER BY … LIMIT k` needs beside it (pinned, kind, key), so
a query joins four small columns per match (SQLite's top-k sorter) instead of each document's
row, the shown items and the sum per match (1.5 ms, not 4.1, for 10,000 matches). It is filled
again from the stored columns when the documents, the day or the decay settings change (5 ms at
10,000 documents, at the first such query after); items the access record has shown have more
accesses and a later last access than the files say, so their sums are written again from their
usage, when they are shown. An unreadable day gives no value (NULL sorts last), as its decay
score is 0.
"""
from __future__ import annotations

import json
import math
import sqlite3
from dataclasses import dataclass
from typing import Any

from dreamdeck.core.index.strength import BASE_RELEVANCE, TOPIC_BASE, TYPE_WEIGHT, iso_utc_day, usage_of_belief
from dreamdeck.core.store.access import Usage, item_key
from dreamdeck.core.store.settings import DecaySettings

EXPLICIT_SOURCES = ("dreamdeck:cli", "human:")  # fragments a person wrote (`dreamdeck remember`)
REFERENCE_BASE = {"curated": BASE_RELEVANCE["explicit"], "episode": BASE_RELEVANCE["auto"],
                  "external": BASE_RELEVANCE["inferred"]}
NO_DATE = 10 ** 9  # a last-access day past any today: age 0
COLUMNS = "pinned INT NOT NULL DEFAULT 0, lw REAL, lastday INT"  # of the docs table


@dataclass(frozen=True)
class DecayInputs:
    """What a document's decay score is made of. `type_weight` None: a topic's, from settings."""

    pinned: bool
    base: float
    type_weight: float | None
    accesses: int
    last: str  # the day of the last access as written; "" when there is none and no day was given (age 0)


def own_days(info: dict[str, Any]) -> int:
    """A belief's days of its own evidence (`citations.active_days`), which its tier and its
    decay count: its `days` unless a superseded section makes them fewer."""
    return int(info.get("active_days", info.get("days")) or 0)


def decay_inputs(kind: str, info: dict[str, Any], usage: Usage | None, today: str = "") -> DecayInputs:
    """The inputs of Moltbot §9.1 for one document of `kind` (its `info`, `index.search_docs`)
    shown as `usage` says: accesses are reinforcement days (or the arrival) plus times shown, the
    last access the later of the last reinforcement (none: `today`) and the last day shown."""
    shown = usage.count if usage else 0
    if kind in ("topic", "vault"):
        base, weight, accesses, last = TOPIC_BASE, None, max(own_days(info), 1) + shown, info.get("last") or today
    elif kind == "reference":
        base = REFERENCE_BASE.get(str(info.get("origin")), BASE_RELEVANCE["auto"])
        weight, accesses, last = TYPE_WEIGHT["procedural"], 1 + int(info.get("access_count") or 0) + shown, info.get("last") or today
    else:
        source = info.get("source") or ""
        base = BASE_RELEVANCE["explicit" if source.startswith(EXPLICIT_SOURCES) else "auto"]
        weight, accesses, last = TYPE_WEIGHT["episodic"], 1 + shown, info.get("date") or today
    if usage is not None and usage.last_day > last:
        last = usage.last_day
    pinned = kind == "vault" or (kind == "reference" and bool(info.get("pinned")))
    return DecayInputs(pinned, base, weight, accesses, last)


def stored_columns(kind: str, info: dict[str, Any], usage: Usage | None = None,
                   today: str = "") -> tuple[int, float | None, int | None]:
    """(pinned, lw, lastday) of a document (module docstring); with `usage`, as shown on `today`."""
    inputs = decay_inputs(kind, info, usage, today)
    lw = math.log(inputs.base * (inputs.type_weight or 1.0) * math.log2(inputs.accesses + 1))
    lastday = iso_utc_day(inputs.last) if inputs.last else NO_DATE
    return int(inputs.pinned), lw, lastday


@dataclass(frozen=True)
class StrengthOrder:
    """What ranking by strength needs beyond the index: the day, the decay settings, the access
    record (item key -> Usage)."""

    today: str
    decay: DecaySettings
    access: dict[str, Usage]

    def params(self) -> tuple[float, float, int]:
        """(ln of the topics' type weight, λ, today as days since 1970)."""
        weight = self.decay.type_weight
        return (math.log(weight) if weight > 0 else -math.inf), self.decay.lambda_, iso_utc_day(self.today) or 0


_TABLE = "CREATE TEMP TABLE IF NOT EXISTS strength(id INTEGER PRIMARY KEY, pinned INT, s REAL, kind TEXT, key TEXT)"
# every document's ln decay value from its stored inputs; `Strengths._row` computes the same sum
# in Python, in the same order, for the items shown (bit for bit the same float)
_FILL = ("INSERT INTO temp.strength SELECT id, pinned, lw + CASE WHEN kind = 'topic' THEN ? ELSE 0.0 END"
         " - ? * max(0, ? - lastday), kind, key FROM docs")
STRONGEST = (
    "SELECT t.id, t.s FROM fts JOIN temp.strength t ON t.id = fts.rowid"
    " WHERE fts MATCH ? ORDER BY t.pinned DESC, t.s DESC, t.kind, t.key LIMIT ?"
)


def strongest(conn: sqlite3.Connection, phrases: list[str], limit: int, order: StrengthOrder,
              strengths: Strengths) -> list[tuple[int, float | None]]:
    """(doc id, ln of its decay value) of the `limit` strongest documents holding any of
    `phrases` (FTS5 phrases that each match something), in order: those holding every phrase
    first, then the others (module docstring). Call it in the read transaction the query runs in."""
    strengths.sync(conn, order)
    if len(phrases) == 1:
        return conn.execute(STRONGEST, (phrases[0], limit)).fetchall()
    every = "(" + " AND ".join(phrases) + ")"
    out = conn.execute(STRONGEST, (every, limit)).fetchall()
    if len(out) < limit:
        some = "(" + " OR ".join(phrases) + ") NOT " + every
        out += conn.execute(STRONGEST, (some, limit - len(out))).fetchall()
    return out


class Strengths:
    """The temp table of every document's strength (ln of its decay value) for one connection, as
    of one index generation, day and decay settings: filled from the stored columns when one of
    those changed, and only the items the access record has shown since written again otherwise
    (the record only grows). A query then joins four small columns per match, not the documents'
    rows and the shown items' table with the sum computed per match (4.1 -> 1.5 ms for 10,000
    matches). Its own writes are counted (`own_changes`) so that caches keyed on the
    connection's `total_changes` (the term counts) can leave them out."""

    def __init__(self) -> None:
        self.own_changes = 0
        self._generation: tuple[int, int] | None = None
        self._access: dict[str, Usage] = {}
        self._filled: tuple[str, tuple[float, float, int]] | None = None

    def generation(self, conn: sqlite3.Connection) -> tuple[int, int]:
        """The index's generation as this connection sees it, this table's writes left out."""
        return conn.execute("PRAGMA data_version").fetchone()[0], conn.total_changes - self.own_changes

    def sync(self, conn: sqlite3.Connection, order: StrengthOrder) -> None:
        access, params = order.access, order.params()
        before = conn.total_changes
        conn.execute(_TABLE)
        generation = self.generation(conn)
        if generation != self._generation or self._filled != (order.today, params) \
                or not self._access.keys() <= access.keys():
            conn.execute("DELETE FROM temp.strength")
            conn.execute(_FILL, params)
            changed = access
        else:  # the record only grows: only the items shown since (a Usage is replaced, never
            # changed, so an item not shown since has the same one: 10,000 items 2.1 -> 0.5 ms)
            changed = {k: u for k, u in access.items() if self._access.get(k) is not u}
        if changed:
            rows = self._rows(conn, changed, access, order.today)
            conn.executemany("UPDATE temp.strength SET s = ? WHERE id = ?",
                             [(_strength(kind, lw, lastday, params), doc_id) for doc_id, kind, lw, lastday in rows])
        self.own_changes += conn.total_changes - before
        self._generation, self._access, self._filled = self.generation(conn), dict(access), (order.today, params)

    @staticmethod
    def _rows(conn: sqlite3.Connection, changed: dict[str, Usage], access: dict[str, Usage], today: str) -> list[tuple]:
        """(doc id, kind, lw, lastday) of the documents the `changed` items are (a topic's usage is its
        pinned copy's too, `usage_of_belief`)."""
        wanted: dict[tuple[str, str], str] = {}
        for key in changed:
            kind, _, name = key.partition(":")
            if kind in ("topic", "vault"):
                wanted[("topic", name)] = f"topics/{name}.md"
            elif kind == "reference":
                wanted[("reference", name)] = f"references/{name}.md"
            elif kind == "stream":
                wanted[("stream", name)] = f"streams/{name.partition('#')[0]}.jsonl"
        paths = sorted(set(wanted.values()))
        rows = []
        for start in range(0, len(paths), 500):
            chunk = paths[start:start + 500]
            found = conn.execute(f"SELECT id, kind, key, info FROM docs WHERE path IN ({','.join('?' * len(chunk))})",
                                 chunk).fetchall()
            for doc_id, kind, key, info in found:
                if (kind, key) not in wanted:
                    continue
                usage = usage_of_belief(access, key) if kind == "topic" else access.get(item_key(kind, key))
                _, lw, lastday = stored_columns(kind, json.loads(info), usage, today)
                rows.append((doc_id, kind, lw, lastday))
        return rows


def _strength(kind: str, lw: float | None, lastday: int | None, params: tuple[float, float, int]) -> float | None:
    """`_FILL`'s sum for one document (None where SQL's is NULL)."""
    if lw is None or lastday is None:
        return None
    topic_weight, lambda_, today = params
    return lw + (topic_weight if kind == "topic" else 0.0) - lambda_ * max(0, today - lastday)
