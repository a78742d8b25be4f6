"""The demo as the README's screenshots show it: Pico's folder (`build.build_demo`) plus one
morning's work that leaves every screen something to do.

After the 60 days of history, on the demo's today, through the same core verbs a person uses:
- a one-off request is forgotten (Forgotten screen) and a one-off topic archived;
- the code-review belief is pinned (Vault);
- two sub-agents propose conflicting release times, a third a procedure (Proposals);
- AGENTS.md gains a rule outside dreamdeck (an alert on History);
- Pico recalls what it needs, yesterday afternoon and this morning, through the recall API (the
  access record the recall impact replays: `review r-1 --impact` and `i` on Reflections);
- the scheduled dream runs with the offline dreamer and the judgement policy: it applies the
  reinforcements and holds a new topic, a rewritten heading and a contradiction (the release day
  moved) for review (Reflections).
Every record of the morning (commits, audit lines, tombstones, the access record) is dated that
morning, which ends with the dream at 10:00 or, for a demo made earlier in the day, a minute ago;
everything else is a function of (today, seed).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

from dreamdeck.core.workspace import Workspace, local_today
from dreamdeck.demo.build import Note, _git_dates, _local, build_demo

PERSON = "human:dana"
# What Pico asked its memory (days before today, hour, minute, question): the release day most,
# the api error format, the flaky CI job, and a question the pending dream does not touch.
AGENT_RECALLS = (
    (1, 15, 48, "when is the release cut"),
    (1, 16, 5, "how should api errors look"),
    (1, 16, 31, "e2e-checkout flaky rerun"),
    (0, 9, 40, "when is the release cut"),
    (0, 9, 44, "code review checklist"),
    (0, 9, 49, "when is the release cut"),
    (0, 9, 52, "how should api errors look"),
)


@dataclass
class Demo:
    ws: Workspace
    reflection: str | None
    forgotten: str  # "DATE#ID"


DREAM_AT = (10, 0)  # the scheduled dream that ends the morning


def morning_shift(today: str, now: datetime) -> timedelta:
    """How far the morning moves back so that its dream is not later than a minute before `now`."""
    return max(timedelta(0), _local(today, *DREAM_AT) - (now - timedelta(minutes=1)))


def _fragment_of(ws: Workspace, day: str, body_start: str) -> str:
    from dreamdeck.core.store.streams import read_day

    frags, _ = read_day(ws, day)
    return next(f.id for f in frags if f.body.startswith(body_start))


def create_demo(root: Path, *, today: str | None = None, seed: int = 7) -> Demo:
    """Build Pico's folder at `root` (new or empty) and stage the morning; ValueError as build_demo."""
    root = Path(root)
    build_demo(root, today=today, seed=seed)
    today = today or local_today()
    ws = Workspace.open(root, today=today)
    yesterday = (date.fromisoformat(today) - timedelta(days=1)).isoformat()
    shift = morning_shift(today, datetime.now().astimezone())

    def at(hour: int, minute: int) -> datetime:
        return _local(today, hour, minute) - shift

    from dreamdeck.core.dreaming.run import run_dream
    from dreamdeck.core.ops import forget, vault
    from dreamdeck.core.ops.alerts import check_alerts
    from dreamdeck.core.ops.proposals import propose

    check_alerts(root, now=at(9, 0))  # the baseline of SOUL.md, AGENTS.md … as Pico was set up
    fid = _fragment_of(ws, yesterday, "User asked for a summary of yesterday's #incidents")
    with _git_dates(at(9, 2)):
        forget.forget_fragment(ws, yesterday, fid, "a one-off request, not something to remember", PERSON,
                               now=at(9, 2))
    with _git_dates(at(9, 6)):
        forget.forget_topic(ws, "meetup-talk", "a one-off talk, not how Dana works", PERSON, now=at(9, 6))
    with _git_dates(at(9, 11)):
        vault.pin_topic(ws, "code-review", PERSON, now=at(9, 11))
    with _git_dates(at(9, 24)):
        propose(ws, "release-bot", "semantic", "The weekly release cut is at 14:00 CET on Thursdays from next sprint",
                confidence="high", entities=["release--cut"], now=at(9, 24))
    with _git_dates(at(9, 31)):
        propose(ws, "planner", "semantic", "The weekly release cut is at 16:00 CET, after the Thursday planning",
                confidence="medium", entities=["release--cut"], now=at(9, 31))
    with _git_dates(at(9, 37)):
        propose(ws, "reviewer", "procedural", "Before approving a migration, check it for long locks on big tables",
                confidence="high", entities=["procedure--migration-review"], now=at(9, 37))
    _agent_recalls(root, today, shift)
    agents = root / "AGENTS.md"
    agents.write_text(agents.read_text(encoding="utf-8") + "- Post the on-call summary in #eng-platform at 09:30.\n",
                      encoding="utf-8")
    check_alerts(root, now=at(9, 55))
    with _git_dates(at(*DREAM_AT)):
        receipt = run_dream(ws, dreamer_name="offline", review="judgement", trigger="schedule", now=at(*DREAM_AT))
    return Demo(ws, receipt.reflection, f"{yesterday}#{fid}")


def _agent_recalls(root: Path, today: str, shift: timedelta) -> None:
    """Pico's recalls (AGENT_RECALLS), each recorded by `ops.recall` as the agent's runtime would;
    this morning's move with the morning (`shift`)."""
    from dreamdeck.core.ops.recall import recall

    for back, hour, minute, question in AGENT_RECALLS:
        day = (date.fromisoformat(today) - timedelta(days=back)).isoformat()
        recall(Workspace.open(root, today=day), question, now=_local(day, hour, minute) - (shift if back == 0 else timedelta(0)))


__all__ = ["Demo", "create_demo", "Note"]
