"""Screen 4, Vault: pinned shards, unpin behind a confirm, checked on disk and in git."""
from __future__ import annotations

from pathlib import Path

from dreamdeck.core.git.commit import Trailers, commit_memory
from dreamdeck.core.ops.vault import pin_topic
from dreamdeck.tui.modals import ConfirmModal
from dreamdeck.tui.widgets.virtual_table import VirtualTable
from tests.support.git import commit_count, git
from tests.support.memory import fragment_line, shard_text, uuid_at, write_shard, write_stream
from tests.support.tui import make_app
from tests.support.waits import on_screen, settle
from tests.tui.apps import vault_app

D = "2026-05-20"


def pinned(ws, slug: str = "package-manager", belief: str = "The user uses pnpm, not bun") -> Path:
    write_stream(ws.root, D, [fragment_line(D, 1, "package manager", "use pnpm, not bun")])
    write_shard(ws.root, slug, shard_text(belief, [f"streams/{D}#{uuid_at(D, 1)}"], today=D))
    commit_memory(ws.root, "seed", Trailers("test", "auto", "seed"))
    pin_topic(ws, slug, actor="human:cli")
    return ws.vault_dir / f"{slug}.md"


def slugs(app) -> list[str]:
    table = app.screen.query_one("#vault", VirtualTable)
    return [str(table.source.row(i)["slug"]) for i in range(table.row_count)]


async def test_unpin_after_confirm_removes_the_vault_copy_in_a_new_commit(ws):
    path = pinned(ws)
    topic_before = (ws.topics_dir / "package-manager.md").read_bytes()
    before = commit_count(ws.root)
    app = make_app(ws, "vault")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        assert slugs(app) == ["package-manager"]
        assert "The user uses pnpm" in str(app.screen.query_one("#vault-text").render())
        await pilot.press("u")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        assert "Unpin package-manager?" in str(app.screen.query_one(".title").render())
        await pilot.press("y")
        await settle(app, pilot)
        assert not path.exists()
        assert (ws.topics_dir / "package-manager.md").read_bytes() == topic_before  # the topic stays
        assert commit_count(ws.root) == before + 1
        msg = git(ws.root, "log", "-1", "--format=%B")
        assert msg.startswith("memory: unpin package-manager")
        assert {"Actor: human:tester", "Approval: approved"} <= set(msg.splitlines())
        assert "memory/vault/package-manager.md" in git(ws.root, "show", "--name-status", "--format=", "HEAD")
        assert slugs(app) == []
        assert not app.screen.check_action("unpin", ())


async def test_cancelling_the_confirm_keeps_the_pin(ws):
    path = pinned(ws)
    data, before = path.read_bytes(), commit_count(ws.root)
    app = make_app(ws, "vault")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("delete")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("n")
        await settle(app, pilot)
        assert not isinstance(app.screen, ConfirmModal)
        assert path.read_bytes() == data and commit_count(ws.root) == before
        assert slugs(app) == ["package-manager"]


async def test_a_topic_typeclaw_rewrote_is_flagged_as_changed_outside_with_its_diff_and_P_repins_it(ws):
    path = pinned(ws)
    write_shard(ws.root, "package-manager", shard_text("The user uses pnpm everywhere", [f"streams/{D}#{uuid_at(D, 1)}"], today=D))
    commit_memory(ws.root, "dream: 0 fragments 🌙", Trailers("typeclaw", "auto", "schedule"))
    app = make_app(ws, "vault")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        row = app.screen.query_one("#vault", VirtualTable).current_row()
        assert row["topic_label"] == "⚠ outside"  # a TypeClaw commit, no dreamdeck Change-Id: pinned drift
        shown = str(app.screen.query_one("#vault-diverged").content)
        assert "changed outside dreamdeck (commit " in shown and "+The user uses pnpm everywhere." in shown
        assert app.screen.check_action("repin", ()) and app.screen.check_action("review_drift", ())
        await pilot.press("P")
        await pilot.pause()
        await pilot.press("y")
        await settle(app, pilot)
        assert path.read_bytes() == (ws.topics_dir / "package-manager.md").read_bytes()
        assert git(ws.root, "log", "-1", "--format=%s").strip() == "memory: pin package-manager"
        assert app.screen.query_one("#vault", VirtualTable).current_row()["topic"] == "same"
        assert not app.screen.check_action("repin", ())


async def test_an_empty_vault_says_how_to_pin(ws):
    app = make_app(ws, "vault")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        assert "press p on a topic" in app.screen.query_one("#vault", VirtualTable).empty_message
        assert "dreamdeck pin SLUG" in str(app.screen.query_one("#vault-text").render())
        keys = {b.binding.id for b in app.screen.active_bindings.values()}
        assert "vault.unpin" not in keys and "vault.repin" not in keys


def test_snapshot_vault_with_a_diverged_topic(snap_compare, tmp_path):
    assert snap_compare(vault_app.snapshot_app(parent=tmp_path), terminal_size=(140, 40), run_before=on_screen())


def test_snapshot_vault_unpin_confirm(snap_compare, tmp_path):
    assert snap_compare(vault_app.snapshot_app(parent=tmp_path), terminal_size=(140, 40), run_before=on_screen("j", "u"))


def test_snapshot_vault_empty(snap_compare, tmp_path):
    assert snap_compare(vault_app.snapshot_app(empty=True, parent=tmp_path), terminal_size=(140, 40), run_before=on_screen())
