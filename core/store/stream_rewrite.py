"""Rewriting a stream file (compaction, hard forget) so that no line another process writes is lost.

A rewrite writes the kept lines to a temp file and renames it over the stream. A writer that
holds the old file open (a logging handler, `tee -a`, a long-lived Node write stream) keeps
writing to the old inode, which no name reaches after the rename. The door therefore never
rewrites a file such a writer may hold (today's, or one written to within the quiet period:
`door.compaction`), and this module makes what still lands there come back:

- Before the rename, the old inode gets a hard link where git never looks (the repository's git
  folder, else dreamdeck's private folder, whichever is on the stream's file system), named
  `<day>.<inode>.<size>.replaced`: `size` is how many of its bytes the new file already holds.
- `carry_replaced_streams` (every dream and apply, and `doctor --fix`) appends to the day's
  current file the whole lines that grew beyond `size`, skipping any whose id (or, for a line
  without one, whose bytes) the current file holds already, so a carry repeated after a crash
  adds nothing twice; then it renames the link to the new size. A link whose inode nobody wrote
  to for `LINK_QUIET_SECONDS` (and no visible process holds for writing) is carried a last time,
  a torn last line included, and removed.
- A short grace period right after the rename carries what a writer that opens the file per line
  wrote to the old inode just before (a watcher thread with `late`, joined by the caller).

The temp file is created exclusively (a unique name in the stream's folder, `O_EXCL|O_NOFOLLOW`)
and removed on any failure, so a full disk leaves no `*.tmp` a later `git add -f memory/` commits.
Lines a hard forget purges are also blanked in the old inode, so the kept link holds no copy.
"""
from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dreamdeck.core.errors import BadInput, Refused
from dreamdeck.core.formats.stream_lines import STREAM_FILE, StreamLine, parse_stream_bytes
from dreamdeck.core.io.append import append_durably
from dreamdeck.core.io.atomic import exclusive_temp, fsync_dir, unlink_in
from dreamdeck.core.io.no_links import open_folder, refuse_unusual
from dreamdeck.core.io.open_writers import writers_holding
from dreamdeck.core.io.private import ensure_private
from dreamdeck.core.store.replaced_links import (
    LINK_NAME,
    drop_unrenamed_links,
    link_places,
    replaced_links,
    same_inode,
    unlink_quietly,
)
from dreamdeck.core.store.streams import read_path_for, read_stream_lines, stream_lock, write_path_for
from dreamdeck.core.workspace import Workspace

LINK_QUIET_SECONDS = 7 * 24 * 3600  # a replaced inode nobody wrote to for a week is let go
_NO_PLACE = ("no folder on the stream's file system to keep its replaced inode in (the git folder "
             "and dreamdeck's private folder are elsewhere); set DREAMDECK_CACHE_DIR to one on it")


@dataclass
class RewriteResult:
    changed: bool
    kept: list[StreamLine]
    dropped: list[StreamLine]
    carried_bytes: int  # bytes other writers appended while we worked, carried into the new file
    blocked: str | None = None  # why a file with lines to drop was left as it is


def rewrite_stream(
    ws: Workspace,
    path: Path,
    keep: Callable[[StreamLine], bool] | None = None,
    *,
    keep_for: Callable[[list[StreamLine]], Callable[[StreamLine], bool]] | None = None,
    scrub: Callable[[StreamLine], bool] | None = None,
    grace_seconds: float = 0.05,
    late: list | None = None,
) -> RewriteResult:
    """Rewrite `path` without the lines `keep` rejects, losing no concurrent append.

    `keep_for` builds the rule from the very lines being rewritten; malformed lines are never
    dropped. Dropped lines `scrub` names are blanked in the replaced inode too. With `late` (a
    list), the grace period is watched by a thread appended to it, which the caller joins
    (`join_late_carriers`) before it ends."""
    with stream_lock(ws):
        try:  # the folder held open: one swapped for a link meanwhile is never written through
            folder = open_folder(path.parent)
        except FileNotFoundError:
            return RewriteResult(False, [], [], 0)
        try:
            return _rewrite_in(ws, folder, path, keep, keep_for, scrub, grace_seconds, late)
        finally:
            os.close(folder)


def _rewrite_in(ws: Workspace, folder: int, path: Path, keep: Callable[[StreamLine], bool] | None,
                keep_for: Callable[[list[StreamLine]], Callable[[StreamLine], bool]] | None,
                scrub: Callable[[StreamLine], bool] | None, grace_seconds: float,
                late: list | None) -> RewriteResult:
    """`rewrite_stream` with the stream's folder open as `folder`."""
    try:  # never through a link, never blocking on a FIFO (refused below as not a file)
        old = open(os.open(path.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder), "rb")
    except FileNotFoundError:
        return RewriteResult(False, [], [], 0)
    with old:
        refuse_unusual(old.fileno(), path, sole_name=False)
        data = old.read()
        cut = data.rfind(b"\n") + 1  # a trailing partial line is carried verbatim
        lines = parse_stream_bytes(data[:cut])
        rule = keep_for(lines) if keep_for is not None else keep
        assert rule is not None, "rewrite_stream needs keep or keep_for"
        verdicts = [ln.event is None or rule(ln) for ln in lines]
        kept = [ln for ln, ok in zip(lines, verdicts) if ok]
        dropped = [ln for ln, ok in zip(lines, verdicts) if not ok]
        if not dropped and not _emptied_lines(data[:cut]):
            return RewriteResult(False, kept, [], 0)  # (an emptied line, see blank_in_place, goes too)
        shared = _shared_with(ws, path, old.fileno())
        if shared:
            return RewriteResult(False, lines, [], 0, blocked=shared)
        place = _link_place(ws, path)
        if place is None:
            return RewriteResult(False, lines, [], 0, blocked=_NO_PLACE)
        day = _day_of(path)
        head = [b"".join(ln.raw + b"\n" for ln in kept), data[cut:]]
        replaced = _replace(folder, path, old, head, len(data), place, day)
        if replaced is None:
            return RewriteResult(False, lines, [], 0, blocked="replaced by another process meanwhile")
        link, carried = replaced
        _blank(link, [ln for ln in dropped if scrub is not None and scrub(ln)])
        deadline = time.monotonic() + grace_seconds
        if late is not None:
            watcher = threading.Thread(target=_watch_grace, args=(ws, link, deadline), name=f"carry-late:{path.name}")
            watcher.start()
            late.append(watcher)
        else:
            carried += _carry_until(ws, link, deadline, locked=True)
    return RewriteResult(True, kept, dropped, carried)


_EMPTIED = re.compile(rb"(?:^|\n) +(?=\n)")


def _emptied_lines(data: bytes) -> bool:
    """Does `data` hold a line of spaces only: a line `blank_in_place` emptied, left for a rewrite?"""
    return _EMPTIED.search(data) is not None


def _shared_with(ws: Workspace, path: Path, fd: int) -> str | None:
    """Why the stream may not be rewritten when its inode has another name (None when it has
    not): the old inode is kept and its purged lines blanked in place, so a hard link to a file
    outside would have that file written, and what it gains later carried into memory. A link of
    our own left by a crash before its rename is removed first."""
    if os.fstat(fd).st_nlink > 1:
        drop_unrenamed_links(ws, path)
    links = os.fstat(fd).st_nlink
    if links <= 1:
        return None
    return (f"{path.name} has {links} hard links: another name shares its bytes, so it is never rewritten "
            "(replace it with a copy of its own: cp, then mv over it)")


def _day_of(path: Path) -> str:
    m = STREAM_FILE.match(path.name)
    if m is None:
        raise Refused(f"refused: {path.name} is not a stream file (YYYY-MM-DD.jsonl)")
    return m.group(1)


def _replace(folder: int, path: Path, old, head: list[bytes], consumed: int, place: Path,
             day: str) -> tuple[Path, int] | None:
    """Write `head` and whatever else reached the old inode into an exclusive temp file, link the
    old inode into `place`, rename the temp file over `path` (all in the open `folder`). (link,
    bytes carried), or None when `path` no longer names the inode we read (someone else replaced
    it: nothing is done)."""
    st = os.fstat(old.fileno())
    tmp, fd = exclusive_temp(folder, path.name, st.st_mode & 0o777 or 0o644)
    link: Path | None = None
    carried = 0
    try:
        with os.fdopen(fd, "wb") as out:
            out.writelines(head)
            extra = old.read()
            while extra:  # appended while the rule ran
                out.write(extra)
                carried += len(extra)
                extra = old.read()
            out.flush()
            os.fsync(out.fileno())
        link = _link_old_inode(folder, path.name, st.st_ino, place, day, consumed + carried)
        if link is None:
            os.unlink(tmp, dir_fd=folder)
            return None
        os.replace(tmp, path.name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        unlink_in(folder, tmp)
        if link is not None:
            unlink_quietly(link)
        raise
    os.fsync(folder)
    return link, carried


def _link_old_inode(folder: int, name: str, ino: int, place: Path, day: str, size: int) -> Path | None:
    """A hard link to the inode `name` (in the open `folder`) names now, if it is still `ino`;
    None otherwise."""
    link = place / f"{day}.{ino}.{size}.replaced"
    try:
        os.link(name, link, src_dir_fd=folder, follow_symlinks=False)
    except FileExistsError:
        pass  # the same inode and size, left by an attempt that did not get to rename
    if os.lstat(link).st_ino != ino:
        unlink_quietly(link)
        return None
    fsync_dir(place)
    return link


def blank_in_place(ws: Workspace, day: str, doomed: Callable[[StreamLine], bool]) -> list[StreamLine]:
    """Overwrite with spaces, in place, the lines of `day`'s stream that `doomed` picks: a hard
    forget's line in a file whose rewrite must wait for its writers (invariant 8). The inode a
    writer holds stays (its appends land at the end, never inside), every other line keeps its
    offset, and the forgotten bytes leave the file now, so no commit ever stages them; the
    compaction that waited drops the emptied line. A file another name shares (a hard link) is
    left alone: the outside name would lose the bytes too. Returns the lines overwritten."""
    with stream_lock(ws):
        path = read_path_for(ws, day)
        if path is None:
            return []
        try:  # in its folder opened without following a link: nothing is written through one
            folder = open_folder(path.parent)
            try:
                fd = os.open(path.name, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
            finally:
                os.close(folder)
        except (OSError, Refused):  # gone, or a link planted since it was read: nothing is written through it
            return []
        try:
            try:
                refuse_unusual(fd, path)
            except (Refused, BadInput):  # shared or not a file: its compaction says why it waits
                return []
            data = os.pread(fd, os.fstat(fd).st_size, 0)
            lines = [ln for ln in parse_stream_bytes(data) if doomed(ln)]
            _blank_fd(fd, lines)
            return lines
        finally:
            os.close(fd)


def _blank(link: Path, lines: list[StreamLine]) -> None:
    """Overwrite `lines` in the replaced inode with spaces (same length: offsets stay)."""
    if not lines:
        return
    fd = os.open(link, os.O_WRONLY | os.O_NOFOLLOW)
    try:
        _blank_fd(fd, lines)
    finally:
        os.close(fd)


def _blank_fd(fd: int, lines: list[StreamLine]) -> None:
    """Spaces over each line's bytes (same length: offsets stay), then durable."""
    if not lines:
        return
    for ln in lines:
        os.pwrite(fd, b" " * len(ln.raw), ln.offset)
    os.fsync(fd)




# --- where replaced inodes are kept (core.store.replaced_links) ------------------------------------
def _link_place(ws: Workspace, path: Path) -> Path | None:
    """The first place on `path`'s file system (a hard link cannot cross one), created 0700."""
    device = os.stat(path.parent).st_dev
    for place in link_places(ws):
        try:
            if os.stat(place.parent).st_dev == device:
                return ensure_private(place)
        except (OSError, Refused):  # not ours, or not a folder: the next place
            continue
    return None


# --- carrying what lands on a replaced inode ----------------------------------------------------
def carry_replaced_streams(ws: Workspace, *, now: float | None = None) -> int:
    """Carry into each day's current file the lines written to its replaced inodes since; let go
    of the links nobody wrote to for `LINK_QUIET_SECONDS`. Returns the bytes carried."""
    links = replaced_links(ws)
    if not links:
        return 0
    cutoff = (time.time() if now is None else now) - LINK_QUIET_SECONDS
    carried = 0
    with stream_lock(ws):
        current = []
        for link in links:
            n, link = _carry_link(ws, link)
            carried += n
            current.append(link)
        quiet = [link for link in current if _quiet_since(link, cutoff)]
        held = (writers_holding(quiet) or {}) if quiet else {}
        for link in quiet:
            if str(link) not in held:
                n, link = _carry_link(ws, link, final=True)
                carried += n
                unlink_quietly(link)
    return carried


def _quiet_since(link: Path, cutoff: float) -> bool:
    try:
        st = os.lstat(link)
    except OSError:
        return False
    return max(st.st_mtime, st.st_ctime) < cutoff  # ctime: nor linked or carried since


def _carry_link(ws: Workspace, link: Path, *, final: bool = False) -> tuple[int, Path]:
    """Append the whole lines beyond the link's recorded size (all of it when `final`) that the
    day's current file does not hold yet, and rename the link to the size carried. The stream
    lock is held. Returns (bytes appended, the link's name now)."""
    m = LINK_NAME.match(link.name)
    if m is None:
        return 0, link
    day, size = m.group(1), int(m.group(3))
    try:
        fh = open(os.open(link, os.O_RDONLY | os.O_NOFOLLOW), "rb")
    except OSError:
        return 0, link
    with fh:
        st = os.fstat(fh.fileno())
        target = read_path_for(ws, day) or write_path_for(ws, day)
        if same_inode(target, st):  # the rename never happened (a crash between link and rename)
            unlink_quietly(link)
            return 0, link
        if st.st_size <= size:
            return 0, link
        fh.seek(size)
        grown = fh.read()
    cut = len(grown) if final else grown.rfind(b"\n") + 1
    if cut == 0:
        return 0, link
    present = {_identity(ln) for ln in read_stream_lines(target)}
    missing = b"".join(ln.raw + b"\n" for ln in parse_stream_bytes(grown[:cut]) if _identity(ln) not in present)
    if missing:
        append_durably(target, missing, own_line=True)
    moved = link.with_name(f"{day}.{m.group(2)}.{size + cut}.replaced")
    os.replace(link, moved)
    return len(missing), moved




def _identity(ln: StreamLine) -> tuple[str, object]:
    """What makes a line the same line: its event id, or its bytes when it has none."""
    eid = ln.event.get("id") if ln.event else None
    return ("id", eid) if isinstance(eid, str) and eid else ("raw", ln.raw)


def _carry_until(ws: Workspace, link: Path, deadline: float, *, locked: bool) -> int:
    """Carry what lands on the replaced inode until `deadline` (the grace period)."""
    carried = 0
    while True:
        if locked:
            n, link = _carry_link(ws, link)
        else:
            with stream_lock(ws):
                n, link = _carry_link(ws, link)
        carried += n
        if time.monotonic() >= deadline:
            return carried
        time.sleep(0.01)


def _watch_grace(ws: Workspace, link: Path, deadline: float) -> None:
    _carry_until(ws, link, deadline, locked=False)


def join_late_carriers(late: list) -> None:
    """Wait for the grace-period watchers `rewrite_stream(late=...)` started."""
    for watcher in late:
        watcher.join()
    late.clear()
