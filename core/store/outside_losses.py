"""The record of fragments that left the streams by another writer (TypeClaw's GC, a hand edit)
and that dreamdeck's next commit would otherwise have absorbed silently (issue 10, item 1):
`memory/meta/outside-losses.json`, written by the door before it commits the stream files
(`door.outside_losses`), committed with its change.

    {"version": 1, "losses": {"2026-05-22#019e…": {"commit": "<sha whose tree holds the line>"}}}

Only ids and the commit that holds the line: never the text (a hard forget must not have to
find it here). An entry stays until its fragment is back in a stream (`doctor --fix` restores
protected ones, `doctor --restore-losses` any) or a person accepts the loss (`doctor
--accept-losses`): `doctor` reports every open one. A file that cannot be read as this is a
problem `doctor` names; the door never writes over it (a person's `--accept-losses` does).
"""
from __future__ import annotations

import json

from dreamdeck.core.formats.citations import Key
from dreamdeck.core.formats.json_data import dump_json_record, load_json
from dreamdeck.core.io.atomic import atomic_write_text
from dreamdeck.core.io.no_links import read_bytes_nofollow
from dreamdeck.core.workspace import DATE_RE, Workspace

RECORD = "meta/outside-losses.json"  # under memory/
VERSION = 1
MAX_BYTES = 16 * 1024 * 1024

Losses = dict[Key, str]  # (day, id) -> the commit whose tree holds its line


def load_outside_losses(ws: Workspace) -> tuple[Losses, str | None]:
    """(the recorded losses, the problem with the file or None). A missing file is no losses."""
    path = ws.memory / RECORD
    try:
        if path.is_file() and path.stat().st_size > MAX_BYTES:
            return {}, f"memory/{RECORD} is over {MAX_BYTES} bytes and is not read"
        data = load_json(read_bytes_nofollow(path).decode("utf-8"))
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return {}, f"memory/{RECORD} cannot be read ({exc.__class__.__name__})"
    losses: Losses = {}
    entries = data.get("losses") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        return {}, f"memory/{RECORD} is not a record of losses"
    for ref, entry in entries.items():
        day, _, fid = ref.partition("#")
        commit = entry.get("commit") if isinstance(entry, dict) else None
        if DATE_RE.match(day) and fid and isinstance(commit, str):
            losses[(day, fid)] = commit
    return losses, None


def render_outside_losses(losses: Losses) -> str:
    return dump_json_record({"version": VERSION, "losses": {
        f"{day}#{fid}": {"commit": commit} for (day, fid), commit in sorted(losses.items())}})


def save_outside_losses(ws: Workspace, losses: Losses) -> None:
    atomic_write_text(ws.memory / RECORD, render_outside_losses(losses))
