"""Fast, cached scans of stream files: which fragment ids a day holds, without JSON-parsing it.

Finding the undreamed tail means looking at every day of the year; parsing a million lines to
learn their ids costs seconds, while one regex pass over the raw bytes costs a fraction of that,
and an unchanged file (same size, mtime, inode) is not read at all. The cache is a projection:
process-local, rebuilt on demand, never the truth.
"""
from __future__ import annotations

import os
import re
import threading
from pathlib import Path

from core.events import try_parse_event_line

# The append tool (and compaction's zod output) put `type` then `id` first.
_FAST = re.compile(rb'^\{"type":"fragment","id":"([^"\\]+)"', re.M)
_MARK = b'"fragment"'

_cache: dict[str, tuple[tuple[int, int, int], tuple[str, ...]]] = {}
_lock = threading.Lock()


def fragment_ids(path: Path) -> tuple[str, ...]:
    """Ids of the fragment lines of one stream file, in file order (empty if it is gone)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return ()
    stamp = (st.st_size, st.st_mtime_ns, st.st_ino)
    key = str(path)
    with _lock:
        hit = _cache.get(key)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    with open(path, "rb") as fh:
        data = fh.read()
    ids = [m.decode("utf-8", "replace") for m in _FAST.findall(data)]
    if data.count(_MARK) > len(ids):
        ids = _slow_ids(data)  # a line in another key order: parse, to be exact
    result = tuple(ids)
    with _lock:
        _cache[key] = (stamp, result)
    return result


def _slow_ids(data: bytes) -> list[str]:
    out = []
    for raw in data.split(b"\n"):
        if _MARK in raw:
            ev = try_parse_event_line(raw.decode("utf-8", "replace"))
            if ev is not None and ev.get("type") == "fragment":
                out.append(ev["id"])
    return out
