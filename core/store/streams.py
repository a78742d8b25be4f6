"""Daily fragment streams: finding, reading, appending and rewriting `memory/streams/*.jsonl`.

Two rules shape this module:
- No line is ever lost. Malformed lines are reported (file:line) and kept verbatim on a rewrite
  (`store.stream_rewrite`, which carries over whatever another process appended meanwhile).
- Appends never truncate: one `O_APPEND` write per line, serialized among dreamdeck processes
  by a lock, so the duplicate check and the write are one step.
"""
from __future__ import annotations

import os
import stat
import unicodedata
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dreamdeck.core.errors import BadInput
from dreamdeck.core.formats.events import (
    Fragment,
    build_fragment,
    fragment_content_hash,
    serialize_event,
)
from dreamdeck.core.formats.ids import new_event_id, timestamp_from_id
from dreamdeck.core.formats.lazy_re import lazy_re
from dreamdeck.core.formats.slugs import is_valid_slug
from dreamdeck.core.formats.stream_lines import STREAM_FILE, StreamLine, StreamProblem, parse_stream_bytes
from dreamdeck.core.io.no_links import LinkRefused, read_bytes_nofollow, real_folder, refuse_links
from dreamdeck.core.workspace import Workspace, parse_date

if TYPE_CHECKING:  # the lock, the secret scanner and the durable append are imported by the writers:
    # a reader of the streams (a fresh `dreamdeck recall`) need not load them
    from filelock import FileLock


class AppendRefused(BadInput):
    """A fragment was not written (secret, duplicate, tombstoned, empty). Nothing reached disk."""


# --- where streams live --------------------------------------------------------------------
def stream_dir(ws: Workspace) -> Path | None:
    """`memory/streams/` when it exists, else the flat legacy `memory/`, else None."""
    canonical = ws.memory / "streams"
    if real_folder(canonical):  # a linked folder is refused, one line naming it
        return canonical
    if real_folder(ws.memory):
        return ws.memory
    return None


def list_stream_days(ws: Workspace) -> list[tuple[str, Path]]:
    """(date, path) of every dated stream file, oldest first; other files and folders are ignored,
    and so is a file named for a day that does not exist (`impossible_stream_days`, which doctor
    names): its fragments could never be cited, so a dream shown them was refused whole."""
    return sorted((day, path) for day, path in _named_stream_files(ws) if _real_day(day))


def impossible_stream_days(ws: Workspace) -> list[Path]:
    """Files named like a stream for a day no calendar has (`2026-02-30.jsonl`): never dreamed
    nor shown by dreamdeck (TypeClaw's JavaScript `Date` reads such a name as a later day)."""
    return sorted(path for day, path in _named_stream_files(ws) if not _real_day(day))


def _named_stream_files(ws: Workspace) -> list[tuple[str, Path]]:
    folder = stream_dir(ws)
    if folder is None:
        return []
    days = []
    with os.scandir(folder) as entries:
        for entry in entries:
            m = STREAM_FILE.match(entry.name)
            if m and entry.is_file(follow_symlinks=False):  # a link is never read (doctor reports it)
                days.append((m.group(1), Path(entry.path)))
    return days


def _real_day(day: str) -> bool:
    try:
        date.fromisoformat(day)
    except ValueError:
        return False
    return True


def read_path_for(ws: Workspace, day: str) -> Path | None:
    folder = stream_dir(ws)
    if folder is None:
        return None
    path = folder / f"{day}.jsonl"
    try:
        regular = stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return None
    if not regular and os.path.islink(path):
        refuse_links(path)  # one line naming the link
    return path if regular else None


def write_path_for(ws: Workspace, day: str) -> Path:
    """Appends always go to the canonical layout, as TypeClaw's append tool does."""
    return ws.memory / "streams" / f"{parse_date(day)}.jsonl"


def read_stream_lines(path: Path) -> list[StreamLine]:
    try:
        data = read_bytes_nofollow(path, sole_name=False)  # a rewrite links the old inode a moment
    except FileNotFoundError:
        return []
    return parse_stream_bytes(data)


def problems_of(ws: Workspace, path: Path, lines: list[StreamLine]) -> list[StreamProblem]:
    rel = ws.rel(path)
    return [StreamProblem(rel, ln.lineno, ln.error) for ln in lines if ln.error]


def read_day(ws: Workspace, day: str) -> tuple[list[Fragment], list[StreamProblem]]:
    path = read_path_for(ws, day)
    if path is None:
        return [], []
    lines = read_stream_lines(path)
    frags = [Fragment.from_event(day, ln.event) for ln in lines if ln.kind == "fragment" and ln.event is not None]
    return frags, problems_of(ws, path, lines)


def iter_fragments(ws: Workspace, days: list[str] | None = None) -> Iterator[Fragment]:
    """Fragments oldest day first, file order within a day (malformed lines skipped)."""
    for day, path in list_stream_days(ws):
        if days is not None and day not in days:
            continue
        for ln in read_stream_lines(path):
            if ln.kind == "fragment":
                yield Fragment.from_event(day, ln.event)  # type: ignore[arg-type]


def all_problems(ws: Workspace) -> list[StreamProblem]:
    out: list[StreamProblem] = []
    for _, path in list_stream_days(ws):
        out.extend(problems_of(ws, path, read_stream_lines(path)))
    return out


def latest_watermark(ws: Workspace, session_id: str) -> str | None:
    """TypeClaw's `readLatestWatermark`: the last fragment-or-watermark `entry` for a session."""
    for _, path in reversed(list_stream_days(ws)):
        found = None
        for ln in read_stream_lines(path):
            if ln.kind in ("fragment", "watermark") and ln.event.get("source") == session_id:  # type: ignore[union-attr]
                found = ln.event["entry"]  # type: ignore[index]
        if found is not None:
            return found
    return None


# --- locking -------------------------------------------------------------------------------
def stream_lock(ws: Workspace, timeout: float = 30.0) -> FileLock:
    """Serializes dreamdeck's appends and rewrites of streams across processes."""
    from filelock import FileLock

    return FileLock(str(ws.lock_dir / "streams.lock"), timeout=timeout)


# --- appending -----------------------------------------------------------------------------
def append_fragment(
    ws: Workspace,
    topic: str,
    body: str,
    *,
    source: str = "dreamdeck",
    entry: str | None = None,
    who: str | None = None,
    where: dict[str, Any] | None = None,
    references: list[str] | None = None,
    day: str | None = None,
    event_id: str | None = None,
) -> Fragment:
    """Append one fragment line to the day's stream; AppendRefused leaves the disk untouched."""
    from dreamdeck.core.store.tombstones import forgotten  # local: tombstones import streams

    if not topic.strip() or not body.strip():
        raise AppendRefused("a fragment needs a non-empty topic and body")
    _refuse_secrets(topic=topic, body=body, who=who, source=source, entry=entry, id=event_id, references=references)
    day = parse_date(day or ws.today())
    content_hash = fragment_content_hash(topic, body)
    refs = _existing_references(ws, references)
    who = safe_who(who)
    where = _safe_where(where)
    with stream_lock(ws):
        if forgotten(ws).holds(None, topic, body):  # the exact or the loose content
            raise AppendRefused("refused: this fragment was forgotten (tombstoned); nothing was written")
        path = write_path_for(ws, day)
        for ln in read_stream_lines(path):
            if ln.kind == "fragment" and fragment_content_hash(ln.event["topic"], ln.event["body"]) == content_hash:  # type: ignore[index]
                raise AppendRefused(
                    f"refused: duplicate of fragment {ln.event['id']} in {ws.rel(path)}; nothing was written"  # type: ignore[index]
                )
        eid = event_id or new_event_id()
        ev = build_fragment(
            eid, timestamp_from_id(eid), source=source, entry=entry or eid[-8:],
            topic=topic, body=body, references=refs, who=who, where=where,
        )
        _append_stream(ws, path, (serialize_event(ev) + "\n").encode("utf-8"))
    return Fragment.from_event(day, ev)


def _append_stream(ws: Workspace, path: Path, data: bytes) -> None:
    """`append_durably` to a stream, the stream lock held. A second hard link is refused, unless
    it is one a stream rewrite made and a crash left before its rename (removed, then appended)."""
    from dreamdeck.core.io.append import append_durably
    from dreamdeck.core.store.replaced_links import drop_unrenamed_links

    try:
        append_durably(path, data)
    except LinkRefused:
        if not drop_unrenamed_links(ws, path):
            raise
        append_durably(path, data)


def _refuse_secrets(**fields: str | list[str] | None) -> None:
    """Every field a fragment line carries is checked (TypeClaw checks topic, body and who):
    AppendRefused names the field and the kind of secret, never the value."""
    from dreamdeck.core.formats.secrets import secret_families

    for label, value in fields.items():
        for text in [value] if isinstance(value, str) else value or []:
            families = secret_families(str(text))
            if families:
                raise AppendRefused(f"refused: the {label} contains a secret ({', '.join(families)}); nothing was written")


_WHO_FORBIDDEN = lazy_re(r"[`*_\[\]<>|\\]|[\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]")
_WHO_LEADING = lazy_re(r"^(?:#|>|---|- |\+ |[0-9]+[.)](?:\s|$))")


def safe_who(who: str | None) -> str | None:
    """TypeClaw's `who` sanitizer: the trimmed name, or None when it is unsafe to show an LLM.

    Unsafe: over 256 characters; control, bidi or zero-width characters; the markdown
    characters ` * _ [ ] < > | \\; or a leading #, >, ---, "- ", "+ " or list number.
    """
    if who is None:
        return None
    who = who.strip()
    if not who or len(who) > 256 or _WHO_FORBIDDEN.search(who) or _WHO_LEADING.match(who):
        return None
    if any(unicodedata.category(ch) == "Cc" for ch in who):
        return None
    return who


def _safe_where(where: dict[str, Any] | None) -> dict[str, Any] | None:
    """A `where` entry carrying a secret (a channel name, or an id) is dropped and the others
    kept, as TypeClaw self-redacts origin names: the agent did not write them, so the fragment
    is not refused for them."""
    if where is None:
        return None
    from dreamdeck.core.formats.secrets import secret_families

    return {k: v for k, v in where.items() if not (secret_families(str(k)) or (isinstance(v, str) and secret_families(v)))}


def _existing_references(ws: Workspace, refs: list[str] | None) -> list[str] | None:
    """Keep only reference slugs that exist (trimmed, no blanks, de-duplicated), as TypeClaw does.

    A slug must be a valid slug first: `../x` must never reach a file outside references/.
    """
    if not refs:
        return None
    kept: list[str] = []
    for ref in refs:
        ref = ref.strip()
        if is_valid_slug(ref) and ref not in kept and (ws.references_dir / f"{ref}.md").is_file():
            kept.append(ref)
    return kept or None


def append_raw_lines(ws: Workspace, day: str, lines: list[bytes]) -> None:
    """Append verbatim lines (a restore of dropped fragments) under the stream lock."""
    if not lines:
        return
    with stream_lock(ws):
        _append_stream(ws, write_path_for(ws, day), b"".join(line.rstrip(b"\n") + b"\n" for line in lines))
