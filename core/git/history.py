"""Memory history from git: dream commits (as `typeclaw memory dreams` lists them) and every
memory commit with its Actor / Approval / Trigger trailers."""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from dreamdeck.core.formats.events import try_parse_event_line
from dreamdeck.core.git.commit import DREAM_EMOJI
from dreamdeck.core.git.runner import GitError, repo_args, run_git

_DREAM_SUBJECT = re.compile(r"^dream:\s+(.*)$")
_TRAILER = re.compile(r"^(Actor|Approval|Trigger|Reflection|Proposal|Reverts):\s*(.*)$", re.M)
_STREAM = re.compile(r"^memory/(?:streams/)?(\d{4}-\d{2}-\d{2})\.jsonl$")
_TOPIC = re.compile(r"^memory/topics/([^/]+)\.md$")
_SKILL = re.compile(r"^memory/skills/([^/]+)/SKILL\.md$")
_SEP = "\x1e"


@dataclass
class TopicChange:
    slug: str
    status: str  # A | M | D
    added: int
    removed: int


@dataclass
class MemoryCommit:
    sha: str
    date: str  # ISO author date
    subject: str
    actor: str
    approval: str
    trigger: str
    ref: str = ""
    kind: str = "other"  # fragments | skills | watermarks-only | snapshot | other (dream commits)
    summary: str = ""
    emoji: str = ""
    is_dream: bool = False
    topics: list[TopicChange] = field(default_factory=list)
    fragments_added: list[str] = field(default_factory=list)  # "date#id"
    new_skills: list[str] = field(default_factory=list)
    state_changed: bool = False
    files: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)


def parse_dream_subject(subject: str) -> tuple[str, str, str] | None:
    """(summary, emoji, kind) of a `dream: …` subject, or None for any other subject."""
    m = _DREAM_SUBJECT.match(subject)
    if not m or not subject.startswith("dream: "):
        return None
    summary, emoji = m.group(1).strip(), ""
    for e in DREAM_EMOJI:
        if summary.endswith(e):
            summary, emoji = summary[: -len(e)].rstrip(), e
            break
    if summary == "watermarks only":
        kind = "watermarks-only"
    elif summary == "snapshot":
        kind = "snapshot"
    elif re.match(r"^\d+ fragments?\b", summary):
        kind = "fragments"
    elif "new skill" in summary:
        kind = "skills"
    else:
        kind = "other"
    return summary, emoji, kind


def _trailers(body: str) -> dict[str, str]:
    return {k: v.strip() for k, v in _TRAILER.findall(body)}


def _log(root: Path, *args: str) -> list[tuple[str, str, str, str]]:
    out = run_git(root, "log", f"--format=%H%x00%aI%x00%s%x00%b{_SEP}", *args, strip=False)
    rows = []
    for chunk in out.split(_SEP):
        chunk = chunk.strip("\n")
        if not chunk:
            continue
        sha, date, subject, body = (chunk.split("\x00") + ["", "", "", ""])[:4]
        rows.append((sha.strip(), date, subject, body))
    return rows


def _details(root: Path, commit: MemoryCommit) -> None:
    numstat = run_git(root, "show", "--format=", "--numstat", "--no-renames", commit.sha, "--", "memory/", check=False)
    status = run_git(root, "show", "--format=", "--name-status", "--no-renames", commit.sha, "--", "memory/", check=False)
    kinds = {}
    for line in status.splitlines():
        parts = line.split("\t")
        if len(parts) == 2:
            kinds[parts[1]] = parts[0][:1]
    for line in numstat.splitlines():
        parts = line.split("\t")
        if len(parts) != 3:
            continue
        added, removed, path = parts
        commit.files.append(path)
        if m := _TOPIC.match(path):
            commit.topics.append(TopicChange(m.group(1), kinds.get(path, "M"),
                                             int(added) if added.isdigit() else 0, int(removed) if removed.isdigit() else 0))
        elif (m := _SKILL.match(path)) and kinds.get(path) == "A":
            commit.new_skills.append(m.group(1))
        elif path == "memory/.dreaming-state.json":
            commit.state_changed = True
    streams = [p for p in commit.files if _STREAM.match(p)]
    if streams:
        patch = run_git(root, "show", "--format=", "-U0", "--no-renames", commit.sha, "--", *streams, check=False)
        day = ""
        for line in patch.splitlines():
            if line.startswith("+++ "):
                m = _STREAM.match(line[6:]) if line.startswith("+++ b/") else None
                day = m.group(1) if m else ""
            elif line.startswith("+") and not line.startswith("+++") and day:
                ev = try_parse_event_line(line[1:])
                if ev and ev.get("type") == "fragment":
                    commit.fragments_added.append(f"{day}#{ev['id']}")


def _commit(row: tuple[str, str, str, str]) -> MemoryCommit:
    sha, date, subject, body = row
    t = _trailers(body)
    dream = parse_dream_subject(subject)
    commit = MemoryCommit(
        sha=sha, date=date, subject=subject,
        actor=t.get("Actor", "typeclaw" if dream else "unknown"),
        approval=t.get("Approval", "auto" if dream else "—"),
        trigger=t.get("Trigger", "schedule" if dream else "—"),
        ref=t.get("Reflection") or t.get("Proposal") or t.get("Reverts", "")[:7],
    )
    if dream:
        commit.summary, commit.emoji, commit.kind = dream
        commit.is_dream = True
    return commit


def list_dreams(root: Path, limit: int | None = 20, *, details: bool = True) -> list[MemoryCommit]:
    """Dream commits newest first; the limit applies after the subject filter, as TypeClaw's does."""
    if repo_args(root) is None:
        return []
    try:
        rows = _log(root, "--grep=^dream: ")
    except GitError:
        return []  # no commits yet
    commits = [_commit(r) for r in rows if r[2].startswith("dream: ")]
    commits = commits[:limit] if limit else commits
    if details:
        for c in commits:
            _details(root, c)
    return commits


def newest_dream_commit(root: Path) -> MemoryCommit | None:
    """The newest dream commit, without its details; git stops at the first few matches (a body
    line that reads `dream: …` matches --grep too, so a few are asked for)."""
    if repo_args(root) is None:
        return None
    for count in (8, None):
        try:
            rows = _log(root, "--grep=^dream: ", *([f"-n{count}"] if count else []))
        except GitError:
            return None
        dreams = [_commit(r) for r in rows if r[2].startswith("dream: ")]
        if dreams or count is None or len(rows) < count:
            return dreams[0] if dreams else None
    return None


def list_memory_commits(root: Path, limit: int | None = 50, *, details: bool = False) -> list[MemoryCommit]:
    """Every commit that touched memory/, newest first, with its trailers."""
    if repo_args(root) is None:
        return []
    try:
        rows = _log(root, *( [f"-n{limit}"] if limit else []), "--", "memory/")
    except GitError:
        return []
    commits = [_commit(r) for r in rows]
    if details:
        for c in commits:
            _details(root, c)
    return commits


def commit_patch(root: Path, sha: str) -> str:
    """The memory/ part of a commit as a unified diff (for the History screen)."""
    return run_git(root, "show", "--format=", "--no-renames", "--no-color", sha, "--", "memory/", strip=False)


def receipt_commits(root: Path, limit: int = 200) -> dict[str, str]:
    """Receipt id -> the commit that added `memory/meta/receipts/<id>.json`, over the newest
    `limit` commits that added one (a receipt is committed with its dream, so it cannot hold its
    own sha). One `git log`; {} without a repository or commits."""
    if repo_args(root) is None:
        return {}
    try:
        out = run_git(root, "log", "-n", str(limit), "--diff-filter=A", "--format=%x00%H", "--name-only",
                      "--", "memory/meta/receipts")
    except GitError:
        return {}
    found: dict[str, str] = {}
    for chunk in out.split("\0"):
        lines = [ln for ln in chunk.splitlines() if ln.strip()]
        if not lines:
            continue
        sha = lines[0].strip()
        for name in lines[1:]:
            stem = name.rsplit("/", 1)[-1]
            if stem.endswith(".json"):
                found.setdefault(stem[:-5], sha)
    return found
