"""The access record: one durable line per recall or injection, whole under concurrent writers,
read back newest first, summarized per item incrementally, committed only with memory commits."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from dreamdeck.core.store.access import access_path, access_summary, read_access, record_access
from tests.support.git import git

TODAY = "2026-05-22"
REPO = Path(__file__).resolve().parent.parent


def test_a_record_is_one_line_read_back_newest_first(ws):
    record_access(ws, "recall", "first", ["topic:a"])
    record_access(ws, "inject", "second", ["topic:a", "stream:2026-05-22#x"], {"origin": "tui"})
    lines = access_path(ws.memory).read_text().splitlines()
    assert len(lines) == 2 and json.loads(lines[1])["items"] == ["topic:a", "stream:2026-05-22#x"]
    assert [(r.op, r.query, r.day) for r in read_access(ws)] == [("inject", "second", TODAY), ("recall", "first", TODAY)]
    assert [r.query for r in read_access(ws, limit=1)] == ["second"]


def test_a_query_is_stored_without_secrets_and_cut(ws):
    token = "ghp_" + "a" * 40
    rec = record_access(ws, "recall", f"why does {token} fail " + "x" * 1000, [])
    assert token not in access_path(ws.memory).read_text() and "[REDACTED:github token]" in rec.query
    assert len(rec.query) == 500


def test_the_summary_counts_each_item_and_reads_only_what_was_appended(ws):
    record_access(ws, "recall", "q", ["topic:a", "topic:b"])
    assert access_summary(ws.memory)["topic:a"].count == 1
    record_access(ws, "recall", "q", ["topic:a"])
    summary = access_summary(ws.memory)
    assert (summary["topic:a"].count, summary["topic:b"].count, summary["topic:a"].last_day) == (2, 1, TODAY)
    # a half-written line is not counted until it is whole
    with open(access_path(ws.memory), "ab") as fh:
        fh.write(b'{"ts":"t","day":"2026-05-23","op":"recall","query":"q","items":["topic:b"]')
    assert access_summary(ws.memory)["topic:b"].count == 1
    with open(access_path(ws.memory), "ab") as fh:
        fh.write(b',"detail":{}}\n')
    assert access_summary(ws.memory)["topic:b"].last_day == "2026-05-23"
    # a file replaced by a shorter one is read again from the start
    access_path(ws.memory).write_text('{"ts":"t","day":"2026-05-01","op":"recall","query":"q","items":["topic:c"],"detail":{}}\n')
    summary = access_summary(ws.memory)
    assert list(summary) == ["topic:c"] and summary["topic:c"].count == 1


def test_unreadable_lines_are_skipped(ws):
    access_path(ws.memory).parent.mkdir(parents=True)
    access_path(ws.memory).write_text("not json\n{}\n")
    record_access(ws, "recall", "ok", ["topic:a"])
    assert [r.query for r in read_access(ws)] == ["ok"] and access_summary(ws.memory)["topic:a"].count == 1


WRITER = """
import sys
from dreamdeck.core.workspace import Workspace
from dreamdeck.core.store.access import record_access
ws = Workspace.open(sys.argv[1], today="2026-05-22")
for n in range(int(sys.argv[3])):
    record_access(ws, "recall", f"{sys.argv[2]} question {n} " + "words " * 200, [f"topic:{sys.argv[2]}-{n}", "topic:shared"])
"""


def test_concurrent_processes_never_lose_or_interleave_a_record(ws):
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(ws.root), f"p{p}", "40"], cwd=REPO) for p in range(4)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0, 0]
    lines = access_path(ws.memory).read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) == 161
    records = [json.loads(line) for line in lines[:-1]]  # every line whole
    assert sorted(r["items"][0] for r in records) == sorted(f"topic:p{p}-{n}" for p in range(4) for n in range(40))
    assert access_summary(ws.memory)["topic:shared"].count == 160


def test_a_recall_makes_no_commit_and_the_next_memory_commit_carries_the_record(ws):
    from dreamdeck.core.git.commit import Trailers, commit_memory
    from tests.support.memory import shard_text, write_shard

    write_shard(ws.root, "deploys", shard_text("Deploys happen on Fridays", []))
    commit_memory(ws.root, "seed", Trailers("human:t", "—", "test"))
    before = git(ws.root, "rev-list", "--count", "HEAD")
    from dreamdeck.core.ops.recall import recall

    assert recall(ws, "deploys")
    assert git(ws.root, "rev-list", "--count", "HEAD") == before
    commit_memory(ws.root, "next", Trailers("human:t", "—", "test"))
    assert "memory/meta/access.jsonl" in git(ws.root, "show", "--name-only", "--format=", "HEAD")


def _as_a_fresh_process() -> None:
    from dreamdeck.core.io.cache import clear_all

    clear_all()


def test_a_fresh_process_takes_the_summary_from_its_projection_and_reads_only_what_was_appended(ws, settled_clock):
    for n in range(3):
        record_access(ws, "recall", "q", ["topic:a", f"topic:n{n}"])
    before = access_summary(ws.memory, ws.lock_dir)
    _as_a_fresh_process()
    record_access(ws, "inject", "q", ["topic:a"])
    summary = access_summary(ws.memory, ws.lock_dir)
    assert summary["topic:a"].count == 4 and summary["topic:n2"] == before["topic:n2"]
    # the projection is what a fresh process starts from: a count only it holds shows
    projection = json.loads((ws.lock_dir / "access-summary.json").read_text())
    projection["usage"]["topic:a"][0] = 40
    (ws.lock_dir / "access-summary.json").write_text(json.dumps(projection))
    _as_a_fresh_process()
    assert access_summary(ws.memory, ws.lock_dir)["topic:a"].count == 41


def test_a_projection_of_another_file_is_never_trusted(ws, settled_clock):
    record_access(ws, "recall", "q", ["topic:a"])
    access_summary(ws.memory, ws.lock_dir)
    _as_a_fresh_process()
    path = access_path(ws.memory)
    replacement = path.with_name("new.jsonl")
    replacement.write_text('{"ts":"t","day":"2026-05-01","op":"recall","query":"q","items":["topic:c"],"detail":{}}\n' * 3)
    replacement.replace(path)
    assert access_summary(ws.memory, ws.lock_dir) == {"topic:c": access_summary(ws.memory)["topic:c"]}
    assert access_summary(ws.memory, ws.lock_dir)["topic:c"].count == 3
    (ws.lock_dir / "access-summary.json").write_text("not json")
    _as_a_fresh_process()
    assert access_summary(ws.memory, ws.lock_dir)["topic:c"].count == 3
