"""`verify REV`: citations present at REV and missing now; only changed files are parsed on both
sides, so these cases pin down that the shortcut never hides a loss nor invents one."""
from __future__ import annotations

from dreamdeck.core.ops.verify import verify
from tests.support.memory import cite, commit_all, fragment_line, shard_text, uuid_at, write_shard, write_stream

D = "2026-05-20"


def seed(agent_dir):
    write_stream(agent_dir, D, [fragment_line(D, i, "t", f"fact {i}") for i in range(1, 6)])
    write_shard(agent_dir, "a", shard_text("Belief a", [cite(D, 1), cite(D, 2)]))
    write_shard(agent_dir, "b", shard_text("Belief b", [cite(D, 2), cite(D, 3)]))
    write_shard(agent_dir, "c", shard_text("Belief c", [cite(D, 4)]))
    return commit_all(agent_dir)


def test_nothing_changed_means_nothing_missing_and_no_file_parsed_on_either_side(ws, agent_dir):
    rev = seed(agent_dir)
    result = verify(ws, rev)
    assert result.ok and result.files == 3 and result.changed == 0 and result.checked == 0


def test_a_citation_dropped_from_one_file_but_held_by_an_unchanged_one_is_not_missing(ws, agent_dir):
    rev = seed(agent_dir)
    write_shard(agent_dir, "a", shard_text("Belief a", [cite(D, 1)]))  # 2 is still in b
    result = verify(ws, rev)
    assert result.ok and result.changed == 1 and result.checked == 2


def test_a_citation_dropped_everywhere_is_missing_even_when_its_id_is_prose_elsewhere(ws, agent_dir):
    rev = seed(agent_dir)
    write_shard(agent_dir, "b", shard_text("Belief b", [cite(D, 2)]))
    (ws.topics_dir / "c.md").write_text((ws.topics_dir / "c.md").read_text() + f"\nnote: {uuid_at(D, 3)} was wrong\n")
    result = verify(ws, rev)
    assert result.missing == [(D, uuid_at(D, 3))]


def test_a_deleted_shard_loses_what_only_it_cited_and_a_move_to_archive_loses_nothing(ws, agent_dir):
    rev = seed(agent_dir)
    (ws.topics_dir / "c.md").unlink()
    write_shard(agent_dir, "b", (ws.topics_dir / "b.md").read_text(), folder="archive")
    (ws.topics_dir / "b.md").unlink()
    result = verify(ws, rev)
    assert result.missing == [(D, uuid_at(D, 4))] and result.changed == 2
