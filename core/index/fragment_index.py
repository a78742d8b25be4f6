"""Resolve `(date, id)` citations to fragments without loading every stream into memory.

Per stream file we keep only `id -> (offset, length)`, built by one scan of the raw bytes
(`formats.stream_lines.scan_fragment_lines`) and invalidated by (size, mtime_ns, inode). A
lookup seeks and parses one line.
"""
from __future__ import annotations

from pathlib import Path

from dreamdeck.core.formats.events import Fragment, try_parse_event_line
from dreamdeck.core.formats.stream_lines import scan_fragment_lines
from dreamdeck.core.io.cache import MISS, StampCache, clock, file_stamp
from dreamdeck.core.store.streams import read_path_for
from dreamdeck.core.workspace import Workspace

Offsets = dict[str, tuple[int, int]]  # id -> (offset, length) of its line

# path -> its index, shared by every FragmentIndex of the process (the app opens shard after
# shard citing the same days); the most recently used files only (`core.io.cache` policy).
_SHARED: StampCache[Offsets] = StampCache("stream-offsets", max_entries=128)


def index_stream_bytes(data: bytes) -> Offsets:
    """id -> (offset, length) of every fragment line of a stream file's bytes (last one wins).
    A line that only claims to be a fragment may be listed too: `get` parses and refuses it."""
    lines = scan_fragment_lines(data)
    return {fid: (start, end - start)
            for start, end, fid in zip(lines.starts, lines.ends, lines.ids)  # type: ignore[arg-type]
            if fid is not None}


class FragmentIndex:
    def __init__(self, ws: Workspace):
        self.ws = ws

    def _index(self, day: str) -> tuple[Path, Offsets] | None:
        path = read_path_for(self.ws, day)
        if path is None:
            return None
        started = clock()
        stamp = file_stamp(path)
        if stamp is None:
            return None
        key = str(path)
        cached = _SHARED.get(key, stamp)
        if cached is not MISS:
            return path, cached  # type: ignore[return-value]
        with open(path, "rb") as fh:
            data = fh.read()
        offsets = index_stream_bytes(data)
        _SHARED.put_if_settled(key, stamp, offsets, started)
        return path, offsets

    def get(self, day: str, fid: str) -> Fragment | None:
        found = self._index(day)
        if found is None:
            return None
        path, offsets = found
        loc = offsets.get(fid)
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
        return found is not None and fid in found[1]

    def ids(self, day: str) -> set[str]:
        found = self._index(day)
        return set(found[1]) if found else set()
