"""`forget --hard` is complete and exact (issue 10, item 3): the text leaves every file dreamdeck
writes in the working tree (the stream, reflections, pending-reflection.md, dream receipts), in
one journaled, audited commit; exactly the meant line is purged (by its bytes: a line sharing
its id is left alone, and the tombstone records the meant line's hash); nothing is claimed
removed that was not; and what remains elsewhere (git history, the GC notes) is said, with the
command that would remove it. Run through the command line, as a person runs it.
"""
from __future__ import annotations

import json
import subprocess
from functools import partial
from pathlib import Path

from dreamdeck.core.formats.events import fragment_content_hash
from dreamdeck.core.formats.ids import timestamp_from_id
from tests.support.git import git, trailer_lines
from tests.support.memory import commit_all, fragment_line, make_quiet, uuid_at, write_stream
from tests.support.processes import run_cli

TODAY = "2026-05-22"
D = "2026-05-20"
BODY = "The staging database moves to Frankfurt on Tuesday."
run = partial(run_cli, today=TODAY)


def files_holding(root: Path, text: str) -> list[str]:
    """Working-tree files under memory/ whose bytes hold `text` (as written or JSON-escaped)."""
    found = []
    for path in sorted((root / "memory").rglob("*")):
        if path.is_file() and text.encode() in path.read_bytes():
            found.append(str(path.relative_to(root)))
    return found


def seed_and_hold_for_review(root: Path) -> str:
    write_stream(root, D, [fragment_line(D, 1, "infra", BODY), fragment_line(D, 2, "misc", "Lunch is at noon.")])
    commit_all(root)
    run(root, "dream", "--dreamer", "offline", "--review", "all")
    held = files_holding(root, "Frankfurt")
    assert any("reflections/" in f for f in held) and any("pending-reflection.md" in f for f in held)
    return uuid_at(D, 1)


def test_hard_forget_removes_the_text_from_every_file_dreamdeck_writes_in_one_audited_commit(agent_dir):
    fid = seed_and_hold_for_review(agent_dir)
    before = git(agent_dir, "rev-parse", "HEAD").strip()

    make_quiet(agent_dir)  # D's stream past the quiet period: its line may be purged now
    proc = run(agent_dir, "forget", f"{D}#{fid}", "--reason", "private", "--hard")

    assert files_holding(agent_dir, "Frankfurt") == []
    grep = subprocess.run(["git", "grep", "-F", "-l", "Frankfurt", "HEAD", "--", "memory"], cwd=agent_dir,
                          capture_output=True, text=True)
    assert grep.returncode == 1 and grep.stdout == ""  # the forget commit's tree holds it nowhere
    changed = git(agent_dir, "show", "--name-only", "--format=", "HEAD").split()
    assert "memory/meta/pending-reflection.md" in changed and "memory/meta/reflections/r-1.json" in changed
    assert git(agent_dir, "rev-parse", "HEAD~1").strip() == before  # one commit
    assert any(t.startswith("Actor: ") for t in trailer_lines(agent_dir, "HEAD"))
    audit = (agent_dir / "memory" / "meta" / "audit.log").read_text()
    assert "FORGET" in audit and "meta/reflections/r-1.json" in audit
    assert not (agent_dir / "memory" / "meta" / ".journal.json").exists()
    json.loads((agent_dir / "memory" / "meta" / "reflections" / "r-1.json").read_text())  # still JSON
    # What remains is said, with the command that would remove it.
    out = proc.stdout + proc.stderr
    added = git(agent_dir, "log", "--format=%h", "-S", "Frankfurt", before).split()
    assert "git history" in out and all(sha in out for sha in added)
    assert "git filter-repo" in out


def test_hard_forget_reports_the_gc_note_that_still_holds_the_line(agent_dir):
    """A line appended after the last commit and collected by the GC lives on in a git note."""
    write_stream(agent_dir, D, [fragment_line(D, 2, "misc", "Lunch is at noon.")])
    commit_all(agent_dir)
    fid = uuid_at(D, 1)
    write_stream(agent_dir, D, [fragment_line(D, 1, "infra", BODY)])  # never committed
    from dreamdeck.core.git.notes import NOTES_REF, record_gc_lines

    record_gc_lines(agent_dir, git(agent_dir, "rev-parse", "HEAD").strip(), [(D, fragment_line(D, 1, "infra", BODY))])
    proc = run(agent_dir, "forget", f"{D}#{fid}", "--reason", "private", "--hard")
    out = proc.stdout + proc.stderr
    assert NOTES_REF in out and "git notes" in out


def test_two_lines_sharing_an_id_a_hard_forget_purges_only_the_meant_one(agent_dir):
    fid = uuid_at(D, 1)
    meant = fragment_line(D, 1, "infra", BODY)
    other = fragment_line(D, 1, "misc", "An unrelated note that reuses the id.")
    write_stream(agent_dir, D, [meant, other])
    commit_all(agent_dir)
    meant_hash = fragment_content_hash("infra", BODY)

    refused = run(agent_dir, "forget", f"{D}#{fid}", "--reason", "x", "--hard", check=False)
    assert refused.returncode != 0 and "--content" in refused.stderr and meant_hash[:12] in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1

    make_quiet(agent_dir)
    run(agent_dir, "forget", f"{D}#{fid}", "--reason", "x", "--hard", "--content", meant_hash[:12])

    stream = (agent_dir / "memory" / "streams" / f"{D}.jsonl").read_text()
    assert meant not in stream and other + "\n" in stream
    stone = json.loads((agent_dir / "memory" / "meta" / "tombstones.jsonl").read_text().splitlines()[-1])
    assert stone["hash"] == meant_hash and stone["hard"] is True


def test_a_later_malformed_line_starting_with_the_id_is_not_claimed_removed(agent_dir):
    fid = uuid_at(D, 1)
    good = fragment_line(D, 1, "infra", BODY)
    broken = '{"type":"fragment","id":"%s","ts":"%s","topic":"infra","body":"cut off' % (fid, timestamp_from_id(fid))
    write_stream(agent_dir, D, [good, broken])
    commit_all(agent_dir)

    make_quiet(agent_dir)
    proc = run(agent_dir, "forget", f"{D}#{fid}", "--reason", "x", "--hard", "--json")

    stream = (agent_dir / "memory" / "streams" / f"{D}.jsonl").read_text()
    assert good not in stream and broken + "\n" in stream
    result = json.loads(proc.stdout)
    assert result["purged"] is True
    assert any("malformed" in r and f"memory/streams/{D}.jsonl" in r for r in result["remains"])


def test_a_hard_forget_that_removed_no_line_never_says_bytes_were_removed(agent_dir):
    fid = uuid_at(D, 1)
    broken = '{"type":"fragment","id":"%s","ts":"%s","topic":"infra","body":"cut off' % (fid, timestamp_from_id(fid))
    write_stream(agent_dir, D, [fragment_line(D, 2, "misc", "Lunch is at noon."), broken])
    (agent_dir / "memory" / "topics").mkdir(parents=True, exist_ok=True)
    (agent_dir / "memory" / "topics" / "a.md").write_text(f"A.\n\nfragments:\n- streams/{D}#{fid}\n")
    commit_all(agent_dir)

    proc = run(agent_dir, "forget", f"{D}#{fid}", "--reason", "x", "--hard")

    assert "bytes removed" not in proc.stdout and "purged" not in proc.stdout
    assert broken in (agent_dir / "memory" / "streams" / f"{D}.jsonl").read_text()



def test_a_dream_receipt_quoting_the_text_loses_it_too(agent_dir):
    from dreamdeck.core.dreaming.run import run_dream
    from dreamdeck.core.workspace import Workspace
    from tests.support.dreamers import Scripted

    write_stream(agent_dir, D, [fragment_line(D, 1, "infra", BODY)])
    commit_all(agent_dir)
    ws = Workspace.open(agent_dir, today=TODAY)
    run_dream(ws, dreamer=Scripted(summary=f"Noted: {BODY}"), review="all")
    assert any("receipts/" in f for f in files_holding(agent_dir, "Frankfurt"))

    make_quiet(agent_dir)
    run(agent_dir, "forget", f"{D}#{uuid_at(D, 1)}", "--reason", "private", "--hard")

    assert files_holding(agent_dir, "Frankfurt") == []
    for receipt in (agent_dir / "memory" / "meta" / "receipts").glob("*.json"):
        assert "[forgotten]" in json.loads(receipt.read_text())["summary"]


def test_forgetting_a_topic_hard_with_its_fragments_removes_their_text_from_memory_meta(agent_dir):
    from dreamdeck.core.ops.forget import forget_topic
    from dreamdeck.core.workspace import Workspace

    fid = seed_and_hold_for_review(agent_dir)
    run(agent_dir, "approve", "r-1")
    ws = Workspace.open(agent_dir, today=TODAY)
    (slug,) = [p.stem for p in ws.topics_dir.glob("*.md") if fid in p.read_text()]

    make_quiet(agent_dir)
    result = forget_topic(ws, slug, "private", hard=True, fragments=True)

    assert result.purged and files_holding(agent_dir, "Frankfurt") == []
    assert any("git history" in line for line in result.remains)


def test_a_waiting_compactions_reason_quoting_the_text_loses_it_too(agent_dir):
    """A dreamer's noise reason may quote the fragment; a compaction that waits keeps that reason
    in memory/meta/compaction-backlog.json, which a hard forget scrubs like a receipt."""
    from dreamdeck.core.dreaming.run import run_dream
    from dreamdeck.core.workspace import Workspace
    from tests.support.dreamers import Scripted, draft

    write_stream(agent_dir, TODAY, [fragment_line(TODAY, 1, "misc", "Lunch is at noon."),
                                    fragment_line(TODAY, 2, "infra", BODY)])
    commit_all(agent_dir)

    def script(inp, scratch):
        scratch.write_shard("misc", draft("Lunch is at noon", [f"streams/{TODAY}#{uuid_at(TODAY, 1)}"]))
        scratch.finish("done", noise=[{"cite": f"streams/{TODAY}#{uuid_at(TODAY, 2)}", "reason": f"chatter: {BODY}"}])

    run_dream(Workspace.open(agent_dir, today=TODAY), dreamer=Scripted(script), review="none")
    backlog = agent_dir / "memory" / "meta" / "compaction-backlog.json"
    assert "Frankfurt" in backlog.read_text()  # today's stream waits, with the reason its dream gave

    run(agent_dir, "forget", f"{TODAY}#{uuid_at(TODAY, 2)}", "--reason", "private", "--hard")

    assert "Frankfurt" not in backlog.read_text() and "[forgotten]" in backlog.read_text()
    assert json.loads(backlog.read_text())["days"][TODAY]["purge"] == [uuid_at(TODAY, 2)]


def test_a_hard_forget_of_todays_line_never_puts_its_text_into_git_and_keeps_the_writers_file(agent_dir):
    """Today's stream is never replaced (a writer may hold it open), so its purge waits; the
    forgotten bytes are overwritten in place with spaces under the stream lock first, so the
    forget's own commit never adds them to history, and a descriptor a writer kept still appends."""
    write_stream(agent_dir, D, [fragment_line(D, 5, "misc", "An older note.")])
    commit_all(agent_dir)
    path = agent_dir / "memory" / "streams" / f"{TODAY}.jsonl"
    write_stream(agent_dir, TODAY, [fragment_line(TODAY, 1, "infra", BODY), fragment_line(TODAY, 2, "misc", "Lunch is at noon.")])
    size, inode = path.stat().st_size, path.stat().st_ino
    writer = open(path, "a", encoding="utf-8")  # noqa: SIM115 (held open across the forget, as a logger does)

    proc = run(agent_dir, "forget", f"{TODAY}#{uuid_at(TODAY, 1)}", "--reason", "private", "--hard")
    writer.write(fragment_line(TODAY, 3, "misc", "Written after the forget.") + "\n")
    writer.close()

    assert proc.returncode == 0, proc.stderr
    assert "no line of it was in the stream" not in proc.stdout and "overwritten" in proc.stdout
    assert "Frankfurt" not in path.read_text() and path.stat().st_ino == inode
    assert path.read_text().splitlines()[1:] == [fragment_line(TODAY, 2, "misc", "Lunch is at noon."),
                                                 fragment_line(TODAY, 3, "misc", "Written after the forget.")]
    assert path.stat().st_size == size + len(fragment_line(TODAY, 3, "misc", "Written after the forget.")) + 1
    history = subprocess.run(["git", "log", "--all", "-p", "-S", "Frankfurt"], cwd=agent_dir, capture_output=True, text=True)
    assert history.stdout == ""  # no commit ever held the text


def test_the_blanked_line_is_dropped_by_the_compaction_that_waited(agent_dir):
    from dreamdeck.core.door.backlog import compact_backlog
    from dreamdeck.core.workspace import Workspace

    write_stream(agent_dir, D, [fragment_line(D, 5, "misc", "An older note.")])
    commit_all(agent_dir)
    path = agent_dir / "memory" / "streams" / f"{TODAY}.jsonl"
    write_stream(agent_dir, TODAY, [fragment_line(TODAY, 1, "infra", BODY), fragment_line(TODAY, 2, "misc", "Lunch is at noon.")])
    run(agent_dir, "forget", f"{TODAY}#{uuid_at(TODAY, 1)}", "--reason", "private", "--hard")
    make_quiet(agent_dir)

    result = compact_backlog(Workspace.open(agent_dir, today="2026-05-23"), actor="human:cli", trigger="doctor")

    assert result is not None and path.read_text() == fragment_line(TODAY, 2, "misc", "Lunch is at noon.") + "\n"
