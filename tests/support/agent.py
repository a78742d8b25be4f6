"""An agent folder as TypeClaw makes one."""
from __future__ import annotations

from pathlib import Path

from tests.support.git import git


def agent_folder(parent: Path) -> Path:
    """`parent/agent`: a git repo whose `.gitignore` lists memory/, with SOUL.md and one commit."""
    root = parent / "agent"
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text("# system-managed roots\nmemory/\n")
    (root / "SOUL.md").write_text("# Soul\nBe kind.\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "init agent")
    return root


def two_fragments_to_dream(agent_dir: Path, today: str, **dreaming: object):
    """The agent folder with `[dreaming]` settings (`dreaming`, as TOML values) and two undreamed
    fragments in today's stream: something for the Dream screen's "dream now" to do."""
    import json

    from dreamdeck.core.workspace import Workspace
    from tests.support.memory import fragment_line, write_stream

    (agent_dir / "dreamdeck.toml").write_text(
        "[dreaming]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in dreaming.items()), encoding="utf-8")
    write_stream(agent_dir, today, [
        fragment_line(today, 1, "coffee", "Drinks oat flat whites, no sugar."),
        fragment_line(today, 2, "editor", "Uses Helix with the default keymap."),
    ])
    return Workspace.open(agent_dir, today=today)
