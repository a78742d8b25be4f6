"""The Topics screen over six shards (snapshot tests; a manual look: python -m tests.tui.apps.topics_app).

Deterministic: a fixed today, fixed fragment ids (tests.support.memory.uuid_at) and git dates pinned
through the environment. The shards span every tier and status, one is pinned and one cannot be parsed.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from tests.support.git import git_dates
from tests.support.memory import cite, fragment_line, shard_text, write_shard, write_stream
from tests.support.tui import make_app
from tests.tui.apps.proposals_app import TODAY, pinned_agent_folder

DAYS = ["2026-05-12", "2026-05-14", "2026-05-16", "2026-05-18", "2026-05-19", "2026-05-20", "2026-05-21"]

# day -> [(n, topic, body)]
FRAGMENTS = {
    "2026-03-02": [(1, "editor", "User opened the repo in Helix and asked for its config.")],
    "2026-01-10": [(1, "tabs", "User prefers tabs over spaces in Makefiles.")],
    "2026-05-12": [(1, "package manager", "User said: use pnpm, not bun, in this repo.")],
    "2026-05-14": [(1, "package manager", "pnpm install again after the lockfile changed.")],
    "2026-05-16": [(1, "package manager", "User corrected a bun command to pnpm.")],
    "2026-05-18": [(1, "package manager", "pnpm dlx used for a one-off script."),
                   (2, "deploy", "Deploys go out on Tuesdays after the standup.")],
    "2026-05-19": [(1, "package manager", "User asked why bun was still in the README; it should say pnpm.")],
    "2026-05-20": [(1, "package manager", "pnpm workspaces configured for the monorepo."),
                   (2, "deploy", "Deploys moved to Wednesdays this quarter."),
                   (3, "secrets", "Never paste production credentials into chat. Use the vault CLI.")],
    "2026-05-21": [(1, "package manager", "The user ran pnpm audit before a release."),
                   (2, "deploy", "Wednesday deploy went out at 14:00.")],
}


def build_topics(root: Path) -> None:
    from dreamdeck.core.git.commit import Trailers, commit_memory
    from dreamdeck.core.ops.vault import pin_topic
    from dreamdeck.core.workspace import Workspace

    for day, frags in sorted(FRAGMENTS.items()):
        write_stream(root, day, [fragment_line(day, n, topic, body) for n, topic, body in frags])
    write_shard(root, "package-manager", shard_text(
        "The user always uses pnpm, not bun", [cite(d, 1) for d in DAYS], today=TODAY))
    write_shard(root, "deploy-day", shard_text(
        "Deploys go out on Wednesdays", [cite("2026-05-20", 2), cite("2026-05-21", 2)],
        superseded=[cite("2026-05-18", 2)], tags=["ops"], today=TODAY))
    write_shard(root, "secrets", shard_text(
        "Never paste production credentials into chat", [cite("2026-05-20", 3)], today=TODAY))
    write_shard(root, "editor", shard_text("The user edits with Helix", [cite("2026-03-02", 1)], today=TODAY))
    write_shard(root, "tabs", shard_text("The user prefers tabs in Makefiles", [cite("2026-01-10", 1)], today=TODAY))
    write_shard(root, "loose-note", "A loose note without frontmatter.\n\nfragments:\n"
                f"- {cite('2026-05-18', 2)}\n")
    with git_dates("2026-05-21T09:00:00+00:00"):
        commit_memory(root, "seed", Trailers("test", "auto", "seed"))
    with git_dates("2026-05-21T10:00:00+00:00"):
        pin_topic(Workspace.open(root, today=TODAY), "secrets", actor="human:cli")


def snapshot_app(empty: bool = False, parent: Path | None = None):
    from dreamdeck.core.workspace import Workspace

    root = pinned_agent_folder(parent or Path(tempfile.mkdtemp(prefix="dd-topics-")))
    if not empty:
        build_topics(root)
    return make_app(Workspace.open(root, today=TODAY))


if __name__ == "__main__":
    snapshot_app(empty="--empty" in sys.argv).run()
