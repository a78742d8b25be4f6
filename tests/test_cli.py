"""The command line on a real TypeClaw-shaped agent folder: outputs, exit codes, and bytes on disk."""
from __future__ import annotations

import json
import subprocess
from functools import partial
from pathlib import Path

import pytest

from tests.support.git import git
from tests.support.memory import cite, fragment_line, shard_text, uuid_at, watermark_line, write_shard, write_stream
from tests.support.processes import run_cli

TODAY = "2026-05-22"


run = partial(run_cli, today=TODAY)


@pytest.fixture
def typeclaw(agent_dir: Path) -> Path:
    """A folder as TypeClaw leaves it: streams, shards, a dream commit, skip-worktree on memory files."""
    root = agent_dir
    write_stream(root, "2026-05-18", [fragment_line("2026-05-18", 1, "package manager", "User uses bun"),
                                      watermark_line("2026-05-18", 2)])
    write_stream(root, "2026-05-20", [fragment_line("2026-05-20", 1, "package manager", "User said use pnpm, not bun"),
                                      fragment_line("2026-05-20", 2, "timezone", "User is in Berlin")])
    write_stream(root, "2026-05-21", [fragment_line("2026-05-21", 1, "package manager", "pnpm again")])
    write_shard(root, "package-manager", shard_text(
        "The user consistently uses pnpm (not bun)", [cite("2026-05-20", 1), cite("2026-05-21", 1)],
        superseded=[cite("2026-05-18", 1)], tags=("tooling",)))
    write_shard(root, "timezone", shard_text("The user mentioned living in Berlin", [cite("2026-05-20", 2)]))
    git(root, "add", "-f", "memory/")
    git(root, "commit", "-qm", "dream: 4 fragments 🌙\n\ndream: this body line is not a subject")
    files = git(root, "ls-files", "memory/").split()
    git(root, "update-index", "--skip-worktree", *files)
    return root


def test_topics_lists_the_strength_table_in_typeclaw_order(typeclaw):
    out = run(typeclaw, "topics").stdout
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["slug", "heading", "cites"]
    assert lines[2].startswith("package-manager") and lines[3].startswith("timezone")
    assert "consistently" not in lines[3]  # tier comes from days, not from the wording


def test_topics_json_gives_every_field_per_topic(typeclaw):
    rows = json.loads(run(typeclaw, "topics", "--json").stdout)
    pm = rows[0]
    assert set(pm) >= {"slug", "heading", "cites", "days", "last_reinforced", "age", "tier", "score", "status"}
    # cites and days are TypeClaw's counts (its superseded bun fragment included); the tier is the
    # word the belief's own evidence earns: two days of pnpm
    assert (pm["slug"], pm["cites"], pm["days"], pm["last_reinforced"], pm["age"], pm["tier"], pm["active_days"]) == (
        "package-manager", 3, 3, "2026-05-21", 1, "observed", 2)
    assert pm["status"] == "active"


def test_topics_sorts_by_any_column(typeclaw):
    rows = json.loads(run(typeclaw, "topics", "--json", "--sort", "slug:desc").stdout)
    assert [r["slug"] for r in rows] == ["timezone", "package-manager"]
    bad = run(typeclaw, "topics", "--sort", "colour", check=False)
    assert bad.returncode == 2 and "unknown column" in bad.stderr


def test_show_resolves_each_citation_to_its_fragment(typeclaw):
    rep = json.loads(run(typeclaw, "show", "package-manager", "--json").stdout)
    assert rep["parse_ok"] and rep["tags"] == ["tooling"]
    assert rep["superseded"] == [f"2026-05-18#{uuid_at('2026-05-18', 1)}"]
    bodies = {f["date"]: f["body"] for f in rep["fragments"]}
    assert bodies == {"2026-05-18": "User uses bun", "2026-05-20": "User said use pnpm, not bun", "2026-05-21": "pnpm again"}
    assert all(f["source"] == "sess-1" for f in rep["fragments"])
    text = run(typeclaw, "show", "package-manager").stdout
    assert "(superseded)" in text and "[package manager] pnpm again" in text


def test_show_unknown_slug_is_one_clear_line(typeclaw):
    proc = run(typeclaw, "show", "nope", check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("dreamdeck: no topic 'nope'")
    assert "Traceback" not in proc.stderr


def test_stream_prints_a_day_and_hides_forgotten_fragments(typeclaw):
    out = run(typeclaw, "stream", "--date", "2026-05-20").stdout
    assert "User said use pnpm" in out and "User is in Berlin" in out
    from dreamdeck.core.store.tombstones import Tombstone, record
    from dreamdeck.core.workspace import Workspace

    record(Workspace.open(typeclaw), "forget", Tombstone("2026-05-20", uuid_at("2026-05-20", 2), "h", "test", "tester", "t"))
    assert "Berlin" not in run(typeclaw, "stream", "--date", "2026-05-20").stdout


def test_dreams_lists_dream_commits_with_what_they_changed(typeclaw):
    dreams = json.loads(run(typeclaw, "dreams", "--json").stdout)
    assert len(dreams) == 1
    d = dreams[0]
    assert (d["summary"], d["emoji"], d["categories"]) == ("4 fragments", "🌙", ["fragments"])
    assert sorted(t["slug"] for t in d["detail"]["changedTopics"]) == ["package-manager", "timezone"]
    assert len(d["detail"]["addedFragments"]) == 4
    assert (d["actor"], d["approval"]) == ("typeclaw", "auto")


def test_verify_is_clean_then_exits_1_when_a_citation_disappears(typeclaw):
    assert run(typeclaw, "verify").returncode == 0
    path = typeclaw / "memory/topics/timezone.md"
    path.write_text(path.read_text().replace(cite("2026-05-20", 2), ""))
    proc = run(typeclaw, "verify", check=False)
    assert proc.returncode == 1
    assert f"MISSING: {cite('2026-05-20', 2)}" in proc.stdout


def test_verify_unknown_revision_is_a_clear_error(typeclaw):
    proc = run(typeclaw, "verify", "nosuchrev", check=False)
    assert proc.returncode == 2 and "unknown revision" in proc.stderr


def test_doctor_reports_what_would_hurt_the_agent(typeclaw):
    (typeclaw / "memory/topics/broken.md").write_text("---\nheading: x\nproposal: cli packages/x\n---\nbody\n")
    stale = typeclaw / "memory/topics/timezone.md"
    stale.write_text(stale.read_text().replace("cites: 1", "cites: 9"))
    write_stream(typeclaw, "2026-05-21", ["{not json"])
    write_shard(typeclaw, "ghost", shard_text("Ghost belief", [cite("2026-05-19", 7)]))
    proc = run(typeclaw, "doctor", "--json", check=False)
    assert proc.returncode == 1
    kinds = {(f["kind"], f["where"].split(":")[0]) for f in json.loads(proc.stdout)["findings"]}
    assert ("unparseable", "memory/topics/broken.md") in kinds
    assert ("stale-frontmatter", "memory/topics/timezone.md") in kinds
    assert ("malformed-line", "memory/streams/2026-05-21.jsonl") in kinds
    assert ("missing-fragment", "memory/topics/ghost.md") in kinds


def test_doctor_fix_recomputes_frontmatter_to_typeclaws_exact_bytes(typeclaw):
    path = typeclaw / "memory/topics/timezone.md"
    good = path.read_bytes()
    path.write_text(path.read_text().replace("cites: 1", "cites: 9").replace("days: 1", "days: 4"))
    proc = run(typeclaw, "doctor", "--fix", check=False)
    assert "recomputed frontmatter of memory/topics/timezone.md" in proc.stdout
    assert path.read_bytes() == good
    assert "doctor --fix" in git(typeclaw, "log", "-1", "--format=%s")


def test_remember_appends_a_fragment_and_refuses_secrets_and_duplicates(typeclaw):
    out = run(typeclaw, "remember", "User prefers short PRs", "--topic", "code review").stdout
    assert out.startswith("remembered streams/2026-05-22#")
    path = typeclaw / "memory/streams/2026-05-22.jsonl"
    before = path.read_bytes()
    dup = run(typeclaw, "remember", "User prefers short PRs  ", "--topic", "code review", check=False)
    assert dup.returncode == 2 and "duplicate" in dup.stderr
    secret = run(typeclaw, "remember", "token ghp_" + "a" * 36, "--topic", "x", check=False)
    assert secret.returncode == 2 and "github token" in secret.stderr
    assert path.read_bytes() == before


def test_bad_input_never_prints_a_traceback(tmp_path):
    missing = run_cli(tmp_path / "nope", "topics", check=False)
    assert missing.returncode == 2 and "does not exist" in missing.stderr and "Traceback" not in missing.stderr
    bad_date = run_cli(tmp_path, "topics", today="2026-02-30", check=False)
    assert bad_date.returncode == 2 and "no such day" in bad_date.stderr


def test_an_empty_folder_tells_a_new_user_what_to_do(tmp_path):
    proc = run_cli(tmp_path, "topics", check=False)
    assert proc.returncode == 0 and "dreamdeck remember" in proc.stdout


def test_offline_dream_from_the_cli_commits_as_typeclaw_does(typeclaw):
    run(typeclaw, "remember", "User is in Berlin, CET", "--topic", "timezone")
    out = run(typeclaw, "dream", "--dreamer", "offline", "--review", "none").stdout
    assert "dreamer: offline (asked for)" in out
    subject = git(typeclaw, "log", "-1", "--format=%s")
    assert subject.startswith("dream: ") and "fragment" in subject
    body = git(typeclaw, "log", "-1", "--format=%b")
    assert "Actor: dreamer:offline" in body and "Trigger: manual" in body
    assert git(typeclaw, "status", "--porcelain") == ""
    assert run(typeclaw, "verify", "HEAD~1").returncode == 0


def test_gitstore_layout_is_supported(tmp_path):
    root = tmp_path / "agent"
    root.mkdir()
    subprocess.run(["git", "--git-dir=.gitstore", "--work-tree=.", "init", "-q"], cwd=root, check=True)
    write_stream(root, "2026-05-21", [fragment_line("2026-05-21", 1, "t", "한국어 본문")])
    run(root, "dream", "--dreamer", "offline", "--review", "none")
    log = subprocess.run(["git", "--git-dir=.gitstore", "--work-tree=.", "log", "--format=%s"], cwd=root,
                         capture_output=True, text=True).stdout
    assert log.startswith("dream: 1 fragment")
    assert json.loads(run(root, "dreams", "--json").stdout)[0]["categories"] == ["fragments"]


def test_a_word_that_is_neither_a_command_nor_a_folder_says_so_and_suggests_the_command(tmp_path, monkeypatch, capsys):
    from dreamdeck.cli.main import main

    monkeypatch.chdir(tmp_path)
    assert main(["proposals"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("dreamdeck: 'proposals' is neither a command nor a folder here (did you mean `propose`? "
                   "`dreamdeck --help` lists the commands)")
    assert main(["statuz"]) == 2
    assert capsys.readouterr().err.strip() == ("dreamdeck: 'statuz' is neither a command nor a folder here "
                                               "(`dreamdeck --help` lists the commands)")
    assert main([str(tmp_path / "gone")]) == 2  # a path: the folder is what is missing
    assert "does not exist" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
