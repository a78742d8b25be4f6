"""The Vault screen over three pins (snapshot tests; a manual look: python -m tests.tui.apps.vault_app).

Deterministic: a fixed today, fixed fragment ids, and git dates pinned through the environment
(the pinned column comes from the commit that added each vault file).
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from tests.support.git import git_dates
from tests.support.memory import fragment_line, shard_text, uuid_at, write_shard, write_stream
from tests.support.tui import make_app
from tests.tui.apps.proposals_app import TODAY, pinned_agent_folder

D = "2026-05-20"


def build_vault(root: Path) -> None:
    """pnpm and deploy pinned (deploy's topic has moved on since), one fragment pinned."""
    from dreamdeck.core.git.commit import Trailers, commit_memory
    from dreamdeck.core.ops.vault import pin_fragment, pin_topic
    from dreamdeck.core.workspace import Workspace

    ws = Workspace.open(root, today=TODAY)
    write_stream(root, D, [
        fragment_line(D, 1, "package manager", "User said: use pnpm, not bun, in this repo."),
        fragment_line(D, 2, "deploy", "Deploys go out on Tuesdays after the standup."),
        fragment_line(D, 3, "secrets", "Never paste production credentials into chat. Use the vault CLI."),
        fragment_line(D, 4, "deploy", "Deploys moved to Wednesdays this quarter."),
    ])
    c = lambda n: f"streams/{D}#{uuid_at(D, n)}"  # noqa: E731
    write_shard(root, "package-manager", shard_text("The user uses pnpm, not bun", [c(1)], today=D))
    write_shard(root, "deploy-day", shard_text("Deploys go out on Tuesdays", [c(2)], today=D))
    with git_dates("2026-05-20T09:00:00+00:00"):
        commit_memory(root, "seed", Trailers("test", "auto", "seed"))
    with git_dates("2026-05-20T10:00:00+00:00"):
        pin_topic(ws, "package-manager", actor="human:cli")
    with git_dates("2026-05-21T10:00:00+00:00"):
        pin_topic(ws, "deploy-day", actor="human:cli")
        pin_fragment(ws, D, uuid_at(D, 3), actor="human:cli")
    write_shard(root, "deploy-day", shard_text("Deploys go out on Wednesdays", [c(2), c(4)], superseded=[], today=D))
    with git_dates("2026-05-21T12:00:00+00:00"):
        # dreamdeck's own dream (its Change-Id): the topic moved on, not pinned drift from outside
        commit_memory(root, "dream: 1 fragment 🌙", Trailers("dreamer:offline", "auto", "schedule",
                                                           change="c-vault-scene"))


def snapshot_app(empty: bool = False, parent: Path | None = None):
    from dreamdeck.core.workspace import Workspace

    root = pinned_agent_folder(parent or Path(tempfile.mkdtemp(prefix="dd-vault-")))
    if not empty:
        build_vault(root)
    return make_app(Workspace.open(root, today=TODAY), "vault")


if __name__ == "__main__":
    snapshot_app(empty="--empty" in sys.argv).run()
