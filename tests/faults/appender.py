"""Agents appending to today's stream from other processes (spawned by the concurrency test).

`append_many` goes through `core.streams.append_fragment` (dreamdeck's locked O_APPEND);
`append_raw` writes TypeClaw's two lines per call (fragment, watermark) with a plain
O_APPEND open/write/close and no lock at all, as the TypeClaw logger's `appendFile` does.
Each says `ready` once imported, waits for `start`, appends until `stop` is set (or `limit` is reached) and then writes the ids it appended
to `out_path` as JSON.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path


def append_many(root: str, today: str, source: str, limit: int, pause: float, out_path: str, ready, start, stop) -> None:
    from dreamdeck.core.store.streams import append_fragment
    from dreamdeck.core.workspace import Workspace

    ws = Workspace.open(root, today=today)
    ready.put(source)
    start.wait()
    ids = []
    for i in range(limit):
        if stop.is_set():
            break
        frag = append_fragment(ws, f"topic {source}", f"{source} observed fact number {i}", source=source, day=today)
        ids.append(frag.id)
        time.sleep(pause)
    Path(out_path).write_text(json.dumps(ids))


def append_raw(root: str, today: str, source: str, limit: int, pause: float, out_path: str, ready, start, stop) -> None:
    from dreamdeck.core.formats.events import build_fragment, build_watermark, serialize_event
    from dreamdeck.core.formats.ids import new_event_id, timestamp_from_id

    path = Path(root) / "memory" / "streams" / f"{today}.jsonl"
    ready.put(source)
    start.wait()
    ids = []
    for i in range(limit):
        if stop.is_set():
            break
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
        time.sleep(pause)
    Path(out_path).write_text(json.dumps(ids))
