"""Fast, cached scans of stream files: which fragment ids a day holds, without JSON-parsing it.

Finding the undreamed tail means looking at every day of the year; parsing a million lines to
learn their ids costs seconds, while one regex pass over the raw bytes
(`formats.stream_lines.fragment_line_ids`) costs a fraction of that, and an unchanged file
(same size, mtime, inode) is not read at all. The cache is a projection: process-local, rebuilt
on demand, never the truth.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.formats.stream_lines import fragment_line_ids
from dreamdeck.core.io.atomic import atomic_write_text
from dreamdeck.core.io.cache import MISS, StampCache, clock, file_stamp, settled

# path -> its fragment ids (`core.io.cache` policy)
_IDS: StampCache[tuple[str, ...]] = StampCache("stream-fragment-ids")


def fragment_ids(path: Path) -> tuple[str, ...]:
    """Ids of the fragment lines of one stream file, in file order (empty if it is gone)."""
    started = clock()
    stamp = file_stamp(path)
    if stamp is None:
        return ()
    key = str(path)
    hit = _IDS.get(key, stamp)
    if hit is not MISS:
        return hit  # type: ignore[return-value]
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        return ()
    result = tuple(fragment_line_ids(data))
    _IDS.put_if_settled(key, stamp, result, started)
    return result


class DreamedDays:
    """A persisted projection: stream files known to hold no undreamed fragment.

    An entry says "this file, as it was (size, mtime, inode), was fully dreamed against this
    day's dreamed-id list (digest)". Any append, rewrite or change to that day's list (a release
    puts ids back on the tail) invalidates it. It lives beside the locks, outside the agent
    folder, and losing it only costs one scan.
    """

    def __init__(self, ws):
        self.path = ws.lock_dir / "dreamed-days.json"
        try:
            self.entries: dict[str, list] = load_json(self.path.read_text())
        except (OSError, ValueError):
            self.entries = {}
        self.dirty = False

    @staticmethod
    def digest(dreamed_ids: list[str]) -> str:
        return hashlib.sha1("\n".join(dreamed_ids).encode("utf-8", "surrogatepass")).hexdigest()

    def fully_dreamed(self, path: Path, digest: str) -> bool:
        entry = self.entries.get(str(path))
        stamp = file_stamp(path)
        return entry is not None and stamp is not None and entry == [*stamp, digest]

    def mark(self, path: Path, digest: str, started_ns: int) -> None:
        """Record `path` as fully dreamed, once it has settled (`core.io.cache` policy)."""
        stamp = file_stamp(path)
        if stamp is not None and settled(stamp, started_ns):
            self.entries[str(path)] = [*stamp, digest]
            self.dirty = True

    def save(self) -> None:
        if self.dirty:
            try:
                atomic_write_text(self.path, json.dumps(self.entries))
            except OSError:
                pass  # a projection: next time we scan again
