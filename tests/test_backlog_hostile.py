"""A compaction backlog (`memory/meta/compaction-backlog.json`) written by someone else is never
an order to remove evidence: a purge it names is done only for a fragment a hard forget
tombstoned on that day. A planted purge of a cited fragment removed its line (the citation
then pointed at nothing)."""
from __future__ import annotations

import json

from tests.support.memory import cite, commit_all, fragment_line, make_quiet, shard_text, uuid_at, write_shard, write_stream
from tests.support.processes import run_cli

OLD, TODAY = "2026-05-20", "2026-05-22"


def test_a_planted_purge_of_a_cited_fragment_removes_nothing(agent_dir):
    stream = write_stream(agent_dir, OLD, [fragment_line(OLD, 1, "tea", "the user drinks green tea"),
                                           fragment_line(OLD, 2, "tea", "the user likes oolong")])
    write_shard(agent_dir, "tea", shard_text("Tea", [cite(OLD, 1), cite(OLD, 2)]))
    commit_all(agent_dir)
    before = stream.read_bytes()
    backlog = {"version": 1, "days": {OLD: {"fragmentGc": True, "purge": [uuid_at(OLD, 1), uuid_at(OLD, 2)]}}}
    (agent_dir / "memory" / "meta").mkdir(exist_ok=True)
    (agent_dir / "memory" / "meta" / "compaction-backlog.json").write_text(json.dumps(backlog))
    make_quiet(agent_dir)

    run_cli(agent_dir, "doctor", "--fix", today=TODAY, check=False)
    run_cli(agent_dir, "remember", "--topic", "misc", "lunch is at noon", today=TODAY)

    assert stream.read_bytes() == before
    assert run_cli(agent_dir, "doctor", today=TODAY, check=False).stdout.startswith("healthy")


def test_a_backlog_naming_days_without_a_stream_or_too_big_is_not_taken_as_work(agent_dir, monkeypatch):
    from dreamdeck.core.store import compaction_backlog
    from dreamdeck.core.store.compaction_backlog import load_backlog
    from dreamdeck.core.workspace import Workspace

    write_stream(agent_dir, OLD, [fragment_line(OLD, 1, "tea", "the user drinks green tea")])
    days = {f"19{y:02d}-01-01": {"fragmentGc": True, "purge": []} for y in range(100)}
    days[OLD] = {"fragmentGc": True, "purge": []}
    path = agent_dir / "memory" / "meta" / "compaction-backlog.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"version": 1, "days": days}))
    ws = Workspace.open(agent_dir, today=TODAY)

    backlog, problem = load_backlog(ws)
    assert (sorted(backlog), problem) == ([OLD], None)

    monkeypatch.setattr(compaction_backlog, "MAX_BYTES", 1000)
    backlog, problem = load_backlog(ws)
    assert backlog == {} and "not read" in (problem or "")
