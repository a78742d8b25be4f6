"""The Dream screen (7) and the dream toasts never say something stale or untrue: the undreamed
count follows appends while the watcher is paused, "last run" sees dream commits without a
receipt, the log keeps words apart, a skipped dream is not "finished", and a dry run never
points to a reflection it did not create."""
from __future__ import annotations

from datetime import datetime
from pathlib import Path

from dreamdeck.core.dreaming.watcher import WatchEvent
from dreamdeck.core.git.commit import Trailers, commit_memory
from dreamdeck.core.store.streams import append_fragment
from dreamdeck.core.workspace import Workspace
from dreamdeck.tui.screens import control
from dreamdeck.tui.widgets.tab_bar import TabBar
from tests.support.agent import two_fragments_to_dream
from tests.support.git import git
from tests.support.memory import fragment_line, uuid_at, write_stream
from tests.support.waits import settle, wait_for

SIZE = (140, 40)
TODAY = "2026-05-22"


def workspace(agent_dir: Path, **dreaming) -> Workspace:
    return two_fragments_to_dream(agent_dir, TODAY, **{"dreamer": "offline", "review": "all", **dreaming})


def make_app(agent_dir: Path, **kwargs):
    from dreamdeck.tui.app import DreamdeckApp
    from dreamdeck.tui.config import UserConfig

    return DreamdeckApp(Workspace.open(agent_dir, today=TODAY), user_config=UserConfig(), **kwargs)


async def open_control(pilot):
    app = pilot.app
    await pilot.press("7")
    await wait_for(pilot, lambda: type(app.screen).__name__ == "ControlScreen", what="the Dream screen")
    screen = app.screen
    await wait_for(pilot, lambda: screen.data is not None, what="the first load")
    return screen


def text_of(screen, selector: str) -> str:
    return str(screen.query_one(selector).render())


def toasts(app) -> list[tuple[str, str]]:
    return [(n.title, n.message) for n in app._notifications]


async def test_the_undreamed_count_follows_appends_while_the_watcher_is_paused(agent_dir, monkeypatch):
    monkeypatch.setattr(control, "REFRESH_SECONDS", 3600.0)  # only the watcher's events may refresh it
    ws = workspace(agent_dir, min_fragments=1)
    app = make_app(agent_dir, watcher=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_control(pilot)
        await wait_for(pilot, lambda: app.watcher is not None and app.watcher.status().watching is not None,
                       what="watchfiles to start")
        await pilot.press("w")
        await wait_for(pilot, lambda: "paused" in text_of(screen, "#watcher-panel"), what="paused")
        assert "2 fragments" in text_of(screen, "#watcher-panel")
        append_fragment(ws, "coffee", "Switched to decaf after 3 pm.", event_id=uuid_at(TODAY, 3))
        await wait_for(pilot, lambda: "3 fragments" in text_of(screen, "#watcher-panel"), what="the new count")
        await wait_for(pilot, lambda: app.counts.get("undreamed") == 3 and "3 undreamed" in app.screen.query_one(TabBar).render().plain,
                       what="the tab bar's count")
        assert not (agent_dir / "memory/meta/receipts").exists()  # paused: nothing dreamed


async def test_last_run_shows_a_dream_commit_that_has_no_receipt(agent_dir):
    workspace(agent_dir)
    commit_memory(agent_dir, "dream: 2 fragments 🌙", Trailers("typeclaw", "auto", "schedule"))
    when = datetime.fromisoformat(git(agent_dir, "log", "-1", "--format=%aI").strip()).astimezone()
    async with make_app(agent_dir, watcher=False).run_test(size=SIZE) as pilot:
        screen = await open_control(pilot)
        panel = text_of(screen, "#watcher-panel")
        assert "never" not in panel
        assert f"last run   {when:%Y-%m-%d %H:%M} (dream commit by typeclaw)" in panel


async def test_the_event_log_keeps_the_kind_apart_from_its_message(agent_dir):
    workspace(agent_dir)
    app = make_app(agent_dir, watcher=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_control(pilot)
        app._on_watch_event(WatchEvent("run-start", "dream started (watch, dreamer offline)", at=datetime(2026, 5, 22, 9)))
        shown = text_of(screen, "#events")
        assert "09:00:00 run-start dream started (watch, dreamer offline)" in shown
        assert "run-startdream" not in shown


async def test_a_skipped_dream_is_announced_as_skipped_not_finished(agent_dir):
    workspace(agent_dir)
    (agent_dir / "memory/streams" / f"{TODAY}.jsonl").unlink()  # nothing to dream
    app = make_app(agent_dir, watcher=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_control(pilot)
        await pilot.press("d")
        await wait_for(pilot, lambda: any(t == "Dream skipped" for t, _ in toasts(app)), what="the toast")
        await settle(app, pilot)
        assert not any(t == "Dream finished" for t, _ in toasts(app))
        assert ("Dream skipped", "no undreamed fragments since last run; skipping") in toasts(app)


async def test_a_dry_run_never_points_to_a_reflection_it_did_not_create(agent_dir):
    workspace(agent_dir)  # review "all": a real dream would hold its changes in r-1
    head = git(agent_dir, "rev-parse", "HEAD")
    app = make_app(agent_dir, watcher=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_control(pilot)
        app.action_dream_now(True)  # the palette's "Dream dry run"
        await wait_for(pilot, lambda: any(t == "Dry run" and "would" in m for t, m in toasts(app)), what="the toast")
        await settle(app, pilot)
        message = next(m for t, m in toasts(app) if t == "Dry run" and "would" in m)
        assert "r-1" not in message and "screen 2" not in message
        assert "would apply 0 changes and hold 2 for review" in message
    assert git(agent_dir, "rev-parse", "HEAD") == head
    assert not (agent_dir / "memory/meta/reflections").exists()


async def test_the_last_runs_folded_duplicates_are_listed_with_the_citation_each_repeats(agent_dir):
    from dreamdeck.core.dreaming.run import run_dream

    write_stream(agent_dir, TODAY, [
        fragment_line(TODAY, 1, "heartbeat", "heartbeat: ok"),
        fragment_line(TODAY, 2, "heartbeat", "heartbeat: ok"),
        fragment_line(TODAY, 3, "editor", "Dana prefers tabs over spaces in Go files."),
    ])
    ws = Workspace.open(agent_dir, today=TODAY)
    receipt = run_dream(ws, dreamer_name="offline", review="none")
    assert receipt.folded == {f"{TODAY}#{uuid_at(TODAY, 2)}": f"{TODAY}#{uuid_at(TODAY, 1)}"}
    async with make_app(agent_dir, watcher=False).run_test(size=(80, 24)) as pilot:
        await pilot.press("7")
        await wait_for(pilot, lambda: pilot.app.current_mode == "control", what="the Dream screen")
        screen = pilot.app.screen
        await wait_for(pilot, lambda: screen.query_one("#folded").display, what="the folded list")
        shown = str(screen.query_one("#folded-text").render())
        assert f"Folded duplicates in {receipt.id} (1)" in shown
        assert f"streams/{TODAY}#{uuid_at(TODAY, 2)} “heartbeat: ok”" in shown
        assert f"= duplicate of streams/{TODAY}#{uuid_at(TODAY, 1)}" in shown
        await pilot.press("tab")
        assert screen.focused.id == "folded"


async def test_last_dreams_counts_what_a_partial_approval_applied_not_only_what_the_dream_applied(ws, agent_dir):
    from dreamdeck.core.ops.reflections import approve
    from dreamdeck.core.store.reflections import load_reflection
    from tests.tui.test_reflections_screen import pending

    pending(ws, agent_dir)  # a dream under review = all: two files held in r-1, none applied by itself
    r = load_reflection(ws, "r-1")
    n_hunk = next(h.id for f, d in r.hunks() for h in d.hunks if f.path == "topics/n.md")
    approve(ws, "r-1", hunks=[n_hunk], actor="human:tester")  # one of the two files, the other still waits
    async with make_app(agent_dir, watcher=False).run_test(size=SIZE) as pilot:
        screen = await open_control(pilot)
        row = screen.query_one("#receipts").source.row(0)
        assert (row["status"], row["applied"], row["reflection"]) == ("pending", 1, "r-1")
    approve(ws, "r-1", actor="human:tester")  # the rest: the reflection is decided, nothing waits
    async with make_app(agent_dir, watcher=False).run_test(size=SIZE) as pilot:
        screen = await open_control(pilot)
        row = screen.query_one("#receipts").source.row(0)
        assert (row["applied"], row["reflection"]) == (2, "r-1 ✓")
