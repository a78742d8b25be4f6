"""Dream control screen (7): dream now, dry run, the watcher; asserted on receipts, git and the screen."""
from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from dreamdeck.core.dreaming.watcher import WatchEvent
from dreamdeck.core.store.streams import append_fragment
from dreamdeck.core.workspace import Workspace
from tests.support.agent import two_fragments_to_dream
from tests.support.git import git
from tests.support.memory import uuid_at
from tests.support.tui import Notes, make_app
from tests.support.waits import wait_for, wait_workers
from tests.tui.apps import control_app

SIZE = (140, 40)
TODAY = "2026-05-22"


def automatic_workspace(agent_dir: Path, **dreaming) -> Workspace:
    """Offline dreamer, review "none": a dream applies and commits by itself."""
    return two_fragments_to_dream(agent_dir, TODAY, **{"dreamer": "offline", "review": "none", **dreaming})


async def open_control(pilot):
    app = pilot.app
    await pilot.press("7")
    await wait_for(pilot, lambda: type(app.screen).__name__.endswith("Control") or
                   type(app.screen).__name__ == "ControlScreen", what="the control screen")
    screen = app.screen
    await wait_for(pilot, lambda: screen.data is not None, what="the first load")
    await pilot.pause()
    return screen


def text_of(screen, selector: str) -> str:
    return str(screen.query_one(selector).render())


def receipts(agent_dir: Path) -> list[Path]:
    return sorted((agent_dir / "memory/meta/receipts").glob("d-*.json"))


def open_app(agent_dir: Path, **kwargs):
    return make_app(Workspace.open(agent_dir, today=TODAY), **kwargs)


async def test_d_dreams_now_writing_a_receipt_and_a_dream_commit(agent_dir):
    automatic_workspace(agent_dir)
    head = git(agent_dir, "rev-parse", "HEAD").strip()
    notes = Notes()
    async with open_app(agent_dir, watcher=False).run_test(size=SIZE, message_hook=notes) as pilot:
        screen = await open_control(pilot)
        assert "2 fragments" in text_of(screen, "#watcher-panel") and "○ off" in text_of(screen, "#watcher-panel")
        assert "none" in text_of(screen, "#gates-panel") and "offline" in text_of(screen, "#gates-panel")
        await pilot.press("d")
        await wait_for(pilot, lambda: receipts(agent_dir), what="a receipt file")
        await wait_workers(pilot.app)
        receipt = json.loads(receipts(agent_dir)[-1].read_text())
        assert receipt["status"] == "applied" and receipt["fragments_seen"] == 2 and receipt["trigger"] == "manual"
        sha = git(agent_dir, "rev-parse", "HEAD").strip()
        assert sha != head and git(agent_dir, "log", "-1", "--format=%s").startswith("dream:")
        assert f"memory/meta/receipts/{receipt['id']}.json" in git(agent_dir, "show", "--name-only", "--format=", sha)
        table = screen.query_one("#receipts")
        await wait_for(pilot, lambda: table.row_count == 1 and table.current_row()["id"] == receipt["id"],
                       what="the receipt on screen")
        # found in git: the receipt is committed with its dream (the row can show before the commit
        # is made, when the receipt file's own change reloads the screen; the dream's end reloads it again)
        await wait_for(pilot, lambda: table.current_row()["commit"] == sha[:8], what="the receipt's commit")
        await wait_for(pilot, lambda: "0 fragments" in text_of(screen, "#watcher-panel"), what="undreamed 0")
        assert any(n.title == "Dream finished" for n in notes.raised)


async def test_shift_d_dry_run_writes_nothing_and_shows_what_would_change(agent_dir):
    automatic_workspace(agent_dir)
    head = git(agent_dir, "rev-parse", "HEAD").strip()
    before = sorted(p.relative_to(agent_dir).as_posix() for p in (agent_dir / "memory").rglob("*"))
    async with open_app(agent_dir, watcher=False).run_test(size=SIZE) as pilot:
        await open_control(pilot)
        await pilot.press("D")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "TextModal", what="the dry-run modal")
        text = str(pilot.app.screen.query("VerticalScroll Static").first().render())
        assert "would apply 2 changes and hold 0 for review" in text
        assert "new shards: coffee, editor" in text and "Nothing was written" in text
        await pilot.press("escape")
    assert git(agent_dir, "rev-parse", "HEAD").strip() == head
    assert sorted(p.relative_to(agent_dir).as_posix() for p in (agent_dir / "memory").rglob("*")) == before
    assert not receipts(agent_dir)


async def test_watcher_events_update_the_screen(agent_dir):
    automatic_workspace(agent_dir)
    app = open_app(agent_dir, watcher=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_control(pilot)
        assert "none yet" in text_of(screen, "#decision")
        app._on_watch_event(WatchEvent("decision", "skip: 2 undreamed (< min_fragments 5)", at=datetime(2026, 5, 22, 9)))
        assert "skip: 2 undreamed (< min_fragments 5)" in text_of(screen, "#decision")
        assert "09:00:00 decision" in text_of(screen, "#events")
        app._on_watch_event(WatchEvent("run-start", "dream started (watch, dreamer offline)"))
        assert "dreaming now" in text_of(screen, "#watcher-panel")
        app._on_watch_event(WatchEvent("error", "error: dream failed (RuntimeError): boom"))
        await wait_for(pilot, lambda: "dreaming now" not in text_of(screen, "#watcher-panel"), what="the reload")
        assert "boom" in text_of(screen, "#events")
        # newest first: on a 24-row screen the pane shows three lines, and they must be the latest
        assert "boom" in text_of(screen, "#events").splitlines()[0]


async def test_the_background_watcher_dreams_on_an_append_and_w_pauses_it(agent_dir):
    ws = automatic_workspace(agent_dir, min_fragments=1)
    app = open_app(agent_dir, watcher=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_control(pilot)
        assert app.watcher is not None
        await wait_for(pilot, lambda: "● on" in text_of(screen, "#watcher-panel"), what="the watcher shown on")
        await wait_for(pilot, lambda: app.watcher.status().watching is not None, what="watchfiles to start")
        append_fragment(ws, "coffee", "Switched to decaf after 3 pm.", event_id=uuid_at(TODAY, 3))
        table = screen.query_one("#receipts")
        await wait_for(pilot, lambda: table.row_count == 1, what="the watched dream on screen")
        receipt = json.loads(receipts(agent_dir)[-1].read_text())
        assert receipt["trigger"] == "watch" and receipt["status"] == "applied" and receipt["fragments_seen"] == 3
        assert table.current_row()["id"] == receipt["id"]
        assert any(ev.message == "run: 3 undreamed fragments (watch)" for ev in app.watcher.events)
        # the receipts table can reload before the watcher's events reach the log: wait for them
        await wait_for(pilot, lambda: "run-done" in text_of(screen, "#events"), what="run-done in the event log")
        await wait_for(pilot, lambda: text_of(screen, "#decision").startswith("last decision  "), what="the decision")
        await wait_for(pilot, lambda: "runs       1" in text_of(screen, "#watcher-panel"), what="the run count")

        await pilot.press("w")
        assert app.watcher.status().paused
        await wait_for(pilot, lambda: "paused" in text_of(screen, "#watcher-panel"), what="paused")
        await pilot.press("w")
        assert not app.watcher.status().paused
        await wait_for(pilot, lambda: "● on" in text_of(screen, "#watcher-panel"), what="resumed")


def test_snapshot_control_screen(snap_compare, agent_dir, utc):
    control_app.build(agent_dir)

    async def run_before(pilot):
        await open_control(pilot)

    assert snap_compare(control_app.snapshot_app(agent_dir), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_a_runs_folded_duplicates(snap_compare, agent_dir, utc, size):
    control_app.build(agent_dir)

    async def run_before(pilot):
        await open_control(pilot)
        await pilot.press("j")  # the 08:15 run, which folded one duplicate
        await wait_for(pilot, lambda: pilot.app.screen.query_one("#folded").display, what="the folded list")
        await pilot.pause()

    assert snap_compare(control_app.snapshot_app(agent_dir), terminal_size=size, run_before=run_before)


def link_a_shard_outside(agent_dir: Path) -> Path:
    """memory/topics/creds.md, a symbolic link to a file outside the agent's folder."""
    outside = agent_dir.parent / "outside-creds.md"
    outside.write_text("# creds\n", encoding="utf-8")
    link = agent_dir / "memory" / "topics" / "creds.md"
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside)
    return link


async def test_a_linked_shard_is_an_alert_naming_it_what_it_blocks_and_how_to_clear_it(agent_dir):
    control_app.build(agent_dir)
    link = link_a_shard_outside(agent_dir)
    app = control_app.snapshot_app(agent_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_control(pilot)
        shown = text_of(screen, "#link-alert")
        assert screen.query_one("#link-alert").display
        assert "memory/topics/creds.md is a symbolic link" in shown
        assert "every change to memory is refused and dreaming stops" in shown
        assert "rm memory/topics/creds.md" in shown and "dreamdeck doctor" in shown
        link.unlink()
        screen.reload()
        await wait_for(pilot, lambda: not screen.query_one("#link-alert").display, what="the alert gone")


def test_snapshot_the_dream_screen_with_a_linked_shard(snap_compare, agent_dir, utc):
    control_app.build(agent_dir)
    link_a_shard_outside(agent_dir)

    async def run_before(pilot):
        await open_control(pilot)

    assert snap_compare(control_app.snapshot_app(agent_dir), terminal_size=SIZE, run_before=run_before)


async def test_a_dream_started_with_d_counts_among_the_runs_since_the_app_started(agent_dir):
    automatic_workspace(agent_dir, min_fragments=5)  # the watcher itself waits for 5
    app = open_app(agent_dir, watcher=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_control(pilot)
        await wait_for(pilot, lambda: "runs       0" in text_of(screen, "#watcher-panel"), what="no run yet")
        await pilot.press("d")
        table = screen.query_one("#receipts")
        await wait_for(pilot, lambda: table.row_count == 1, what="the dream's receipt on screen")
        await wait_for(pilot, lambda: "runs       1 since the app started" in text_of(screen, "#watcher-panel"),
                       what="the run counted")
        assert app.watcher.status().runs == 0  # the watcher did not run it: the app did


async def test_a_dream_started_with_d_appears_in_the_event_log_beside_the_watchers(agent_dir):
    automatic_workspace(agent_dir, min_fragments=5)
    app = open_app(agent_dir, watcher=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_control(pilot)
        await pilot.press("d")
        await wait_for(pilot, lambda: screen.query_one("#receipts").row_count == 1, what="the dream's receipt")
        receipt_id = app.last_receipt["id"]
        await wait_for(pilot, lambda: f"[{receipt_id}]" in text_of(screen, "#events"), what="its run-done line")
        log = text_of(screen, "#events")
        assert "run-start dream started (manual, d)" in log and "run-done  dream " in log
        assert log.index("run-done") < log.index("run-start")  # newest first
