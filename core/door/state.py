"""The dreaming state a change commits: the ids it advances and releases, stored in git ahead.

A year of dreamed ids is tens of megabytes of JSON: git compresses the state-to-be on the other
core while the caller goes on (a dream: while the dreamer thinks; the door: while it writes and
collects), so the commit finds the object already stored.
"""
from __future__ import annotations

import time
from pathlib import Path

from dreamdeck.core.git.blobs import BLOB_TMP_PREFIX, store_blob_in_background
from dreamdeck.core.store.state import DreamingState, load_state
from dreamdeck.core.workspace import Workspace, local_datetime_iso


def next_state(ws: Workspace, advance: dict[str, set[str]], release: dict[str, set[str]], ts: str | None) -> DreamingState:
    """The dreaming state on disk once `advance` ids are dreamed and `release` ids are back on the tail."""
    state, _problem = load_state(ws.state_path)
    return state.advanced(advance, release, ts or local_datetime_iso())


def store_state_ahead(ws: Workspace, state: DreamingState):
    """Start git storing `state` as the object the commit will need (None without git)."""
    _sweep_blob_files(ws.lock_dir)
    return store_blob_in_background(ws.root, ws.rel(ws.state_path), state.json_parts(), tmp_dir=ws.lock_dir)


def _sweep_blob_files(folder: Path, older_than: float = 600.0) -> None:
    """Remove the temporary copies a killed process left behind (tens of MB each); a live job's
    file is minutes younger than this."""
    cutoff = time.time() - older_than
    for leftover in folder.glob(f"{BLOB_TMP_PREFIX}*"):
        try:
            if leftover.stat().st_mtime < cutoff:
                leftover.unlink()
        except OSError:
            pass
