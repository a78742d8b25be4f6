"""The History screen over a short memory history (snapshot tests; a manual look:
python -m tests.tui.apps.history_app).

Deterministic down to the shas: git dates are pinned through the environment, every audit line is
written at a fixed time (the door's clock is frozen while building), and the dream commits are
TypeClaw's own (`dream: N fragments 🌙`, committed as TypeClaw commits them), so no random receipt
id or emoji reaches a commit.
"""
from __future__ import annotations

import sys
import tempfile
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from tests.support.git import git_dates
from tests.support.memory import fragment_line, shard_text, uuid_at, write_shard, write_stream
from tests.support.tui import make_app
from tests.tui.apps.proposals_app import TODAY, pinned_agent_folder

D = "2026-05-18"


@contextmanager
def frozen(stamp: str):
    """Git dates and the door's clock (audit lines) both at `stamp`."""
    from dreamdeck.core.door import apply

    when = datetime.fromisoformat(stamp)

    class Frozen(datetime):
        @classmethod
        def now(cls, tz=None):  # noqa: D102
            return when.astimezone(tz) if tz else when.replace(tzinfo=None)

    saved = apply.datetime
    apply.datetime = Frozen  # type: ignore[misc]
    try:
        with git_dates(stamp):
            yield when
    finally:
        apply.datetime = saved  # type: ignore[misc]


def build_history(root: Path) -> dict[str, str]:
    """Six memory commits (two dreams, a proposal and its rejection, a pin, a rollback of the
    second dream) and one pending SOUL.md alert. Returns the shas by name."""
    from dreamdeck.core.git.commit import Trailers, commit_memory
    from dreamdeck.core.git.runner import head
    from dreamdeck.core.ops.alerts import check_alerts
    from dreamdeck.core.ops.proposals import propose, reject_proposal
    from dreamdeck.core.ops.rollback import rollback
    from dreamdeck.core.ops.vault import pin_topic
    from dreamdeck.core.workspace import Workspace

    ws = Workspace.open(root, today=TODAY)
    c = lambda n: f"streams/{D}#{uuid_at(D, n)}"  # noqa: E731
    shas: dict[str, str] = {}
    with frozen("2026-05-18T23:00:00+00:00") as now:
        write_stream(root, D, [
            fragment_line(D, 1, "package manager", "User said: use pnpm, not bun, in this repo."),
            fragment_line(D, 2, "deploy", "Deploys go out on Tuesdays after the standup."),
        ])
        write_shard(root, "package-manager", shard_text("The user uses pnpm, not bun", [c(1)], today=D))
        write_shard(root, "deploy-day", shard_text("Deploys go out on Tuesdays", [c(2)], today=D))
        check_alerts(root, now=now)  # the first check takes the baseline
        shas["dream1"] = commit_memory(root, "dream: 2 fragments 🌙", Trailers("typeclaw", "auto", "schedule"))
    with frozen("2026-05-19T10:00:00+00:00") as now:
        propose(ws, "researcher", "semantic", "Deploys go out on Fridays", entities=["deploy-day"], now=now)
        shas["proposal"] = head(root)
    with frozen("2026-05-19T11:30:00+00:00") as now:
        reject_proposal(ws, "p-1", reason="Fridays are frozen", actor="human:tui", now=now)
        shas["reject"] = head(root)
    with frozen("2026-05-20T09:15:00+00:00"):
        shas["pin"] = pin_topic(ws, "package-manager", actor="human:tui").sha
    with frozen("2026-05-21T23:00:00+00:00"):
        write_stream(root, "2026-05-21", [fragment_line("2026-05-21", 1, "deploy", "Deploys moved to Wednesdays.")])
        write_shard(root, "deploy-day", shard_text(
            "Deploys go out on Wednesdays", [c(2), f"streams/2026-05-21#{uuid_at('2026-05-21', 1)}"], today=TODAY))
        shas["dream2"] = commit_memory(root, "dream: 1 fragment 💭", Trailers("typeclaw", "auto", "schedule"))
    with frozen("2026-05-22T09:00:00+00:00"):
        shas["rollback"] = rollback(ws, shas["dream2"], actor="human:tui").sha
    with frozen("2026-05-22T09:30:00+00:00") as now:
        (root / "SOUL.md").write_text("# Soul\nBe kind. Be brief.\n")
        check_alerts(root, now=now)
    return shas


def snapshot_app(empty: bool = False, parent: Path | None = None):
    from dreamdeck.core.workspace import Workspace

    root = pinned_agent_folder(parent or Path(tempfile.mkdtemp(prefix="dd-history-")))
    if not empty:
        build_history(root)
    return make_app(Workspace.open(root, today=TODAY), "history")


if __name__ == "__main__":
    snapshot_app(empty="--empty" in sys.argv).run()
