"""A fragment's raw line from git history: any commit's stream file, or a GC note."""
from __future__ import annotations

from pathlib import Path

from dreamdeck.core.formats.events import try_parse_event_line
from dreamdeck.core.formats.stream_lines import parse_stream_bytes
from dreamdeck.core.git.blobs import show_file
from dreamdeck.core.git.notes import NOTES_REF, parse_note
from dreamdeck.core.git.runner import repo_args, run_git


def _line_with_id(data: bytes | None, fid: str) -> str | None:
    for ln in parse_stream_bytes(data or b""):
        if ln.kind == "fragment" and ln.event.get("id") == fid:  # type: ignore[union-attr]
            return ln.raw.decode("utf-8")
    return None


def find_line_in_history(root: Path, day: str, fid: str) -> str | None:
    """A fragment's raw line from git history (stream files at any commit) or a GC note."""
    if repo_args(root) is None:
        return None
    paths = [f"memory/streams/{day}.jsonl", f"memory/{day}.jsonl"]
    out = run_git(root, "log", "--all", "--format=%H", f"-S{fid}", "--", *paths, check=False)
    for sha in out.split():
        for rev in (sha, f"{sha}^"):
            for p in paths:
                raw = _line_with_id(show_file(root, rev, p), fid)
                if raw is not None:
                    return raw
    hits = run_git(root, "grep", "-l", "-F", fid, NOTES_REF, check=False)
    for hit in hits.splitlines():
        blob = run_git(root, "cat-file", "blob", hit.strip(), check=False, strip=False)
        for d, raw in parse_note(blob):
            ev = try_parse_event_line(raw)
            if d == day and ev and ev.get("id") == fid:
                return raw
    return None
