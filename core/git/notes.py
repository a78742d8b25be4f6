"""GC notes: the bytes of fragments a commit's GC collected before git ever saw them.

A fragment appended and collected between two commits was never in any tree; the door keeps
its exact line in a git note on the commit that collected it (`refs/notes/dreamdeck-gc`), so a
rollback can put it back and a forget can find it.
"""
from __future__ import annotations

import json
from pathlib import Path

from dreamdeck.core.errors import GitError
from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.git.commit import FALLBACK_IDENTITY
from dreamdeck.core.git.runner import repo_args, run_git

NOTES_REF = "refs/notes/dreamdeck-gc"


def record_gc_lines(root: Path, sha: str, lines: list[tuple[str, str]]) -> None:
    """Attach (day, raw line) pairs a commit's GC dropped to that commit, as a git note."""
    if not lines or repo_args(root) is None:
        return
    payload = "".join(json.dumps({"date": d, "line": raw}, ensure_ascii=False) + "\n" for d, raw in lines)
    identity = () if run_git(root, "config", "user.email", check=False).strip() else FALLBACK_IDENTITY
    try:
        run_git(root, *identity, "notes", "--ref", NOTES_REF, "add", "-f", "-F", "-", sha, stdin=payload)
    except GitError:
        pass  # best effort: the commit itself is done


def read_gc_lines(root: Path, sha: str) -> list[tuple[str, str]]:
    if repo_args(root) is None:
        return []
    out = run_git(root, "notes", "--ref", NOTES_REF, "show", sha, check=False, strip=False)
    return parse_note(out)


def parse_note(text: str) -> list[tuple[str, str]]:
    pairs = []
    for line in text.splitlines():
        try:
            rec = load_json(line)
            pairs.append((str(rec["date"]), str(rec["line"])))
        except (json.JSONDecodeError, KeyError, TypeError):
            continue
    return pairs
