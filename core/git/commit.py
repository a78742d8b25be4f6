"""Memory commits, the way TypeClaw's `commitMemorySnapshot` makes them.

clear skip-worktree → `git add -f -- memory/` → commit `--only` the staged paths → set
skip-worktree again so the agent's `git status` stays clean. A folder without git is a no-op.
The subject of a dream commit is TypeClaw's `dream: <summary> <emoji>`; every commit carries
dreamdeck's `Actor:`/`Approval:`/`Trigger:` trailers.
"""
from __future__ import annotations

import os
import random
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from dreamdeck.core.errors import GitError, Refused
from dreamdeck.core.formats.stream_lines import count_fragments
from dreamdeck.core.git.runner import repo_args, run_git

DREAM_EMOJI = ("💤", "🌙", "⭐", "🛌", "😴", "🧠", "💭", "🔮")


STREAM_PATH = re.compile(r"^memory/(?:streams/)?[0-9]{4}-[0-9]{2}-[0-9]{2}\.jsonl\Z")  # \Z: no final newline


SKILL_PATH = re.compile(r"^memory/skills/([^/]+)/SKILL\.md$")


FALLBACK_IDENTITY = ("-c", "user.name=dreamdeck", "-c", "user.email=dreamdeck@localhost")


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


def link_refusal(root: Path, rel: str) -> Refused | None:
    """Why `rel` (under the agent folder) may not be committed, or None: a symbolic link, or a
    file another hard link shares (its bytes may be a file's outside the folder)."""
    try:
        st = os.lstat(root / rel)
    except OSError:
        return None  # gone: git stages a deletion, which carries no bytes
    if stat.S_ISLNK(st.st_mode):
        return Refused(f"refused: {rel} is a symbolic link; dreamdeck never commits memory through a link "
                       "(replace it with the real file, or move it out of memory/); nothing was written")
    if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
        return Refused(f"refused: {rel} has {st.st_nlink} hard links; dreamdeck never commits a file another "
                       "name shares (replace it with a copy of its own: cp, then mv over it); nothing was written")
    return None


def refuse_linked_staging(root: Path, exclude: tuple[str, ...] = ()) -> None:
    """Refused, naming the file, when `git add -f -- memory/` would stage anything through a link
    (the memory folder itself, a symbolic link, a second hard link). Skip-worktree must be
    cleared first, or a changed file would not be listed."""
    if (root / "memory").is_symlink():
        raise link_refusal(root, "memory")  # type: ignore[misc]
    out = run_git(root, "ls-files", "-z", "--modified", "--others", "--", "memory/",
                  *(f":(exclude){p}" for p in exclude), check=False, strip=False)
    for rel in sorted({p for p in out.split("\0") if p}):
        refused = link_refusal(root, rel)
        if refused is not None:
            raise refused


def changed_in_worktree(root: Path, rels: list[str]) -> list[str]:
    """Those of `rels` whose bytes (or link target) differ from git's index: what `git add` would
    stage, whatever their skip-worktree flag says."""
    if not rels or repo_args(root) is None:
        return []
    indexed: dict[str, tuple[str, str]] = {}
    for item in run_git(root, "ls-files", "-s", "-z", "--", *rels, check=False, strip=False).split("\0"):
        meta, _, path = item.partition("\t")
        if path:
            mode, oid = meta.split(" ")[:2]
            indexed[path] = (mode, oid)
    changed = []
    for rel in rels:
        where = root / rel
        if os.path.islink(where):
            mode, oid = "120000", run_git(root, "hash-object", "--stdin", stdin=os.fsencode(os.readlink(where)))
        else:
            mode, oid = "100", run_git(root, "hash-object", "--no-filters", "--", rel, check=False)
        have = indexed.get(rel)
        if have is None or not have[0].startswith(mode) or have[1] != oid.strip():
            changed.append(rel)
    return changed


def dream_summary(root: Path, fragments: int | None = None) -> str:
    """TypeClaw's subject summary: `N fragments`, `+ new skill 'x'`, or `watermarks only`.

    `fragments`: the count to say (a dream run's own); None counts as TypeClaw does, every
    fragment of each staged stream file with added lines."""
    # --no-renames: a renamed shard would print "R100 old new" and shift the pairs parsed below.
    try:
        # Only streams and skills feed the subject; diffing a year-long state file is wasted work.
        numstat = "" if fragments is not None else run_git(
            root, "diff", "--cached", "--no-renames", "--numstat", "-z", "--",
            "memory/streams/", ":(glob)memory/*.jsonl", strip=False)
        names = run_git(root, "diff", "--cached", "--no-renames", "--name-status", "-z", "--", "memory/skills/", strip=False)
    except GitError:
        return "snapshot"
    if fragments is None:
        fragments = 0
        for item in (p for p in numstat.split("\0") if p):
            fields = item.split("\t")
            if len(fields) == 3 and STREAM_PATH.match(fields[2]) and fields[0] not in ("-", "0"):
                fragments += count_fragments((root / fields[2]).read_bytes())
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


@dataclass(frozen=True)
class Trailers:
    actor: str
    approval: str
    trigger: str
    ref: str = ""  # "Reflection: r-…" or "Proposal: p-…"
    ref_kind: str = "Reflection"
    change: str = ""  # the door's change id: how a recovery knows this change is committed

    def render(self) -> str:
        lines = [f"Actor: {self.actor}", f"Approval: {self.approval}", f"Trigger: {self.trigger}"]
        if self.ref:
            lines.append(f"{self.ref_kind}: {self.ref}")
        if self.change:
            lines.append(f"{CHANGE_TRAILER}: {self.change}")
        return "\n".join(lines)


CHANGE_TRAILER = "Change-Id"
# dreamdeck's own change id is 16 hex digits (`door.journal.Journal.identity`); Gerrit's, which a
# person's commits may carry, is "I" and 40: only ours marks a commit as dreamdeck's.
OWN_CHANGE_GREP = rf"^{CHANGE_TRAILER}: [0-9a-f]{{16}}$"


def commit_of_change(root: Path, change: str, depth: int = 50) -> str | None:
    """The sha of the recent commit carrying `Change-Id: <change>`, or None (no repo, not found)."""
    if repo_args(root) is None or not change:
        return None
    out = run_git(root, "log", f"-n{depth}", "--fixed-strings", f"--grep={CHANGE_TRAILER}: {change}",
                  "--format=%H", check=False).strip()
    return out.split("\n")[0] or None


def commit_memory(
    root: Path,
    subject: str | None,
    trailers: Trailers,
    *,
    body: str = "",
    rng: random.Random | None = None,
    exclude: tuple[str, ...] = (),
    fragments: int | None = None,
) -> str | None:
    """Commit everything under memory/ as one commit; the sha, or None (no repo, nothing staged).

    `subject=None` builds TypeClaw's `dream: <summary> <emoji>` from what is staged (with
    `fragments`, that count instead of TypeClaw's); paths in `exclude` (relative to the agent
    folder) are left out.
    """
    if repo_args(root) is None:
        return None
    set_skip_worktree(root, False)
    try:
        if not (root / "memory").exists():
            return None
        # `exclude`: files of the change's own bookkeeping that must never be committed (its journal).
        refuse_linked_staging(root, exclude)
        run_git(root, "add", "-f", "--", "memory/", *(f":(exclude){p}" for p in exclude))
        everything = staged_paths(root)
        staged = [p for p in everything if p.startswith("memory/")]
        if not staged:
            return None
        # TypeClaw commits `--only` the memory paths so that what the user staged elsewhere stays
        # staged. When nothing else is staged, a plain commit makes the same tree, without
        # `--only`'s temporary index re-hashing every path (tens of MB at a year of state).
        only = ["--only", "--", *staged] if len(staged) < len(everything) else []
        if subject is None:
            subject = f"dream: {dream_summary(root, fragments)} {(rng or random).choice(DREAM_EMOJI)}"
        message = subject + "\n\n" + (body.strip() + "\n\n" if body.strip() else "") + trailers.render() + "\n"
        identity = () if _has_identity(root) else FALLBACK_IDENTITY
        try:
            run_git(root, *identity, "commit", "-q", "--no-verify", "-F", "-", *only, stdin=message)
        except GitError as exc:
            raise GitError(f"git commit failed: {str(exc).split(': ', 1)[-1]}") from None
        return run_git(root, "rev-parse", "HEAD").strip()
    finally:
        set_skip_worktree(root, True)
