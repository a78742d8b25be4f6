"""GC notes: the bytes of fragments a commit's GC collected before git ever saw them.

A fragment appended and collected between two commits was never in any tree; the door keeps
its exact line in a git note on the commit that collected it (`refs/notes/dreamdeck-gc`), so a
rollback can put it back and a forget can find it. Each line carries the reason it was collected
(a named duplicate, a dreamer's noise rule, "no reason given"): the audit line names the first
few, the note all of them (`dreamdeck collected REV`).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from dreamdeck.core.errors import GitError
from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.git.commit import FALLBACK_IDENTITY
from dreamdeck.core.git.runner import repo_args, run_git
from dreamdeck.core.workspace import DATE_RE

NOTES_REF = "refs/notes/dreamdeck-gc"


@dataclass(frozen=True)
class GcEntry:
    """One line a commit's GC collected: its day, its id, why it went, its exact bytes."""
    day: str
    fid: str
    reason: str
    line: str


def record_gc_lines(root: Path, sha: str, lines: list[tuple[str, str]], reasons: dict[str, str] | None = None) -> None:
    """Attach (day, raw line) pairs a commit's GC dropped to that commit, as a git note, each
    with its reason (`reasons`: "day#id" -> why)."""
    if not lines or repo_args(root) is None:
        return
    reasons = reasons or {}
    payload = "".join(
        json.dumps({"date": d, "line": raw, **({"reason": reasons[k]} if (k := f"{d}#{line_id(raw)}") in reasons else {})},
                   ensure_ascii=False) + "\n"
        for d, raw in lines)
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


def read_gc_entries(root: Path, sha: str) -> list[GcEntry]:
    """Every line `sha`'s GC collected, with its reason ("" in a note written before reasons were)."""
    if repo_args(root) is None:
        return []
    out = run_git(root, "notes", "--ref", NOTES_REF, "show", sha, check=False, strip=False)
    return parse_entries(out)


def parse_note(text: str) -> list[tuple[str, str]]:
    return [(e.day, e.line) for e in parse_entries(text)]


def parse_entries(text: str) -> list[GcEntry]:
    entries = []
    # split("\n"), not splitlines(): a collected line or a reason may hold U+2028 or U+0085 raw
    # (JSON leaves them unescaped), and splitting there lost the entry and its bytes.
    for line in text.split("\n"):
        if not line.strip():
            continue
        try:
            rec = load_json(line)
            day, raw = rec["date"], rec["line"]
        except (ValueError, KeyError, TypeError, RecursionError):
            continue
        # a note is data anyone with the repository can write: a day that is not a date (`../x`)
        # or a line that is not text names no fragment a rollback could put back
        if not (isinstance(day, str) and DATE_RE.match(day) and isinstance(raw, str)):
            continue
        reason = rec.get("reason")
        entries.append(GcEntry(day, line_id(raw), reason if isinstance(reason, str) else "", raw))
    return entries


def line_id(raw: str) -> str:
    """The id of a collected fragment line ("" when the line is not an object with one)."""
    try:
        rec = load_json(raw)
    except ValueError:
        return ""
    return str(rec.get("id", "")) if isinstance(rec, dict) else ""
