"""Resolve `(date, id)` citations to fragments without loading every stream into memory.

Per stream file we keep only `id -> (offset, length)`, built by one scan of the raw bytes
and invalidated by (size, mtime_ns, inode). A lookup seeks and parses one line.
"""
from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from core.events import Fragment, try_parse_event_line
from core.streams import read_path_for
from core.workspace import Workspace

# Fast path: the append tool writes `{"type":"fragment","id":"…"` first. Any other line that
# mentions "fragment" (keys in another order, spaces) is parsed.
_PREFIX = b'{"type":"fragment","id":"'


@dataclass
class _FileIndex:
    stamp: tuple[int, int, int]
    offsets: dict[str, tuple[int, int]]


# path -> its index, shared by every FragmentIndex of the process (the app opens shard after
# shard citing the same days); the most recently used files only, stamp-checked on each use.
_SHARED: OrderedDict[str, _FileIndex] = OrderedDict()
_SHARED_FILES = 128
_SHARED_LOCK = threading.Lock()


def index_stream_bytes(data: bytes) -> dict[str, tuple[int, int]]:
    """id -> (offset, length) of every fragment line of a stream file's bytes (last one wins).

    A plain loop over lines with `startswith`: a shard citing a hundred days indexes a hundred
    files of thousands of lines, and this is several times faster than a multiline regex."""
    offsets: dict[str, tuple[int, int]] = {}
    pos = 0
    skip = len(_PREFIX)
    for raw in data.split(b"\n"):
        end = raw.find(b'"', skip) if raw.startswith(_PREFIX) else -1
        if end > skip and b"\\" not in raw[skip:end]:
            offsets[raw[skip:end].decode("utf-8", "replace")] = (pos, len(raw))
        elif b'"fragment"' in raw:  # another layout, or an id with an escape in it
            ev = try_parse_event_line(raw.decode("utf-8", "replace"))
            if ev and ev.get("type") == "fragment" and isinstance(ev.get("id"), str):
                offsets[ev["id"]] = (pos, len(raw))
        pos += len(raw) + 1
    return offsets


class FragmentIndex:
    def __init__(self, ws: Workspace):
        self.ws = ws

    def _index(self, day: str) -> tuple[Path, _FileIndex] | None:
        path = read_path_for(self.ws, day)
        if path is None:
            return None
        st = os.stat(path)
        stamp = (st.st_size, st.st_mtime_ns, st.st_ino)
        key = str(path)
        with _SHARED_LOCK:  # the app's shard pane and the watcher's dreams read from two threads
            cached = _SHARED.get(key)
            if cached is not None and cached.stamp == stamp:
                _SHARED.move_to_end(key)
                return path, cached
        with open(path, "rb") as fh:
            data = fh.read()
        entry = _FileIndex(stamp, index_stream_bytes(data))
        with _SHARED_LOCK:
            _SHARED[key] = entry
            while len(_SHARED) > _SHARED_FILES:
                _SHARED.popitem(last=False)
        return path, entry

    def get(self, day: str, fid: str) -> Fragment | None:
        found = self._index(day)
        if found is None:
            return None
        path, entry = found
        loc = entry.offsets.get(fid)
        if loc is None:
            return None
        with open(path, "rb") as fh:
            fh.seek(loc[0])
            raw = fh.read(loc[1])
        ev = try_parse_event_line(raw.decode("utf-8", "replace"))
        if not ev or ev.get("type") != "fragment" or ev.get("id") != fid:
            return None
        return Fragment.from_event(day, ev)

    def exists(self, day: str, fid: str) -> bool:
        found = self._index(day)
        return found is not None and fid in found[1].offsets

    def ids(self, day: str) -> set[str]:
        found = self._index(day)
        return set(found[1].offsets) if found else set()
