"""A persisted index of the dreaming-state file as dreamdeck last wrote it.

At a year of ids `.dreaming-state.json` is tens of megabytes: parsing it costs a fresh process
(`dreamdeck dream`, `dreamdeck approve`) a quarter of a second, and rendering it again as much.
When dreamdeck writes the file it also records, outside the agent folder, the file's size and
CRC-32 and, for each day, where its JSON lies in the file and a fingerprint of its ids. A process
that later finds the file with that size and CRC knows it holds exactly those bytes: it can parse
only the days it needs and write every other day back as the bytes it already has.

Any other writer (TypeClaw rewrites the file on every dream) changes the CRC, and the index is
ignored; a missing, unreadable or wrong-shaped index is ignored too. It is only ever a shortcut.
"""
from __future__ import annotations

import hashlib
import json
import os
import zlib
from dataclasses import dataclass
from pathlib import Path

from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.io.atomic import replace_projection
from dreamdeck.core.io.private import private_dir

VERSION = 1


@dataclass(frozen=True)
class StateIndex:
    size: int
    crc: int
    days: tuple[tuple[str, int, int, str], ...]  # (day, start, end, ids fingerprint), file order


def index_path(state_path: Path) -> Path:
    """In dreamdeck's private folder (`core.io.private`), keyed by the state file's own path."""
    digest = hashlib.sha256(str(Path(state_path).resolve()).encode()).hexdigest()[:16]
    return private_dir("state-index") / f"{digest}.json"


def crc_of(parts: list) -> int:
    crc = 0
    for part in parts:
        crc = zlib.crc32(part, crc)
    return crc


def write_index(state_path: Path, index: StateIndex) -> None:
    path = index_path(state_path)
    data = {"version": VERSION, "size": index.size, "crc": index.crc, "days": [list(d) for d in index.days]}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        return  # a shortcut: the next load parses the file
    replace_projection(path, json.dumps(data, separators=(",", ":")).encode("utf-8"))


def forget_index(state_path: Path) -> None:
    try:
        os.unlink(index_path(state_path))
    except OSError:
        pass


def read_index(state_path: Path) -> StateIndex | None:
    try:
        data = load_json(index_path(state_path).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("version") != VERSION:
        return None
    size, crc, days = data.get("size"), data.get("crc"), data.get("days")
    if type(size) is not int or type(crc) is not int or not isinstance(days, list):
        return None
    out = []
    for d in days:
        if not (isinstance(d, list) and len(d) == 4 and type(d[0]) is str and type(d[1]) is int
                and type(d[2]) is int and type(d[3]) is str and 0 <= d[1] <= d[2] <= size):
            return None
        out.append((d[0], d[1], d[2], d[3]))
    return StateIndex(size, crc, tuple(out))
