"""Git, the way TypeClaw drives it: hooks off, `.gitstore` supported, skip-worktree managed.

Every memory mutation ends in `commit_memory`, which mirrors `commitMemorySnapshot`:
clear skip-worktree → `git add -f -- memory/` → commit `--only` the staged paths → set
skip-worktree again so the agent's `git status` stays clean. A folder without git is a no-op.
"""
from __future__ import annotations

import os
import random
import re
from dataclasses import dataclass
from pathlib import Path

from git.cmd import Git
from git.exc import GitCommandError

DREAM_EMOJI = ("💤", "🌙", "⭐", "🛌", "😴", "🧠", "💭", "🔮")
STREAM_PATH = re.compile(r"^memory/(?:streams/)?[0-9]{4}-[0-9]{2}-[0-9]{2}\.jsonl$")
SKILL_PATH = re.compile(r"^memory/skills/([^/]+)/SKILL\.md$")
FALLBACK_IDENTITY = ("-c", "user.name=dreamdeck", "-c", "user.email=dreamdeck@localhost")


class GitError(RuntimeError):
    pass


def repo_args(root: Path) -> list[str] | None:
    """[] for `<root>/.git`, the `--git-dir/--work-tree` pair for `.gitstore`, None for no repo."""
    if (root / ".git").exists():
        return []
    if (root / ".gitstore").exists():
        return ["--git-dir", str(root / ".gitstore"), "--work-tree", str(root)]
    return None


def run_git(root: Path, *args: str, check: bool = True, stdin: str | None = None, strip: bool = True) -> str:
    """Run git in the agent folder with hooks disabled; GitError with git's own words on failure."""
    extra = repo_args(root)
    if extra is None:
        raise GitError(f"{root} is not a git repository (no .git or .gitstore)")
    cmd = ["git", "-c", "core.hooksPath=/dev/null", "-c", "core.quotepath=false", *extra, *args]
    try:
        status, out, err = Git(str(root)).execute(
            cmd, with_extended_output=True, with_exceptions=False, istream=None if stdin is None else _stdin(stdin),
            strip_newline_in_stdout=strip,
        )
    except GitCommandError as exc:  # git missing entirely
        raise GitError(str(exc)) from None
    if check and status != 0:
        raise GitError(f"git {' '.join(args[:3])}: {err.strip() or out.strip()}")
    return out


def _stdin(text: str):
    import tempfile

    fh = tempfile.TemporaryFile()
    fh.write(text.encode("utf-8"))
    fh.seek(0)
    return fh


BLOB_TMP_PREFIX = "dreamdeck-blob-"  # the temporary files store_blob_in_background writes


class _GitJob:
    """Git work running in a thread beside the caller; `wait()` until it is done."""

    def __init__(self, name: str, work):
        import threading

        self.thread = threading.Thread(target=work, name=name, daemon=True)
        self.thread.start()

    def wait(self) -> None:
        self.thread.join()


def store_blob_in_background(root: Path, path: str, parts: list[bytes], tmp_dir: Path | None = None):
    """Start storing `parts` (joined) as the git object `git add` would make for `path`, on the
    other core, and return the job (None without git).

    Compressing a year-long state file is most of a commit's cost; stored while the caller
    writes shards and collects fragments, the commit's `git add` finds the object there and
    only hashes. `--path` gives it that path's filters, exactly as `git add` would; an object
    nobody commits (the content changed meanwhile) is pruned by gc.
    """
    import subprocess
    import tempfile

    extra = repo_args(root)
    if extra is None:
        return None

    def work() -> None:
        fd, tmp = tempfile.mkstemp(prefix=BLOB_TMP_PREFIX, dir=tmp_dir)
        try:
            # writev, a thousand pieces per call: the GIL is released for the whole call, where
            # a write per piece would wait for the GIL between pieces while the caller works.
            # (A file, not a pipe: git hashes a file twice as fast as it reads stdin.)
            views = [memoryview(p) for p in parts if p]
            while views:
                batch = views[:1000]
                written = os.writev(fd, batch)
                for n, view in enumerate(batch):
                    if written < len(view):
                        views = [view[written:], *views[n + 1:]]
                        break
                    written -= len(view)
                else:
                    views = views[len(batch):]
            os.close(fd)
            fd = -1
            subprocess.run(
                ["git", "-c", "core.hooksPath=/dev/null", *extra, "hash-object", "-w", f"--path={path}", tmp],
                cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
            )
        except OSError:
            pass  # it only costs the commit its head start
        finally:
            if fd >= 0:
                os.close(fd)
            try:
                os.unlink(tmp)
            except OSError:
                pass

    return _GitJob("git-hash-object", work)


def stage_in_background(root: Path, paths: list[str]):
    """Start `git add -f` of `paths` (skip-worktree cleared first, as `commit_memory` does) in a
    thread and return the job (None without git); wait for it before any other git command.

    `git add` hashes a file whose stat data the index does not hold: staged now, while the
    caller compacts and collects, the commit's own `git add -f -- memory/` finds it clean.
    A failure (another git holds the index) only means the commit does the work itself.
    """
    import subprocess

    extra = repo_args(root)
    if extra is None:
        return None
    base = ["git", "-c", "core.hooksPath=/dev/null", "-c", "core.quotepath=false", *extra]

    def work() -> None:
        quiet = {"cwd": root, "stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL,
                 "stderr": subprocess.DEVNULL, "check": False}
        try:
            subprocess.run([*base, "update-index", "--no-skip-worktree", "--", *paths], **quiet)
            subprocess.run([*base, "add", "-f", "--", *paths], **quiet)
        except OSError:
            pass

    return _GitJob("git-add", work)


def _has_identity(root: Path) -> bool:
    return bool(run_git(root, "config", "user.email", check=False).strip())


def _memory_files(root: Path) -> list[str]:
    out = run_git(root, "ls-files", "-z", "--", "memory/", check=False, strip=False)
    return [p for p in out.split("\0") if p]


def set_skip_worktree(root: Path, on: bool) -> None:
    files = _memory_files(root)
    if not files:
        return
    flag = "--skip-worktree" if on else "--no-skip-worktree"
    # One call, paths on stdin: argv stays bounded and a big memory costs one process, not dozens.
    run_git(root, "update-index", "-z", flag, "--stdin", check=False, stdin="\0".join(files) + "\0")


def staged_paths(root: Path) -> list[str]:
    """Every staged path of the repository (memory/ and anything the user staged elsewhere)."""
    # --no-renames: a moved file (topics/ -> archive/) must list its old path too, or
    # `commit --only` would leave the deletion staged and uncommitted.
    out = run_git(root, "diff", "--cached", "--name-only", "--no-renames", "-z", check=False, strip=False)
    return [p for p in out.split("\0") if p]


def dream_summary(root: Path) -> str:
    """TypeClaw's subject summary: `N fragments`, `+ new skill 'x'`, or `watermarks only`."""
    # --no-renames: a renamed shard would print "R100 old new" and shift the pairs parsed below.
    try:
        # Only streams and skills feed the subject; diffing a year-long state file is wasted work.
        numstat = run_git(root, "diff", "--cached", "--no-renames", "--numstat", "-z", "--",
                          "memory/streams/", ":(glob)memory/*.jsonl", strip=False)
        names = run_git(root, "diff", "--cached", "--no-renames", "--name-status", "-z", "--", "memory/skills/", strip=False)
    except GitError:
        return "snapshot"
    fragments = 0
    parts_ns = [p for p in numstat.split("\0") if p]
    for item in parts_ns:
        fields = item.split("\t")
        if len(fields) == 3 and STREAM_PATH.match(fields[2]) and fields[0] not in ("-", "0"):
            fragments += _count_fragments(root / fields[2])
    tokens = [t for t in names.split("\0") if t]
    new_skills = [
        SKILL_PATH.match(tokens[i + 1]).group(1)  # type: ignore[union-attr]
        for i in range(0, len(tokens) - 1, 2)
        if tokens[i] == "A" and SKILL_PATH.match(tokens[i + 1])
    ]
    parts = []
    if fragments:
        parts.append(f"{fragments} fragment{'s' if fragments != 1 else ''}")
    if len(new_skills) == 1:
        parts.append(f"new skill '{new_skills[0]}'")
    elif new_skills:
        parts.append(f"{len(new_skills)} new skills")
    return " + ".join(parts) if parts else "watermarks only"


def _count_fragments(path: Path) -> int:
    from core.streams import read_stream_lines

    return sum(1 for ln in read_stream_lines(path) if ln.kind == "fragment")


@dataclass(frozen=True)
class Trailers:
    actor: str
    approval: str
    trigger: str
    ref: str = ""  # "Reflection: r-…" or "Proposal: p-…"
    ref_kind: str = "Reflection"

    def render(self) -> str:
        lines = [f"Actor: {self.actor}", f"Approval: {self.approval}", f"Trigger: {self.trigger}"]
        if self.ref:
            lines.append(f"{self.ref_kind}: {self.ref}")
        return "\n".join(lines)


def commit_memory(
    root: Path,
    subject: str | None,
    trailers: Trailers,
    *,
    body: str = "",
    rng: random.Random | None = None,
) -> str | None:
    """Commit everything under memory/ as one commit; the sha, or None (no repo, nothing staged).

    `subject=None` builds TypeClaw's `dream: <summary> <emoji>` from what is staged.
    """
    if repo_args(root) is None:
        return None
    set_skip_worktree(root, False)
    try:
        if not (root / "memory").exists():
            return None
        run_git(root, "add", "-f", "--", "memory/")
        everything = staged_paths(root)
        staged = [p for p in everything if p.startswith("memory/")]
        if not staged:
            return None
        # TypeClaw commits `--only` the memory paths so that what the user staged elsewhere stays
        # staged. When nothing else is staged, a plain commit makes the same tree, without
        # `--only`'s temporary index re-hashing every path (tens of MB at a year of state).
        only = ["--only", "--", *staged] if len(staged) < len(everything) else []
        if subject is None:
            subject = f"dream: {dream_summary(root)} {(rng or random).choice(DREAM_EMOJI)}"
        message = subject + "\n\n" + (body.strip() + "\n\n" if body.strip() else "") + trailers.render() + "\n"
        identity = () if _has_identity(root) else FALLBACK_IDENTITY
        extra = repo_args(root) or []
        cmd = ["git", "-c", "core.hooksPath=/dev/null", *identity, *extra, "commit", "-q", "--no-verify", "-F", "-", *only]
        status, out, err = Git(str(root)).execute(cmd, with_extended_output=True, with_exceptions=False, istream=_stdin(message))
        if status != 0:
            raise GitError(f"git commit failed: {err.strip() or out.strip()}")
        return run_git(root, "rev-parse", "HEAD").strip()
    finally:
        set_skip_worktree(root, True)


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


def show_file(root: Path, rev: str, path: str) -> bytes | None:
    """The bytes of `path` at `rev`, or None when it did not exist there."""
    extra = repo_args(root)
    if extra is None:
        return None
    cmd = ["git", "-c", "core.hooksPath=/dev/null", *extra, "cat-file", "blob", f"{rev}:{path}"]
    # strip_newline_in_stdout=False: GitPython would otherwise eat the blob's final newline.
    status, out, _ = Git(str(root)).execute(
        cmd, with_extended_output=True, with_exceptions=False, as_process=False, stdout_as_string=False,
        strip_newline_in_stdout=False,
    )
    return out if status == 0 else None


def tree_files(root: Path, rev: str, *prefixes: str) -> list[str]:
    out = run_git(root, "ls-tree", "-r", "-z", "--name-only", rev, "--", *prefixes, strip=False)
    return [p for p in out.split("\0") if p]


def read_blobs(root: Path, rev: str, paths: list[str]) -> dict[str, bytes]:
    """Many files at one revision through a single `git cat-file --batch`."""
    import subprocess

    extra = repo_args(root)
    if extra is None or not paths:
        return {}
    proc = subprocess.run(
        ["git", "-c", "core.hooksPath=/dev/null", *extra, "cat-file", "--batch"],
        input=b"".join(f"{rev}:{p}\n".encode() for p in paths), capture_output=True, cwd=root, check=False,
    )
    data = proc.stdout
    out: dict[str, bytes] = {}
    pos = 0
    for p in paths:
        nl = data.index(b"\n", pos)
        header = data[pos:nl].split()
        pos = nl + 1
        if len(header) == 2 and header[1] == b"missing":
            continue
        size = int(header[2])
        out[p] = data[pos : pos + size]
        pos += size + 1
    return out
