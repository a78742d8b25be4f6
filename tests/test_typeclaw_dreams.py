"""`dreamdeck dreams --json`, field for field with TypeClaw v0.45.1's `typeclaw memory dreams
--json --details`: the golden history (tests/data/typeclaw/dreams_json.json) is rebuilt commit
for commit, with TypeClaw's own way of committing a dream, and read back by the real command.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dreamdeck.core.git.history import parse_dream_detail, parse_dream_subject
from tests.support.typeclaw_golden import case_named, cases, file_bytes

REPO = Path(__file__).resolve().parent.parent
TYPECLAW_KEYS = ("sha", "shortSha", "committedAt", "subject", "isDreamCommit", "summary", "emoji", "categories", "detail")


def harness_env(when: str) -> dict[str, str]:
    """The harness's git: no user config, a fixed identity, the step's date (so the SHAs match)."""
    return {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "Harness", "GIT_AUTHOR_EMAIL": "harness@example.invalid",
            "GIT_COMMITTER_NAME": "Harness", "GIT_COMMITTER_EMAIL": "harness@example.invalid",
            "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}


def rebuild(root: Path, case: dict) -> None:
    """Replay the case's steps. A dream is committed as TypeClaw's `commitMemorySnapshot` does:
    `git add -f -- memory/`, then `commit --only` the names `diff --cached --name-only` lists
    (so a rename leaves its deletion staged for the next dream, as TypeClaw's does)."""
    def git(*args: str, when: str = "2026-07-01T00:00:00Z") -> str:
        return subprocess.run(["git", *args], cwd=root, env=harness_env(when), check=True,
                              capture_output=True, text=True).stdout

    git("init", "-q", "-b", "main")
    for step, seen in zip(case["steps"], case["expected"]["commits"]):
        when = step.get("date", "2026-07-01T00:00:00Z")
        for rel, spec in step.get("write", {}).items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(file_bytes(spec))
        for rel in step.get("delete", []):
            (root / rel).unlink(missing_ok=True)
        if step["action"] == "dream":
            git("add", "-f", "--", "memory/", when=when)
            staged = [p for p in git("diff", "--cached", "--name-only", "-z", "--", "memory/").split("\0") if p]
            git("commit", "-q", "-m", seen["subject"], "--only", "--", *staged, when=when)
        else:
            git("add", "-A", "--", *step.get("paths", ["."]), when=when)
            git("commit", "-q", "--allow-empty", "-m", step["message"], when=when)
        assert git("log", "-1", "--format=%s").strip() == seen["subject"]
        assert git("show", "--name-status", "--format=", "HEAD").split() == " ".join(seen["committed"]).split()


def dreams_json(root: Path, *extra: str) -> list[dict]:
    proc = subprocess.run([sys.executable, "-m", "dreamdeck", "-w", str(root), "dreams", "--json", *extra],
                          cwd=REPO, capture_output=True, text=True, env={**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null"})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def typeclaw_lines(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]


# TypeClaw `runDreams` -> `readDreamCommitLog` + `parseDreamSubject` + `readDreamCommitShow` +
# `parseDreamDetail` + `toJsonShape` (src/dreams/): the same objects, key for key and in order,
# SHAs included; dreamdeck's actor / approval / trigger / ref follow them.
@pytest.mark.parametrize("case", cases("dreams_json") + cases("dreams_json_more"))
def test_dreams_json_matches_typeclaw_memory_dreams_json_details(case, tmp_path: Path):
    root = tmp_path / "agent"
    root.mkdir()
    rebuild(root, case)
    limit = [f"--limit={case['limit']}"] if "limit" in case else ["--limit=0"]
    got = dreams_json(root, *limit, "--details")
    expected = typeclaw_lines(case["expected"]["jsonDetails"]["stdout"])
    assert [{k: d[k] for k in TYPECLAW_KEYS} for d in got] == expected
    assert all(list(d)[: len(TYPECLAW_KEYS)] == list(TYPECLAW_KEYS) for d in got)
    assert all({"actor", "approval", "trigger", "ref"} <= set(d) for d in got)
    # Without --details TypeClaw prints the same objects minus `detail`.
    assert [{k: d[k] for k in TYPECLAW_KEYS[:-1]} for d in got] == typeclaw_lines(case["expected"]["json"]["stdout"])


# TypeClaw `parseDreamSubject` / `classifySummary`: a dream that added a skill is in both
# categories, and the emoji is split off only when it is the very last character.
@pytest.mark.parametrize("subject, summary, emoji, categories", [
    ("dream: 1 fragment + new skill 'pr-review' 🌙", "1 fragment + new skill 'pr-review'", "🌙", ["fragments", "skills"]),
    ("dream: 2 new skills 😴", "2 new skills", "😴", ["skills"]),
    ("dream: 3 fragments + new skill 'x' 🧠 extra", "3 fragments + new skill 'x' 🧠 extra", None, ["fragments", "skills"]),
    ("dream: watermarks only 🔮", "watermarks only", "🔮", ["watermarks-only"]),
    ("dream: snapshot 💤", "snapshot", "💤", ["snapshot"]),
    ("dream: manual curation", "manual curation", None, ["other"]),
    ("dream: 💤", None, "💤", ["other"]),
])
def test_a_dream_subject_is_read_as_typeclaw_reads_it(subject, summary, emoji, categories):
    parsed = parse_dream_subject(subject)
    assert (parsed.is_dream, parsed.summary, parsed.emoji, parsed.categories) == (True, summary, emoji, categories)


# TypeClaw `parseDreamDetail`: the detail of the dream that added the skill `pr-review`.
def test_the_detail_of_a_dream_that_added_a_skill(tmp_path: Path):
    case = case_named("dreams_json", "dream history with fragments, skills, watermarks-only, rename, snapshot, other, non-dream")
    root = tmp_path / "agent"
    root.mkdir()
    rebuild(root, case)
    sha = next(json.loads(line)["sha"] for line in case["expected"]["jsonDetails"]["stdout"].splitlines()
               if "pr-review" in line)
    show = [subprocess.run(["git", "show", "--no-color", *args, "--format=", sha], cwd=root, check=True,
                           capture_output=True, text=True).stdout
            for args in (["--find-renames", "--name-status"], ["--unified=0"])]
    detail = parse_dream_detail(*show).to_json()
    assert detail["createdSkills"] == [{"name": "pr-review", "path": "memory/skills/pr-review/SKILL.md"}]
    assert detail["changedTopics"] == [{"path": "memory/topics/pnpm-usage.md", "slug": "pnpm-usage",
                                        "status": "modified", "additions": 6, "deletions": 5}]
    assert [f["id"] for f in detail["addedFragments"]] == ["019e1000-0000-7000-8000-00000000000c"]
    assert detail["stateChanged"] is True and detail["parseWarnings"] == []
