"""`doctor`'s projection: what it last found in memory, kept under the stamps of every file read.

Examining a year of memory means parsing a million stream lines and every shard; a second
`doctor` on the same files must not pay that again. The findings of the memory examination are
stored in dreamdeck's private folder with a signature: today's date and the path and stamp
(`core.io.cache`: size, mtime, ctime, inode) of every shard file, stream file, the tombstones and
the dreaming state. Any change to any of them (or a file added or removed) changes the signature
and the examination runs again; a file changed within the racy window is never recorded. Losing
or damaging the projection only costs one full examination.
"""
from __future__ import annotations

import hashlib
import json

from dreamdeck.core.index.evidence import shard_area_files
from dreamdeck.core.io.atomic import atomic_write_text
from dreamdeck.core.io.cache import clock, file_stamp, settled
from dreamdeck.core.store.streams import list_stream_days
from dreamdeck.core.store.tombstones import tombstones_path
from dreamdeck.core.workspace import Workspace

MEMO = "doctor-memo.json"
Row = list  # [kind, where, detail, fixable]


def memory_signature(ws: Workspace) -> tuple[str, bool]:
    """(digest of what the examination reads, True when every file has settled)."""
    started = clock()
    digest = hashlib.sha1(ws.today().encode())
    stable = True
    paths = [str(p) for _, p in shard_area_files(ws)] + [str(p) for _, p in list_stream_days(ws)]
    paths += [str(tombstones_path(ws)), str(ws.state_path)]
    for path in paths:
        stamp = file_stamp(path)
        digest.update(f"{path}\0{stamp}\n".encode("utf-8", "surrogateescape"))
        if stamp is not None and not settled(stamp, started):
            stable = False
    return digest.hexdigest(), stable


def recall(ws: Workspace, signature: str) -> list[Row] | None:
    try:
        data = json.loads((ws.lock_dir / MEMO).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("signature") != signature or not isinstance(data.get("findings"), list):
        return None
    rows = data["findings"]
    ok = all(isinstance(r, list) and len(r) == 4 and all(isinstance(v, str) for v in r[:3]) for r in rows)
    return rows if ok else None


def remember(ws: Workspace, signature: str, rows: list[Row]) -> None:
    try:
        atomic_write_text(ws.lock_dir / MEMO, json.dumps({"signature": signature, "findings": rows}), sync_dir=False)
    except OSError:
        pass  # a projection: next time the examination runs again
