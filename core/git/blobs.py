"""Objects in the agent's repository: files at a revision, and objects stored ahead of a commit."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from dreamdeck.core.git.runner import GitJob, repo_args, run_git, run_git_bytes, start_job

BLOB_TMP_PREFIX = "dreamdeck-blob-"  # the temporary files store_blob_in_background writes


def _writev_all(fd: int, parts: list[bytes]) -> None:
    # writev, a thousand pieces per call: the GIL is released for the whole call, where a
    # write per piece would wait for the GIL between pieces while the caller works.
    views = [memoryview(p) for p in parts if p]
    while views:
        batch = views[:1000]
        written = os.writev(fd, batch)
        for n, view in enumerate(batch):
            if written < len(view):
                views = [view[written:], *views[n + 1:]]
                break
            written -= len(view)
        else:
            views = views[len(batch):]


def store_blob_in_background(root: Path, path: str, parts: list[bytes], tmp_dir: Path | None = None) -> GitJob | None:
    """Start storing `parts` (joined) as the git object `git add` would make for `path`, on the
    other core, and return the job (None without git).

    Compressing a year-long state file is most of a commit's cost; stored while the caller
    writes shards and collects fragments, the commit's `git add` finds the object there and
    only hashes. `--path` gives it that path's filters, exactly as `git add` would; an object
    nobody commits (the content changed meanwhile) is pruned by gc. A file, not a pipe: git
    hashes a file twice as fast as it reads stdin.
    """
    if repo_args(root) is None:
        return None
    fd, tmp = tempfile.mkstemp(prefix=BLOB_TMP_PREFIX, dir=tmp_dir)

    def write() -> None:
        try:
            _writev_all(fd, parts)
        finally:
            os.close(fd)

    def remove() -> None:
        try:
            os.unlink(tmp)
        except OSError:
            pass

    return start_job(root, "hash-object", [["hash-object", "-w", f"--path={path}", tmp]], before=write, after=remove)


def stage_in_background(root: Path, paths: list[str]) -> GitJob | None:
    """Start `git add -f` of `paths` (skip-worktree cleared first, as `commit_memory` does) in a
    thread and return the job (None without git); wait for it before any other git command.

    `git add` hashes a file whose stat data the index does not hold: staged now, while the
    caller compacts and collects, the commit's own `git add -f -- memory/` finds it clean.
    A failure (another git holds the index) only means the commit does the work itself.
    """
    return start_job(root, "add", [["update-index", "--no-skip-worktree", "--", *paths], ["add", "-f", "--", *paths]])


def show_file(root: Path, rev: str, path: str) -> bytes | None:
    """The bytes of `path` at `rev`, or None when it did not exist there."""
    if repo_args(root) is None:
        return None
    status, out = run_git_bytes(root, "cat-file", "blob", f"{rev}:{path}")
    return out if status == 0 else None


def tree_files(root: Path, rev: str, *prefixes: str) -> list[str]:
    out = run_git(root, "ls-tree", "-r", "-z", "--name-only", rev, "--", *prefixes, strip=False)
    return [p for p in out.split("\0") if p]


def read_blobs(root: Path, rev: str, paths: list[str]) -> dict[str, bytes]:
    """Many files at one revision through a single `git cat-file --batch`."""
    if repo_args(root) is None or not paths:
        return {}
    _status, data = run_git_bytes(root, "cat-file", "--batch", stdin=b"".join(f"{rev}:{p}\n".encode() for p in paths))
    out: dict[str, bytes] = {}
    pos = 0
    for p in paths:
        nl = data.index(b"\n", pos)
        header = data[pos:nl].split()
        pos = nl + 1
        if len(header) == 2 and header[1] == b"missing":
            continue
        size = int(header[2])
        out[p] = data[pos : pos + size]
        pos += size + 1
    return out


def tree_blob_ids(root: Path, rev: str, *prefixes: str) -> dict[str, str]:
    """path -> blob id of every file under `prefixes` at `rev` (one `git ls-tree`)."""
    out = run_git(root, "ls-tree", "-r", "-z", rev, "--", *prefixes, strip=False)
    ids: dict[str, str] = {}
    for entry in out.split("\0"):
        if entry:
            meta, _, path = entry.partition("\t")
            parts = meta.split()
            if len(parts) == 3 and parts[1] == "blob":
                ids[path] = parts[2]
    return ids


def blob_id(data: bytes, sha256: bool = False) -> str:
    """The id git gives these bytes as a blob, computed without git (SHA-1, or SHA-256 repositories)."""
    import hashlib

    return (hashlib.sha256 if sha256 else hashlib.sha1)(b"blob %d\0" % len(data) + data).hexdigest()
