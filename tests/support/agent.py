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
