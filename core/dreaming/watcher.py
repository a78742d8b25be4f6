"""The dream watcher: stream changes and the cron schedule ask the gates; one run at a time.

`dreamdeck watch` runs it headless (`dreamdeck.cli.watch.run_headless`); the TUI runs the same `Watcher` in the
background and reads `status()`. Two daemon threads:
- the watch thread follows `memory/streams/` (or `memory/` while streams/ does not exist, which
  also covers the flat layout) with `watchfiles`, keeps only dated `*.jsonl` stream files, and
  turns each batch of changes into a `watch` trigger;
- the worker thread wakes on a trigger or every `tick` seconds, checks whether a cron fire time
  is due, asks the gates and runs `run_dream`.
Triggers that arrive while a run is in progress coalesce: however many there are, they leave one
pending entry per kind, so exactly one more evaluation (and at most one more run) follows.
Every decision, run and error is reported as a `WatchEvent` to `on_event` (called from the
watcher's threads; a GUI must hand it over to its own thread).
"""
from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import watchfiles

from dreamdeck.core.dreaming.gates import (
    _aware,
    count_undreamed,
    evaluate_gates,
    last_run_time,
    next_run,
)
from dreamdeck.core.dreaming.lock import DreamBusy, DreamLock
from dreamdeck.core.dreaming.watch_events import (
    EVENT_KINDS,
    WatcherStatus,
    WatchEvent,
    format_event,
)
from dreamdeck.core.formats.stream_lines import STREAM_FILE
from dreamdeck.core.store.settings import load_settings
from dreamdeck.core.store.streams import list_stream_days
from dreamdeck.core.workspace import Workspace

__all__ = ["EVENT_KINDS", "Watcher", "WatcherStatus", "WatchEvent", "format_event"]

def _ignore_event(_ev: WatchEvent) -> None:
    """The default listener: core never prints; the command line and the app pass their own."""


def _stream_signature(ws: Workspace) -> tuple:
    sig = []
    for _day, path in list_stream_days(ws):
        try:
            st = path.stat()
        except OSError:
            continue
        sig.append((str(path), st.st_size, st.st_mtime_ns))
    return tuple(sig)


class Watcher:
    def __init__(
        self,
        ws: Workspace,
        *,
        dreamer=None,
        dreamer_name: str | None = None,
        review: str | None = None,
        on_event: Callable[[WatchEvent], None] = _ignore_event,
        clock: Callable[[], datetime] = datetime.now,
        tick: float = 2.0,
        debounce_ms: int = 300,
        history: int = 200,
    ):
        self.ws = ws
        self._dreamer = dreamer
        self._dreamer_name = dreamer_name
        self._review = review
        self._on_event = on_event
        self._clock = clock
        self._tick = tick
        self._debounce_ms = debounce_ms
        self.events: deque[WatchEvent] = deque(maxlen=history)

        self._mu = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._pending: dict[tuple[str, bool], None] = {}  # (trigger, dry_run), insertion-ordered
        self._paused = False
        self._in_run = False
        self._runs = 0
        self._last_decision = ""
        self._last_receipt: dict | None = None
        self._last_run_at: datetime | None = None  # this watcher's last real (non-dry) run
        self._last_check: datetime | None = None  # last schedule check
        self._next_due: datetime | None = None
        self._undreamed: tuple[float, int] | None = None  # (monotonic, count) cache for status()
        self._watching: Path | None = None
        self._worker: threading.Thread | None = None
        self._watch_thread: threading.Thread | None = None
        self._stopped = False
        memory = ws.memory
        self._stream_parents = {memory, memory / "streams", memory.resolve(), (memory / "streams").resolve()}

    # --- control ----------------------------------------------------------------------
    def start(self) -> None:
        """Start the worker and watch threads (daemons). Raises SettingsError on a bad dreamdeck.toml."""
        if self._worker is not None:
            raise RuntimeError("this watcher was already started")
        settings = load_settings(self.ws.root).dreaming
        now = self._clock()
        self._last_check = now
        self._next_due = next_run(settings.schedule, now)
        signature = _stream_signature(self.ws)
        undreamed = self._count_undreamed(fresh=True)
        target = self._watch_target()
        where = self._rel(target) if target else "memory/ (not there yet)"
        self._emit("started", (
            f"watching {where}: schedule '{settings.schedule}' (next {self._next_due:%H:%M}), "
            f"min_fragments {settings.min_fragments}, min_interval {settings.min_interval_minutes} min; "
            f"{undreamed} undreamed"
        ))
        self._worker = threading.Thread(target=self._work_loop, name="dreamdeck-watcher", daemon=True)
        self._watch_thread = threading.Thread(
            target=self._watch_loop, args=(signature,), name="dreamdeck-watchfiles", daemon=True,
        )
        self._worker.start()
        self._watch_thread.start()

    def stop(self, timeout: float | None = 5.0) -> bool:
        """Stop both threads; True when they ended within `timeout` (None waits for a run in progress)."""
        if self._worker is None:
            return True
        self._stop.set()
        self._wake.set()
        deadline = None if timeout is None else time.monotonic() + timeout
        for thread in (self._watch_thread, self._worker):
            while thread is not None and thread.is_alive():
                left = 0.1 if deadline is None else min(0.1, deadline - time.monotonic())
                if left <= 0:
                    break
                thread.join(left)
        ended = not any(t is not None and t.is_alive() for t in (self._watch_thread, self._worker))
        with self._mu:
            first, self._stopped = not self._stopped, True
        if first:
            self._emit("stopped", "stopped" if ended else "stopped (a dream run was still in progress)")
        return ended

    def pause(self) -> None:
        """Automatic triggers (watch, schedule) are skipped until resume(); manual ones still run."""
        with self._mu:
            self._paused = True

    def resume(self) -> None:
        """Resume and look once for what arrived while paused (a `watch` evaluation)."""
        with self._mu:
            self._paused = False
        self._trigger("watch")

    def trigger_now(self, dry_run: bool = False) -> None:
        """Ask for a manual run ("dream now"); during a run it coalesces into one more."""
        self._trigger("manual", dry_run)

    @property
    def running(self) -> bool:
        return self._worker is not None and self._worker.is_alive() and not self._stop.is_set()

    def status(self) -> WatcherStatus:
        next_scheduled = self._next_due
        if next_scheduled is None:
            try:
                next_scheduled = next_run(load_settings(self.ws.root).dreaming.schedule, self._clock())
            except Exception:
                next_scheduled = None
        try:
            holder = DreamLock(self.ws).holder()
        except OSError:
            holder = None
        last_receipt = self._last_receipt
        if last_receipt is None:
            from dreamdeck.core.dreaming.run import list_receipts

            found = list_receipts(self.ws, 1)
            last_receipt = found[0] if found else None
        with self._mu:
            paused, runs, decision, in_run = self._paused, self._runs, self._last_decision, self._in_run
        return WatcherStatus(
            running=self.running, paused=paused, next_scheduled=next_scheduled,
            undreamed=self._count_undreamed(), lock_holder=holder.describe() if holder else None,
            last_receipt=last_receipt, last_decision=decision, runs=runs, in_run=in_run,
            watching=self._rel(self._watching) if self._watching else None,
        )

    # --- internals --------------------------------------------------------------------
    def _rel(self, path: Path) -> str:
        try:
            return path.relative_to(self.ws.root).as_posix() + "/"
        except ValueError:
            return str(path)

    def _emit(self, kind: str, message: str, receipt: dict | None = None) -> None:
        ev = WatchEvent(kind, message, receipt, self._clock())
        if kind == "decision":
            with self._mu:
                self._last_decision = message
        self.events.append(ev)
        try:
            self._on_event(ev)
        except Exception:  # a broken listener must not stop the watcher
            pass

    def _count_undreamed(self, fresh: bool = False, ttl: float = 1.0) -> int:
        cached = self._undreamed
        if not fresh and cached is not None and time.monotonic() - cached[0] < ttl:
            return cached[1]
        try:
            n = count_undreamed(self.ws)
        except Exception:
            return cached[1] if cached else 0
        self._undreamed = (time.monotonic(), n)
        return n

    def _trigger(self, trigger: str, dry_run: bool = False) -> None:
        with self._mu:
            self._pending[(trigger, dry_run)] = None
            if trigger == "watch":
                self._undreamed = None  # a stream changed: recount on the next status()
        self._wake.set()

    def _last_run(self) -> datetime | None:
        on_disk = last_run_time(self.ws)
        mine = self._last_run_at
        if on_disk is None or mine is None:
            return on_disk or mine
        return max(on_disk, _aware(mine))

    # worker thread
    def _work_loop(self) -> None:
        last_error = ""
        while not self._stop.is_set():
            self._wake.wait(self._tick)
            self._wake.clear()
            if self._stop.is_set():
                break
            try:
                self._process_pending()
                if not self._stop.is_set():
                    self._check_schedule()
                last_error = ""
            except Exception as exc:  # a bad dreamdeck.toml and the like: report once, keep watching
                message = f"error: {type(exc).__name__}: {exc}"
                if message != last_error:
                    self._emit("error", message)
                last_error = message

    def _process_pending(self) -> None:
        while not self._stop.is_set():
            with self._mu:
                batch, self._pending = list(self._pending), {}
            if not batch:
                return
            ran = False
            for trigger, dry_run in batch:
                if self._stop.is_set():
                    return
                if ran and trigger == "watch":
                    continue  # the run just made saw every change this trigger was about
                if self._handle(trigger, dry_run) and not dry_run:
                    ran = True

    def _check_schedule(self) -> None:
        settings = load_settings(self.ws.root)
        now = self._clock()
        last_check = self._last_check or now
        due = next_run(settings.dreaming.schedule, last_check)
        self._next_due = due
        if _aware(due) > _aware(now):
            return
        self._handle("schedule", False, settings=settings, last_check=last_check)
        self._last_check = now
        self._next_due = next_run(settings.dreaming.schedule, now)

    def _handle(self, trigger: str, dry_run: bool, *, settings=None, last_check=None) -> bool:
        """Ask the gates and run when they pass; True when run_dream was called."""
        with self._mu:
            paused = self._paused
        if paused and trigger != "manual":
            self._emit("decision", f"skip: paused ({trigger})")
            return False
        settings = settings or load_settings(self.ws.root)
        decision = evaluate_gates(
            self.ws, now=self._clock(), last_run_at=self._last_run(), trigger=trigger,
            settings=settings, last_check=last_check, check_lock=not dry_run,
        )
        if decision.undreamed is not None:
            self._undreamed = (time.monotonic(), decision.undreamed)
        reason = decision.reason
        if dry_run and decision.run:
            reason = reason[:-1] + ", dry run)"
        self._emit("decision", reason)
        if not decision.run:
            return False
        return self._run(trigger, dry_run)

    def _run(self, trigger: str, dry_run: bool) -> bool:
        from dreamdeck.core.dreaming.run import run_dream

        name = getattr(self._dreamer, "name", None) or self._dreamer_name or load_settings(self.ws.root).dreaming.dreamer
        with self._mu:
            self._in_run = True
        started = self._clock()
        self._emit("run-start", f"dream started ({trigger}{', dry run' if dry_run else ''}, dreamer {name})")
        try:
            receipt = run_dream(
                self.ws, dreamer=self._dreamer, dreamer_name=self._dreamer_name, review=self._review,
                trigger=trigger, dry_run=dry_run,
            )
        except DreamBusy as exc:
            self._emit("decision", f"skip: {exc}; will retry on the next trigger")
            return False
        except Exception as exc:
            with self._mu:
                self._runs += 1
            if not dry_run:
                self._last_run_at = started
            self._emit("error", f"error: dream failed ({type(exc).__name__}): {exc}")
            return True
        finally:
            with self._mu:
                self._in_run = False
            self._undreamed = None
        data = receipt.to_json()
        with self._mu:
            self._runs += 1
            self._last_receipt = data
        if not dry_run:
            self._last_run_at = started
        self._emit("run-done", f"dream {receipt.status}: {receipt.message} [{receipt.id}]", data)
        return True

    # watch thread
    def _watch_target(self) -> Path | None:
        streams = self.ws.memory / "streams"
        if streams.is_dir():
            return streams
        if self.ws.memory.is_dir():
            return self.ws.memory
        return None

    def _is_stream_file(self, _change: watchfiles.Change, path: str) -> bool:
        p = Path(path)
        if not STREAM_FILE.match(p.name):
            return False
        return p.parent in self._stream_parents

    def _watch_loop(self, signature: tuple) -> None:
        memory = self.ws.memory
        while not self._stop.is_set():
            target = self._watch_target()
            if target is None:
                self._stop.wait(min(self._tick, 1.0))
                continue
            self._watching = target
            first = True
            try:
                for changes in watchfiles.watch(
                    target, watch_filter=self._is_stream_file, stop_event=self._stop,
                    debounce=self._debounce_ms, step=50, rust_timeout=1000, yield_on_timeout=True,
                    raise_interrupt=False,
                ):
                    if first:
                        # The notifier is set up now; anything written before it was is caught here.
                        first = False
                        if not changes and _stream_signature(self.ws) != signature:
                            self._trigger("watch")
                    if changes:
                        self._trigger("watch")
                    if not target.is_dir() or (target == memory and (memory / "streams").is_dir() and changes):
                        break  # the folder went away, or streams/ appeared: follow it
            except Exception as exc:
                if self._stop.is_set():
                    break
                self._emit("error", f"error: watching {self._rel(target)} failed ({exc}); retrying")
                self._stop.wait(1.0)
            signature = _stream_signature(self.ws)
            self._watching = None
