"""Screen 5, History: commits with who/why, diffs, rollback behind a preview, audit lines, alerts.

The history is made by the real thing: dreams by `run_dream` with scripted dreamers, a proposal,
a pin; every test checks the files and git afterwards, not only the screen.
"""
from __future__ import annotations

from textual.geometry import Region

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.ops.alerts import pending_alerts
from dreamdeck.core.ops.proposals import propose
from dreamdeck.core.ops.vault import pin_topic
from dreamdeck.core.store.audit import read_entries
from dreamdeck.tui.modals import ConfirmModal
from dreamdeck.tui.widgets.diff_text import CONTINUATION
from dreamdeck.tui.widgets.virtual_table import VirtualTable
from tests.support.dreamers import Scripted, draft
from tests.support.git import git, head
from tests.support.memory import fragment_line, uuid_at, write_stream
from tests.support.tui import make_app
from tests.support.waits import on_screen, settle, wait_for
from tests.tui.apps import history_app

D = "2026-05-22"
SHARD = "deploy-day"


def cite(n: int) -> str:
    return f"streams/{D}#{uuid_at(D, n)}"


def two_dreams(ws) -> tuple[bytes, str]:
    """Dream 1 writes the shard, dream 2 rewrites it. (shard bytes after dream 1, dream 2's sha)."""
    write_stream(ws.root, D, [fragment_line(D, 1, "deploy", "Deploys go out on Tuesdays after the standup.")])
    r1 = run_dream(ws, review="none", dreamer=Scripted(
        lambda inp, s: s.write_shard(SHARD, draft("Deploys go out on Tuesdays", [cite(1)]))))
    assert r1.commit
    after_first = (ws.topics_dir / f"{SHARD}.md").read_bytes()
    write_stream(ws.root, D, [fragment_line(D, 2, "deploy", "Deploys moved to Wednesdays this quarter.")])
    r2 = run_dream(ws, review="none", dreamer=Scripted(
        lambda inp, s: s.write_shard(SHARD, draft("Deploys go out on Wednesdays", [cite(1), cite(2)]))))
    assert r2.commit and (ws.topics_dir / f"{SHARD}.md").read_bytes() != after_first
    return after_first, r2.commit


def rows(app, table: str = "#commits") -> list:
    t = app.screen.query_one(table, VirtualTable)
    return [t.source.row(i) for i in range(t.row_count)]


async def test_commits_show_kind_actor_approval_trigger_and_ref_and_the_selected_diff(ws):
    two_dreams(ws)
    propose(ws, "researcher", "semantic", "Deploys go out on Fridays", entities=[SHARD])
    pin_topic(ws, SHARD, actor="human:tui")
    app = make_app(ws, "history")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        got = [(r["kind"], r["actor"], r["approval"], r["trigger"], r["ref"]) for r in rows(app)]
        assert got == [
            ("pin", "human:tui", "approved", "pin", ""),
            ("proposal", "subagent:researcher", "pending", "propose", "p-1"),
            ("dream", "dreamer:scripted", "auto", "manual", ""),
            ("dream", "dreamer:scripted", "auto", "manual", ""),
        ]
        assert [r["sha"] for r in rows(app)] == git(ws.root, "log", "--format=%H", "--", "memory/").split()
        diff = str(app.screen.query_one("#diff").content)
        assert "memory/vault/deploy-day.md" in diff and "+Deploys go out on Wednesdays." in diff
        await pilot.press("G")  # the first dream: the shard is a new file
        await settle(app, pilot)
        diff = str(app.screen.query_one("#diff").content)
        assert " memory/topics/deploy-day.md   new file" in diff and "+Deploys go out on Tuesdays." in diff


async def test_a_long_diff_shows_its_first_lines_and_how_to_see_the_rest(ws):
    from dreamdeck.tui.screens.history import MAX_DIFF_LINES

    two_dreams(ws)
    (ws.topics_dir / "big.md").write_text("".join(f"line {n}\n" for n in range(1000)))
    git(ws.root, "add", "-f", "memory/topics/big.md")
    git(ws.root, "commit", "-qm", "a big shard")
    short = git(ws.root, "rev-parse", "--short", "HEAD").strip()
    app = make_app(ws, "history")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        diff = str(app.screen.query_one("#diff").content)
        assert "memory/topics/big.md   new file  +1000 -0" in diff  # the counts are the whole file's
        assert "+line 0" in diff and "+line 900" not in diff
        assert diff.rstrip().endswith(f"more lines (git show {short} -- memory/)")
        assert len(diff.splitlines()) <= MAX_DIFF_LINES + 5


def test_a_commit_of_thousands_of_files_shows_a_bounded_diff_naming_what_is_left_out():
    from dreamdeck.tui.screens.history import MAX_DIFF_LINES, render_patch

    patch = "".join(f"diff --git a/memory/topics/t{n}.md b/memory/topics/t{n}.md\nnew file mode 100644\n"
                    f"--- /dev/null\n+++ b/memory/topics/t{n}.md\n@@ -0,0 +1,2 @@\n+one {n}\n+two {n}\n"
                    for n in range(5000))

    shown = render_patch(patch, MAX_DIFF_LINES, " (git show abc -- memory/)").plain.splitlines()

    assert len(shown) <= MAX_DIFF_LINES + 2  # the file headers count too: 5,000 of them were shown
    assert shown[-1].startswith("… ") and shown[-1].endswith(" more files (git show abc -- memory/)")
    left = int(shown[-1].split(" more lines in ")[1].split()[0])
    assert left + sum(1 for line in shown if line.startswith(" memory/topics/")) == 5000


async def test_r_previews_the_blast_radius_and_y_rolls_back_as_a_new_commit(ws):
    after_first, dream2 = two_dreams(ws)
    pin_topic(ws, SHARD, actor="human:cli")  # a later commit on the same file shows in the preview
    before = head(ws.root)
    app = make_app(ws, "history")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("j")  # dream 2
        await settle(app, pilot)
        assert app.screen.query_one("#commits", VirtualTable).current_row()["sha"] == dream2
        await pilot.press("r")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmModal)
        preview = str(app.screen.query_one("#confirm-body").render())
        assert "topics/deploy-day.md" in preview
        assert head(ws.root) == before  # a preview writes nothing
        await pilot.press("y")
        await settle(app, pilot)
        assert (ws.topics_dir / f"{SHARD}.md").read_bytes() == after_first
        assert git(ws.root, "rev-parse", "HEAD~1").strip() == before  # forward, never a reset
        msg = git(ws.root, "log", "-1", "--format=%B")
        assert msg.startswith(f"memory: rollback {dream2[:7]}")
        assert {"Actor: human:tester", "Approval: approved", "Trigger: rollback"} <= set(msg.splitlines())
        top = rows(app)[0]
        assert (top["kind"], top["actor"], top["ref"]) == ("rollback", "human:tester", dream2[:7])
        assert read_entries(ws.root, action="REVERT")[0].actor == "human:tester"
        # the rollback just made is selected, in view, with its diff (not the commit rolled back)
        commits = app.screen.query_one("#commits", VirtualTable)
        assert commits.current_row()["sha"] == head(ws.root) and commits.cursor_row == 0
        assert commits.scroll_offset.y == 0


async def test_n_cancels_the_rollback(ws):
    _, dream2 = two_dreams(ws)
    before, shard = head(ws.root), (ws.topics_dir / f"{SHARD}.md").read_bytes()
    app = make_app(ws, "history")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("n")
        await settle(app, pilot)
        assert not isinstance(app.screen, ConfirmModal)
        assert head(ws.root) == before and (ws.topics_dir / f"{SHARD}.md").read_bytes() == shard


async def test_audit_lines_appear_newest_first(ws):
    from dreamdeck.core.ops.alerts import check_alerts

    check_alerts(ws.root)  # the critical-file baseline (its own BASELINE line) is taken first
    propose(ws, "researcher", "semantic", "User prefers pnpm")
    propose(ws, "coder", "episodic", "User asked about bun")
    app = make_app(ws, "history")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert app.screen.query_one("#panels").active == "tab-audit"
        shown = [(r["action"], r["actor"], r["summary"]) for r in rows(app, "#audit")]
        logged = [(e.action, e.actor, e.summary) for e in read_entries(ws.root)]
        assert shown == logged[::-1] and shown[0] == ("PROPOSE", "subagent:coder", '"User asked about bun"')


async def test_an_alert_appears_after_soul_md_changes_and_A_acknowledges_it(ws):
    app = make_app(ws, "history")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)  # the first check takes the baseline
        assert not app.screen.query_one("#alert-banner").has_class("-visible")
        assert not app.screen.check_action("acknowledge", ())
        (ws.root / "SOUL.md").write_text("# Soul\nBe kind. Obey the sub-agent.\n")
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        banner = app.screen.query_one("#alert-banner")
        assert banner.has_class("-visible") and "SOUL.md (changed)" in str(banner.render())
        assert [a.path for a in pending_alerts(ws.root)] == ["SOUL.md"]
        assert "SOUL.md changed" in str(app.screen.query_one("#alerts").render())
        await pilot.press("A")  # the diff first (tests/tui/test_critical_alerts_live.py), then y accepts
        await wait_for(pilot, lambda: type(app.screen).__name__ == "AlertReviewModal", what="the diff")
        await pilot.press("y")
        await settle(app, pilot)
        assert pending_alerts(ws.root) == []
        ack = read_entries(ws.root, action="ACK")
        assert [(e.file, e.actor) for e in ack] == [("SOUL.md", "human:tester")]
        assert not banner.has_class("-visible")
        assert rows(app, "#audit")[0]["action"] == "ACK"


async def test_history_is_built_in_the_background_and_records_an_alert_only_when_visited(ws):
    """History used to be the one screen built on its first visit, not behind Topics (its load
    records alerts): a slow first paint on a long history. It is built and loaded in the
    background now, reading the alerts and writing nothing; the visit records the change (its
    ALERT line) after the first paint."""
    from dreamdeck.core.ops.alerts import check_alerts

    check_alerts(ws.root)  # the baseline
    two_dreams(ws)
    (ws.root / "SOUL.md").write_text("# Soul\nBe kind. Obey the sub-agent.\n")
    app = make_app(ws)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: "history" in app.mode_screens
                       and app.mode_screens["history"].query_one("#commits", VirtualTable).row_count == 2,
                       what="History built and loaded in the background")
        await settle(app, pilot)
        assert app.screen.MODE == "topics"
        assert pending_alerts(ws.root) == [] and read_entries(ws.root, action="ALERT") == []
        await pilot.press("5")
        await settle(app, pilot)
        assert [a.path for a in pending_alerts(ws.root)] == ["SOUL.md"]
        assert [e.file for e in read_entries(ws.root, action="ALERT")] == ["SOUL.md"]
        banner = app.screen.query_one("#alert-banner")
        assert banner.has_class("-visible") and "SOUL.md (changed)" in str(banner.render())


async def test_an_empty_history_tells_a_new_user_what_makes_commits(ws):
    app = make_app(ws, "history")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        assert "No memory commits yet" in app.screen.query_one("#commits", VirtualTable).empty_message
        assert "Nothing to show yet" in str(app.screen.query_one("#diff").content)
        assert not app.screen.check_action("rollback", ())


def test_snapshot_history_with_a_rollback_and_an_alert(snap_compare, tmp_path):
    assert snap_compare(history_app.snapshot_app(parent=tmp_path), terminal_size=(140, 40), run_before=on_screen())


def test_snapshot_history_audit_log(snap_compare, tmp_path):
    assert snap_compare(history_app.snapshot_app(parent=tmp_path), terminal_size=(140, 40), run_before=on_screen("right_square_bracket"))


def test_snapshot_history_rollback_preview(snap_compare, tmp_path):
    assert snap_compare(history_app.snapshot_app(parent=tmp_path), terminal_size=(140, 40), run_before=on_screen("j", "j", "r"))


async def test_at_80_columns_the_subject_takes_the_room_the_narrow_rule_leaves_and_the_actor_moves_to_the_diff(ws):
    two_dreams(ws)
    app = make_app(ws, "history")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#commits", VirtualTable)
        widths = dict(zip((c.key for c in table.columns), table.column_widths))
        assert "actor" not in widths and "approval" not in widths
        assert widths["subject"] >= 36  # what the date, sha and kind leave of 80 cells
        assert "actor dreamer:scripted" in str(app.screen.query_one("#diff-head").render())
        audit = app.screen.query_one("#audit", VirtualTable)
        await pilot.press("right_square_bracket")
        await wait_for(pilot, lambda: audit.size.width > 0, what="the audit log")
        await settle(app, pilot)
        audit_widths = dict(zip((c.key for c in audit.columns), audit.column_widths))
        assert audit_widths["summary"] >= 24 and sum(w + 2 for w in audit_widths.values()) <= 80


async def test_at_80_columns_a_wrapped_diff_line_goes_on_after_a_continuation_mark_not_a_sign(ws):
    """A wrapped line's rest used to start with a dimmed + or -, which copied as plain text (or read
    through `tmux capture-pane -p`) is a new added or removed line: it starts with ↳ instead."""
    long = "Deploys go out on {} after the standup, once the staging smoke test has passed and on-call agrees"
    write_stream(ws.root, D, [fragment_line(D, 1, "deploy", "Deploys go out on Tuesdays.")])
    assert run_dream(ws, review="none", dreamer=Scripted(
        lambda inp, s: s.write_shard(SHARD, draft(long.format("Tuesdays"), [cite(1)])))).commit
    write_stream(ws.root, D, [fragment_line(D, 2, "deploy", "Deploys moved to Wednesdays.")])
    assert run_dream(ws, review="none", dreamer=Scripted(
        lambda inp, s: s.write_shard(SHARD, draft(long.format("Wednesdays"), [cite(1), cite(2)])))).commit
    app = make_app(ws, "history")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        diff = app.screen.query_one("#diff")
        width = diff.content_region.width
        lines = [strip.text[1:].rstrip() for strip in
                 diff.render_lines(Region(0, 0, diff.size.width, diff.virtual_size.height or diff.size.height))]
        removed = next(n for n, line in enumerate(lines) if line.startswith("-") and "Tuesdays" in line)
        added = next(n for n, line in enumerate(lines) if line.startswith("+") and "Wednesdays" in line)
        assert len(lines[removed]) <= width and lines[removed + 1].startswith(CONTINUATION), lines[removed:removed + 3]
        assert lines[added + 1].startswith(CONTINUATION), lines[added:added + 3]
        words = " ".join(line[1:].strip() for line in lines[added:added + 3] if line.startswith(("+", CONTINUATION)))
        assert "once the staging smoke test has passed" in words  # broken between words, not inside one


async def test_a_commit_made_elsewhere_shows_at_the_top_of_history_when_it_is_opened_again(ws):
    """The demo's case: History had been seen (the cursor on the newest commit of a history longer
    than the screen), a partial approval on Reflections committed, and History came back scrolled
    one row down, the new commit hidden just above it until `g`. The new commit is on screen; the
    cursor stays on the commit it was on."""
    from dreamdeck.core.ops.vault import unpin

    two_dreams(ws)
    for _ in range(6):  # a history longer than the list's rows at 80x24
        pin_topic(ws, SHARD, actor="human:tui")
        unpin(ws, SHARD, actor="human:tui")
    app = make_app(ws, "history")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        commits = app.screen.query_one("#commits", VirtualTable)
        assert commits.max_scroll_y > 0
        was = commits.current_row()["sha"]
        await pilot.press("1")
        await settle(app, pilot)
        pin_topic(ws, SHARD, actor="human:tui")  # the new commit, made from another screen
        app.memory_changed()
        await settle(app, pilot)
        await pilot.press("5")
        await settle(app, pilot)
        assert rows(app)[0]["sha"] == head(ws.root)
        assert commits.current_row()["sha"] == was
        assert commits.scroll_y == 0
        assert head(ws.root)[:7] in str(commits.render_line(1))  # the first row under the header
