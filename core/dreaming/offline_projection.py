"""The offline dreamer's index of the shards' beliefs, kept between processes.

Every run indexes each shard's belief (`matching.ShardEntry`: its terms, subject and label
words; without an entry, the terms are found lazily from the heading's pieces,
`offline_pieces`) and extracts the whole claim of each belief it compares a fragment with
(about 150 µs). An entry (the claim included, once a run extracted it) is a function of the
shard's slug and frontmatter heading alone, so this projection keeps the entries, by slug, in
the private folder the run passes (`DreamInput.cache_dir`), and a fresh process reads them
instead. The run writes it after its changes are applied (`DreamOutcome.settle`: every entry,
those the dream never needed computed then), never on the dream's own time. It can only ever
cost speed, never change a dream:
- an entry is used only for a shard whose heading is, byte for byte, the one it was computed
  from (`ShardMatcher`); any other shard is indexed again and its entry replaced;
- each row carries a digest of its fields: a row that does not match it (torn, edited by hand)
  is not read;
- the projection's version is a digest of the code that computes entries (`core/claims/`,
  `matching.py`, the ladder, this module), so a change to a rule can never meet entries the old
  rule computed, with no version number to forget;
- a file that is unreadable or corrupt is deleted, one of another version emptied
  (`index.projection_db`), and the run writes it again; writes are best effort and a failure
  is silent;
- a link at its name is removed, never followed (`projection_db.drop_links`), and a file over
  `MAX_BYTES` (grown by hand or by a bug: 100,000 shards take a tenth of it) is deleted unread.
Within one process the entries last read or written are kept (`StampCache`, emptied by
`clear_all`): they are correct whatever the file says since, and are still checked per heading.
"""
from __future__ import annotations

import hashlib
import os
import sqlite3
from functools import cache
from pathlib import Path

from dreamdeck.core.dreaming.matching import ShardEntry, ShardMatcher
from dreamdeck.core.index import projection_db
from dreamdeck.core.io.cache import StampCache
from dreamdeck.core.io.gc_pause import paused_gc

__all__ = ["keep_all", "load", "projection_path", "save"]

FILENAME = projection_db.OFFLINE_DREAMER_FILE
MAX_BYTES = 512 * 1024 * 1024
_SCHEMA = "2"
_TABLE = ("CREATE TABLE IF NOT EXISTS shards(slug TEXT PRIMARY KEY, heading TEXT NOT NULL, text TEXT NOT NULL,"
          " prefixed TEXT NOT NULL, terms TEXT NOT NULL, lookup TEXT NOT NULL, subject TEXT NOT NULL,"
          " labels TEXT NOT NULL, claim TEXT, digest TEXT NOT NULL)")
_SEP = "\x1f"  # between the words of a set; a set holding it (or an empty word) is not stored
_KEPT: StampCache[dict[str, ShardEntry]] = StampCache("offline-dreamer-index", max_entries=4)


@cache
def _version() -> str:
    """The schema and a digest of the code whose output the rows are."""
    here = Path(__file__).resolve().parent
    core = here.parent
    sources = sorted((core / "claims").glob("*.py")) + [here / "matching.py", core / "index" / "ladder.py", Path(__file__).resolve()]
    digest = hashlib.blake2b(digest_size=12)
    for source in sources:
        digest.update(source.name.encode() + b"\0" + source.read_bytes() + b"\0")
    return f"{_SCHEMA}-{digest.hexdigest()}"


def projection_path(folder: Path) -> Path:
    return Path(folder) / FILENAME


def _words(words: frozenset[str]) -> str | None:
    text = _SEP.join(sorted(words))
    if "" in words or text.count(_SEP) > max(len(words) - 1, 0):
        return None
    return text


def _set(text: str, seen: dict[str, frozenset[str]]) -> frozenset[str]:
    """The set a stored text holds; `seen` shares one set between rows holding the same text
    (labels, subjects), which also saves building it again."""
    words = seen.get(text)
    if words is None:
        words = seen[text] = frozenset(text.split(_SEP)) if text else frozenset()
    return words


def _digest(fields: tuple[str, ...]) -> str:
    return hashlib.blake2b("\x1e".join(fields).encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def _row(slug: str, e: ShardEntry, texts: dict[frozenset[str], str | None]) -> tuple[str | None, ...] | None:
    """A row; `texts` keeps each set's text once for all rows (10,000 slugs share a few
    hundred label sets, most subjects are empty and a lookup is most often the terms)."""
    sets = []
    for words in (e.terms, e.lookup, e.subject, e.labels):
        if words not in texts:
            texts[words] = _words(words)
        sets.append(texts[words])
    if any(s is None for s in sets):
        return None
    fields = (slug, e.heading, e.text, "1" if e.prefixed else "0", *(s or "" for s in sets))
    return (*fields, e.claim, _digest((*fields, e.claim or "")))


def _entry(row: tuple, seen: dict[str, frozenset[str]]) -> ShardEntry | None:
    *fields, claim, digest = row
    try:
        if _digest((*fields, claim or "")) != digest:
            return None
    except TypeError:  # a field that is not text (a BLOB, a number)
        return None
    if claim is not None and not isinstance(claim, str):
        return None
    _slug, heading, text, prefixed, terms, lookup, subject, labels = fields
    return ShardEntry(heading, text, prefixed == "1", _set(terms, seen), _set(lookup, seen), _set(subject, seen),
                      _set(labels, seen), claim)


def _connect(path: Path) -> sqlite3.Connection:
    return projection_db.connect(path, _version(), (_TABLE,), ("shards",))


def load(folder: Path | None) -> dict[str, ShardEntry]:
    """The entries kept for the shards, by slug (empty: none kept, or none readable)."""
    if folder is None:
        return {}
    path = projection_path(folder)
    kept = _KEPT.get(str(path), ())
    if isinstance(kept, dict):
        return dict(kept)
    try:
        size = os.lstat(path).st_size
    except OSError:
        return {}
    if size > MAX_BYTES:
        projection_db.discard(path)
        return {}
    try:
        conn = _connect(path)
        try:
            rows = conn.execute("SELECT slug, heading, text, prefixed, terms, lookup, subject, labels, claim, digest FROM shards").fetchall()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        if projection_db.damaged(exc):
            projection_db.discard(path)
        return {}
    seen: dict[str, frozenset[str]] = {}
    entries = {str(row[0]): entry for row in rows if (entry := _entry(row, seen)) is not None}
    _KEPT.put(str(path), (), entries)
    return dict(entries)


def save(folder: Path | None, entries: dict[str, ShardEntry], computed: set[str]) -> None:
    """Keep `entries` (every shard's, as the run began) where `computed` were indexed anew and any
    other slug the projection holds is gone. Best effort: a failure only costs the next run time."""
    if folder is None:
        return
    path = projection_path(folder)
    kept = _KEPT.get(str(path), ())
    if isinstance(kept, dict) and not computed and kept.keys() == entries.keys() and path.exists():
        return
    texts: dict[frozenset[str], str | None] = {}
    rows = [row for slug in sorted(computed) if (row := _row(slug, entries[slug], texts)) is not None]
    try:
        conn = _connect(path)
        try:
            # One transaction: the connection autocommits, and a commit per row made writing
            # 10,000 rows take 0.25 s of CPU instead of 0.05 s.
            conn.execute("BEGIN IMMEDIATE")
            held = {slug for (slug,) in conn.execute("SELECT slug FROM shards")}
            conn.executemany("DELETE FROM shards WHERE slug = ?", [(s,) for s in sorted(held - entries.keys())])
            conn.executemany("INSERT OR REPLACE INTO shards VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
            conn.execute("COMMIT")
        finally:
            conn.close()
    except sqlite3.Error as exc:
        if projection_db.damaged(exc):
            projection_db.discard(path)
        _KEPT.discard(str(path))
        return
    except OSError:
        _KEPT.discard(str(path))
        return
    _KEPT.put(str(path), (), dict(entries))


def keep_all(folder: Path, matcher: ShardMatcher) -> None:
    """Keep every shard's entry, after the run (`DreamOutcome.settle`): a first run computes only
    the entries it needs, and the rest and the writing (0.15 s of CPU for 10,000 shards) wait
    for this, off the dream's time."""
    with paused_gc():
        entries = matcher.all_entries()
        save(folder, entries, matcher.entries_to_keep())
