"""Memory as TypeClaw writes it: stream lines, shards, citations, and a TypeClaw-style commit of it."""
from __future__ import annotations

from datetime import UTC
from pathlib import Path

from dreamdeck.core.formats.events import build_fragment, build_watermark, serialize_event
from dreamdeck.core.formats.shards import ShardMeta, render_shard, strength_of


def uuid_at(day: str, n: int) -> str:
    """A deterministic UUIDv7-shaped id whose time falls on `day` (n orders ids within it)."""
    from datetime import datetime

    ms = int(datetime.fromisoformat(day).replace(tzinfo=UTC).timestamp() * 1000) + 3_600_000 + n
    h = f"{ms:012x}"
    return f"{h[:8]}-{h[8:12]}-7{n % 4096:03x}-8{n % 4096:03x}-{n:012x}"


def cite(day: str, n: int) -> str:
    """The citation of fragment `n` of `day`, as a shard writes it."""
    return f"streams/{day}#{uuid_at(day, n)}"


def fragment_line(day: str, n: int, topic: str, body: str, source: str = "sess-1", **extra) -> str:
    from dreamdeck.core.formats.ids import timestamp_from_id

    fid = uuid_at(day, n)
    return serialize_event(build_fragment(fid, timestamp_from_id(fid), source=source, entry=f"e{n:07x}", topic=topic, body=body, **extra))


def watermark_line(day: str, n: int, source: str = "sess-1", entry: str = "e0") -> str:
    from dreamdeck.core.formats.ids import timestamp_from_id

    wid = uuid_at(day, n)
    return serialize_event(build_watermark(wid, timestamp_from_id(wid), source=source, entry=entry))


def write_stream(root: Path, day: str, lines: list[str], layout: str = "streams") -> Path:
    folder = root / "memory" / "streams" if layout == "streams" else root / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{day}.jsonl"
    with open(path, "a", encoding="utf-8") as fh:
        for line in lines:
            fh.write(line + "\n")
    return path


def shard_text(heading: str, citations: list[str], superseded: list[str] = (), tags=None, today: str = "2026-05-22") -> str:
    body = f"{heading}.\n\nfragments:\n" + "".join(f"- {c}\n" for c in citations)
    if superseded:
        body += "\nsuperseded:\n" + "".join(f"- {c}\n" for c in superseded)
    cites, days, last = strength_of(body, today)
    return render_shard(ShardMeta(heading, cites, days, last, tags), body)


def write_shard(root: Path, slug: str, text: str, folder: str = "topics") -> Path:
    path = root / "memory" / folder / f"{slug}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def topics(root: Path) -> dict[str, bytes]:
    """Every topic shard's bytes by file name ({} when there is no topics folder yet)."""
    folder = root / "memory" / "topics"
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.md"))} if folder.is_dir() else {}


def commit_all(root: Path, message: str = "seed memory") -> str:
    """Commit the prepared memory/ as TypeClaw's commit would (force-adding the ignored folder)."""
    from dreamdeck.core.git.commit import Trailers, commit_memory

    sha = commit_memory(root, message, Trailers("test:setup", "—", "setup"))
    assert sha, "nothing to commit"
    return sha


def make_quiet(root, quiet_seconds: int = 3600) -> None:
    """Age the stream files as if nobody had written to them for `quiet_seconds`: a compaction
    may rewrite only a file past the quiet period (invariant 8)."""
    import os
    import time

    then = time.time() - quiet_seconds
    memory = Path(root) / "memory"
    for folder in (memory / "streams", memory):
        for path in folder.glob("*.jsonl") if folder.is_dir() else ():
            os.utime(path, (then, then))


def the_next_day(ws, quiet_seconds: int = 3600):
    """The same workspace a day later, its stream files untouched for `quiet_seconds`: only then
    may a compaction rewrite them (invariant 8: never today's file, nor one written to within the
    quiet period, which a writer may still hold open)."""
    from datetime import date, timedelta

    from dreamdeck.core.workspace import Workspace

    make_quiet(ws.root, quiet_seconds)
    today = date.fromisoformat(ws.today()) + timedelta(days=1)
    return Workspace.open(ws.root, today=today.isoformat())
