"""The queue and curation verbs of the command line, run as a person or a script runs them.

Every check goes through a real `python -m dreamdeck` subprocess on a TypeClaw-shaped agent folder
with real git, and asserts the output, the exit status AND what is on disk and in the history.
Reflections a subprocess cannot script (a merge) are made in-process with a scripted dreamer; the
CLI then decides them.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import time
from functools import partial
from pathlib import Path

import pytest

from tests.support.dreamers import Scripted, draft, merge_into
from tests.support.git import git, head, trailer_lines
from tests.support.memory import (
    cite,
    commit_all,
    fragment_line,
    shard_text,
    uuid_at,
    watermark_line,
    write_shard,
    write_stream,
)
from tests.support.processes import run_cli

TODAY = "2026-05-22"
D1 = "2026-05-20"


# --- running the command line ----------------------------------------------------------------------
run = partial(run_cli, today=TODAY)


def fails(root: Path, *args: str, status: int, says: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """A refusal: the given status, and one clear line on stderr saying `says`."""
    proc = run(root, *args, check=False, env=env)
    assert proc.returncode == status, (proc.returncode, proc.stdout, proc.stderr)
    assert says in proc.stderr, proc.stderr
    assert proc.stderr.startswith("dreamdeck: ") and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    return proc


def usage_error(root: Path, *args: str, says: str) -> None:
    proc = run(root, *args, check=False)
    assert proc.returncode == 2 and says in proc.stderr, proc.stderr


def cli_json(root: Path, *args: str):
    return json.loads(run(root, *args, "--json").stdout)


# --- reading the agent folder ----------------------------------------------------------------------
def subject(root: Path, rev: str = "HEAD") -> str:
    return git(root, "log", "-1", "--format=%s", rev).strip()


def trailers(root: Path, rev: str = "HEAD") -> dict[str, str]:
    return dict(line.split(": ", 1) for line in trailer_lines(root, rev))


def changed_files(root: Path, rev: str = "HEAD") -> set[str]:
    return set(git(root, "show", "--name-only", "--format=", rev).split())


def memory_bytes(root: Path) -> dict[str, bytes]:
    """Every file under memory/: the whole on-disk state a refusal must leave untouched."""
    mem = root / "memory"
    return {str(p.relative_to(mem)): p.read_bytes() for p in sorted(mem.rglob("*")) if p.is_file()}


def reflection(root: Path, rid: str = "r-1") -> dict:
    return json.loads((root / "memory/meta/reflections" / f"{rid}.json").read_text())


def dreamed_ids(root: Path) -> set[str]:
    path = root / "memory/.dreaming-state.json"
    if not path.exists():
        return set()
    state = json.loads(path.read_text())
    return {i for day in state["dreamedThrough"].values() for i in day["dreamedIds"]}


def key(day: str, n: int) -> str:
    return f"{day}#{uuid_at(day, n)}"


# --- agent folders ---------------------------------------------------------------------------------
def make_agent(root: Path) -> Path:
    """As TypeClaw leaves a folder: streams, two shards, a dream commit, skip-worktree on memory/."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text("# system-managed roots\nmemory/\n")
    (root / "SOUL.md").write_text("# Soul\nBe kind.\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "init agent")
    write_stream(root, "2026-05-18", [fragment_line("2026-05-18", 1, "package manager", "User uses bun"),
                                      watermark_line("2026-05-18", 2)])
    write_stream(root, D1, [fragment_line(D1, 1, "package manager", "User said use pnpm, not bun"),
                            fragment_line(D1, 2, "timezone", "User is in Berlin")])
    write_stream(root, "2026-05-21", [fragment_line("2026-05-21", 1, "package manager", "pnpm again")])
    write_shard(root, "package-manager", shard_text(
        "The user consistently uses pnpm (not bun)", [cite(D1, 1), cite("2026-05-21", 1)],
        superseded=[cite("2026-05-18", 1)], tags=("tooling",)))
    write_shard(root, "timezone", shard_text("The user mentioned living in Berlin", [cite(D1, 2)]))
    git(root, "add", "-f", "memory/")
    git(root, "commit", "-qm", "dream: 4 fragments 🌙")
    git(root, "update-index", "--skip-worktree", *git(root, "ls-files", "memory/").split())
    return root


def add_today(root: Path) -> None:
    """Today's two undreamed fragments: one reinforces timezone, one is a new topic."""
    write_stream(root, TODAY, [fragment_line(TODAY, 1, "timezone", "User is in Berlin, CET"),
                               fragment_line(TODAY, 2, "drinks", "User likes tea")])


def ws_of(root: Path):
    from dreamdeck.core.workspace import Workspace

    return Workspace.open(root, today=TODAY)


def offline_dream(root: Path, review: str):
    from dreamdeck.core.dreaming.run import run_dream

    receipt = run_dream(ws_of(root), dreamer_name="offline", review=review)
    assert receipt.commit and receipt.status not in ("failed", "reverted"), receipt
    return receipt


@pytest.fixture
def typeclaw(tmp_path: Path) -> Path:
    return make_agent(tmp_path / "agent")


def two_file_reflection(root: Path) -> None:
    """r-1, deterministic: timezone gains today's #1, a new shard `drinks` cites today's #2."""
    add_today(root)

    def script(inp, scratch):
        scratch.write_shard("timezone", draft("The user mentioned living in Berlin", [cite(D1, 2), cite(TODAY, 1)]))
        scratch.write_shard("drinks", draft("The user likes tea", [cite(TODAY, 2)]))

    from dreamdeck.core.dreaming.run import run_dream

    assert run_dream(ws_of(root), dreamer=Scripted(script, summary="two changes"), review="all").reflection == "r-1"


def hunks_by_file(root: Path, rid: str = "r-1") -> dict[str, list[str]]:
    rep = cli_json(root, "review", rid)
    return {f["path"]: [h["id"] for h in f["hunks"]] for f in rep["files"]}


# --- the review queue --------------------------------------------------------------------------------
def test_a_dream_held_for_review_is_listed_and_shown_with_hunks_and_loss_meter(typeclaw):
    add_today(typeclaw)
    topics_before = {p.name: p.read_bytes() for p in (typeclaw / "memory/topics").iterdir()}

    out = run(typeclaw, "dream", "--dreamer", "offline", "--review", "all").stdout
    assert "held for review: topics/drinks.md, topics/timezone.md → `dreamdeck review r-1`" in out
    assert {p.name: p.read_bytes() for p in (typeclaw / "memory/topics").iterdir()} == topics_before
    assert reflection(typeclaw)["status"] == "pending"
    assert trailers(typeclaw)["Reflection"] == "r-1"

    listing = run(typeclaw, "review").stdout.splitlines()
    assert listing[0].split() == ["id", "kind", "age", "status", "summary"]
    assert re.match(r"r-1\s+reflection\s+0d\s+pending\s+\S", listing[2])
    assert reflection(typeclaw)["summary"][:40] in listing[2]

    items = cli_json(typeclaw, "review")["items"]
    assert len(items) == 1
    item = items[0]
    assert set(item) >= {"id", "kind", "created", "age_days", "hunks", "summary"}
    assert (item["id"], item["kind"], item["age_days"], item["hunks"], item["files"]) == ("r-1", "reflection", 0, 2, 2)
    assert item["created"] == reflection(typeclaw)["created"]

    rep = cli_json(typeclaw, "review", "r-1")
    assert rep["id"] == "r-1" and rep["status"] == "pending"
    assert [f["path"] for f in rep["files"]] == ["topics/drinks.md", "topics/timezone.md"]
    # timezone is reinforced ("mentioned living" -> "has been observed living"): not a rewrite
    assert rep["loss"] == {"citations_dropped": [], "beliefs_removed": [],
                           "shards_deleted": [], "superseded_added": []}
    hunks = [h for f in rep["files"] for h in f["hunks"]]
    assert all(re.fullmatch(r"h-[0-9a-f]{10}", h["id"]) for h in hunks) and len({h["id"] for h in hunks}) == 2
    assert f"+- {cite(TODAY, 2)}" in hunks[0]["text"] and f"+- {cite(TODAY, 1)}" in hunks[1]["text"]

    text = run(typeclaw, "review", "r-1").stdout
    assert text.startswith("r-1 [pending] ")
    assert "loss meter: 0 citations dropped, 0 beliefs rewritten, 0 shards deleted, 0 superseded" in text
    assert "== topics/drinks.md (added)" in text and "== topics/timezone.md (modified)" in text
    for h in hunks:
        assert f"-- {h['id']}\n{h['text'].rstrip()}" in text  # the diff text itself, under its id
    assert "@@ -0,0 +1,10 @@" in text and f"+- {cite(TODAY, 1)}" in text

    fails(typeclaw, "review", "r-9", status=2, says="no reflection r-9")
    fails(typeclaw, "review", "p-9", status=2, says="unknown proposal id p-9")


def test_approving_one_hunk_changes_only_its_file_and_commits_a_partial_approval(typeclaw):
    add_today(typeclaw)
    offline_dream(typeclaw, "all")
    ids = hunks_by_file(typeclaw)
    proposed = {f["path"]: f["proposed"] for f in reflection(typeclaw)["files"]}
    timezone = (typeclaw / "memory/topics/timezone.md").read_bytes()
    before, on_disk = head(typeclaw), memory_bytes(typeclaw)

    fails(typeclaw, "approve", "r-1", "--hunk", "h-nope", status=2, says="r-1 has no hunk h-nope (see `dreamdeck review r-1`)")
    assert head(typeclaw) == before and memory_bytes(typeclaw) == on_disk

    (drinks_hunk,) = ids["topics/drinks.md"]
    out = run(typeclaw, "approve", "r-1", "--hunk", drinks_hunk, "--actor", "tester").stdout
    assert out.startswith("applied r-1: 1 file written, 0 deleted → commit ")
    assert (typeclaw / "memory/topics/drinks.md").read_text() == proposed["topics/drinks.md"]
    assert (typeclaw / "memory/topics/timezone.md").read_bytes() == timezone
    assert "memory/topics/drinks.md" in changed_files(typeclaw) and "memory/topics/timezone.md" not in changed_files(typeclaw)
    assert re.fullmatch(r"dream: partial r-1 \(1/2 hunks\) \S+", subject(typeclaw))
    assert trailers(typeclaw) == {"Actor": "tester", "Approval": "partial", "Trigger": "review", "Reflection": "r-1"}
    r = reflection(typeclaw)
    assert r["status"] == "pending" and r["decisions"][-1]["hunks"] == [drinks_hunk]
    assert [f["path"] for f in r["files"]] == ["topics/timezone.md"]  # the undecided hunk waits
    log = (typeclaw / "memory/meta/reflection-log.md").read_text().splitlines()
    assert re.fullmatch(r"- \S+ r-1 partial by tester: 1/2 hunks", log[-1])
    assert "r-1" in run(typeclaw, "review").stdout

    out = run(typeclaw, "approve", "r-1", "--actor", "tester").stdout
    assert out.startswith("applied r-1: 1 file written")
    assert reflection(typeclaw)["status"] == "approved"
    assert run(typeclaw, "review").stdout.strip() == "Nothing to review."


def test_approving_a_whole_reflection_applies_every_hunk(typeclaw):
    two_file_reflection(typeclaw)
    proposed = {f["path"]: f["proposed"] for f in reflection(typeclaw)["files"]}

    out = run(typeclaw, "approve", "r-1", "--actor", "tester").stdout

    assert out.startswith("applied r-1: 2 files written, 0 deleted → commit ")
    for path, text in proposed.items():
        assert (typeclaw / "memory" / path).read_text() == text
    assert {"memory/topics/drinks.md", "memory/topics/timezone.md"} <= changed_files(typeclaw)
    assert re.fullmatch(r"dream: approved r-1 \(2/2 hunks\) \S+", subject(typeclaw))
    assert trailers(typeclaw) == {"Actor": "tester", "Approval": "approved", "Trigger": "review", "Reflection": "r-1"}
    assert reflection(typeclaw)["status"] == "approved"
    assert cli_json(typeclaw, "review")["items"] == []
    assert run(typeclaw, "verify", "HEAD~1").returncode == 0


def test_a_partial_approval_that_would_drop_a_citation_is_refused_naming_the_ids(agent_dir):
    from dreamdeck.core.store.state import load_state, save_state

    ws = ws_of(agent_dir)
    write_stream(agent_dir, D1, [fragment_line(D1, 1, "a", "fact a"), fragment_line(D1, 2, "b", "fact b")])
    write_shard(agent_dir, "a", shard_text("Belief a", [cite(D1, 1)]))
    write_shard(agent_dir, "b", shard_text("Belief b", [cite(D1, 2)]))
    state, _ = load_state(ws.state_path)
    save_state(ws.state_path, state.add_dreamed(D1, {uuid_at(D1, 1), uuid_at(D1, 2)}, "2026-05-20T10:00:00+00:00"))
    write_stream(agent_dir, TODAY, [fragment_line(TODAY, 1, "a", "a again")])
    commit_all(agent_dir)
    from dreamdeck.core.dreaming.run import run_dream

    merge = merge_into("ab", ["a", "b"], "Beliefs a and b", extra=lambda inp: [cite(TODAY, 1)])
    assert run_dream(ws, dreamer=Scripted(merge, summary="merge a and b"), review="all").reflection == "r-1"

    assert "loss meter: 0 citations dropped, 0 beliefs rewritten, 2 shards deleted, 0 superseded" in run(
        agent_dir, "review", "r-1").stdout
    ids = hunks_by_file(agent_dir)
    (delete_a,), (create_ab,) = ids["topics/a.md"], ids["topics/ab.md"]
    before, on_disk = head(agent_dir), memory_bytes(agent_dir)

    proc = fails(agent_dir, "approve", "r-1", "--hunk", delete_a, "--actor", "tester", status=1,
                 says=f"refused: would drop 1 cited fragment: {key(D1, 1)}")
    assert f"{delete_a} (topics/a.md) removes {cite(D1, 1)}" in proc.stderr
    assert f"{create_ab} (topics/ab.md) would keep {cite(D1, 1)} but is not chosen" in proc.stderr
    assert head(agent_dir) == before and memory_bytes(agent_dir) == on_disk  # nothing written, no journal
    assert reflection(agent_dir)["status"] == "pending"

    run(agent_dir, "approve", "r-1", "--hunk", delete_a, "--hunk", create_ab, "--actor", "tester")
    assert sorted(p.name for p in (agent_dir / "memory/topics").iterdir()) == ["ab.md", "b.md"]
    assert trailers(agent_dir)["Approval"] == "partial"
    assert run(agent_dir, "verify", "HEAD~1").returncode == 0


def test_approve_with_edit_lands_the_edited_text_with_its_frontmatter_recomputed(typeclaw, tmp_path):
    two_file_reflection(typeclaw)
    proposed = {f["path"]: f["proposed"] for f in reflection(typeclaw)["files"]}
    mine = tmp_path / "mine.md"
    mine.write_text("---\nheading: The user drinks green tea every morning\ncites: 99\ndays: 99\n"
                    f"lastReinforced: 2000-01-01\n---\nThe user drinks green tea every morning.\n\nfragments:\n- {cite(TODAY, 2)}\n")
    editor = tmp_path / "edit.sh"  # edits the drinks proposal; leaves every other file as proposed
    editor.write_text(f'#!/bin/sh\ncase "$1" in\n  *drinks.md) cp "{mine}" "$1" ;;\nesac\n')
    editor.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "VISUAL"}
    before = head(typeclaw)

    fails(typeclaw, "approve", "r-1", "--edit", status=1, says="editor exited with status 1; nothing was applied",
          env={**env, "EDITOR": "false"})
    assert head(typeclaw) == before and reflection(typeclaw)["status"] == "pending"

    out = run(typeclaw, "approve", "r-1", "--edit", "--actor", "tester", env={**env, "EDITOR": str(editor)}).stdout

    assert out.startswith("applied r-1: 2 files written")
    assert (typeclaw / "memory/topics/drinks.md").read_text() == (
        "---\nheading: The user drinks green tea every morning\ncites: 1\ndays: 1\nlastReinforced: 2026-05-22\n---\n"
        f"The user drinks green tea every morning.\n\nfragments:\n- {cite(TODAY, 2)}\n")
    assert (typeclaw / "memory/topics/timezone.md").read_text() == proposed["topics/timezone.md"]
    assert head(typeclaw) != before and re.fullmatch(r"dream: partial r-1 \(2/2 hunks\) \S+", subject(typeclaw))
    assert trailers(typeclaw) == {"Actor": "tester", "Approval": "partial", "Trigger": "review", "Reflection": "r-1"}
    assert reflection(typeclaw)["decisions"][-1]["edited"] == ["topics/drinks.md", "topics/timezone.md"]


def test_reject_records_the_reason_and_release_puts_the_ids_back_on_the_tail(tmp_path):
    kept = make_agent(tmp_path / "kept")
    two_file_reflection(kept)
    topics = {p.name: p.read_bytes() for p in (kept / "memory/topics").iterdir()}

    usage_error(kept, "reject", "r-1", says="the following arguments are required: --reason")
    out = run(kept, "reject", "r-1", "--reason", "not what I said", "--actor", "tester").stdout

    assert out.strip() == "rejected r-1"
    assert {p.name: p.read_bytes() for p in (kept / "memory/topics").iterdir()} == topics
    r = reflection(kept)
    assert r["status"] == "rejected" and r["decisions"][-1]["reason"] == "not what I said"
    log = (kept / "memory/meta/reflection-log.md").read_text().splitlines()
    assert re.fullmatch(r"- \S+ r-1 rejected by tester: not what I said", log[-1])
    assert subject(kept) == "memory: reject r-1"
    assert trailers(kept) == {"Actor": "tester", "Approval": "rejected", "Trigger": "review", "Reflection": "r-1"}
    # anti-loop by dreamdeck's record; never "dreamed and uncited" in the state TypeClaw's GC reads
    assert not {uuid_at(TODAY, 1), uuid_at(TODAY, 2)} & dreamed_ids(kept)
    assert {f"{TODAY}#{uuid_at(TODAY, n)}" for n in (1, 2)} <= set(r["held"])
    fails(kept, "reject", "r-1", "--reason", "again", status=2, says="r-1 is rejected; only a pending reflection can be rejected")
    assert run(kept, "reject", "r-1", "--reason", "dream again", "--release", "--actor", "tester").returncode == 0
    assert reflection(kept)["decisions"][-1]["decision"] == "released"

    released = make_agent(tmp_path / "released")
    two_file_reflection(released)
    assert not {uuid_at(TODAY, 1), uuid_at(TODAY, 2)} & dreamed_ids(released)

    out = run(released, "reject", "r-1", "--reason", "x", "--release", "--actor", "tester").stdout

    assert out.strip() == "rejected r-1 (fragments released to the next dream)"
    state_text = (released / "memory/.dreaming-state.json").read_text()
    assert uuid_at(TODAY, 1) not in state_text and uuid_at(TODAY, 2) not in state_text
    from dreamdeck.core.store.reflections import held_keys

    assert held_keys(ws_of(released)) == set()  # dreamdeck's record lets them go: the next dream sees them
    assert (released / "memory/meta/reflection-log.md").read_text().rstrip().endswith("tester: x (fragments released)")
    assert reflection(released)["decisions"][-1]["released"] is True


# --- sub-agent proposals -----------------------------------------------------------------------------
def test_proposals_are_proposed_once_then_committed_rejected_or_deferred(typeclaw):
    pending = typeclaw / "memory/meta/pending-memories.md"
    args = ("propose", "--from", "researcher", "--store", "semantic", "--content", "The user prefers Rust for CLI tools",
            "--entities", "rust,cli", "--confidence", "high")

    assert run(typeclaw, *args).stdout.strip() == "proposed p-1"
    block = pending.read_text()
    assert "## Proposal #1\n- **From**: researcher\n" in block
    for line in ("- **Suggested store**: semantic", "- **Content**: The user prefers Rust for CLI tools",
                 "- **Entities**: [rust, cli]", "- **Confidence**: high", "- **Status**: pending"):
        assert line in block
    assert subject(typeclaw) == "memory: proposal p-1 from researcher"
    assert run(typeclaw, *args).stdout.strip() == "already proposed p-1"
    assert pending.read_text() == block
    run(typeclaw, "propose", "--from", "researcher", "--store", "episodic", "--content", "User met Alice on Tuesday")
    assert run(typeclaw, "propose", "--from", "critic", "--store", "procedural",
               "--content", "Always run tests before pushing").stdout.strip() == "proposed p-3"

    assert [i["id"] for i in cli_json(typeclaw, "review")["items"]] == ["p-1", "p-2", "p-3"]
    shown = run(typeclaw, "review", "p-1").stdout
    assert shown.startswith("p-1 [pending] from researcher") and "store: semantic   confidence: high" in shown
    assert "The user prefers Rust for CLI tools" in shown
    assert cli_json(typeclaw, "review", "p-1")["entities"] == ["rust", "cli"]

    fails(typeclaw, "approve", "p-1", "--hunk", "h-1", status=2, says="a proposal is approved whole")
    out = run(typeclaw, "approve", "p-1", "--actor", "tester").stdout
    assert out.startswith("committed p-1 as ")
    today = [json.loads(line) for line in (typeclaw / f"memory/streams/{TODAY}.jsonl").read_text().splitlines()]
    (frag,) = [e for e in today if e["type"] == "fragment"]
    assert (frag["source"], frag["topic"], frag["body"]) == ("subagent:researcher", "rust", "The user prefers Rust for CLI tools")
    shard = (typeclaw / "memory/topics/rust.md").read_text()
    assert f"- streams/{TODAY}#{frag['id']}" in shard and "cites: 1\n" in shard
    assert subject(typeclaw) == "memory: commit proposal p-1 from researcher (approved by tester)"
    assert trailers(typeclaw) == {"Actor": "bot:commit-from:researcher", "Approval": "approved", "Trigger": "review",
                                  "Proposal": "p-1"}
    assert "memory/topics/rust.md" in changed_files(typeclaw)

    fails(typeclaw, "reject", "p-2", "--reason", "x", "--release", status=2, says="--release applies to reflections")
    assert run(typeclaw, "reject", "p-2", "--reason", "not relevant", "--actor", "tester").stdout.strip() == "rejected p-2"
    assert run(typeclaw, "defer", "p-3", "--actor", "tester").stdout.strip() == "deferred p-3"
    statuses = re.findall(r"- \*\*Status\*\*: (\S+)", pending.read_text())
    assert statuses == ["committed", "rejected", "deferred"]
    assert trailers(typeclaw) == {"Actor": "tester", "Approval": "pending", "Trigger": "review", "Proposal": "p-3"}
    assert [(i["id"], i["status"]) for i in cli_json(typeclaw, "review")["items"]] == [("p-3", "deferred")]

    fails(typeclaw, "defer", "r-1", status=2, says="only proposals (p-N) can be deferred")
    fails(typeclaw, "defer", "p-3", status=2, says="p-3 is already deferred")
    fails(typeclaw, "approve", "p-1", status=2, says="p-1 is already committed")


# --- the vault ---------------------------------------------------------------------------------------
def test_pin_copies_a_topic_or_a_fragment_into_the_vault_and_unpin_removes_it(typeclaw):
    from dreamdeck.core.ops.vault import fragment_pin_slug

    topic = (typeclaw / "memory/topics/package-manager.md").read_bytes()
    assert run(typeclaw, "vault").stdout.strip() == "The vault is empty. Pin a topic with `dreamdeck pin SLUG`."

    assert run(typeclaw, "pin", "package-manager", "--actor", "tester").stdout.startswith("pinned package-manager → commit ")
    assert (typeclaw / "memory/vault/package-manager.md").read_bytes() == topic
    assert subject(typeclaw) == "memory: pin package-manager"
    assert trailers(typeclaw) == {"Actor": "tester", "Approval": "approved", "Trigger": "pin"}

    pin_slug = fragment_pin_slug(D1, uuid_at(D1, 2))
    run(typeclaw, "pin", key(D1, 2), "--actor", "tester")
    pinned = (typeclaw / f"memory/vault/{pin_slug}.md").read_text()
    assert pin_slug.startswith("pin-2026-05-20-") and f"- {cite(D1, 2)}\n" in pinned and "User is in Berlin" in pinned
    fails(typeclaw, "pin", "nope", status=1, says="refused: no topic 'nope'")

    listing = run(typeclaw, "vault").stdout
    assert "package-manager" in listing and pin_slug in listing
    entries = {e["slug"]: e for e in cli_json(typeclaw, "vault")}
    assert (entries["package-manager"]["kind"], entries["package-manager"]["topic"], entries["package-manager"]["cites"]) == (
        "topic", "same", 3)
    assert (entries[pin_slug]["kind"], entries[pin_slug]["citations"]) == ("fragment", [key(D1, 2)])
    audit = run(typeclaw, "audit", "--action", "PIN").stdout.splitlines()
    assert len(audit) == 2 and all(" | PIN | memory/vault/" in a and " | tester | approved | " in a for a in audit)

    fails(typeclaw, "forget", "package-manager", "--reason", "x", status=1, says="'package-manager' is pinned; unpin it first")
    assert run(typeclaw, "unpin", "package-manager", "--actor", "tester").stdout.startswith("unpinned package-manager")
    assert not (typeclaw / "memory/vault/package-manager.md").exists()
    assert (typeclaw / "memory/topics/package-manager.md").read_bytes() == topic
    assert subject(typeclaw) == "memory: unpin package-manager" and trailers(typeclaw)["Actor"] == "tester"
    assert [e["slug"] for e in cli_json(typeclaw, "vault")] == [pin_slug]
    fails(typeclaw, "unpin", "package-manager", status=1, says="'package-manager' is not pinned")


# --- forgetting --------------------------------------------------------------------------------------
def test_forget_a_topic_archives_it_and_unforget_brings_it_back(typeclaw):
    text = (typeclaw / "memory/topics/timezone.md").read_bytes()

    usage_error(typeclaw, "forget", "timezone", says="the following arguments are required: --reason")
    assert run(typeclaw, "forget", "timezone", "--reason", "moved", "--actor", "tester").stdout.startswith("forgot timezone → commit ")
    assert not (typeclaw / "memory/topics/timezone.md").exists()
    assert (typeclaw / "memory/archive/timezone.md").read_bytes() == text
    assert subject(typeclaw) == "memory: forget timezone"
    assert trailers(typeclaw) == {"Actor": "tester", "Approval": "approved", "Trigger": "forget"}
    assert run(typeclaw, "verify", "HEAD~1").returncode == 0  # an archived topic still holds its evidence

    assert run(typeclaw, "unforget", "timezone", "--actor", "tester").stdout.startswith("unforgot timezone → commit ")
    assert (typeclaw / "memory/topics/timezone.md").read_bytes() == text
    assert not (typeclaw / "memory/archive/timezone.md").exists()
    assert subject(typeclaw) == "memory: unforget timezone"
    fails(typeclaw, "unforget", "timezone", status=1, says="no archived topic 'timezone'")


def test_forget_a_fragment_tombstones_it_hides_it_and_refuses_it_again(typeclaw):
    berlin = key(D1, 2)
    assert "User is in Berlin" in run(typeclaw, "stream", "--date", D1).stdout
    assert run(typeclaw, "tombstones").stdout.strip() == "No tombstones."

    proc = run(typeclaw, "forget", berlin, "--reason", "private", "--actor", "tester")

    assert proc.stdout.startswith(f"forgot {berlin} → commit ")
    assert "left without citations" in proc.stderr and "topics/timezone.md" in proc.stderr  # the warning reaches you
    (stone,) = [json.loads(line) for line in (typeclaw / "memory/meta/tombstones.jsonl").read_text().splitlines()]
    assert (stone["op"], stone["date"], stone["id"], stone["reason"], stone["actor"], stone["hard"]) == (
        "forget", D1, uuid_at(D1, 2), "private", "tester", False)
    assert cite(D1, 2) not in (typeclaw / "memory/topics/timezone.md").read_text()
    assert uuid_at(D1, 2) in (typeclaw / f"memory/streams/{D1}.jsonl").read_text()  # soft: the bytes stay
    assert subject(typeclaw) == f"memory: forget streams/{berlin}" and trailers(typeclaw)["Actor"] == "tester"
    day = run(typeclaw, "stream", "--date", D1).stdout
    assert "User is in Berlin" not in day and "User said use pnpm" in day
    fails(typeclaw, "remember", "User is in Berlin", "--topic", "timezone", status=2, says="forgotten")
    fails(typeclaw, "forget", berlin, "--reason", "again", status=1, says=f"streams/{berlin} is already forgotten")

    listed = run(typeclaw, "tombstones").stdout.splitlines()
    assert listed[0].split() == ["fragment", "kind", "actor", "when", "reason"]
    assert listed[2].split()[:3] == [berlin, "soft", "tester"] and listed[2].endswith("private")
    (entry,) = cli_json(typeclaw, "tombstones")
    assert (entry["date"], entry["id"], entry["hard"], entry["topic"]) == (D1, uuid_at(D1, 2), False, "timezone")

    assert run(typeclaw, "unforget", berlin, "--actor", "tester").stdout.startswith(f"unforgot {berlin} → commit ")
    assert "User is in Berlin" in run(typeclaw, "stream", "--date", D1).stdout
    assert cli_json(typeclaw, "tombstones") == []
    assert uuid_at(D1, 2) not in dreamed_ids(typeclaw)  # back on the tail: the next dream reconsiders it
    fails(typeclaw, "unforget", berlin, status=1, says=f"streams/{berlin} is not forgotten")


def test_a_hard_forget_removes_the_bytes_and_cannot_be_undone(typeclaw):
    pnpm = key("2026-05-21", 1)
    stream = typeclaw / "memory/streams/2026-05-21.jsonl"
    assert b"pnpm again" in stream.read_bytes()
    quiet = time.time() - 3600  # yesterday's file, untouched for an hour: no writer may hold it (invariant 8)
    os.utime(stream, (quiet, quiet))

    out = run(typeclaw, "forget", pnpm, "--reason", "r", "--hard", "--actor", "tester").stdout

    assert out.startswith(f"forgot {pnpm} (hard: bytes removed) → commit ")
    assert b"pnpm again" not in stream.read_bytes() and uuid_at("2026-05-21", 1).encode() not in stream.read_bytes()
    assert cite("2026-05-21", 1) not in (typeclaw / "memory/topics/package-manager.md").read_text()
    assert subject(typeclaw) == f"memory: forget streams/{pnpm} (hard)"
    (entry,) = cli_json(typeclaw, "tombstones")
    assert (entry["id"], entry["hard"], entry["reason"]) == (uuid_at("2026-05-21", 1), True, "r")
    assert run(typeclaw, "tombstones").stdout.splitlines()[2].split()[:2] == [pnpm, "hard"]
    before = head(typeclaw)
    refused = fails(typeclaw, "unforget", pnpm, status=1, says=f"refused: streams/{pnpm} was hard-deleted")
    assert "its bytes were purged and it cannot be restored" in refused.stderr
    assert head(typeclaw) == before and b"pnpm again" not in stream.read_bytes()


# --- rollback ----------------------------------------------------------------------------------------
def test_rollback_previews_its_blast_radius_then_undoes_a_dream_as_a_forward_commit(typeclaw):
    add_today(typeclaw)
    timezone_before = (typeclaw / "memory/topics/timezone.md").read_bytes()
    rev = offline_dream(typeclaw, "none").commit
    assert rev == head(typeclaw) and (typeclaw / "memory/topics/drinks.md").exists()
    on_disk = memory_bytes(typeclaw)

    preview = run(typeclaw, "rollback", rev, "--preview").stdout
    assert preview.startswith(f"Roll back {rev[:7]} (dream: ")
    assert "  delete   memory/topics/drinks.md" in preview and "  restore  memory/topics/timezone.md" in preview
    assert f"Fragments returned to the undreamed tail (2): {key(TODAY, 1)}, {key(TODAY, 2)}" in preview
    plan = cli_json(typeclaw, "rollback", rev, "--preview")
    assert plan["released"] == [key(TODAY, 1), key(TODAY, 2)] and plan["overlaps"] == []
    assert head(typeclaw) == rev and memory_bytes(typeclaw) == on_disk  # a preview writes nothing

    fails(typeclaw, "rollback", "nosuchrev", status=2, says="unknown revision 'nosuchrev'")
    fails(typeclaw, "rollback", "nosuchrev", "--preview", status=2, says="unknown revision 'nosuchrev'")

    out = run(typeclaw, "rollback", rev, "--actor", "tester").stdout

    assert out.startswith(f"rolled back {rev} → commit ")
    assert git(typeclaw, "rev-parse", "HEAD~1").strip() == rev  # forward: nothing was reset
    assert subject(typeclaw).startswith(f"memory: rollback {rev[:7]} (dream: ")
    assert trailers(typeclaw) == {"Actor": "tester", "Approval": "approved", "Trigger": "rollback", "Reverts": rev}
    assert (typeclaw / "memory/topics/timezone.md").read_bytes() == timezone_before
    assert not (typeclaw / "memory/topics/drinks.md").exists()
    assert not {uuid_at(TODAY, 1), uuid_at(TODAY, 2)} & dreamed_ids(typeclaw)
    fails(typeclaw, "rollback", rev, status=1, says="nothing to roll back")


def test_a_strict_rollback_is_refused_when_a_later_commit_changed_the_same_file(typeclaw):
    from dreamdeck.core.ops.proposals import approve_proposal, propose

    add_today(typeclaw)
    rev = offline_dream(typeclaw, "none").commit
    ws = ws_of(typeclaw)
    propose(ws, "researcher", "semantic", "User drinks green tea", entities=["drinks"])
    approve_proposal(ws, "p-1", actor="tester")  # a later commit that cites one more fragment in drinks.md
    later, on_disk = head(typeclaw), memory_bytes(typeclaw)

    fails(typeclaw, "rollback", rev, "--strict", status=1,
          says="refused (strict): later commits changed the same parts of topics/drinks.md")
    assert head(typeclaw) == later and memory_bytes(typeclaw) == on_disk
    preview = run(typeclaw, "rollback", rev, "--preview").stdout
    assert "memory/topics/drinks.md  ⚠ overlaps later changes (the earlier side wins)" in preview
    assert f"{later[:10]} memory: commit proposal p-1 from researcher" in preview
    assert head(typeclaw) == later


# --- history, audit, alerts, recovery ------------------------------------------------------------------
def test_log_and_audit_say_who_did_what_and_filter_by_action_actor_and_date(typeclaw):
    from dreamdeck.core.ops.forget import forget_topic
    from dreamdeck.core.ops.vault import pin_topic

    ws = ws_of(typeclaw)
    pin_topic(ws, "package-manager", actor="human:alice")
    forget_topic(ws, "timezone", reason="moved", actor="tester")
    audit_log = typeclaw / "memory/meta/audit.log"
    audit_log.write_text("2020-01-01T09:00Z | EDIT | memory/topics/old.md | human:bob | approved | ancient\n"
                         + audit_log.read_text())

    lines = run(typeclaw, "log").stdout.splitlines()
    assert lines[0].split() == ["commit", "date", "actor", "approval", "trigger", "ref", "subject"]
    assert re.search(r"\btester\s+approved\s+forget\s+memory: forget timezone$", lines[2])
    assert re.search(r"\bhuman:alice\s+approved\s+pin\s+memory: pin package-manager$", lines[3])
    commits = cli_json(typeclaw, "log")
    assert [(c["subject"], c["actor"], c["approval"], c["trigger"]) for c in commits[:2]] == [
        ("memory: forget timezone", "tester", "approved", "forget"),
        ("memory: pin package-manager", "human:alice", "approved", "pin")]
    assert commits[0]["sha"] == head(typeclaw)

    (pin,) = run(typeclaw, "audit", "--action", "PIN").stdout.splitlines()
    assert re.fullmatch(r"\S+ \| PIN \| memory/vault/package-manager\.md \| human:alice \| approved \| .+", pin)
    humans = cli_json(typeclaw, "audit", "--actor", "human")
    assert [(e["actor"], e["file"]) for e in humans] == [
        ("human:bob", "memory/topics/old.md"), ("human:alice", "memory/vault/package-manager.md")]
    recent = cli_json(typeclaw, "audit", "--since", "2021-01-01")
    assert recent and all(e["timestamp"] >= "2021" for e in recent)
    assert {e["actor"] for e in recent} == {"human:alice", "tester"}
    assert [e["summary"] for e in cli_json(typeclaw, "audit", "--until", "2020-12-31")] == ["ancient"]
    assert run(typeclaw, "audit", "--since", "2099-01-01").stdout.strip() == "No audit entries match."
    fails(typeclaw, "audit", "--since", "last week", status=2, says="bad date 'last week': expected YYYY-MM-DD")
    fails(typeclaw, "audit", "--until", "2026-99-01", status=2, says="bad date '2026-99-01': no such day")


def test_alerts_baseline_first_then_flag_a_changed_soul_until_acknowledged(typeclaw):
    baseline = typeclaw / "memory/meta/critical-baseline.json"
    assert not baseline.exists()
    assert run(typeclaw, "alerts").stdout.startswith("No critical-file baseline yet")
    assert not baseline.exists()  # `alerts` is a read; the baseline is taken by a person
    assert run(typeclaw, "alerts", "--ack").stdout.startswith("recorded the critical-file baseline")
    assert run(typeclaw, "alerts").stdout.strip() == "No critical-file alerts."

    (typeclaw / "SOUL.md").write_text("# Soul\nBe ruthless.\n")
    proc = run(typeclaw, "alerts", check=False)
    assert proc.returncode == 1
    assert proc.stdout.startswith("⚠ SOUL.md: changed (detected ") and "`dreamdeck alerts --ack`" in proc.stdout
    as_json = run(typeclaw, "alerts", "--json", check=False)
    assert as_json.returncode == 1  # the same status as the text, for scripts
    (alert,) = json.loads(as_json.stdout)
    assert (alert["path"], alert["kind"]) == ("SOUL.md", "changed") and alert["old_sha"] != alert["new_sha"]

    assert run(typeclaw, "alerts", "--ack").stdout.strip() == "acknowledged 1 alert"
    assert run(typeclaw, "alerts").stdout.strip() == "No critical-file alerts."
    assert cli_json(typeclaw, "alerts") == []


def test_doctor_fix_completes_an_apply_that_a_crash_interrupted(typeclaw):
    from dreamdeck.core.door.apply import apply_changeset
    from dreamdeck.core.door.changeset import ChangeSet, Commit, FileEdit, Writes

    add_today(typeclaw)
    ws = ws_of(typeclaw)
    timezone = (typeclaw / "memory/topics/timezone.md").read_text()
    new_timezone = shard_text("The user mentioned living in Berlin", [cite(D1, 2), cite(TODAY, 1)])
    new_drinks = shard_text("The user likes tea", [cite(TODAY, 2)])
    before = head(typeclaw)

    class Killed(Exception):
        pass

    def crash(step: str) -> None:
        if step == "write:topics/timezone.md":  # the first file is written, the second is not
            raise Killed("killed mid-apply")

    with pytest.raises(Killed):
        apply_changeset(ws, ChangeSet(
            Commit("edit", "tester", "approved", "test", "reinforce and add", subject="memory: reinforce timezone, add drinks"),
            Writes([FileEdit("topics/timezone.md", timezone, new_timezone), FileEdit("topics/drinks.md", None, new_drinks)]),
        ), fault=crash)
    assert (typeclaw / "memory/meta/.journal.json").exists() and not (typeclaw / "memory/topics/drinks.md").exists()
    assert head(typeclaw) == before

    found = run(typeclaw, "doctor", check=False)
    assert found.returncode == 1
    assert "fixable: journal: memory/meta/.journal.json" in found.stdout and "doctor --fix" in found.stdout

    fixed = run(typeclaw, "doctor", "--fix")

    assert "fixed: completed the interrupted edit (reinforce and add) as " in fixed.stdout
    assert "healthy: TypeClaw can load everything and nothing cited is missing" in fixed.stdout
    assert not (typeclaw / "memory/meta/.journal.json").exists()
    assert (typeclaw / "memory/topics/timezone.md").read_text() == new_timezone
    assert (typeclaw / "memory/topics/drinks.md").read_text() == new_drinks
    assert git(typeclaw, "rev-parse", "HEAD~1").strip() == before
    assert subject(typeclaw) == "memory: reinforce timezone, add drinks"
    assert trailers(typeclaw) == {"Actor": "tester", "Approval": "approved", "Trigger": "test"}
    verified = run(typeclaw, "verify", before)  # every citation held before the crash is still there
    assert verified.returncode == 0 and verified.stdout.rstrip().endswith("ok: nothing lost")


def test_rollback_to_a_point_in_time_restores_the_shards_of_that_revision(typeclaw):
    before = (typeclaw / "memory/topics/timezone.md").read_bytes()
    point = git(typeclaw, "rev-parse", "HEAD").strip()
    run(typeclaw, "remember", "User moved to Lisbon and works in Lisbon time now", "--topic", "timezone")
    run(typeclaw, "dream", "--dreamer", "offline", "--review", "none")
    assert (typeclaw / "memory/topics/timezone.md").read_bytes() != before
    preview = run(typeclaw, "rollback", "--to", point, "--preview")
    assert "Restore memory to" in preview.stdout and git(typeclaw, "rev-parse", "HEAD").strip() != point
    out = run(typeclaw, "rollback", "--to", point, "--actor", "tester")
    assert out.stdout.startswith(f"restored memory to {point}")
    assert (typeclaw / "memory/topics/timezone.md").read_bytes() == before
    assert git(typeclaw, "log", "-1", "--format=%s").startswith("memory: restore to")
