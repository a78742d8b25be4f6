"""core.gitops: commits the way TypeClaw's `commitMemorySnapshot` makes them, through real git.

Acceptance: the commitMemorySnapshot and commit-message blocks of dreaming.test.ts (reference §7, §9).
"""
from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from dreamdeck.core.git.blobs import read_blobs, show_file, tree_files
from dreamdeck.core.git.commit import DREAM_EMOJI, Trailers, commit_memory, dream_summary
from dreamdeck.core.git.runner import GitError, head, repo_args, resolve_rev, run_git
from tests.support.git import commit_count, git
from tests.support.memory import fragment_line, shard_text, watermark_line, write_shard, write_stream

TRAILERS = Trailers(actor="dreamdeck:offline", approval="auto", trigger="manual")
DAY = "2026-05-22"


def subject(root: Path, rev: str = "HEAD", gitstore: bool = False) -> str:
    return git(root, "log", "-1", "--format=%s", rev, gitstore=gitstore).strip()


def skip_flags(root: Path, gitstore: bool = False) -> dict[str, str]:
    out = git(root, "ls-files", "-v", "-z", "--", "memory/", gitstore=gitstore)
    return {item[2:]: item[0] for item in out.split("\0") if item}


def dream(root: Path, seed: int = 0) -> str | None:
    return commit_memory(root, None, TRAILERS, rng=random.Random(seed))


def fragments(day: str, n: int, start: int = 1) -> list[str]:
    return [fragment_line(day, i, "t", f"body {i}") for i in range(start, start + n)]


# --- hooks, force-add, skip-worktree ----------------------------------------------------------------
def test_a_planted_pre_commit_hook_never_runs(agent_dir):
    marker = agent_dir / "hook-ran"
    hook = agent_dir / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    hook.chmod(0o755)
    write_stream(agent_dir, DAY, fragments(DAY, 1))
    sha = dream(agent_dir)
    assert sha is not None and sha == git(agent_dir, "rev-parse", "HEAD").strip()
    assert not marker.exists()


def test_hooks_from_a_configured_hooks_path_never_run_either(agent_dir):
    hooks = agent_dir / "my-hooks"
    hooks.mkdir()
    marker = agent_dir / "hook-ran"
    for name in ("pre-commit", "commit-msg", "post-commit", "prepare-commit-msg"):
        (hooks / name).write_text(f"#!/bin/sh\necho {name} >> {marker}\nexit 1\n")
        (hooks / name).chmod(0o755)
    git(agent_dir, "config", "core.hooksPath", str(hooks))
    write_stream(agent_dir, DAY, fragments(DAY, 1))
    assert dream(agent_dir) is not None
    assert not marker.exists()


def test_the_ignored_memory_folder_is_force_added(agent_dir):
    write_stream(agent_dir, DAY, fragments(DAY, 2))
    write_shard(agent_dir, "pnpm", shard_text("Uses pnpm", [f"streams/{DAY}#x"]))
    (agent_dir / "memory" / ".dreaming-state.json").write_text('{\n  "version": 2,\n  "dreamedThrough": {}\n}\n')
    dream(agent_dir)
    assert sorted(tree_files(agent_dir, "HEAD", "memory/")) == [
        "memory/.dreaming-state.json", f"memory/streams/{DAY}.jsonl", "memory/topics/pnpm.md",
    ]
    assert show_file(agent_dir, "HEAD", "memory/topics/pnpm.md") == (agent_dir / "memory/topics/pnpm.md").read_bytes()


def test_memory_files_are_skip_worktree_after_a_commit(agent_dir):
    write_stream(agent_dir, DAY, fragments(DAY, 1))
    write_shard(agent_dir, "pnpm", shard_text("Uses pnpm", []))
    dream(agent_dir)
    assert skip_flags(agent_dir) == {f"memory/streams/{DAY}.jsonl": "S", "memory/topics/pnpm.md": "S"}


def test_git_status_stays_clean_even_after_memory_is_edited(agent_dir):
    write_stream(agent_dir, DAY, fragments(DAY, 1))
    dream(agent_dir)
    assert git(agent_dir, "status", "--porcelain") == ""
    write_stream(agent_dir, DAY, fragments(DAY, 1, start=2))
    (agent_dir / "memory" / "streams" / "2026-05-21.jsonl").write_text("new untracked\n")
    assert git(agent_dir, "status", "--porcelain") == ""


def test_the_next_commit_picks_up_edits_hidden_by_skip_worktree(agent_dir):
    path = write_stream(agent_dir, DAY, fragments(DAY, 1))
    first = dream(agent_dir)
    write_stream(agent_dir, DAY, fragments(DAY, 1, start=2))
    second = dream(agent_dir)
    assert second != first
    assert show_file(agent_dir, "HEAD", f"memory/streams/{DAY}.jsonl") == path.read_bytes()
    assert skip_flags(agent_dir) == {f"memory/streams/{DAY}.jsonl": "S"}


def test_a_deleted_memory_file_is_committed_as_a_deletion(agent_dir):
    shard = write_shard(agent_dir, "old", shard_text("Old", []))
    write_shard(agent_dir, "kept", shard_text("Kept", []))
    dream(agent_dir)
    shard.unlink()
    assert dream(agent_dir) is not None
    assert tree_files(agent_dir, "HEAD", "memory/") == ["memory/topics/kept.md"]
    assert git(agent_dir, "status", "--porcelain") == ""


def test_nothing_changed_means_no_commit(agent_dir):
    write_stream(agent_dir, DAY, fragments(DAY, 1))
    dream(agent_dir)
    before = commit_count(agent_dir)
    assert dream(agent_dir) is None
    assert commit_count(agent_dir) == before
    assert skip_flags(agent_dir) == {f"memory/streams/{DAY}.jsonl": "S"}


def test_no_memory_folder_means_no_commit(agent_dir):
    assert dream(agent_dir) is None
    assert commit_count(agent_dir) == 1


def test_a_folder_without_git_is_a_no_op(tmp_path):
    write_stream(tmp_path, DAY, fragments(DAY, 1))
    assert repo_args(tmp_path) is None
    assert commit_memory(tmp_path, None, TRAILERS) is None
    assert not (tmp_path / ".git").exists()
    assert head(tmp_path) is None


def test_running_git_outside_a_repository_is_a_git_error(tmp_path):
    with pytest.raises(GitError, match="not a git repository"):
        run_git(tmp_path, "status")
    with pytest.raises(GitError, match="not a git repository"):
        resolve_rev(tmp_path, "HEAD")


def test_only_memory_is_committed_even_when_other_changes_are_staged(agent_dir):
    (agent_dir / "SOUL.md").write_text("# Soul\nChanged.\n")
    git(agent_dir, "add", "SOUL.md")
    write_stream(agent_dir, DAY, fragments(DAY, 1))
    dream(agent_dir)
    assert git(agent_dir, "show", "--name-only", "--format=", "HEAD").split() == [f"memory/streams/{DAY}.jsonl"]
    assert git(agent_dir, "diff", "--cached", "--name-only").split() == ["SOUL.md"]


def test_unstaged_edits_outside_memory_stay_out_of_the_commit_and_in_the_worktree(agent_dir):
    """With nothing staged outside memory/ the commit is a plain one (no `--only`); the user's
    unstaged edits must still be neither committed nor touched."""
    (agent_dir / "SOUL.md").write_text("# Soul\nEdited, not staged.\n")
    write_stream(agent_dir, DAY, fragments(DAY, 1))
    dream(agent_dir)
    assert git(agent_dir, "show", "--name-only", "--format=", "HEAD").split() == [f"memory/streams/{DAY}.jsonl"]
    assert git(agent_dir, "diff", "--name-only").split() == ["SOUL.md"]
    assert (agent_dir / "SOUL.md").read_text() == "# Soul\nEdited, not staged.\n"
    assert git(agent_dir, "diff", "--cached", "--name-only") == ""


def test_without_a_git_identity_a_fallback_author_is_used(agent_dir):
    write_stream(agent_dir, DAY, fragments(DAY, 1))
    dream(agent_dir)
    assert git(agent_dir, "log", "-1", "--format=%an <%ae>") == "dreamdeck <dreamdeck@localhost>\n"


def test_the_users_git_identity_is_used_when_there_is_one(agent_dir):
    git(agent_dir, "config", "user.name", "Jisoo")
    git(agent_dir, "config", "user.email", "jisoo@example.com")
    write_stream(agent_dir, DAY, fragments(DAY, 1))
    dream(agent_dir)
    assert git(agent_dir, "log", "-1", "--format=%an <%ae>") == "Jisoo <jisoo@example.com>\n"


def test_non_ascii_file_names_are_committed_and_hidden(agent_dir):
    ref = agent_dir / "memory" / "references" / "배포 정책.md"
    ref.parent.mkdir(parents=True)
    ref.write_text("금요일 배포 금지\n", encoding="utf-8")
    dream(agent_dir)
    assert tree_files(agent_dir, "HEAD", "memory/") == ["memory/references/배포 정책.md"]
    assert skip_flags(agent_dir) == {"memory/references/배포 정책.md": "S"}


# --- .gitstore ------------------------------------------------------------------------------------------
@pytest.fixture
def gitstore_dir(tmp_path: Path) -> Path:
    """TypeClaw's alternative layout: the git dir is `<root>/.gitstore`, used with --git-dir/--work-tree."""
    root = tmp_path / "agent"
    root.mkdir()
    git(root, "init", "-q", "-b", "main", gitstore=True)
    (root / ".gitignore").write_text("# system-managed roots\nmemory/\n.gitstore/\n")
    git(root, "add", ".gitignore", gitstore=True)
    git(root, "commit", "-qm", "init agent", gitstore=True)
    return root


def test_the_gitstore_layout_is_recognized(gitstore_dir):
    assert not (gitstore_dir / ".git").exists()
    assert repo_args(gitstore_dir) == ["--git-dir", str(gitstore_dir / ".gitstore"), "--work-tree", str(gitstore_dir)]


def test_a_korean_content_commit_works_through_the_gitstore(gitstore_dir):
    write_stream(gitstore_dir, DAY, [fragment_line(DAY, 1, "배포", "금요일에는 배포하지 않는다. — 지수")])
    write_shard(gitstore_dir, "no-friday-deploys", shard_text("금요일 배포 금지", [f"streams/{DAY}#x"]))
    sha = commit_memory(gitstore_dir, None, Trailers("지수", "human", "manual"), body="한국어 본문", rng=random.Random(1))
    assert sha == git(gitstore_dir, "rev-parse", "HEAD", gitstore=True).strip()
    assert subject(gitstore_dir, gitstore=True).startswith("dream: 1 fragment ")
    assert "Actor: 지수" in git(gitstore_dir, "log", "-1", "--format=%B", gitstore=True)
    committed = show_file(gitstore_dir, sha, f"memory/streams/{DAY}.jsonl")
    assert committed == (gitstore_dir / "memory" / "streams" / f"{DAY}.jsonl").read_bytes()
    assert "금요일".encode() in committed


def test_the_gitstore_layout_gets_skip_worktree_and_a_clean_status(gitstore_dir):
    write_stream(gitstore_dir, DAY, fragments(DAY, 1))
    commit_memory(gitstore_dir, None, TRAILERS)
    assert skip_flags(gitstore_dir, gitstore=True) == {f"memory/streams/{DAY}.jsonl": "S"}
    write_stream(gitstore_dir, DAY, fragments(DAY, 1, start=2))
    assert git(gitstore_dir, "status", "--porcelain", gitstore=True) == ""


def test_the_gitstore_hooks_never_run(gitstore_dir):
    marker = gitstore_dir / "hook-ran"
    hook = gitstore_dir / ".gitstore" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    hook.chmod(0o755)
    write_stream(gitstore_dir, DAY, fragments(DAY, 1))
    assert commit_memory(gitstore_dir, None, TRAILERS) is not None
    assert not marker.exists()


# --- the subject ------------------------------------------------------------------------------------------
def test_the_subject_is_dream_summary_and_a_pool_emoji(agent_dir):
    write_stream(agent_dir, DAY, fragments(DAY, 5))
    dream(agent_dir)
    text = subject(agent_dir)
    assert text.startswith("dream: 5 fragments ")
    assert text.rsplit(" ", 1)[1] in DREAM_EMOJI


def test_the_emoji_comes_from_the_given_random_source(agent_dir):
    write_stream(agent_dir, DAY, fragments(DAY, 2))
    dream(agent_dir, seed=7)
    assert subject(agent_dir) == f"dream: 2 fragments {random.Random(7).choice(DREAM_EMOJI)}"


def test_one_fragment_is_singular(agent_dir):
    write_stream(agent_dir, DAY, fragments(DAY, 1) + [watermark_line(DAY, 50)])
    dream(agent_dir)
    assert subject(agent_dir).startswith("dream: 1 fragment ")


def test_watermarks_and_legacy_lines_are_not_counted(agent_dir):
    legacy = '{"type":"legacy_prose","ts":"2026-05-22T00:00:00.000Z","text":"old","origin":"migration"}'
    write_stream(agent_dir, DAY, fragments(DAY, 3) + [watermark_line(DAY, 10), watermark_line(DAY, 11), legacy, "{bad"])
    dream(agent_dir)
    assert subject(agent_dir).startswith("dream: 3 fragments ")


def test_all_fragments_of_a_changed_stream_file_are_counted(agent_dir):
    write_stream(agent_dir, DAY, fragments(DAY, 4))
    dream(agent_dir)
    write_stream(agent_dir, DAY, fragments(DAY, 1, start=5))
    dream(agent_dir)
    assert subject(agent_dir).startswith("dream: 5 fragments ")  # TypeClaw counts the file, not the new lines


def test_fragments_are_counted_across_changed_files_only(agent_dir):
    write_stream(agent_dir, "2026-05-20", fragments("2026-05-20", 3))
    dream(agent_dir)
    write_stream(agent_dir, "2026-05-21", fragments("2026-05-21", 2))
    write_stream(agent_dir, DAY, fragments(DAY, 1))
    dream(agent_dir)
    assert subject(agent_dir).startswith("dream: 3 fragments ")


def test_the_legacy_flat_stream_layout_is_counted(agent_dir):
    write_stream(agent_dir, DAY, fragments(DAY, 2), layout="flat")
    dream(agent_dir)
    assert subject(agent_dir).startswith("dream: 2 fragments ")


def test_only_state_and_topic_changes_are_watermarks_only(agent_dir):
    (agent_dir / "memory").mkdir()
    (agent_dir / "memory" / ".dreaming-state.json").write_text('{"version": 2, "dreamedThrough": {}}\n')
    write_shard(agent_dir, "pnpm", shard_text("Uses pnpm", []))
    dream(agent_dir)
    assert subject(agent_dir).startswith("dream: watermarks only ")


def test_a_stream_that_only_shrank_is_watermarks_only(agent_dir):
    path = write_stream(agent_dir, DAY, fragments(DAY, 2) + [watermark_line(DAY, 10), watermark_line(DAY, 11)])
    dream(agent_dir)
    path.write_text("".join(line + "\n" for line in fragments(DAY, 2) + [watermark_line(DAY, 11)]))
    dream(agent_dir)
    assert subject(agent_dir).startswith("dream: watermarks only ")


def test_a_new_skill_is_named(agent_dir):
    write_stream(agent_dir, DAY, fragments(DAY, 3))
    skill = agent_dir / "memory" / "skills" / "pr-review" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: pr-review\ndescription: d\nsource: muscle-memory\n---\nSteps.\n")
    dream(agent_dir)
    assert subject(agent_dir).startswith("dream: 3 fragments + new skill 'pr-review' ")


def test_several_new_skills_are_counted(agent_dir):
    write_stream(agent_dir, DAY, fragments(DAY, 1))
    for name in ("deploy-check", "pr-review"):
        skill = agent_dir / "memory" / "skills" / name / "SKILL.md"
        skill.parent.mkdir(parents=True)
        skill.write_text(f"---\nname: {name}\n---\n")
    dream(agent_dir)
    assert subject(agent_dir).startswith("dream: 1 fragment + 2 new skills ")


def test_a_new_skill_alone_has_no_fragment_part(agent_dir):
    skill = agent_dir / "memory" / "skills" / "solo" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("x\n")
    dream(agent_dir)
    assert subject(agent_dir).startswith("dream: new skill 'solo' ")


def test_an_edited_skill_is_not_new(agent_dir):
    skill = agent_dir / "memory" / "skills" / "solo" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("v1\n")
    dream(agent_dir)
    skill.write_text("v2\n")
    dream(agent_dir)
    assert subject(agent_dir).startswith("dream: watermarks only ")


def test_files_beside_a_skill_are_not_skills(agent_dir):
    extra = agent_dir / "memory" / "skills" / "solo" / "notes.md"
    extra.parent.mkdir(parents=True)
    extra.write_text("x\n")
    dream(agent_dir)
    assert subject(agent_dir).startswith("dream: watermarks only ")


def test_a_renamed_shard_does_not_hide_a_new_skill(agent_dir):
    old = write_shard(agent_dir, "old-name", shard_text("A belief that is long enough to be detected as a rename", []))
    dream(agent_dir)
    (agent_dir / "memory" / "topics" / "new-name.md").write_bytes(old.read_bytes())
    old.unlink()
    skill = agent_dir / "memory" / "skills" / "pr-review" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("steps\n")
    dream(agent_dir)
    assert subject(agent_dir).startswith("dream: new skill 'pr-review' ")


def test_dream_summary_reads_what_is_staged(agent_dir):
    write_stream(agent_dir, DAY, fragments(DAY, 2))
    git(agent_dir, "add", "-f", "memory/")
    assert dream_summary(agent_dir) == "2 fragments"


def test_an_explicit_subject_is_used_as_given(agent_dir):
    write_stream(agent_dir, DAY, fragments(DAY, 1))
    commit_memory(agent_dir, "forget: streams/2026-05-22#x", TRAILERS)
    assert subject(agent_dir) == "forget: streams/2026-05-22#x"


# --- the body and its trailers -------------------------------------------------------------------------
def test_trailers_are_in_the_body(agent_dir):
    write_stream(agent_dir, DAY, fragments(DAY, 1))
    trailers = Trailers(actor="human:jisoo", approval="partial", trigger="review", ref="r-20260522-ab12")
    commit_memory(agent_dir, None, trailers, body="Approved 2 of 3 hunks.", rng=random.Random(3))
    message = git(agent_dir, "log", "-1", "--format=%B")
    lines = message.rstrip("\n").split("\n")
    assert lines[0] == f"dream: 1 fragment {random.Random(3).choice(DREAM_EMOJI)}"
    assert lines[1:] == [
        "", "Approved 2 of 3 hunks.", "",
        "Actor: human:jisoo", "Approval: partial", "Trigger: review", "Reflection: r-20260522-ab12",
    ]


def test_trailers_are_parsed_by_git_as_trailers(agent_dir):
    write_stream(agent_dir, DAY, fragments(DAY, 1))
    commit_memory(agent_dir, None, Trailers("a", "auto", "watch", ref="p-1", ref_kind="Proposal"))
    trailers = git(agent_dir, "log", "-1", "--format=%(trailers:only,unfold)").strip().split("\n")
    assert trailers == ["Actor: a", "Approval: auto", "Trigger: watch", "Proposal: p-1"]


def test_without_a_body_the_trailers_follow_the_subject(agent_dir):
    write_stream(agent_dir, DAY, fragments(DAY, 1))
    commit_memory(agent_dir, "s", TRAILERS)
    assert git(agent_dir, "log", "-1", "--format=%B") == "s\n\nActor: dreamdeck:offline\nApproval: auto\nTrigger: manual\n\n"


def test_without_a_ref_there_is_no_reflection_trailer():
    assert Trailers("a", "b", "c").render() == "Actor: a\nApproval: b\nTrigger: c"


# --- reading history -------------------------------------------------------------------------------------
def test_head_and_resolve_rev(agent_dir):
    sha = git(agent_dir, "rev-parse", "HEAD").strip()
    assert head(agent_dir) == sha
    assert resolve_rev(agent_dir, "HEAD") == sha
    assert resolve_rev(agent_dir, sha[:8]) == sha
    with pytest.raises(GitError, match="unknown revision 'nope'"):
        resolve_rev(agent_dir, "nope")


def test_head_of_a_repository_without_commits_is_none(tmp_path):
    git(tmp_path, "init", "-q")
    assert head(tmp_path) is None


def test_show_file_returns_bytes_or_none(agent_dir):
    assert show_file(agent_dir, "HEAD", "SOUL.md") == b"# Soul\nBe kind.\n"
    assert show_file(agent_dir, "HEAD", "missing.md") is None


def test_read_blobs_reads_many_files_at_once_and_skips_missing(agent_dir):
    write_stream(agent_dir, DAY, fragments(DAY, 1))
    write_shard(agent_dir, "a", "A\n")
    dream(agent_dir)
    blobs = read_blobs(agent_dir, "HEAD", ["memory/topics/a.md", "nope.md", "SOUL.md"])
    assert blobs == {"memory/topics/a.md": b"A\n", "SOUL.md": b"# Soul\nBe kind.\n"}
    assert read_blobs(agent_dir, "HEAD", []) == {}


# --- storing a big blob while other work goes on ------------------------------------------------------
def object_exists(root: Path, sha: str, gitstore: bool = False) -> bool:
    extra = ["--git-dir", str(root / ".gitstore"), "--work-tree", str(root)] if gitstore else []
    return subprocess.run(["git", *extra, "cat-file", "-e", sha], cwd=root).returncode == 0


def test_a_blob_stored_ahead_is_the_very_object_the_commit_records(agent_dir):
    """The door hands git the state-to-be in a second process while it writes shards and GCs;
    the commit then finds the object already stored. It must be the same object git add makes,
    filters included (here an eol conversion from .gitattributes)."""
    from dreamdeck.core.git.blobs import store_blob_in_background

    (agent_dir / ".gitattributes").write_text("*.json text eol=lf\n")
    content = b'{\r\n  "version": 2\r\n}\r\n'
    state = agent_dir / "memory" / ".dreaming-state.json"
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_bytes(content)
    expected = git(agent_dir, "hash-object", "memory/.dreaming-state.json").strip()
    assert not object_exists(agent_dir, expected)
    job = store_blob_in_background(agent_dir, "memory/.dreaming-state.json", [content[:7], content[7:]])
    assert job is not None
    job.wait()
    assert object_exists(agent_dir, expected)
    assert dream(agent_dir)
    assert git(agent_dir, "rev-parse", "HEAD:memory/.dreaming-state.json").strip() == expected


def test_storing_ahead_works_through_the_gitstore_and_is_a_no_op_without_git(gitstore_dir, tmp_path):
    from dreamdeck.core.git.blobs import store_blob_in_background

    content = b'{"version": 2, "dreamedThrough": {"2026-05-22": {}}}\n'
    job = store_blob_in_background(gitstore_dir, "memory/.dreaming-state.json", [content])
    job.wait()
    state = gitstore_dir / "memory" / ".dreaming-state.json"
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_bytes(content)
    sha = git(gitstore_dir, "hash-object", "memory/.dreaming-state.json", gitstore=True).strip()
    assert object_exists(gitstore_dir, sha, gitstore=True)
    assert not (gitstore_dir / ".git").exists()
    plain = tmp_path / "no-git"
    (plain / "memory").mkdir(parents=True)
    assert store_blob_in_background(plain, "memory/x.json", [b"{}"]) is None


def test_staging_ahead_clears_skip_worktree_stages_the_file_and_the_commit_takes_it(agent_dir):
    """The door stages the state while it collects fragments; the path is skip-worktree since
    the last commit (git add would refuse it), so the job clears that first, as commit_memory
    does; the commit then holds the staged bytes and hides the file again."""
    from dreamdeck.core.git.blobs import stage_in_background

    state = agent_dir / "memory" / ".dreaming-state.json"
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text('{"version": 2}\n')
    assert dream(agent_dir)
    assert skip_flags(agent_dir)["memory/.dreaming-state.json"] == "S"
    state.write_text('{"version": 2, "dreamedThrough": {}}\n')
    job = stage_in_background(agent_dir, ["memory/.dreaming-state.json"])
    job.wait()
    assert git(agent_dir, "diff", "--cached", "--name-only").split() == ["memory/.dreaming-state.json"]
    assert dream(agent_dir)
    assert git(agent_dir, "show", "HEAD:memory/.dreaming-state.json") == '{"version": 2, "dreamedThrough": {}}\n'
    assert skip_flags(agent_dir)["memory/.dreaming-state.json"] == "S"
    assert git(agent_dir, "status", "--porcelain") == ""
