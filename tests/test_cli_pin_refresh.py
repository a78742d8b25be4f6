"""`dreamdeck pin SLUG --refresh`: the Vault screen's re-pin (`R`) from the command line — a pinned
topic that changed since takes the topic's current version into the vault."""
from __future__ import annotations

from functools import partial

from dreamdeck.core.git.runner import head
from dreamdeck.core.ops.edit import edit_shard
from dreamdeck.core.ops.vault import pin_topic
from tests.support.git import git
from tests.support.memory import commit_all, fragment_line, shard_text, uuid_at, write_shard, write_stream
from tests.support.processes import run_cli

D = "2026-05-20"


run = partial(run_cli, check=False)


def test_pin_refresh_takes_the_changed_topic_into_the_vault_and_plain_pin_refuses(ws):
    write_stream(ws.root, D, [fragment_line(D, 1, "pnpm", "use pnpm")])
    write_shard(ws.root, "pnpm", shard_text("The user uses pnpm", [f"streams/{D}#{uuid_at(D, 1)}"]))
    commit_all(ws.root)
    pin_topic(ws, "pnpm", actor="human:tester")
    text = (ws.topics_dir / "pnpm.md").read_text()
    edit_shard(ws, "pnpm", text.replace("The user uses pnpm.", "The user uses pnpm only."), actor="human:tester")
    before = head(ws.root)

    plain = run(ws.root, "pin", "pnpm")
    assert plain.returncode == 1 and "already pinned and the topic has changed since" in plain.stderr
    assert head(ws.root) == before

    out = run(ws.root, "pin", "pnpm", "--refresh", "--actor", "human:tester")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("re-pinned pnpm (memory/vault/pnpm.md) → commit ")
    assert (ws.vault_dir / "pnpm.md").read_bytes() == (ws.topics_dir / "pnpm.md").read_bytes()
    assert "Actor: human:tester" in git(ws.root, "log", "-1", "--format=%B").splitlines()

    fragment = run(ws.root, "pin", f"{D}#{uuid_at(D, 1)}", "--refresh")
    assert (fragment.returncode, fragment.stderr.strip()) == (
        2, "dreamdeck: --refresh applies to topics (SLUG); a pinned fragment never changes")


def test_pin_of_a_topic_already_pinned_says_so_and_commits_nothing(ws):
    write_stream(ws.root, D, [fragment_line(D, 1, "pnpm", "use pnpm")])
    write_shard(ws.root, "pnpm", shard_text("The user uses pnpm", [f"streams/{D}#{uuid_at(D, 1)}"]))
    commit_all(ws.root)
    first = run(ws.root, "pin", "pnpm")
    assert first.returncode == 0 and first.stdout.startswith("pinned pnpm → commit "), first.stderr
    before = head(ws.root)

    again = run(ws.root, "pin", "pnpm")

    assert (again.returncode, again.stdout.strip()) == (0, "pnpm is already pinned (the vault copy is identical)")
    assert head(ws.root) == before
