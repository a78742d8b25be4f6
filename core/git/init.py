"""Starting a history for a folder that is not a git repository.

Without one, dreams and approvals work but are never committed: no history, no rollback. `start_history`
runs `git init` (branch main) and commits `memory/` as it is now, so the first change made after
it can be rolled back to this state. Only `.git` is created outside `memory/`.
"""
from __future__ import annotations

from pathlib import Path

from dreamdeck.core.errors import Refused
from dreamdeck.core.git.commit import Trailers, commit_memory
from dreamdeck.core.git.runner import init_repo, repo_args

NO_HISTORY = ("{root} is not a git repository: dreams and approvals are applied but never committed, so there "
              "is no history and no rollback")


def has_history(root: Path) -> bool:
    return repo_args(Path(root)) is not None


def start_history(root: Path, actor: str) -> str | None:
    """`git init` and one commit of memory/ (None when memory/ is empty); Refused in a repository."""
    root = Path(root)
    if has_history(root):
        raise Refused(f"refused: {root} is already a git repository")
    init_repo(root)
    return commit_memory(root, "memory: start the history (git init)", Trailers(actor, "approved", "init"),
                         body="memory/ as it was when dreamdeck started keeping its history")
