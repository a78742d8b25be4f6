"""The Recall screen over a small memory (snapshot tests; a manual look:
python -m tests.tui.apps.recall_app).

pnpm believed (and pinned), deploys fading, Friday standup only in today's undreamed stream, a
few recalls in the access record, one saved question, and a dream (r-1) waiting for review that
moves deploys to Wednesdays. Deterministic: a fixed today, fixed ids, git dates pinned.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from tests.support.dreamers import Scripted, draft
from tests.support.git import git_dates
from tests.support.memory import cite, fragment_line, shard_text, uuid_at, write_shard, write_stream
from tests.support.tui import make_app
from tests.tui.apps.proposals_app import pinned_agent_folder

TODAY = "2026-05-22"
OLD, D1 = "2026-04-20", "2026-05-20"


def _dream(inp, scratch) -> None:
    scratch.write_shard("deploy-day", draft("Deploys go out on Wednesdays", [cite(TODAY, 2)], superseded=[cite(OLD, 1)]))


def build_recall(root: Path) -> None:
    from dreamdeck.core.dreaming.run import run_dream
    from dreamdeck.core.git.commit import Trailers, commit_memory
    from dreamdeck.core.ops.recall import recall
    from dreamdeck.core.ops.vault import pin_topic
    from dreamdeck.core.store.saved_queries import with_query
    from dreamdeck.core.store.state import load_state, save_state
    from dreamdeck.core.workspace import Workspace

    ws = Workspace.open(root, today=TODAY)
    write_stream(root, OLD, [fragment_line(OLD, 1, "deploy", "Deploys go out on Tuesdays after the standup.")])
    write_stream(root, D1, [fragment_line(D1, 1, "package manager", "User said: use pnpm, not bun, in this repo."),
                            fragment_line(D1, 2, "editor", "The user edits with helix and a pnpm watch task.")])
    write_shard(root, "deploy-day", shard_text("Deploys go out on Tuesdays", [cite(OLD, 1)], today=OLD))
    write_shard(root, "package-manager", shard_text("The user uses pnpm, not bun", [cite(D1, 1)], today=D1))
    write_shard(root, "editor", shard_text("The user edits with helix", [cite(D1, 2)], today=D1))
    state, _ = load_state(ws.state_path)
    state = state.add_dreamed(OLD, {uuid_at(OLD, 1)}, "2026-04-20T10:00:00+00:00")
    save_state(ws.state_path, state.add_dreamed(D1, {uuid_at(D1, 1), uuid_at(D1, 2)}, "2026-05-20T10:00:00+00:00"))
    (ws.meta_dir).mkdir(parents=True, exist_ok=True)
    (ws.meta_dir / "saved-queries.txt").write_text(with_query(None, "when do deploys go out"))
    with git_dates("2026-05-20T09:00:00+00:00"):
        commit_memory(root, "seed", Trailers("test", "auto", "seed"))
    with git_dates("2026-05-21T10:00:00+00:00"):
        pin_topic(ws, "package-manager", actor="human:cli")
    write_stream(root, TODAY, [fragment_line(TODAY, 1, "standup", "Standup moved to Fridays at 10, room 4."),
                               fragment_line(TODAY, 2, "deploy", "Deploys moved to Wednesdays this quarter.")])
    with git_dates("2026-05-22T08:00:00+00:00"):
        commit_memory(root, "today", Trailers("test", "auto", "seed"))
        run_dream(ws, dreamer=Scripted(_dream, summary="deploys move to Wednesdays"), review="all")
    write_stream(root, TODAY, [fragment_line(TODAY, 3, "standup", "Standup moved to Fridays at 10, room 4 again.")])
    for query, times in (("which package manager", 3), ("when do deploys go out", 2), ("standup", 1)):
        for _ in range(times):
            recall(ws, query)  # recorded, as the agent's runtime would
    _pin_access_times(ws)


def _pin_access_times(ws) -> None:
    import re

    path = ws.meta_dir / "access.jsonl"
    path.write_text(re.sub(r'"ts":"[^"]+"', '"ts":"2026-05-22T09:00:00+00:00"', path.read_text()))


def snapshot_app(empty: bool = False, parent: Path | None = None):
    from dreamdeck.core.workspace import Workspace

    root = pinned_agent_folder(parent or Path(tempfile.mkdtemp(prefix="dd-recall-")))
    if not empty:
        build_recall(root)
    return make_app(Workspace.open(root, today=TODAY), "recall")


if __name__ == "__main__":
    snapshot_app(empty="--empty" in sys.argv).run()
