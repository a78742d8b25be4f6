"""Reading `doctor`'s stream days in a second process.

Doctor's first run reads a year of streams (a million lines, ~230 MB) and judges every shard: the
two do not depend on each other until the citations are checked, so on a machine with a second
core the streams are read by a worker while the shards are judged here. The worker is a fresh
interpreter (`python -m` this module: no fork of a process holding SQLite, and none of the
command line's imports), started only when the bytes to read are worth its start-up (~0.1 s of
CPU: `WORKER_BYTES`); it answers each day as compact data (its stamp, its ids one a line, its
malformed lines) in one pickle on its stdout, then checks the citation keys the caller sends as
it judges the shards (`not_held`): it groups them by date as they come, while the shards are
still judged, and looks them up a day at a time. Whatever goes wrong in it (a link, a FIFO, a
file it cannot read, a worker that cannot start), the same reads are done here instead, where
they fail or succeed exactly as they always did: the worker can only ever cost speed.
"""
from __future__ import annotations

import gc
import os
import pickle
import queue
import subprocess
import sys
import threading
from collections import defaultdict
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path
from typing import IO, Any

try:
    import fcntl
except ImportError:  # not on Windows
    fcntl = None  # type: ignore[assignment]

from dreamdeck.core.errors import BadFile
from dreamdeck.core.formats.stream_decoded import id_lines_and_problems
from dreamdeck.core.io.cache import Stamp, clock, stamp_of
from dreamdeck.core.io.no_links import LinkRefused, read_bytes_nofollow

WORKER_BYTES = 16_000_000  # below this, reading here costs less than starting a worker
PIPE_BYTES = 1 << 20  # Linux's default limit for a pipe an unprivileged process widens (`_widen`)
# glibc's allocator hands a freed block of 128 KB or more back to the system, and the next day's
# bytes fault it in again page by page: the worker read a year of streams with 200,000 page
# faults (0.3 s of system CPU). Kept for reuse instead (other C libraries ignore these names).
KEEP_FREED_MEMORY = {"MALLOC_MMAP_THRESHOLD_": str(1 << 30), "MALLOC_TRIM_THRESHOLD_": str(1 << 30)}
# A day bigger than this is not read: TypeClaw (Node) cannot hold it as one string either (V8's
# longest string is 2**29 - 24 characters), and reading it would cost doctor gigabytes and minutes
# (`yes >> day.jsonl` grows a file by a gigabyte a second). One problem line says so instead.
DAY_READ_LIMIT = 2**29 - 24
SWITCH_S = 0.0002  # the worker's thread switch interval (`_serve`)
DayRead = tuple[Stamp | None, int, str, list[tuple[int, str]]]  # (stamp, read started at, ids one a line, problems)
StateRead = tuple[Stamp | None, int, "str | None"]  # the dreaming state file's (stamp, read started at, problem)


def lstamp(path: str | Path) -> Stamp | None:
    """The file's own stamp (a link put in its place has another inode, so it is read and refused)."""
    try:
        return stamp_of(os.lstat(path))
    except FileNotFoundError:
        return None


def read_day(path: str) -> DayRead:
    """One stream file: its stamp taken right before the read that is recorded under it."""
    started = clock()
    stamp = lstamp(path)
    if stamp is not None and stamp[0] > DAY_READ_LIMIT:
        return None, started, "", [(1, f"{stamp[0]:,} bytes: too big to be a day's stream (TypeClaw cannot load "
                                       f"more than {DAY_READ_LIMIT:,}); not read — move it out of memory/streams")]
    try:
        data = read_bytes_nofollow(path, sole_name=False)  # a stream: a rewrite links it a moment
    except FileNotFoundError:
        data = b""
    ids, problems = id_lines_and_problems(data)
    return stamp, started, ids, problems


def read_state(path: str) -> StateRead:
    """The dreaming state file's problem (`doctor_state`), its stamp taken right before the read.
    A state file that is not a plain file of its own (a symbolic link, a FIFO, a hard link) has
    no problem of its contents: nothing is read through it, and doctor's walks of memory/ give
    it its one finding (`link`, `special-file`, `hard-link`), beside every other finding."""
    from dreamdeck.core.ops.doctor_state import state_problem  # only a worker asked to prove it pays the import
    started = clock()
    stamp = lstamp(path)
    try:
        return stamp, started, state_problem(Path(path))
    except (LinkRefused, BadFile):
        return stamp, started, None


class Reads:
    """The stream days doctor must read this run: started in a worker when they are many bytes,
    answered by `day` (here, when the worker did not answer). The worker keeps the ids it read,
    so `not_held` can then ask it which of the citation keys those days do not hold; given the
    dreaming state file's path (`state`), it proves that file too (`state`) while this process
    still judges the shards. A context: leaving it stops the worker."""

    def __init__(self, days: Iterable[tuple[str, str]], state: str | None = None):
        self.days = dict((path, day) for day, path in days)  # path -> its day
        self.state_path = state
        self.answer: dict[str, DayRead] | None = None
        self.last: tuple[Any, Any] | None = None  # the worker's last word: (keys not held, state read)
        self.worker: subprocess.Popen | None = None
        self.sender: threading.Thread | None = None  # writing the citation keys to the worker
        self.keys: queue.SimpleQueue[dict[str, str] | None] = queue.SimpleQueue()  # what it writes, None last
        self.keys_ended = False
        if _size(list(self.days)) >= WORKER_BYTES:
            self.worker = _start(self.days, state)

    def __enter__(self) -> Reads:
        return self

    def __exit__(self, *_exc) -> None:
        self._stop()

    @property
    def by_worker(self) -> bool:
        """Did a worker answer (so far)?"""
        return self.answer is not None

    def day(self, path: str) -> DayRead:
        days = self._answered()
        return days[path] if path in days else read_day(path)

    def send_keys(self, by_date: dict[str, str], last: bool = False) -> None:
        """Give the worker more citation keys for `not_held` (`DATE#ID`, grouped by their date: a
        date's keys one a line; `last`: no more follow): written by a thread, which waits in the
        pipe while the worker still reads (no CPU), so this process goes on judging shards."""
        worker = self.worker
        if worker is None or worker.stdin is None or self.keys_ended:
            return
        if self.sender is None:
            self.sender = threading.Thread(target=_send, args=(worker.stdin, self.keys), daemon=True)
            self.sender.start()
        self.keys.put(by_date)
        if last:
            self._end_keys()

    def _end_keys(self) -> None:
        if not self.keys_ended:
            self.keys_ended = True
            self.keys.put(None)  # the worker then looks them up; a sender waiting for more ends

    def not_held(self) -> set[str] | None:
        """Of the keys `send_keys` gave, those no day the worker read holds; None when no worker
        answered or none were given (then the caller checks them itself)."""
        if self.answer is None or self.sender is None:
            return None
        found = self._last()[0]
        return found if isinstance(found, set) else None

    def state(self) -> StateRead | None:
        """`read_state` of the path given, as the worker answered it; None when it did not (then
        the caller reads the file itself)."""
        if self.state_path is None:
            return None
        found = self._last()[1]
        return found if isinstance(found, tuple) and len(found) == 3 else None

    def _last(self) -> tuple[Any, Any]:
        """The worker's last word, read once (then it is stopped); (None, None) when it gave none."""
        if self.last is None:
            self.last = (None, None)
            self._answered()  # what comes first in the pipe
            worker = self.worker
            if self.answer is not None and worker is not None and worker.stdout is not None:
                if self.sender is None and worker.stdin is not None:
                    with suppress(OSError):
                        worker.stdin.close()  # no keys: the worker waits for none
                self._end_keys()
                try:
                    found = pickle.load(worker.stdout)
                except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError):
                    found = None
                if isinstance(found, tuple) and len(found) == 2:
                    self.last = found
            self._stop()
        return self.last

    def _answered(self) -> dict[str, DayRead]:
        if self.answer is None and self.worker is not None and self.worker.stdout is not None:
            try:
                self.answer = pickle.load(self.worker.stdout)
            except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError):
                self._stop()  # it failed: read here
        return self.answer if self.answer is not None else {}

    def _stop(self) -> None:
        worker, self.worker = self.worker, None
        if worker is not None:
            worker.kill()
            worker.wait()  # its end of the pipes is closed: a sender still writing fails at once
            if self.sender is not None:
                self._end_keys()
                self.sender.join()
            for pipe in (worker.stdin, worker.stdout):
                with suppress(OSError):
                    if pipe is not None:
                        pipe.close()


def _send(pipe: IO[bytes], batches: queue.SimpleQueue[dict[str, str] | None]) -> None:
    """Pickle each batch of `batches` into `pipe`, then None, and close it; a worker gone is the
    reader's to notice (what is still queued then is dropped)."""
    with suppress(OSError, ValueError), pipe:
        while True:
            batch = batches.get()
            pickle.dump(batch, pipe, protocol=pickle.HIGHEST_PROTOCOL)
            if batch is None:
                break


def _size(paths: list[str]) -> int:
    total = 0
    for path in paths:
        with suppress(OSError):
            total += os.lstat(path).st_size
    return total


def _start(days: dict[str, str], state: str | None) -> subprocess.Popen | None:
    if not sys.executable:
        return None  # an embedding interpreter that cannot name itself: read here
    try:
        worker = subprocess.Popen([sys.executable, "-I", "-m", __name__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env={**os.environ, **KEEP_FREED_MEMORY})
    except OSError:
        return None  # read here
    assert worker.stdin is not None
    _widen(worker.stdin, worker.stdout)
    try:
        pickle.dump((days, state), worker.stdin, protocol=pickle.HIGHEST_PROTOCOL)
        worker.stdin.flush()
    except OSError:
        worker.kill()
        worker.wait()
        return None
    return worker


def _widen(*pipes: IO[bytes] | None) -> None:
    """Give each pipe to the worker a megabyte of room (Linux; elsewhere they stay as they are).
    The two processes' pickles (~40 MB each way) are written by a thread while another thread
    of the same process computes: with a pipe's usual 64 KB, each refill waited for that thread
    to let go of the interpreter (up to 5 ms), and 40 MB took seconds of wall instead of
    milliseconds."""
    size = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    if size is None:
        return
    for pipe in pipes:
        with suppress(OSError, ValueError):
            if pipe is not None:
                fcntl.fcntl(pipe.fileno(), size, PIPE_BYTES)


def _serve() -> int:
    """The worker: read the days asked on stdin and answer them all on stdout (any failure is a
    non-zero exit: the caller then reads them itself); then, in one last answer, which citation
    keys those days do not hold (None when none were asked about) and the state file's
    `read_state` (None when not asked, or when proving it failed: the caller then does)."""
    gc.disable()  # a process that ends after one bulk read (`io.gc_pause`)
    # Its answer (~40 MB) is written by a thread while the main one looks the keys up: each time
    # the pipe has room again, the writer waited up to the default switch interval (5 ms) for
    # the lookups to let go of the interpreter, and the caller waited for its answer.
    sys.setswitchinterval(SWITCH_S)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    days, state = pickle.load(stdin)
    try:
        read = {path: read_day(path) for path in days}
    except Exception:  # noqa: BLE001 — whatever it is, the caller reads these files itself
        return 3
    # The answer is written by a thread: the pipe waits for the caller, who may still be judging
    # shards, and the citation keys it has sent meanwhile are checked here without waiting.
    answering = threading.Thread(target=_answer, args=(stdout, read))
    answering.start()
    proven = _proven(state) if state is not None else None  # while the caller still judges shards
    keys = _keys_by_day(stdin)
    ids_by_day = {days[path]: ids for path, (_stamp, _started, ids, _problems) in read.items()}
    not_held = _not_held(keys, ids_by_day) if keys is not None else None
    answering.join()
    _answer(stdout, (not_held, proven))
    return 0


def _proven(state: str) -> StateRead | None:
    try:
        return read_state(state)
    except Exception:  # noqa: BLE001 — whatever it is, the caller reads the file itself
        return None


def _answer(pipe: IO[bytes], value: Any) -> None:
    with suppress(OSError):  # the caller stopped listening: it reads the files itself
        pickle.dump(value, pipe, protocol=pickle.HIGHEST_PROTOCOL)
        pipe.flush()


def _keys_by_day(pipe: IO[bytes]) -> dict[str, list[str]] | None:
    """The citation keys `Reads.send_keys` gives, as each date's texts (its keys one a line) in
    the order they came; None when none were asked about (the caller closed the pipe without a
    word)."""
    by_day: defaultdict[str, list[str]] = defaultdict(list)
    try:
        while (batch := pickle.load(pipe)) is not None:
            for day, text in batch.items():
                if text:
                    by_day[day].append(text)
    except EOFError:
        return None  # not asked, or the caller went away
    return by_day


def _not_held(keys: dict[str, list[str]], ids_by_day: dict[str, str]) -> set[str]:
    """Of `keys` (each date's texts, keys one a line), those whose day's ids (`ids_by_day`: one a
    line, of the days read) do not hold them. A day at a time: its keys looked up in a set of a
    few thousand, which the processor's cache holds (one set of a year's million keys took 1.2 s
    of CPU to make and search, its lookups missing the cache; a day at a time 0.35-0.45 s), and
    gone before the next day's."""
    out: set[str] = set()
    for day, texts in keys.items():
        wanted = "\n".join(texts).split("\n")
        ids = ids_by_day.get(day)
        prefix = f"{day}#"
        held = set((prefix + ids.replace("\n", "\n" + prefix)).split("\n")) if ids else set()
        if not held.issuperset(wanted):
            out.update(set(wanted).difference(held))
    return out


if __name__ == "__main__":
    sys.exit(_serve())
