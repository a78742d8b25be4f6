"""Hunk-level review: git-made diffs, stable hunk ids, partial apply (merges: `git.merge`).

Every diff here comes from git (`git diff --no-index` on temporary files) and is parsed
with `unidiff`. No difflib: the hunks a person approves must be exactly the hunks git shows
and stores.

Text is UTF-8. A "line" is everything up to and including "\\n" (git's definition), so
"\\r", form feeds or U+2028 inside a line are content, never line breaks. `Hunk.lines`
holds each line without its final "\\n" (a CRLF line keeps its "\\r"); a line that has no
"\\n" at all (end of file) is listed in `Hunk.no_newline_at`.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from unidiff import PatchSet
from unidiff.constants import (
    DEV_NULL,
    LINE_TYPE_ADDED,
    LINE_TYPE_CONTEXT,
    LINE_TYPE_NO_NEWLINE,
    LINE_TYPE_REMOVED,
)

from dreamdeck.core.git.runner import run_isolated

__all__ = [
    "Hunk",
    "FileDiff",
    "diff_texts",
    "diff_many",
    "apply_hunks",
    "parse_patch",
]

NO_NEWLINE_MARKER = "\\ No newline at end of file"

# Options that pin every knob of `git diff` a user or repo config could turn, so the
# same texts always give the same hunks (and so the same hunk ids) on any machine.
_DIFF_ARGS = (
    "diff",
    "--no-index",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--no-renames",
    "--text",  # a stray NUL must not turn a shard into "Binary files differ"
    "--diff-algorithm=myers",
    "--indent-heuristic",
    "--inter-hunk-context=0",
    "--src-prefix=a/",
    "--dst-prefix=b/",
)


@dataclass(frozen=True)
class Hunk:
    id: str
    path: str
    header: str
    old_start: int
    old_len: int
    new_start: int
    new_len: int
    lines: tuple[tuple[str, str], ...]
    added: int
    removed: int
    # Indices into `lines` of lines with no trailing newline ("\ No newline at end of file").
    no_newline_at: tuple[int, ...] = ()

    def text(self) -> str:
        """The hunk in unified-diff form (header, lines, no-newline markers)."""
        out = [self.header + "\n"]
        for index, (tag, text) in enumerate(self.lines):
            out.append(f"{tag}{text}\n")
            if index in self.no_newline_at:
                out.append(NO_NEWLINE_MARKER + "\n")
        return "".join(out)


@dataclass(frozen=True)
class FileDiff:
    path: str
    status: str  # "added" | "deleted" | "modified"
    hunks: tuple[Hunk, ...]


# --------------------------------------------------------------------------- git plumbing


def _write(folder: str, name: str, text: str) -> None:
    """Write `text` as exact UTF-8 bytes (no newline translation)."""
    Path(folder, name).write_bytes(text.encode("utf-8"))


def _split_lines(text: str) -> list[str]:
    """Split after each "\\n" only, keeping it: git's idea of a line (unlike splitlines)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


# --------------------------------------------------------------------------- unidiff -> Hunk


def _hunk_id(path: str, old_start: int, lines: tuple[tuple[str, str], ...],
             no_newline_at: tuple[int, ...]) -> str:
    """Content address of a hunk: same path, place and lines => same id, in any process."""
    payload = json.dumps([path, old_start, lines, no_newline_at], ensure_ascii=False)
    return "h-" + hashlib.sha256(payload.encode("utf-8")).hexdigest()[:10]


def _range(start: int, length: int) -> str:
    """git's header notation: the length is omitted when it is 1."""
    return str(start) if length == 1 else f"{start},{length}"


def _strip_newline(value: str) -> str:
    """unidiff keeps the diff line's own "\\n"; drop only that (a CRLF line keeps "\\r")."""
    return value[:-1] if value.endswith("\n") else value


def _convert_hunk(path: str, uhunk) -> Hunk:
    """Turn one unidiff hunk into our frozen Hunk, folding no-newline markers into indices."""
    lines: list[tuple[str, str]] = []
    no_newline: list[int] = []
    for line in uhunk:
        if line.line_type == LINE_TYPE_NO_NEWLINE:
            if lines:
                no_newline.append(len(lines) - 1)
        elif line.line_type in (LINE_TYPE_CONTEXT, LINE_TYPE_REMOVED, LINE_TYPE_ADDED):
            lines.append((line.line_type, _strip_newline(line.value)))
        # LINE_TYPE_EMPTY: blank separator lines after a hunk; not content.
    frozen_lines = tuple(lines)
    frozen_no_newline = tuple(no_newline)
    header = (
        f"@@ -{_range(uhunk.source_start, uhunk.source_length)} "
        f"+{_range(uhunk.target_start, uhunk.target_length)} @@"
    )
    if uhunk.section_header:
        header += " " + _strip_newline(uhunk.section_header)
    return Hunk(
        id=_hunk_id(path, uhunk.source_start, frozen_lines, frozen_no_newline),
        path=path,
        header=header,
        old_start=uhunk.source_start,
        old_len=uhunk.source_length,
        new_start=uhunk.target_start,
        new_len=uhunk.target_length,
        lines=frozen_lines,
        added=sum(1 for tag, _ in frozen_lines if tag == LINE_TYPE_ADDED),
        removed=sum(1 for tag, _ in frozen_lines if tag == LINE_TYPE_REMOVED),
        no_newline_at=frozen_no_newline,
    )


def _parse(diff_text: str) -> PatchSet:
    """Feed unidiff lines split on "\\n" only, each keeping its ending, so "\\r" stays content."""
    return PatchSet(_split_lines(diff_text))


# --------------------------------------------------------------------------- public API


def _status(path: str, before: str | None, after: str | None) -> str:
    if before is None and after is None:
        raise ValueError(f"{path}: no file on either side")
    return "added" if before is None else "deleted" if after is None else "modified"


def diff_texts(path: str, before: str | None, after: str | None, context: int = 3) -> FileDiff:
    """Diff two versions of one file with git. None = the file does not exist on that side.

    A missing side is diffed as an empty file, which gives exactly the hunks git stores for
    an added/deleted file. Identical texts give no hunks. Both sides None is a ValueError.
    """
    status = _status(path, before, after)
    if before == after:
        return FileDiff(path, status, ())
    with tempfile.TemporaryDirectory(prefix="dreamdeck-diff-") as tmp:
        _write(tmp, "old", before or "")
        _write(tmp, "new", after or "")
        _code, out = run_isolated([*_DIFF_ARGS, f"-U{context}", "--", "old", "new"], tmp, range(0, 2))
    files = list(_parse(out.decode("utf-8")))
    hunks = tuple(_convert_hunk(path, h) for f in files for h in f)
    return FileDiff(path, status, hunks)


def diff_many(items: list[tuple[str, str | None, str | None]], context: int = 3) -> list[FileDiff]:
    """`diff_texts` for many (path, before, after) at once: one git process for all of them.

    Each pair is written as old/<n> and new/<n> and the two folders are diffed; git diffs every
    pair exactly as it diffs two files, so each gets the same hunks and ids as `diff_texts`.
    """
    out: list[FileDiff | None] = [None] * len(items)
    todo: list[int] = []
    for n, (path, before, after) in enumerate(items):
        if before == after:
            out[n] = FileDiff(path, _status(path, before, after), ())
        else:
            todo.append(n)
    if todo:
        with tempfile.TemporaryDirectory(prefix="dreamdeck-diff-") as tmp:
            os.mkdir(Path(tmp, "old"))
            os.mkdir(Path(tmp, "new"))
            for n in todo:
                _write(tmp, f"old/{n}", items[n][1] or "")
                _write(tmp, f"new/{n}", items[n][2] or "")
            _code, raw = run_isolated([*_DIFF_ARGS, f"-U{context}", "--", "old", "new"], tmp, range(0, 2))
        by_index: dict[int, list] = {}
        for patched in _parse(raw.decode("utf-8")):
            # "b/new/<n>": the pair's number names the file the hunks belong to.
            by_index[int(patched.target_file.rsplit("/", 1)[1])] = list(patched)
        for n in todo:
            path, before, after = items[n]
            out[n] = FileDiff(path, _status(path, before, after), tuple(_convert_hunk(path, h) for h in by_index.get(n, [])))
    return out  # type: ignore[return-value]


def _old_slice(hunk: Hunk) -> tuple[int, int]:
    """0-based [start, end) of the hunk in the old text; a zero-length range sits after old_start."""
    start = hunk.old_start if hunk.old_len == 0 else hunk.old_start - 1
    return start, start + hunk.old_len


def _new_slice(hunk: Hunk) -> tuple[int, int]:
    """0-based [start, end) of the hunk in the new text (same zero-length rule)."""
    start = hunk.new_start if hunk.new_len == 0 else hunk.new_start - 1
    return start, start + hunk.new_len


def _check_slice(hunk: Hunk, tags: str, source: list[str], start: int, end: int) -> None:
    """Guard: the lines we copy must be the lines the reviewer saw in the hunk."""
    shown = [text for tag, text in hunk.lines if tag in tags]
    copied = [_strip_newline(line) for line in source[start:end]]
    if shown != copied:
        raise AssertionError(f"hunk {hunk.id} does not match its text at {hunk.header}")


def _rebuild(before: str, after: str, hunks: tuple[Hunk, ...], chosen: frozenset[str]) -> str:
    """Walk `before`, swapping in each chosen hunk's `after` lines.

    Lines are sliced from the real texts (not rebuilt from Hunk.lines) so line endings,
    CRLF and a missing final newline come out byte-exact.
    """
    old_lines, new_lines = _split_lines(before), _split_lines(after)
    out: list[str] = []
    cursor = 0
    for hunk in hunks:  # git emits hunks in file order with disjoint old ranges
        old_start, old_end = _old_slice(hunk)
        out.extend(old_lines[cursor:old_start])
        _check_slice(hunk, " -", old_lines, old_start, old_end)
        if hunk.id in chosen:
            new_start, new_end = _new_slice(hunk)
            _check_slice(hunk, " +", new_lines, new_start, new_end)
            out.extend(new_lines[new_start:new_end])
        else:
            out.extend(old_lines[old_start:old_end])
        cursor = old_end
    out.extend(old_lines[cursor:])
    return "".join(out)


def apply_hunks(before: str | None, after: str | None, chosen: set[str] | frozenset[str],
                path: str, *, context: int = 3) -> str | None:
    """Rebuild the file from `before` plus only the chosen hunks of diff_texts(path, before, after).

    All hunks chosen => `after` byte for byte (None if the change deletes the file);
    none chosen => `before` (None if the change creates the file). An added or deleted
    file is always a single hunk, so it is all or nothing. A change with no hunks at all
    (an empty file created or deleted) counts as "all chosen" and yields `after`.
    Ids in `chosen` that are not hunks of this diff raise KeyError naming them.
    """
    diff = diff_texts(path, before, after, context=context)
    ids = {hunk.id for hunk in diff.hunks}
    unknown = set(chosen) - ids
    if unknown:
        raise KeyError(f"unknown hunk ids for {path}: {', '.join(sorted(unknown))}")
    picked = frozenset(chosen)
    if picked == ids and after is None:
        return None
    if not picked and diff.hunks and before is None:
        return None
    return _rebuild(before or "", after or "", diff.hunks, picked)


def _unquote_git_path(name: str) -> str:
    """Undo git's C-style quoting ("a/\\355\\225\\234.md") of unusual file names."""
    if not (len(name) >= 2 and name.startswith('"') and name.endswith('"')):
        return name
    escapes = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}
    body, raw, i = name[1:-1], bytearray(), 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567":
                raw.append(int(body[i + 1:i + 4], 8))
                i += 4
                continue
            raw.append(escapes.get(nxt, ord(nxt)))
            i += 2
            continue
        raw.extend(char.encode("utf-8"))
        i += 1
    return raw.decode("utf-8", "surrogateescape")


def _patch_path(name: str | None, prefix: str) -> str | None:
    """A ---/+++ file name without quoting or its a/ or b/ prefix; None for /dev/null."""
    if not name or name == DEV_NULL:
        return None
    name = _unquote_git_path(name)
    return name[len(prefix):] if name.startswith(prefix) else name


def _patch_status(patched) -> str:
    """added / deleted / modified from the git header (or /dev/null on either side)."""
    info = [str(line) for line in (patched.patch_info or [])]
    if patched.source_file == DEV_NULL or any(l.startswith("new file mode") for l in info):
        return "added"
    if patched.target_file == DEV_NULL or any(l.startswith("deleted file mode") for l in info):
        return "deleted"
    return "modified"


def parse_patch(patch_text: str) -> list[FileDiff]:
    """Parse a multi-file unified diff (e.g. `git show --format= <rev>`) into FileDiffs.

    The path is the b/ path without "b/" (the a/ path for a deletion), so the hunk ids
    equal those diff_texts(path, before, after) gives for the same two versions. Best fed
    git output made with --no-renames: a rename is reported as "modified" at its new path.
    Files without hunks (binary, mode-only) are returned with an empty hunk tuple.
    """
    result = []
    for patched in _parse(patch_text):
        status = _patch_status(patched)
        path = (_patch_path(patched.target_file, "b/") if status != "deleted" else None) \
            or _patch_path(patched.source_file, "a/") or ""
        hunks = tuple(_convert_hunk(path, h) for h in patched)
        result.append(FileDiff(path, status, hunks))
    return result
