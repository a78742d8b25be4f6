"""A hard forget's purge of the private search index (`index.search`)."""
from __future__ import annotations

import os

from filelock import FileLock

from dreamdeck.core.index.search import index_path
from dreamdeck.core.workspace import Workspace


def purge_index(ws: Workspace) -> None:
    """Delete the index's files (a hard forget: a deleted row's text can outlive it in free pages
    and the WAL). Any process's next query rebuilds it from the files (`SearchIndex._connect`
    sees the file gone), without what was forgotten (the tombstones). Under the index's write lock."""
    path = index_path(ws)
    if not path.parent.is_dir():
        return
    with FileLock(f"{path}.lock", timeout=30):
        for suffix in ("", "-wal", "-shm"):
            try:
                os.unlink(f"{path}{suffix}")
            except FileNotFoundError:
                pass
