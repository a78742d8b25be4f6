"""A workspace with one pending reflection, and the dreamdeck app on it, for snapshot tests
(and a manual look: python -m tests.tui.apps.reflections_app [DIR]).

Everything shown is fixed: the workspace's today, fragment ids (tests.support.memory.uuid_at),
the scripted dreamer's shard texts and the reflection's creation time, so hunk ids and ages never move.
"""
from __future__ import annotations

import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.store.state import load_state, save_state
from dreamdeck.core.workspace import Workspace
from dreamdeck.tui.app import DreamdeckApp
from tests.support.agent import agent_folder
from tests.support.dreamers import Scripted, draft
from tests.support.memory import cite, commit_all, fragment_line, shard_text, uuid_at, write_shard, write_stream
from tests.support.tui import make_app

D1, D = "2026-05-20", "2026-05-22"
TODAY = D
CREATED = datetime(2026, 5, 22, 9, 30, tzinfo=UTC)


def seed(ws: Workspace) -> None:
    """Shards pnpm (cites D1#1) and tabs (cites D1#2); today: D#1 pnpm again, D#2 new, D#3 noise."""
    root = ws.root
    write_stream(root, D1, [fragment_line(D1, 1, "pnpm", "the repo uses pnpm, not npm"),
                            fragment_line(D1, 2, "tabs", "the user prefers tabs")])
    write_shard(root, "pnpm", shard_text("The repo uses pnpm", [cite(D1, 1)], today=TODAY))
    write_shard(root, "tabs", shard_text("The user prefers tabs", [cite(D1, 2)], today=TODAY))
    state, _ = load_state(ws.state_path)
    save_state(ws.state_path, state.add_dreamed(D1, {uuid_at(D1, 1), uuid_at(D1, 2)}, "2026-05-20T10:00:00+00:00"))
    write_stream(root, D, [
        fragment_line(D, 1, "pnpm", "ran pnpm install again"),
        fragment_line(D, 2, "ci", "CI runs on every push to main"),
        fragment_line(D, 3, "noise", "cold coffee"),
    ])
    commit_all(root)


def two_shards(inp, scratch) -> None:
    scratch.write_shard("pnpm", draft("The repo always uses pnpm", [cite(D1, 1), cite(D, 1)]))
    scratch.write_shard("ci", draft("CI runs on every push to main", [cite(D, 2)]))
    scratch.finish("pnpm reinforced and reworded; a new belief about CI",
                   questions=["Does CI also run on pull requests?"],
                   contradictions=["pnpm: 'uses pnpm' vs an older note about npm"])


def build(parent: Path) -> Workspace:
    ws = Workspace.open(agent_folder(parent), today=TODAY)
    seed(ws)
    receipt = run_dream(ws, dreamer=Scripted(two_shards, name="scripted"), review="all", now=CREATED)
    assert receipt.reflection == "r-1", receipt.to_json()
    return ws


def snapshot_app(parent: Path) -> DreamdeckApp:
    return make_app(build(parent))


if __name__ == "__main__":
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="dreamdeck-refl-"))
    snapshot_app(folder).run()
