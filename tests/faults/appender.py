"""Agents appending to today's stream from other processes (spawned by the concurrency test).

`append_many` goes through `append_fragment` (dreamdeck's locked O_APPEND); `append_raw` writes
TypeClaw's two lines per call (fragment, watermark) with a plain O_APPEND open/write/close and no
lock at all, as the TypeClaw logger's `appendFile` does.

Each appends exactly `count` fragments, counting them in the shared `appended`, and then writes
their ids to `out_path` as JSON. The pace is set by counting, never by the clock: an appender says
`ready`, waits for `start`, and appends its fragment number i (from 0) only once `i // batch`
dreams have read the stream (the shared `reads`). So each dream, after it has read, races `batch`
appends from every appender while it applies, compacts and commits. `abort` ends an appender
early (the test failed elsewhere).
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path


def _paced(batch: int, count: int, reads, appended, abort):
    """The append numbers 0..count-1, each only once enough dreams have read; each one done is
    counted in `appended`."""
    for i in range(count):
        while reads.value < i // batch:
            if abort.is_set():
                return
            time.sleep(0.002)  # waiting for a dream, not pacing by the clock
        yield i
        appended.value += 1


def append_many(root: str, today: str, source: str, count: int, batch: int, out_path: str,
                ready, start, reads, appended, abort) -> None:
    from dreamdeck.core.store.streams import append_fragment
    from dreamdeck.core.workspace import Workspace

    ws = Workspace.open(root, today=today)
    ready.put(source)
    start.wait()
    ids = []
    for i in _paced(batch, count, reads, appended, abort):
        frag = append_fragment(ws, f"topic {source}", f"{source} observed fact number {i}", source=source, day=today)
        ids.append(frag.id)
    Path(out_path).write_text(json.dumps(ids))


def append_raw(root: str, today: str, source: str, count: int, batch: int, out_path: str,
               ready, start, reads, appended, abort) -> None:
    from dreamdeck.core.formats.events import build_fragment, build_watermark, serialize_event
    from dreamdeck.core.formats.ids import new_event_id, timestamp_from_id

    path = Path(root) / "memory" / "streams" / f"{today}.jsonl"
    ready.put(source)
    start.wait()
    ids = []
    for i in _paced(batch, count, reads, appended, abort):
        fid = new_event_id()
        frag = build_fragment(fid, timestamp_from_id(fid), source=source, entry=f"{i:08x}",
                              topic=f"topic {source}", body=f"{source} raw fact number {i}")
        wid = new_event_id()
        mark = build_watermark(wid, timestamp_from_id(wid), source=source, entry=f"{i:08x}")
        data = (serialize_event(frag) + "\n" + serialize_event(mark) + "\n").encode("utf-8")
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        ids.append(fid)
    Path(out_path).write_text(json.dumps(ids))
