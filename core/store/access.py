"""The access record: what the agent was shown, one line per recall or injection.

`memory/meta/access.jsonl`, append-only, one JSON object per line:
`{"ts", "day", "op": "recall"|"inject", "query", "items": ["topic:pnpm-usage", ...], "detail"}`.

Where it lives, and why: beside the memory it describes, in `memory/meta/`, like the audit log.
Access shapes decay (Moltbot §9.1: access count, days since last access), which is part of what
memory *is*; it must be the same for every process and person using the folder (the agent's
runtime recalls, the person's app reads), survive reboots and move with the agent folder. The
private per-user cache folder has none of those properties: it holds only projections.

Whether it is committed: not by a recall. A recall is a read; a commit per recall would bury
the memory history in noise and cost a git process per question. The lines ride along with the
next memory commit (every commit stages `memory/`), as TypeClaw's own access bumps on reference
files do. Rollback never rewinds it (it restores shards and streams only).

Cheap and safe under concurrency: one `append_durably` per record (a single O_APPEND write and
an fsync; a long-lived `Memory` has its flusher fsync soon after the write), so concurrent
processes never interleave or lose lines. Queries are redacted of
secrets and cut to `MAX_QUERY` characters before they are written. Readers skip lines they
cannot parse. A hard forget takes its text out (`scrub_access`): a query that quotes it becomes
`[forgotten]`, in place, under the lock every appender takes. The per-key summary is kept per process and extended by reading only the bytes
appended since (the file only grows; a file replaced or cut short is read again from the start).
"""
from __future__ import annotations

import errno
import fcntl
import json
import os
import threading
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.formats.scrub import FORGOTTEN, quotes, scrub
from dreamdeck.core.formats.secrets import redact_secrets
from dreamdeck.core.io.append import Flusher, append_durably
from dreamdeck.core.io.atomic import atomic_write_text
from dreamdeck.core.io.cache import MISS, StampCache
from dreamdeck.core.io.no_links import read_bytes_nofollow, read_fd, refuse_links, refuse_unusual
from dreamdeck.core.workspace import Workspace, local_datetime_iso

OPS = ("recall", "inject")
MAX_QUERY = 500
ACCESS_FILE = "access.jsonl"


def access_path(memory_dir: Path) -> Path:
    return Path(memory_dir) / "meta" / ACCESS_FILE


def item_key(kind: str, key: str) -> str:
    """The name of one returned item in the record: `topic:pnpm-usage`, `stream:DATE#ID`."""
    return f"{kind}:{key}"


@dataclass(frozen=True)
class AccessRecord:
    ts: str
    day: str  # the workspace's local date (honours --today)
    op: str
    query: str
    items: tuple[str, ...]
    detail: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {"ts": self.ts, "day": self.day, "op": self.op, "query": self.query,
                "items": list(self.items), "detail": self.detail}


def record_access(ws: Workspace, op: str, query: str, items: list[str], detail: dict[str, Any] | None = None,
                  now: datetime | None = None, flusher: Flusher | None = None) -> AccessRecord:
    """Append one record durably; the query is stored redacted and cut. `now`: when it happened
    (default: the clock), for a workspace that pretends a date; `flusher`: fsync it soon after
    (`io.append.Flusher`, a long-lived `Memory`'s)."""
    if op not in OPS:
        raise ValueError(f"unknown access op {op!r}")
    rec = AccessRecord(local_datetime_iso(now), ws.today(), op, redact_secrets(query)[:MAX_QUERY], tuple(items), detail or {})
    line = json.dumps(rec.to_json(), ensure_ascii=False, separators=(",", ":"))
    append_durably(access_path(ws.memory), (line + "\n").encode("utf-8"), own_line=True, flusher=flusher)
    return rec


def scrub_access(memory_dir: Path, pieces: list[str]) -> int:
    """A hard forget's text taken out of the record (how many lines changed): the query of each
    record that quotes it (`formats.scrub.quotes`) becomes `[forgotten]`; a line that is not a
    record has the pieces replaced as text. The items stay (ids and slugs: the tombstone keeps the
    id too). Rewritten in place (same inode), holding the advisory lock every appender takes
    (`append_durably`), so a recall appending meanwhile waits and then lands after the rewrite:
    no line is lost. A kill between the truncate and the write would lose the record's lines (a
    record of use, not memory: decay counts restart), never memory itself."""
    if not pieces:
        return 0
    path = access_path(memory_dir)
    refuse_links(path)
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW)
    except FileNotFoundError:
        return 0
    try:
        refuse_unusual(fd, path)
        fcntl.flock(fd, fcntl.LOCK_EX)  # released by close; no appender writes meanwhile
        lines = read_fd(fd, os.fstat(fd).st_size).split(b"\n")
        new = [_scrubbed_line(line, pieces) for line in lines]
        changed = sum(a != b for a, b in zip(lines, new))
        if changed:
            body = b"\n".join(new)
            os.ftruncate(fd, 0)
            view = memoryview(body)
            while view:  # O_APPEND is not set: pwrite from offset 0 on
                view = view[os.pwrite(fd, view, len(body) - len(view)):]
            os.fsync(fd)
        return changed
    finally:
        os.close(fd)


def _scrubbed_line(line: bytes, pieces: list[str]) -> bytes:
    """The line with the text taken out; its own bytes when nothing of it changes (a line that is
    not UTF-8 included: what is not the text is never rewritten)."""
    rec = _parse(line) if line.strip() else None
    if rec is None:
        text = line.decode("utf-8", "replace")
        scrubbed = scrub(text, pieces)
        return line if scrubbed == text else scrubbed.encode("utf-8")
    if not quotes(rec.query, pieces):
        return line
    return json.dumps({**rec.to_json(), "query": FORGOTTEN}, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _parse(line: bytes) -> AccessRecord | None:
    try:
        data = load_json(line)
        if not isinstance(data["items"], list):
            return None
        rec = AccessRecord(data["ts"], data["day"], data["op"], data["query"], tuple(data["items"]), data.get("detail") or {})
    except (ValueError, KeyError, TypeError):
        return None
    if not (all(isinstance(v, str) for v in (rec.ts, rec.day, rec.op, rec.query))
            and isinstance(rec.detail, dict) and all(isinstance(i, str) for i in rec.items)):
        return None  # a line of the wrong shape is passed over, as one that is not JSON
    return rec


def read_access(ws: Workspace, limit: int | None = None) -> list[AccessRecord]:
    """Records, newest first (at most `limit`)."""
    try:
        data = read_bytes_nofollow(access_path(ws.memory))
    except FileNotFoundError:
        return []
    out = []
    for line in reversed(data.split(b"\n")):
        rec = _parse(line) if line.strip() else None
        if rec is not None:
            out.append(rec)
            if limit is not None and len(out) >= limit:
                break
    return out


@dataclass(frozen=True)
class Usage:
    """How often an item was shown, and on which day last."""

    count: int
    last_day: str


class _Tail:
    """A summary of the file's first `offset` bytes, which end with `check`."""

    def __init__(self, ino: int):
        self.ino = ino
        self.offset = 0
        self.check = b""
        self.usage: dict[str, Usage] = {}
        self.saved = -1  # the offset last written to the projection (-1: never)

    def extend(self, data: bytes) -> None:
        end = data.rfind(b"\n") + 1  # a line still being written is read next time
        for line in data[:end].split(b"\n"):
            rec = _parse(line) if line.strip() else None
            if rec is None:
                continue
            for key in rec.items:
                old = self.usage.get(key)
                self.usage[key] = Usage(1, rec.day) if old is None else Usage(old.count + 1, max(old.last_day, rec.day))
        if end:
            self.offset += end
            self.check = data[max(0, end - 64):end]


_TAILS: StampCache[_Tail] = StampCache("access-summaries")  # path -> this process's summary
_LOCK = threading.Lock()
SUMMARY_FILE = "access-summary.json"  # the projection, in the private folder the caller names
SAVE_EVERY = 64 * 1024  # bytes read past the projection before it is written again


def access_summary(memory_dir: Path, projection_dir: Path | None = None) -> dict[str, Usage]:
    """item key -> Usage over the whole record, reading only what was appended since last time.
    With `projection_dir` (the workspace's private folder), a fresh process starts from the
    summary an earlier one kept there, trusted only while the record still begins with what it
    summed (the same file, at least as long, the same bytes before its end): the record only ever
    grows, and reading all of it again would cost a little more with every recall."""
    path = access_path(memory_dir)
    with _LOCK:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            _TAILS.discard(str(path))
            return {}
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                refuse_links(path)  # one line naming the link and where it points
            raise
        try:
            refuse_unusual(fd, path, sole_name=False)  # a FIFO or a folder: one line, never a wait
            st = os.fstat(fd)
            tail = _TAILS.get(str(path), ())
            if isinstance(tail, _Tail) and not _still_prefix(fd, st, tail):
                tail = MISS
            if not isinstance(tail, _Tail):
                tail = _projected(fd, st, path, projection_dir) or _Tail(st.st_ino)
                _TAILS.put(str(path), (), tail)
            if st.st_size > tail.offset:
                tail.extend(os.pread(fd, st.st_size - tail.offset, tail.offset))
            if projection_dir is not None and (tail.saved < 0 or tail.offset - tail.saved >= SAVE_EVERY):
                _save_projection(projection_dir, path, tail)
            return dict(tail.usage)
        finally:
            os.close(fd)


def _projected(fd: int, st: os.stat_result, path: Path, folder: Path | None) -> _Tail | None:
    """The summary kept in `folder` for the record at `path`, if it still holds for it."""
    if folder is None:
        return None
    try:
        data = load_json((folder / SUMMARY_FILE).read_bytes())
        if data["path"] != str(path):
            return None
        tail = _Tail(int(data["ino"]))
        tail.offset, tail.check = int(data["offset"]), bytes.fromhex(data["check"])
        tail.usage = {key: Usage(int(count), str(day)) for key, (count, day) in data["usage"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    tail.saved = tail.offset
    return tail if _still_prefix(fd, st, tail) else None


def _save_projection(folder: Path, path: Path, tail: _Tail) -> None:
    data = {"path": str(path), "ino": tail.ino, "offset": tail.offset, "check": tail.check.hex(),
            "usage": {key: [u.count, u.last_day] for key, u in tail.usage.items()}}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(folder / SUMMARY_FILE, json.dumps(data, ensure_ascii=False), sync_dir=False)
    except OSError:
        return  # a projection: the next fresh process reads the record again
    tail.saved = tail.offset


def _still_prefix(fd: int, st: os.stat_result, tail: _Tail) -> bool:
    if st.st_ino != tail.ino or st.st_size < tail.offset:
        return False
    n = len(tail.check)
    return os.pread(fd, n, tail.offset - n) == tail.check if n else True
