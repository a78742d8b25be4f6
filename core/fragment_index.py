"""Resolve `(date, id)` citations to fragments without loading every stream into memory.

Per stream file we keep only `id -> (offset, length)`, built by one scan of the raw bytes
and invalidated by (size, mtime_ns, inode). A lookup seeks and parses one line.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from core.events import Fragment, try_parse_event_line
from core.streams import read_path_for
from core.workspace import Workspace

# Fast path: the append tool writes `{"type":"fragment","id":"…"` first. Anything else is parsed.
_HEAD = re.compile(rb'^\{"type":"fragment","id":"([^"\\]+)"')


@dataclass
class _FileIndex:
    stamp: tuple[int, int, int]
    offsets: dict[str, tuple[int, int]]


class FragmentIndex:
    def __init__(self, ws: Workspace):
        self.ws = ws
        self._files: dict[Path, _FileIndex] = {}

    def _index(self, day: str) -> tuple[Path, _FileIndex] | None:
        path = read_path_for(self.ws, day)
        if path is None:
            return None
        st = os.stat(path)
        stamp = (st.st_size, st.st_mtime_ns, st.st_ino)
        cached = self._files.get(path)
        if cached is not None and cached.stamp == stamp:
            return path, cached
        offsets: dict[str, tuple[int, int]] = {}
        with open(path, "rb") as fh:
            data = fh.read()
        pos = 0
        for raw in data.split(b"\n"):
            m = _HEAD.match(raw)
            if m:
                offsets[m.group(1).decode("utf-8", "replace")] = (pos, len(raw))
            elif raw.strip() and b'"fragment"' in raw:
                ev = try_parse_event_line(raw.decode("utf-8", "replace"))
                if ev and ev.get("type") == "fragment":
                    offsets[ev["id"]] = (pos, len(raw))
            pos += len(raw) + 1
        entry = _FileIndex(stamp, offsets)
        self._files[path] = entry
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
