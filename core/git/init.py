"""Starting a history for a folder that is not a git repository.

Without one, dreams and approvals work but are never committed: no history, no rollback. `start_history`
runs `git init` (branch main) and commits `memory/` as it is now, so the first change made after
it can be rolled back to this state. Only `.git` is created outside `memory/`.
"""
from __future__ import annotations

from pathlib import Path

from dreamdeck.core.errors import Refused
from dreamdeck.core.git.commit import Trailers, commit_memory
from dreamdeck.core.git.runner import head, init_repo, repo_args

NO_HISTORY = ("{root} is not a git repository: dreams and approvals are applied but never committed, so there "
              "is no history and no rollback")


def has_history(root: Path) -> bool:
    return repo_args(Path(root)) is not None


def start_history(root: Path, actor: str) -> str | None:
    """`git init` and one commit of memory/ (None when memory/ is empty); Refused in a repository
    that has a commit. A repository with none yet (`git init` run by hand) gets the first commit."""
    root = Path(root)
    if not has_history(root):
        init_repo(root)
    elif head(root) is not None:
        raise Refused(f"refused: {root} is already a git repository")
    return commit_memory(root, "memory: start the history (git init)", Trailers(actor, "approved", "init"),
                         body="memory/ as it was when dreamdeck started keeping its history")
