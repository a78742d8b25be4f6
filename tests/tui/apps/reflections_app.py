"""A workspace with one pending reflection, and the dreamdeck app on it, for snapshot tests
(and a manual look: python tests/tui/apps/reflections_app.py [DIR]).

Everything shown is fixed: the workspace's today, fragment ids (helpers.uuid_at), the scripted
dreamer's shard texts and the reflection's creation time, so hunk ids and ages never move.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:  # the project is not installed and pytest has no pythonpath set
        sys.path.insert(0, str(p))

from dreamdeck.core.dreaming.run import run_dream  # noqa: E402
from dreamdeck.core.store.state import load_state, save_state  # noqa: E402
from dreamdeck.core.workspace import Workspace  # noqa: E402
from faults.scripted import Scripted, commit_all, draft  # noqa: E402
from helpers import fragment_line, shard_text, uuid_at, write_shard, write_stream  # noqa: E402
from dreamdeck.tui.app import DreamdeckApp  # noqa: E402
from dreamdeck.tui.config import UserConfig  # noqa: E402

D1, D = "2026-05-20", "2026-05-22"
TODAY = D
CREATED = datetime(2026, 5, 22, 9, 30, tzinfo=timezone.utc)


def cite(day: str, n: int) -> str:
    return f"streams/{day}#{uuid_at(day, n)}"


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=tester", "-c", "user.email=tester@localhost", *args],
                   cwd=root, check=True, capture_output=True)


def agent_folder(parent: Path) -> Path:
    """A TypeClaw agent folder (git repo, memory/ ignored, one commit), like tests' agent_dir."""
    root = parent / "agent"
    root.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text("# system-managed roots\nmemory/\n")
    (root / "SOUL.md").write_text("# Soul\nBe kind.\n")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "init agent")
    return root


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


def make_app(parent: Path) -> DreamdeckApp:
    return DreamdeckApp(build(parent), watcher=False, user_config=UserConfig())


if __name__ == "__main__":
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="dreamdeck-refl-"))
    make_app(folder).run()
