"""When a dream may run: the schedule, the undreamed count, the quiet interval and the lock.

Claude Code's autoDream idea, in TypeClaw terms. Three triggers ask the same question:
- `schedule`: the cron schedule (local wall-clock time) has a fire time due since the last check;
- `watch`: a stream file changed;
- `manual`: a person asked ("dream now"); only "nothing undreamed" stops it.
Scheduled and watched runs also need `min_fragments` undreamed fragments and `min_interval_minutes`
since the last run. Every answer carries one short human line saying why.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from croniter import croniter

from dreamdeck.core.dreaming.lock import DreamLock
from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.store.settings import DreamingSettings, Settings, load_settings
from dreamdeck.core.workspace import Workspace

TRIGGERS = ("schedule", "watch", "manual")


@dataclass(frozen=True)
class GateDecision:
    run: bool
    reason: str
    # Which gate decided: "schedule" (not due), "undreamed", "interval", "lock", "paused", or "" (passed).
    gate: str = ""
    undreamed: int | None = None


def _aware(dt: datetime) -> datetime:
    """A naive datetime is local wall-clock time; make it comparable with aware ones."""
    return dt.astimezone() if dt.tzinfo is None else dt


def next_run(schedule: str, after: datetime) -> datetime:
    """The first fire time of `schedule` strictly after `after`, in local wall-clock time.

    Cron is evaluated on local wall-clock time (as cron daemons do). A naive `after` is taken as
    local time and a naive result is returned; an aware `after` gives an aware local result.
    """
    if after.tzinfo is None:
        return croniter(schedule, after).get_next(datetime)
    local_naive = after.astimezone().replace(tzinfo=None)
    return croniter(schedule, local_naive).get_next(datetime).astimezone()


def last_run_time(ws: Workspace) -> datetime | None:
    """When the newest receipt in memory/meta/receipts/ started (aware), or None."""
    folder = ws.meta_dir / "receipts"
    if not folder.is_dir():
        return None
    newest: datetime | None = None
    # Receipt ids sort by their start time; look at a few in case the newest is unreadable.
    for path in sorted(folder.glob("d-*.json"), reverse=True)[:5]:
        try:
            started = load_json(path.read_text(encoding="utf-8")).get("started")
            when = _aware(datetime.fromisoformat(started))
        except (OSError, ValueError, TypeError, AttributeError):
            continue
        if newest is None or when > newest:
            newest = when
    return newest


def count_undreamed(ws: Workspace) -> int:
    """Undreamed, unforgotten fragments (a corrupt state file counts as nothing dreamed)."""
    from dreamdeck.core.index.undreamed import collect_undreamed  # local: run imports a lot
    from dreamdeck.core.store.state import load_state

    state, _problem = load_state(ws.state_path)
    return len(collect_undreamed(ws, state))


def _ago(seconds: float) -> str:
    return f"{int(seconds)} s" if seconds < 60 else f"{int(seconds // 60)} min"


def _fragments(n: int) -> str:
    return f"{n} undreamed fragment" + ("" if n == 1 else "s")


def evaluate_gates(
    ws: Workspace,
    *,
    now: datetime,
    last_run_at: datetime | None,
    trigger: str,
    settings: Settings | DreamingSettings | None = None,
    last_check: datetime | None = None,
    undreamed: int | None = None,
    check_lock: bool = True,
) -> GateDecision:
    """May a `trigger` run dream now? `last_check` is when the schedule was last looked at
    (defaults to `last_run_at`; with neither, the schedule is never due). `undreamed` may be
    passed when already counted. `check_lock=False` for dry runs, which take no lock."""
    if trigger not in TRIGGERS:
        raise ValueError(f"unknown trigger {trigger!r}: expected one of {', '.join(TRIGGERS)}")
    if settings is None:
        settings = load_settings(ws.root)
    d = settings.dreaming if isinstance(settings, Settings) else settings
    now_a = _aware(now)

    if trigger == "schedule":
        since = last_check or last_run_at
        if since is None:
            return GateDecision(False, f"skip: schedule not due (next {next_run(d.schedule, now):%H:%M})", "schedule")
        due = next_run(d.schedule, since)
        if _aware(due) > now_a:
            return GateDecision(False, f"skip: schedule not due (next {due:%H:%M})", "schedule")

    n = count_undreamed(ws) if undreamed is None else undreamed
    if trigger == "manual":
        if n == 0:
            return GateDecision(False, "skip: nothing undreamed (manual)", "undreamed", n)
    else:
        if n == 0 and d.min_fragments == 0:
            return GateDecision(False, "skip: 0 undreamed (nothing to dream)", "undreamed", n)
        if n < d.min_fragments:
            return GateDecision(False, f"skip: {n} undreamed (< min_fragments {d.min_fragments})", "undreamed", n)
        if last_run_at is not None and d.min_interval_minutes > 0:
            elapsed = (now_a - _aware(last_run_at)).total_seconds()
            if elapsed < d.min_interval_minutes * 60:
                return GateDecision(
                    False, f"skip: last run {_ago(max(elapsed, 0))} ago (< min_interval {d.min_interval_minutes} min)",
                    "interval", n,
                )

    if check_lock:
        holder = DreamLock(ws, trigger, d.stale_lock_minutes).holder()
        if holder is not None:
            return GateDecision(False, f"skip: dream lock held by {holder.describe()}", "lock", n)
    return GateDecision(True, f"run: {_fragments(n)} ({trigger})", "", n)
