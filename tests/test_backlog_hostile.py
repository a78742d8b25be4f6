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
