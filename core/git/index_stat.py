"""What git's index knows of each file: its blob id and the stat data recorded when it was staged.

A file whose stat now is the one recorded (ctime, mtime, inode, size) still holds that blob, so
a caller compares blob ids without reading it, as `git status` does. dreamdeck's own files are
skip-worktree in the index (so the agent's `git status` stays clean), which makes git itself
ignore them: this reads the entries directly (`git ls-files -s --debug`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from dreamdeck.core.git.runner import git_dir, run_git


@dataclass(frozen=True)
class IndexEntry:
    blob: str
    ctime_ns: int
    mtime_ns: int
    ino: int
    size: int

    def holds(self, st: os.stat_result, index_mtime_ns: int) -> bool:
        """Does a file with this stat still hold the entry's blob? Not when it was staged in the
        same tick as the index was written (git's racy rule: a later write could keep the stat)."""
        return (self.mtime_ns < index_mtime_ns and st.st_size == self.size and st.st_mtime_ns == self.mtime_ns
                and st.st_ctime_ns == self.ctime_ns and st.st_ino % 2**32 == self.ino % 2**32)


def _ns(value: str) -> int:
    sec, _, nsec = value.partition(":")
    return int(sec) * 1_000_000_000 + int(nsec or 0)


def index_entries(root: Path, prefix: str) -> tuple[dict[str, IndexEntry], int]:
    """(path -> its stage-0 entry under `prefix`, the index file's mtime in ns; 0 without one)."""
    folder = git_dir(root)
    try:
        index_mtime = os.stat(folder / "index").st_mtime_ns if folder else 0
    except OSError:
        index_mtime = 0
    out = run_git(root, "ls-files", "-s", "--debug", "--", prefix, check=False, strip=False)
    entries: dict[str, IndexEntry] = {}
    path, blob = "", ""
    fields: dict[str, str] = {}
    for line in out.splitlines() + [""]:
        if not line.startswith("  "):
            if path and {"ctime", "mtime", "ino", "size"} <= fields.keys():
                entries[path] = IndexEntry(blob, _ns(fields["ctime"]), _ns(fields["mtime"]),
                                           int(fields["ino"]), int(fields["size"]))
            meta, _, path = line.partition("\t")
            parts = meta.split()
            blob, fields = (parts[1] if len(parts) == 3 and parts[2] == "0" else ""), {}
            path = path if blob else ""
            continue
        for part in line.split("\t"):
            key, _, value = part.strip().partition(": ")
            fields[key] = value
    return entries, index_mtime
