"""The one way dreamdeck runs git.

Two kinds of call, one executor (`_execute`, a plain `subprocess.run`):
- `run_git(root, ...)` in the agent folder, the way TypeClaw drives it: hooks off
  (`core.hooksPath=/dev/null`), paths unquoted, `.gitstore` supported (`repo_args`);
- `run_isolated(args, workdir)` outside any repository (diffs and merges of texts): every
  knob a user or system config could turn is pinned, so the same texts always give the same
  hunks, and so the same hunk ids, on any machine.
`start_job` runs calls in a thread for work that can overlap the caller's (git storing a big
object while a dreamer thinks). The git process is its own process either way; the thread only
waits for it, so the caller goes on.

Not GitPython's `Git.execute`: isolated runs must *remove* inherited `GIT_*` variables from the
environment, which its `env` (merged into os.environ) cannot do; everything here is argv in,
bytes out, so a plain subprocess is the whole job.
"""
from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from dreamdeck.core.errors import GitError
from dreamdeck.core.git.live_lock import LOCK, wait_while_held

__all__ = ["GitError", "git_dir", "repo_args", "init_repo", "run_git", "run_git_bytes", "run_isolated", "start_job", "GitJob", "head", "resolve_rev"]

HOOKS_OFF = ("-c", "core.hooksPath=/dev/null")
# What git says (in the C locale) when another git holds the index lock; it then did nothing.
_LOCK_TAKEN = f"{LOCK}': File exists"

# Options for isolated runs (diff/merge of texts): nothing outside the call may change them.
ISOLATED_CONFIG = (
    *HOOKS_OFF,
    "-c", "core.autocrlf=false",
    "-c", "core.quotePath=false",
    "-c", "color.ui=never",
    "-c", "diff.noprefix=false",
    "-c", "diff.mnemonicPrefix=false",
    "-c", "diff.suppressBlankEmpty=false",
    "-c", "merge.conflictStyle=merge",
)


def repo_args(root: Path) -> list[str] | None:
    """[] for `<root>/.git`, the `--git-dir/--work-tree` pair for `.gitstore`, None for no repo."""
    if (root / ".git").exists():
        return []
    if (root / ".gitstore").exists():
        return ["--git-dir", str(root / ".gitstore"), "--work-tree", str(root)]
    return None


def git_dir(root: Path) -> Path | None:
    """The repository's git folder, found without starting git: `<root>/.git` (a folder, or a
    `gitdir: <path>` file as a linked worktree has), else `<root>/.gitstore`; None without one."""
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git
    if dot_git.is_file():
        try:
            first = dot_git.read_text(encoding="utf-8").splitlines()[0]
        except (OSError, UnicodeDecodeError, IndexError):
            return None
        if first.startswith("gitdir:"):
            target = Path(first[len("gitdir:"):].strip())
            target = target if target.is_absolute() else root / target
            return target if target.is_dir() else None
        return None
    store = root / ".gitstore"
    return store if store.is_dir() else None


def _execute(cmd: list[str], cwd: str, *, stdin: str | bytes | None = None, env: dict[str, str] | None = None,
             binary: bool = False, strip: bool = True) -> tuple[int, str | bytes, str]:
    """(status, stdout, stderr) of one git process; GitError only when git cannot be started."""
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    if env is None:  # git's messages in plain English, whatever the user's locale; and no
        # optional lock (a status's index refresh): a kill can then only leave a lock a commit took
        env = {**os.environ, "LANGUAGE": "C", "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"}
    try:
        proc = subprocess.run(cmd, cwd=cwd, env=env, input=data, capture_output=True, check=False,
                              stdin=None if data is not None else subprocess.DEVNULL)
    except OSError as exc:  # git missing entirely, or the folder is gone
        raise GitError(f"cannot run git: {exc}") from None
    err = proc.stderr.decode("utf-8", "replace")
    if binary:
        return proc.returncode, proc.stdout, err
    out = proc.stdout.decode("utf-8", "replace")
    if strip and out.endswith("\n"):
        out = out[:-1]
    return proc.returncode, out, err


def _repo_cmd(root: Path, args: Iterable[str]) -> list[str]:
    extra = repo_args(root)
    if extra is None:
        raise GitError(f"{root} is not a git repository (no .git or .gitstore)")
    return ["git", *HOOKS_OFF, "-c", "core.quotepath=false", *extra, *args]


def run_git(root: Path, *args: str, check: bool = True, stdin: str | bytes | None = None, strip: bool = True) -> str:
    """Run git in the agent folder with hooks disabled; GitError with git's own words on failure."""
    status, out, err = _execute(_repo_cmd(root, args), str(root), stdin=stdin, strip=strip)
    if status != 0 and _LOCK_TAKEN in err and wait_while_held(root, git_dir(root) or root / ".git"):
        # Another git took the index lock after the busy check: git did nothing, so once that
        # git is done the command runs again.
        status, out, err = _execute(_repo_cmd(root, args), str(root), stdin=stdin, strip=strip)
    if check and status != 0:
        raise GitError(f"git {' '.join(args[:3])}: {err.strip() or str(out).strip()}")
    return out  # type: ignore[return-value]


def init_repo(root: Path) -> None:
    """`git init` (branch main) in `root`, hooks off; GitError with git's words on failure."""
    status, _out, err = _execute(["git", *HOOKS_OFF, "init", "-q", "-b", "main"], str(root))
    if status != 0:
        raise GitError(f"git init: {err.strip()}")


def run_git_bytes(root: Path, *args: str, stdin: bytes | None = None) -> tuple[int, bytes]:
    """(status, stdout bytes) of a git call in the agent folder: blobs keep every byte."""
    status, out, _err = _execute(_repo_cmd(root, args), str(root), stdin=stdin, binary=True)
    return status, out  # type: ignore[return-value]


def _isolated_env(workdir: str) -> dict[str, str]:
    """An environment where no global/system config or enclosing repo can steer git."""
    env = dict(os.environ)
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_EXTERNAL_DIFF",
                "GIT_DIFF_OPTS", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"):
        env.pop(var, None)
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    env["GIT_CONFIG_GLOBAL"] = os.devnull
    # Stop repo discovery at the temp dir: a repo above /tmp must not lend its config.
    env["GIT_CEILING_DIRECTORIES"] = str(Path(workdir).parent)
    env["LC_ALL"] = "C"
    return env


def run_isolated(args: Iterable[str], workdir: str, ok_codes: range) -> tuple[int, bytes]:
    """(status, stdout) of git run in `workdir` outside any repository; exit codes outside
    `ok_codes` are errors, not results (diff exits 1 for "differences", merge-file with the
    number of conflicts)."""
    args = list(args)
    env = _isolated_env(workdir)
    status, out, err = _execute(["git", *ISOLATED_CONFIG, *args], workdir, env=env, binary=True)
    if status not in ok_codes:
        raise GitError(f"git {' '.join(args)} exited {status}: {err.strip()}")
    return status, out  # type: ignore[return-value]


class GitJob:
    """Git work running in a thread beside the caller; `wait()` until it is done."""

    def __init__(self, name: str, work: Callable[[], None]):
        self.thread = threading.Thread(target=work, name=name, daemon=True)
        self.thread.start()

    def wait(self) -> None:
        self.thread.join()


def start_job(root: Path, name: str, calls: list[list[str]], before: Callable[[], None] | None = None,
              after: Callable[[], None] | None = None) -> GitJob | None:
    """Run `calls` (argument lists for `run_git`) one after another in a thread; None without
    git. A failure only costs the caller its head start: the job never raises."""
    if repo_args(root) is None:
        return None

    def work() -> None:
        try:
            if before is not None:
                before()
            for args in calls:
                _execute(_repo_cmd(root, args), str(root))
        except (OSError, GitError):
            pass
        finally:
            if after is not None:
                after()

    return GitJob(f"git-{name}", work)


# What git leaves in its folder while an operation is under way, and what to tell a person.
_IN_PROGRESS = (
    ("rebase-merge", "a rebase is in progress (finish it with `git rebase --continue` or `git rebase --abort`)"),
    ("rebase-apply", "a rebase or `git am` is in progress (finish or abort it)"),
    ("MERGE_HEAD", "a merge is in progress (commit it or `git merge --abort`)"),
    ("CHERRY_PICK_HEAD", "a cherry-pick is in progress (`git cherry-pick --continue` or `--abort`)"),
    ("REVERT_HEAD", "a revert is in progress (`git revert --continue` or `--abort`)"),
    ("index.lock", "git's index is locked (.git/index.lock): another git command is running, or one was "
                   "killed and left the lock; remove the file if no git command is running"),
)


def busy_reason(root: Path) -> str | None:
    """Why a memory commit cannot be made safely now (an operation in progress, a locked index),
    or None. Checked before a mutation writes anything, so it never half-happens."""
    if repo_args(root) is None:
        return None
    git_dir = run_git(root, "rev-parse", "--absolute-git-dir", check=False).strip()
    if not git_dir:
        return None
    for name, why in _IN_PROGRESS:
        if (Path(git_dir) / name).exists():
            if name == LOCK and wait_while_held(root, Path(git_dir)):
                continue  # a live git's lock, gone once it finished (`live_lock`)
            return why
    return None


def head(root: Path) -> str | None:
    if repo_args(root) is None:
        return None
    out = run_git(root, "rev-parse", "--verify", "-q", "HEAD", check=False).strip()
    return out or None


def resolve_rev(root: Path, rev: str) -> str:
    if repo_args(root) is None:
        raise GitError(f"{root} is not a git repository, so there is no revision {rev!r}")
    out = run_git(root, "rev-parse", "--verify", "-q", f"{rev}^{{commit}}", check=False).strip()
    if not out:
        raise GitError(f"unknown revision {rev!r}")
    return out
