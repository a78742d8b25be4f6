"""What lies in `memory/` that is not memory: symbolic links, and temp files dreamdeck left.

`doctor` reports both. Links are only ever reported: dreamdeck never reads or writes through one
(`core.io.no_links`), and never follows one while looking (the walk does not descend into a
linked folder). A temp file is ours only when its name is one dreamdeck's writers make; any other
`*.tmp` (a reference's, a skill's, a person's) is left alone.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from dreamdeck.core.workspace import Workspace

__all__ = ["links_under", "own_temp_files"]

# `core.io.atomic` (mkstemp: `.<name>.<8 random>.tmp`), the stream rewrite (`.<name>.<hex>.tmp`),
# and the fixed name older stream rewrites used (`<day>.jsonl.tmp`, in a stream folder only).
_OWN_TEMP = re.compile(r"^\.[^/]+\.[A-Za-z0-9_]{8,32}\.tmp$")
_OLD_STREAM_TEMP = re.compile(r"^\d{4}-\d{2}-\d{2}\.jsonl\.tmp$")


def links_under(ws: Workspace) -> list[tuple[str, str]]:
    """(path relative to the agent folder, where it points) of every link in `memory/` (itself
    included), sorted; linked folders are listed, never entered."""
    memory = ws.memory
    if memory.is_symlink():
        return [("memory", _target(memory))]
    found: list[tuple[str, str]] = []
    for folder, dirs, files in os.walk(memory, followlinks=False):
        base = Path(folder)
        for name in dirs + files:
            path = base / name
            if path.is_symlink():
                found.append((path.relative_to(ws.root).as_posix(), _target(path)))
    return sorted(found)


def own_temp_files(ws: Workspace) -> list[Path]:
    """The regular files in `memory/` named as dreamdeck's temp files (links are not among them)."""
    if not ws.memory.is_dir() or ws.memory.is_symlink():
        return []
    found = []
    for folder, _dirs, files in os.walk(ws.memory, followlinks=False):
        in_streams = os.path.basename(folder) in ("streams", "memory")
        for name in files:
            if _OWN_TEMP.match(name) or (in_streams and _OLD_STREAM_TEMP.match(name)):
                path = Path(folder) / name
                if not path.is_symlink():
                    found.append(path)
    return sorted(found)


def _target(path: Path) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return "?"
