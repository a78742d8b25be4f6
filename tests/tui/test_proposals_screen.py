"""Screen 3, Proposals: each key is one core call, checked on pending-memories.md and in git."""
from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from textual.widgets import Input

from dreamdeck.core.ops.proposals import propose
from dreamdeck.core.store.proposals_file import read_pending
from dreamdeck.tui.modals import ReasonModal
from dreamdeck.tui.widgets.virtual_table import VirtualTable
from tests.support.git import commit_count, git
from tests.support.tui import make_app
from tests.support.waits import on_screen, settle
from tests.tui.apps import proposals_app

NOW = datetime(2026, 5, 22, 10, 0, tzinfo=UTC)


async def open_proposals(ws):
    return make_app(ws, "proposals")


def status(ws, number: int) -> str:
    p = read_pending(ws.root).get(number)
    assert p is not None
    return p.status


def head_message(root: Path) -> str:
    return git(root, "log", "-1", "--format=%B")


def table_ids(app) -> list[str]:
    table = app.screen.query_one("#proposals", VirtualTable)
    return [str(table.source.row(i)["id"]) for i in range(table.row_count)]


async def test_proposals_are_grouped_by_agent_with_store_confidence_and_age(ws):
    propose(ws, "researcher", "semantic", "User prefers academic sources", confidence="high", now=NOW)
    propose(ws, "coder", "episodic", "User asked for a flame graph", confidence="low",
            now=datetime(2026, 5, 19, 9, 0, tzinfo=UTC))
    propose(ws, "researcher", "procedural", "Cite the RFC number in every summary", now=NOW)
    app = await open_proposals(ws)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#proposals", VirtualTable)
        rows = [table.source.row(i) for i in range(table.row_count)]
        assert [(r["group"], r["id"], r["store"], r["confidence"], r["age"]) for r in rows] == [
            ("coder (1)", "p-2", "episodic", "low", "3d"),
            ("researcher (2)", "p-1", "semantic", "high", "0d"),
            ("", "p-3", "procedural", "medium", "0d"),
        ]
        assert "p-2 from coder" in str(app.screen.query_one("#proposal-title").render())

        await pilot.press("slash")
        app.screen.query_one("#filter", Input).value = "research"
        await pilot.pause()
        assert table_ids(app) == ["p-1", "p-3"]
        assert table.source.row(0)["group"] == "researcher (2)"
        await pilot.press("escape")
        await pilot.pause()
        assert table_ids(app) == ["p-2", "p-1", "p-3"] and app.focused is table


async def test_c_commits_the_proposal_into_memory_in_one_commit_with_trailers(ws):
    propose(ws, "researcher", "semantic", "User prefers academic sources over blog posts",
            entities=["preference--source-quality"], now=NOW)
    before = commit_count(ws.root)
    app = await open_proposals(ws)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("c")
        await settle(app, pilot)
        assert status(ws, 1) == "committed"
        shard = ws.topics_dir / "preference-source-quality.md"
        assert "User prefers academic sources over blog posts." in shard.read_text()
        assert commit_count(ws.root) == before + 1
        msg = head_message(ws.root)
        assert msg.startswith("memory: commit proposal p-1 from researcher (approved by human:tester)")
        for trailer in ("Actor: bot:commit-from:researcher", "Approval: approved", "Proposal: p-1"):
            assert trailer in msg.splitlines()
        assert table_ids(app) == []  # decided: it leaves the inbox
        assert not app.screen.check_action("commit", ())


async def test_x_asks_for_a_reason_and_rejects_with_it(ws):
    propose(ws, "coder", "semantic", "The staging database is shared with QA", now=NOW)
    before = commit_count(ws.root)
    app = await open_proposals(ws)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ReasonModal)
        await pilot.press("enter")  # an empty reason is not accepted
        await pilot.pause()
        assert isinstance(app.screen, ReasonModal)
        await pilot.press("escape")  # cancel: nothing happens
        await settle(app, pilot)
        assert status(ws, 1) == "pending" and commit_count(ws.root) == before

        await pilot.press("x")
        await pilot.pause()
        app.screen.query_one("#reason", Input).value = "QA has its own DB now"
        await pilot.press("enter")
        await settle(app, pilot)
        p = read_pending(ws.root).get(1)
        assert (p.status, p.reason) == ("rejected", "QA has its own DB now")
        assert commit_count(ws.root) == before + 1
        msg = head_message(ws.root)
        assert msg.startswith("memory: reject proposal p-1")
        assert {"Actor: human:tester", "Approval: rejected", "Proposal: p-1"} <= set(msg.splitlines())
        assert not (ws.topics_dir / "staging-database.md").exists()


async def test_d_defers_and_the_proposal_stays_open(ws):
    propose(ws, "planner", "procedural", "Run the linter before every commit", now=NOW)
    before = commit_count(ws.root)
    app = await open_proposals(ws)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("d")
        await settle(app, pilot)
        assert status(ws, 1) == "deferred"
        assert commit_count(ws.root) == before + 1
        assert {"Actor: human:tester", "Approval: pending"} <= set(head_message(ws.root).splitlines())
        assert table_ids(app) == ["p-1"]
        assert app.screen.check_action("defer", ()) is None  # already deferred: greyed out
        assert app.screen.check_action("commit", ()) is True


async def test_a_conflict_pair_is_shown_side_by_side_and_committing_one_rejects_the_other(ws):
    propose(ws, "researcher", "semantic", "Project deadline is March 15", entities=["project--deadline"], now=NOW)
    propose(ws, "coder", "semantic", "Project deadline is March 30", entities=["project--deadline"], now=NOW)
    app = await open_proposals(ws)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        assert table_ids(app) == ["p-2", "p-1"]  # coder before researcher
        screen = app.screen
        conflict = screen.query_one("#conflict")
        assert conflict.has_class("-visible") and conflict.display
        assert "⚠ CONFLICT" in str(screen.query_one("#conflict-label").render())
        assert "March 30" in str(screen.query_one("#side-this-body").render())
        assert "March 15" in str(screen.query_one("#side-other-body").render())
        this, other = screen.query_one("#side-this"), screen.query_one("#side-other")
        assert this.region.y == other.region.y and this.region.x < other.region.x  # side by side

        await pilot.press("j")  # p-1: the same pair, the other way round
        await pilot.pause()
        assert "March 15" in str(screen.query_one("#side-this-body").render())
        await pilot.press("c")
        await settle(app, pilot)
        assert status(ws, 1) == "committed" and status(ws, 2) == "rejected"
        assert read_pending(ws.root).get(2).reason == "conflict resolved in favour of #1"
        assert table_ids(app) == []
        assert not screen.query_one("#conflict").has_class("-visible")


async def test_show_decided_lists_decided_proposals_too(ws):
    from dreamdeck.core.ops.proposals import reject_proposal

    propose(ws, "coder", "semantic", "User prefers tabs", now=NOW)
    reject_proposal(ws, "p-1", reason="spaces", now=NOW)
    app = await open_proposals(ws)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        assert table_ids(app) == []
        await pilot.press("a")
        await settle(app, pilot)
        assert table_ids(app) == ["p-1"]
        assert not app.screen.check_action("reject", ())
        assert "spaces" in str(app.screen.query_one("#proposal-extra").render())


async def test_an_empty_inbox_tells_a_new_user_how_proposals_arrive(ws):
    app = await open_proposals(ws)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#proposals", VirtualTable)
        assert table.row_count == 0 and "dreamdeck propose" in table.empty_message
        assert "dreamdeck propose" in str(app.screen.query_one("#proposal-content").render())
        for action in ("commit", "reject", "defer"):
            assert not app.screen.check_action(action, ())
        keys = {b.binding.id for b in app.screen.active_bindings.values()}
        assert not {"proposals.commit", "proposals.reject", "proposals.defer"} & keys  # hidden from the footer
        assert {"proposals.filter", "proposals.toggle_decided", "screen.help"} <= keys


def test_snapshot_proposals_with_a_conflict(snap_compare, tmp_path):
    assert snap_compare(proposals_app.snapshot_app(parent=tmp_path), terminal_size=(140, 40), run_before=on_screen())


def test_snapshot_proposals_conflicting_with_a_topic(snap_compare, tmp_path):
    assert snap_compare(proposals_app.snapshot_app(parent=tmp_path), terminal_size=(140, 40), run_before=on_screen("j"))


def test_snapshot_proposals_empty(snap_compare, tmp_path):
    assert snap_compare(proposals_app.snapshot_app(empty=True, parent=tmp_path), terminal_size=(140, 40), run_before=on_screen())


async def test_at_80x24_a_conflict_shows_both_proposals_whole(ws):
    propose(ws, "release-bot", "semantic", "The weekly release cut is at 14:00 CET on Thursdays from next sprint",
            entities=["release--cut"], confidence="high", now=NOW)
    propose(ws, "planner", "semantic", "The weekly release cut is at 16:00 CET, after the Thursday planning",
            entities=["release--cut"], now=NOW)
    app = await open_proposals(ws)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert screen.query_one("#conflict").display
        for side, words in (("this", "16:00 CET, after the Thursday planning"),
                            ("other", "14:00 CET on Thursdays from next sprint")):
            pane, body = screen.query_one(f"#side-{side}"), screen.query_one(f"#side-{side}-body")
            assert pane.max_scroll_y == 0, f"{side}: the person has to scroll a box to read it"
            assert body.region.height >= 2 and pane.region.contains_region(body.region)
            assert words in " ".join(str(body.render()).split())
