"""A hard forget's purge of the private search index (`index.search`) and of the other private
projections that hold memory's text: TypeClaw's turn (`index.tc_projection`: shard bodies and
undreamed fragments; `index.tc_provenance`: who and where per fragment; `index.tc_people`'s
people; the offline dreamer's beliefs, `dreaming.offline_projection`: each shard's heading and
claim). Each is rebuilt from the files, without what was forgotten, when next needed."""
from __future__ import annotations

import os

from filelock import FileLock

from dreamdeck.core.index.projection_db import OFFLINE_DREAMER_FILE
from dreamdeck.core.index.search import index_path
from dreamdeck.core.index.tc_people import PROJECTION as PEOPLE_FILENAME
from dreamdeck.core.index.tc_projection import FILENAME as TURN_FILENAME
from dreamdeck.core.index.tc_provenance import DAYS_FILENAME
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
    for name in (TURN_FILENAME, DAYS_FILENAME, PEOPLE_FILENAME, OFFLINE_DREAMER_FILE):  # projections without a lock of their own
        for suffix in ("", "-wal", "-shm"):
            try:
                os.unlink(path.parent / f"{name}{suffix}")
            except FileNotFoundError:
                pass
