"""`dreamdeck demo` opens Pico's folder in the state the README's screenshots show: something to
do on every screen, made through the same verbs a person uses; it says where the folder is."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dreamdeck.core.ops.alerts import pending_alerts
from dreamdeck.core.ops.proposals import list_proposals
from dreamdeck.core.ops.vault import pinned_slugs
from dreamdeck.core.store.reflections import list_reflections
from dreamdeck.core.store.tombstones import load_tombstones
from dreamdeck.demo.stage import create_demo

TODAY = "2026-11-22"
REPO = Path(__file__).resolve().parent.parent


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return create_demo(tmp_path_factory.mktemp("staged") / "pico", today=TODAY)


def test_a_pending_reflection_with_several_hunks_and_a_contradiction(demo):
    (pending,) = list_reflections(demo.ws)[0]
    assert pending.id == demo.reflection == "r-1"
    hunks = {f.path: len(d.hunks) for f, d in pending.hunks()}
    assert len(hunks) >= 3 and sum(hunks.values()) >= 3
    assert "topics/release-cadence.md" in hunks
    assert any("release-cadence" in c for c in pending.contradictions)


def test_conflicting_proposals_a_pin_a_forgotten_fragment_an_archive_and_an_alert(demo):
    proposals = {p.id: p for p in list_proposals(demo.ws)[0]}
    assert proposals["p-1"].conflicts_with == ["p-2"] and proposals["p-2"].conflicts_with == ["p-1"]
    assert "p-3" in proposals
    assert pinned_slugs(demo.ws) == frozenset({"code-review"})
    day, fid = demo.forgotten.split("#")
    assert load_tombstones(demo.ws)[(day, fid)].reason == "a one-off request, not something to remember"
    assert (demo.ws.memory / "archive/meetup-talk.md").is_file()
    assert [a.path for a in pending_alerts(demo.ws.root)] == ["AGENTS.md"]


def test_the_morning_is_in_git_dated_that_morning(demo):
    subjects = git(demo.ws.root, "log", "-8", "--format=%ad %s", "--date=format:%Y-%m-%d").splitlines()
    assert subjects[0].startswith(f"{TODAY} dream: ")
    assert all(line.startswith(TODAY) for line in subjects[:7])
    assert git(demo.ws.root, "status", "--porcelain").split() == ["M", "AGENTS.md"]  # edited outside dreamdeck


def test_every_record_of_the_morning_is_dated_that_morning_not_when_the_demo_was_built(demo):
    from datetime import UTC, datetime

    from dreamdeck.core.store.audit import read_log
    from dreamdeck.demo.build import _local

    morning = (_local(TODAY, 9, 0), _local(TODAY, 10, 0))
    stamps = [datetime.fromisoformat(s.ts) for s in load_tombstones(demo.ws).values()]
    audited = [datetime.strptime(e.timestamp, "%Y-%m-%dT%H:%MZ").replace(tzinfo=UTC) for e in read_log(demo.ws.root)[0]]
    stamps += [t for t in audited if t >= _local(TODAY, 0, 0)]
    assert stamps and all(morning[0] <= t <= morning[1] for t in stamps), sorted(stamps)


def test_stream_files_are_dated_by_their_last_line_so_yesterdays_file_is_quiet(demo):
    from datetime import datetime

    from dreamdeck.core.store.streams import read_day

    morning = git(demo.ws.root, "log", f"--since={TODAY}T00:00", "--name-only", "--format=").split()
    for path in sorted((demo.ws.memory / "streams").glob("*.jsonl"))[-5:]:
        if f"memory/streams/{path.name}" in morning:
            continue  # rewritten this morning (the dream's compaction), so dated now
        frags, _ = read_day(demo.ws, path.stem)
        written = datetime.fromtimestamp(path.stat().st_mtime).astimezone()
        assert written.date().isoformat() == path.stem, path.name
        assert written >= max(datetime.fromisoformat(f.ts) for f in frags), path.name
    assert "written to" not in (demo.ws.memory / "meta/audit.log").read_text(encoding="utf-8")


def test_a_demo_made_before_the_morning_is_over_dates_the_morning_in_the_past():
    from datetime import timedelta

    from dreamdeck.demo.build import _local
    from dreamdeck.demo.stage import morning_shift

    assert morning_shift(TODAY, _local(TODAY, 15, 0)) == timedelta(0)
    early = _local(TODAY, 7, 38)
    assert _local(TODAY, 10, 0) - morning_shift(TODAY, early) < early


def test_the_agents_recalls_are_recorded_and_the_pending_dream_changes_their_answers(demo):
    from dreamdeck.core.ops.recall_impact import recall_impact
    from dreamdeck.core.store.access import read_access
    from dreamdeck.demo.stage import AGENT_RECALLS

    records = [r for r in read_access(demo.ws) if r.op == "recall"]
    assert sorted(r.query for r in records) == sorted(q for *_, q in AGENT_RECALLS)
    assert all(r.items and r.ts.startswith(r.day) for r in records)  # what recall returned, when it was asked
    impact = recall_impact(demo.ws, "r-1")
    changed = {q.replay.query: {c.item: c.change for c in q.changes} for q in impact.changed}
    assert all(q.replay.source == "frequent" for q in impact.queries)
    assert changed["when is the release cut"] == {"topic:release-cadence": "reworded"}
    assert changed["how should api errors look"]["topic:api-errors"] == "entered"
    assert "code review checklist" not in changed


async def test_i_on_the_demos_reflection_shows_the_answers_it_would_change(demo):
    from tests.support.tui import make_app
    from tests.support.waits import settle, wait_for

    async with make_app(demo.ws, "reflections").run_test(size=(120, 36)) as pilot:
        app = pilot.app
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ReflectionsScreen", what="the Reflections screen")
        await settle(app, pilot)
        await pilot.press("i")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ImpactModal", what="the impact")

        def shown() -> str:
            return str(app.screen.query_one("#impact-text").render())

        await wait_for(pilot, lambda: "replaying" not in shown(), what="the replay")
        assert shown().startswith("3 of 4 replayed questions change")
        assert "when is the release cut  (asked 3×)" in shown()


def test_the_command_prints_where_the_demo_is(tmp_path):
    target = tmp_path / "pico"
    out = subprocess.run([sys.executable, "-m", "dreamdeck", "demo", str(target), "--no-open", "--today", TODAY],
                         capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(target.resolve()) and (target / "memory/meta/reflections").is_dir()


async def test_the_app_says_where_the_demo_folder_is(demo):
    from dreamdeck.tui.config import UserConfig
    from dreamdeck.tui.demo_app import demo_app

    app = demo_app(demo.ws, watcher=False, user_config=UserConfig())
    async with app.run_test(size=(120, 36)) as pilot:
        from tests.support.waits import wait_for

        def said() -> list:
            return [n for n in app._notifications if n.title == "Demo workspace"]

        await wait_for(pilot, lambda: bool(said()), what="the demo's toast")
        notes = said()
        assert notes and str(demo.ws.root) in notes[0].message
        assert app.workspace_name == "pico"
