"""Memory history from git: dream commits (as `typeclaw memory dreams` lists them) and every
memory commit with its Actor / Approval / Trigger trailers."""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from dreamdeck.core.formats.jscompat import JS_LINE_BREAKS, JS_SPACE, js_trim
from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.git.commit import DREAM_EMOJI
from dreamdeck.core.git.runner import GitError, repo_args, run_git

_TRAILER = re.compile(r"^(Actor|Approval|Trigger|Reflection|Proposal|Reverts):\s*(.*)$", re.M)
_SEP = "\x1e"

# TypeClaw `parseDreamSubject` (src/dreams/parse.ts): JavaScript's `\s`, and `.`/`$` stop at any
# line break. `\b` is ASCII (no `u` flag), hence re.A.
_DREAM_SUBJECT = re.compile(rf"dream:[{JS_SPACE}]+([^{JS_LINE_BREAKS}]*)")
_CATEGORIES = (
    (re.compile(r"\bfragments?\b", re.A), "fragments"),
    (re.compile(r"\bskills?\b", re.A), "skills"),
    (re.compile(r"watermarks only"), "watermarks-only"),
    (re.compile(r"snapshot\Z"), "snapshot"),  # `/^snapshot$/`, used with fullmatch below
)
# TypeClaw `parseDreamDetail`'s paths.
_STREAM = re.compile(r"memory/(?:streams/)?([0-9]{4}-[0-9]{2}-[0-9]{2})\.jsonl")
_TOPIC = re.compile(rf"memory/topics/([^{JS_LINE_BREAKS}]+)\.md")
_SKILL = re.compile(r"memory/skills/([^/]+)/SKILL\.md")
_STATE = "memory/.dreaming-state.json"
_STATUS = {"A": "added", "M": "modified", "D": "deleted", "R": "renamed"}
BODY_PREVIEW_MAX = 80  # UTF-16 code units, as JavaScript counts


@dataclass
class DreamSubject:
    """TypeClaw's reading of a `dream: <summary> <emoji>` subject."""

    is_dream: bool
    summary: str | None
    emoji: str | None
    categories: list[str]


@dataclass
class TopicChange:
    path: str
    slug: str
    status: str  # added | modified | deleted | renamed | unknown
    additions: int | None = None
    deletions: int | None = None


@dataclass
class AddedFragment:
    id: str
    stream_date: str | None
    topic: str | None
    body_preview: str | None


@dataclass
class DreamDetail:
    """What TypeClaw's `typeclaw memory dreams --details` says a dream commit changed."""

    added_fragments: list[AddedFragment] = field(default_factory=list)
    changed_topics: list[TopicChange] = field(default_factory=list)
    created_skills: list[tuple[str, str]] = field(default_factory=list)  # (name, path)
    state_changed: bool = False
    parse_warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        """TypeClaw's `DreamEntryDetail`, key for key."""
        return {
            "addedFragments": [{"id": f.id, "streamDate": f.stream_date, "topic": f.topic, "bodyPreview": f.body_preview}
                               for f in self.added_fragments],
            "changedTopics": [asdict(t) for t in self.changed_topics],
            "createdSkills": [{"name": n, "path": p} for n, p in self.created_skills],
            "stateChanged": self.state_changed,
            "parseWarnings": list(self.parse_warnings),
        }


@dataclass
class MemoryCommit:
    sha: str
    date: str  # ISO author date
    subject: str
    actor: str
    approval: str
    trigger: str
    ref: str = ""
    short_sha: str = ""
    committed_at: str = ""  # ISO committer date (TypeClaw's `committedAt`)
    is_dream: bool = False
    summary: str | None = None
    emoji: str | None = None
    categories: list[str] = field(default_factory=list)  # fragments, skills, watermarks-only, snapshot, other
    detail: DreamDetail | None = None

    def to_json(self) -> dict:
        return asdict(self)

    def to_dream_json(self) -> dict:
        """TypeClaw's `typeclaw memory dreams --json --details` object (its keys, in its order),
        then dreamdeck's trailers: who dreamed, who approved, what started it."""
        out: dict = {
            "sha": self.sha, "shortSha": self.short_sha, "committedAt": self.committed_at, "subject": self.subject,
            "isDreamCommit": self.is_dream, "summary": self.summary, "emoji": self.emoji, "categories": self.categories,
        }
        if self.detail is not None:
            out["detail"] = self.detail.to_json()
        out.update(actor=self.actor, approval=self.approval, trigger=self.trigger, ref=self.ref)
        return out


def parse_dream_subject(subject: str) -> DreamSubject:
    """TypeClaw `parseDreamSubject`: a trailing pool emoji is split off, the summary's words
    give its categories (several may hold: `1 fragment + new skill 'x'` is fragments and skills)."""
    m = _DREAM_SUBJECT.match(subject)
    if m is None or m.end() != len(subject):
        return DreamSubject(False, None, None, [])
    summary, emoji = js_trim(m.group(1)), None
    if summary and summary[-1] in DREAM_EMOJI:  # the last code point, as `[...rest].at(-1)`
        summary, emoji = js_trim(summary[:-1]), summary[-1]
    return DreamSubject(True, summary or None, emoji, _categories(summary))


def _categories(summary: str) -> list[str]:
    """TypeClaw `classifySummary`."""
    found = [name for rx, name in _CATEGORIES if (rx.fullmatch(summary) if name == "snapshot" else rx.search(summary))]
    return found or ["other"]


def parse_dream_detail(name_status: str, patch: str) -> DreamDetail:
    """TypeClaw `parseDreamDetail` over `git show --find-renames --name-status` and `git show -U0`."""
    detail = DreamDetail()
    for line in name_status.split("\n"):
        if not js_trim(line):
            continue
        cols = line.split("\t")
        code, old = cols[0], None
        if code.startswith("R"):
            if len(cols) < 3 or not cols[2]:
                continue
            status, old, path = "renamed", cols[1], cols[2]
        else:
            path = cols[1] if len(cols) > 1 else ""
            if not path:
                continue
            status = _STATUS.get(code[:1], "unknown")
        if _STATE in (path, old):
            detail.state_changed = True
        elif m := _TOPIC.fullmatch(path):
            detail.changed_topics.append(TopicChange(path, m.group(1), status))
        elif status == "added" and (m := _SKILL.fullmatch(path)):
            detail.created_skills.append((m.group(1), path))
    _count_topic_lines(detail, patch)
    _collect_added_fragments(detail, patch)
    return detail


def _diff_path(header: str) -> str:
    """`+++ b/<path>` -> path (`/dev/null` stays), as `stripDiffPathPrefix`."""
    path = js_trim(header[4:])
    return path if path == "/dev/null" else path.removeprefix("b/")


def _count_topic_lines(detail: DreamDetail, patch: str) -> None:
    """TypeClaw `applyTopicLineCounts`: `+`/`-` lines after a topic's `+++` header. A removed line
    starting with `--` (a `---` delimiter shows as `----`) is missed, as TypeClaw misses it."""
    if not detail.changed_topics:
        return
    counts: dict[str, list[int]] = {}
    current = None
    for line in patch.split("\n"):
        if line.startswith("+++ "):
            current = _diff_path(line)
            counts.setdefault(current, [0, 0])
        elif current is not None:
            if line.startswith("+") and not line.startswith("+++"):
                counts[current][0] += 1
            elif line.startswith("-") and not line.startswith("---"):
                counts[current][1] += 1
    for topic in detail.changed_topics:
        if topic.status == "deleted":
            continue
        if topic.path not in counts:
            if topic.status == "modified":
                detail.parse_warnings.append(f"no diff hunk for modified topic {topic.path}")
            continue
        topic.additions, topic.deletions = counts[topic.path]


def _collect_added_fragments(detail: DreamDetail, patch: str) -> None:
    """TypeClaw `extractAddedFragments`: every added, non-blank line of a stream file's patch."""
    path = None
    for line in patch.split("\n"):
        if line.startswith("diff --git "):
            path = None
        elif line.startswith("+++ "):
            path = _diff_path(line)
        elif line.startswith("+") and not line.startswith("+++") and path is not None:
            m = _STREAM.fullmatch(path)
            if m is None or not js_trim(line[1:]):
                continue
            fragment = _fragment_summary(line[1:], m.group(1))
            if fragment is None:
                detail.parse_warnings.append(f"unparseable stream line in {path}")
            elif fragment != "skip":
                detail.added_fragments.append(fragment)  # type: ignore[arg-type]


def _fragment_summary(line: str, day: str) -> AddedFragment | str | None:
    """TypeClaw `parseFragmentLine`: None when unparseable, "skip" for other event types."""
    try:
        event = load_json(line)
    except ValueError:
        return None
    if not isinstance(event, dict):
        return None
    if event.get("type") != "fragment":
        return "skip"
    if not isinstance(event.get("id"), str) or not event["id"]:
        return None
    topic, body = event.get("topic"), event.get("body")
    return AddedFragment(event["id"], day, topic if isinstance(topic, str) else None,
                         _preview(body) if isinstance(body, str) else None)


def _preview(body: str) -> str:
    """TypeClaw `preview`: whitespace runs to one space, trimmed, cut at 80 UTF-16 units + `…`."""
    oneline = js_trim(re.sub(f"[{JS_SPACE}]+", " ", body))
    units = oneline.encode("utf-16-le", "surrogatepass")
    if len(units) <= BODY_PREVIEW_MAX * 2:
        return oneline
    return units[: BODY_PREVIEW_MAX * 2].decode("utf-16-le", "surrogatepass") + "…"


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
    """TypeClaw `readDreamCommitShow` + `parseDreamDetail`: the same two `git show`s, whole commit."""
    name_status = run_git(root, "show", "--no-color", "--find-renames", "--format=", "--name-status", commit.sha,
                          check=False, strip=False)
    patch = run_git(root, "show", "--no-color", "--format=", "--unified=0", commit.sha, check=False, strip=False)
    commit.detail = parse_dream_detail(name_status, patch)


def _commit(row: tuple[str, str, str, str]) -> MemoryCommit:
    sha, date, subject, body = row
    t = _trailers(body)
    dream = parse_dream_subject(subject)
    return MemoryCommit(
        sha=sha, date=date, subject=subject,
        actor=t.get("Actor", "typeclaw" if dream.is_dream else "unknown"),
        approval=t.get("Approval", "auto" if dream.is_dream else "—"),
        trigger=t.get("Trigger", "schedule" if dream.is_dream else "—"),
        ref=t.get("Reflection") or t.get("Proposal") or t.get("Reverts", "")[:7],
        is_dream=dream.is_dream, summary=dream.summary, emoji=dream.emoji, categories=dream.categories,
    )


def list_dreams(root: Path, limit: int | None = 20, *, details: bool = True) -> list[MemoryCommit]:
    """Dream commits newest first, as TypeClaw's `readDreamCommitLog` lists them: `--grep` is a
    pre-filter (it sees body lines too), the subject must start with `dream: `, and the limit
    applies after that filter."""
    if repo_args(root) is None:
        return []
    try:
        out = run_git(root, "log", "--grep=^dream: ", f"--format=%H%x00%h%x00%cI%x00%aI%x00%s%x00%b{_SEP}", strip=False)
    except GitError:
        return []  # no commits yet
    commits = []
    for chunk in out.split(_SEP):
        fields = chunk.lstrip("\n").split("\x00")
        if len(fields) < 6 or not fields[4].startswith("dream: "):
            continue
        sha, short, committed, authored, subject, body = fields[:6]
        commit = _commit((sha, authored, subject, body))
        commit.short_sha, commit.committed_at = short, committed
        commits.append(commit)
    commits = commits[:limit] if limit and limit > 0 else commits  # TypeClaw ignores a limit below 1
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
