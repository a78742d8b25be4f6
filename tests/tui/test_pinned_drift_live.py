"""A pinned topic changed outside dreamdeck while the app runs is a live alert: a toast and a badge
on the Vault tab at once; `r` on Vault shows the diff (vault copy → topics/ copy) and restores
from the vault or accepts, through the core verbs. Asserted on the files, git and the screen."""
from __future__ import annotations

from pathlib import Path

import pytest

from dreamdeck.core.ops.vault import pin_topic
from dreamdeck.core.workspace import Workspace
from tests.support.git import git
from tests.support.memory import cite, commit_all, fragment_line, shard_text, write_shard, write_stream
from tests.support.waits import settle, wait_for

D = "2026-05-22"
SIZE = (120, 36)


def pinned_workspace(agent_dir: Path) -> bytes:
    write_stream(agent_dir, D, [fragment_line(D, 1, "deploys", "Deploys go out on Tuesdays.")])
    write_shard(agent_dir, "deploys", shard_text("Deploys go out on Tuesdays", [cite(D, 1)]))
    commit_all(agent_dir)
    pin_topic(Workspace.open(agent_dir, today=D), "deploys", actor="human:dana")
    return (agent_dir / "memory/vault/deploys.md").read_bytes()


def make_app(agent_dir: Path):
    from dreamdeck.tui.app import DreamdeckApp
    from dreamdeck.tui.config import UserConfig

    return DreamdeckApp(Workspace.open(agent_dir, today=D), watcher=False, user_config=UserConfig())


def edit_outside(agent_dir: Path) -> bytes:
    """What TypeClaw's own dream (or an editor) does: rewrite the topics/ copy, no dreamdeck commit."""
    path = agent_dir / "memory/topics/deploys.md"
    changed = path.read_text(encoding="utf-8").replace("Deploys go out on Tuesdays", "Deploys go out on Fridays")
    path.write_text(changed, encoding="utf-8")
    return changed.encode("utf-8")


async def live_alert(pilot, agent_dir: Path) -> bytes:
    app = pilot.app
    await wait_for(pilot, lambda: getattr(app, "drift_watch", None) is not None and app.drift_watch.ready.is_set(),
                   what="the pinned-topic watch")
    await wait_for(pilot, lambda: "vault" in app.counts, what="the first counts")
    assert app.counts["vault"] == 0
    changed = edit_outside(agent_dir)
    await wait_for(pilot, lambda: any(n.title == "Pinned topic changed" for n in app._notifications), what="the toast")
    toast = next(n for n in app._notifications if n.title == "Pinned topic changed")
    assert "memory/topics/deploys.md (uncommitted)" in toast.message and "Vault (4)" in toast.message
    await wait_for(pilot, lambda: app.counts.get("vault") == 1, what="the Vault badge")
    await pilot.press("4")
    await wait_for(pilot, lambda: type(app.screen).__name__ == "VaultScreen", what="the Vault screen")
    await wait_for(pilot, lambda: (app.screen.query_one("#vault").current_row() or {}).get("drift"),
                   what="the drifted row")
    await settle(app, pilot)
    await pilot.press("r")
    await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmModal", what="the review")
    shown = str(app.screen.query_one("#drift-diff").content)
    assert "--- memory/vault/deploys.md" in shown and "+++ memory/topics/deploys.md" in shown
    assert "-heading: Deploys go out on Tuesdays" in shown and "+heading: Deploys go out on Fridays" in shown
    return changed


async def test_a_pinned_topic_edited_on_disk_while_the_app_runs_is_restored_from_the_vault(agent_dir):
    pinned = pinned_workspace(agent_dir)
    async with make_app(agent_dir).run_test(size=SIZE) as pilot:
        app = pilot.app
        await live_alert(pilot, agent_dir)
        await pilot.press("r")  # restore from the vault
        await wait_for(pilot, lambda: (agent_dir / "memory/topics/deploys.md").read_bytes() == pinned,
                       what="the vault copy back in topics/")
        await wait_for(pilot, lambda: app.counts.get("vault") == 0, what="the badge to go")
    assert git(agent_dir, "log", "-1", "--format=%s").strip() == "memory: restore deploys from the vault"
    assert (agent_dir / "memory/vault/deploys.md").read_bytes() == pinned


async def test_accepting_the_outside_change_takes_it_into_the_vault(agent_dir):
    pinned_workspace(agent_dir)
    async with make_app(agent_dir).run_test(size=SIZE) as pilot:
        app = pilot.app
        changed = await live_alert(pilot, agent_dir)
        await pilot.press("y")  # accept
        await wait_for(pilot, lambda: (agent_dir / "memory/vault/deploys.md").read_bytes() == changed,
                       what="the changed topic in the vault")
        await wait_for(pilot, lambda: app.counts.get("vault") == 0, what="the badge to go")
    assert git(agent_dir, "log", "-1", "--format=%s").strip() == "memory: pin deploys"
    assert (agent_dir / "memory/topics/deploys.md").read_bytes() == changed


async def test_leaving_it_pending_changes_nothing(agent_dir):
    pinned = pinned_workspace(agent_dir)
    head = git(agent_dir, "rev-parse", "HEAD")
    async with make_app(agent_dir).run_test(size=SIZE) as pilot:
        changed = await live_alert(pilot, agent_dir)
        await pilot.press("n")
        await settle(pilot.app, pilot)
        assert type(pilot.app.screen).__name__ == "VaultScreen"
    assert git(agent_dir, "rev-parse", "HEAD") == head
    assert (agent_dir / "memory/vault/deploys.md").read_bytes() == pinned
    assert (agent_dir / "memory/topics/deploys.md").read_bytes() == changed


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_reviewing_a_pinned_topic_changed_outside(snap_compare, agent_dir, utc, size):
    pinned_workspace(agent_dir)
    edit_outside(agent_dir)  # before the launch: the badge says it, the row is flagged

    async def run_before(pilot):
        app = pilot.app
        await wait_for(pilot, lambda: app.counts.get("vault") == 1, what="the Vault badge")
        await pilot.press("4")
        await wait_for(pilot, lambda: (app.screen.query_one("#vault").current_row() or {}).get("drift")
                       if type(app.screen).__name__ == "VaultScreen" else False, what="the drifted row")
        await settle(app, pilot)
        await pilot.press("r")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmModal", what="the review")
        await pilot.pause()

    assert snap_compare(make_app(agent_dir), terminal_size=size, run_before=run_before)
