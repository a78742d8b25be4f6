"""Stream compaction (TypeClaw's compact.test.ts): watermark GC always, fragment GC only when asked."""
from __future__ import annotations

import json
import os

from dreamdeck.core.door.compaction import compact_days
from dreamdeck.core.store.state import DreamingState
from tests.support.memory import fragment_line, uuid_at, watermark_line, write_stream

D1, D = "2026-05-21", "2026-05-22"
TS = "2026-05-22T10:00:00+00:00"

# PR #214's shape: real-looking UUIDv7 session ids and 8-hex entry ids.
S1 = "019e2ecf-f2d5-70ee-83f6-005fb5451c51"
S2 = "019e2ed4-1a09-7b3c-9d21-7f6e5d4c3b2a"
S3 = "019e2ed9-88c2-7e10-a4b5-0c1d2e3f4a5b"


def path_of(root, day=D):
    return root / "memory" / "streams" / f"{day}.jsonl"


def dreamed(day: str, *ns: int) -> DreamingState:
    return DreamingState().add_dreamed(day, {uuid_at(day, n) for n in ns}, TS)


def k(day: str, n: int) -> tuple[str, str]:
    return (day, uuid_at(day, n))


def test_only_the_latest_watermark_per_source_is_kept_independently_for_each_source(ws, agent_dir):
    lines = [watermark_line(D, 1, "a"), watermark_line(D, 2, "b"), watermark_line(D, 3, "a"),
             watermark_line(D, 4, "b"), watermark_line(D, 5, "a"), watermark_line(D, 6, "c")]
    write_stream(agent_dir, D, lines)

    result = compact_days(ws, DreamingState(), set(), [D], fragment_gc=False)

    assert path_of(agent_dir).read_text() == "".join(lines[i] + "\n" for i in (3, 4, 5))
    assert result.watermarks_dropped == 3 and result.fragments_dropped == []
    assert result.files == [f"memory/streams/{D}.jsonl"]


def test_a_file_with_nothing_to_drop_is_left_untouched(ws, agent_dir):
    write_stream(agent_dir, D, [fragment_line(D, 1, "pm", "uses pnpm"), watermark_line(D, 2, "a"), watermark_line(D, 3, "b")])
    p = path_of(agent_dir)
    before = (p.read_bytes(), os.stat(p).st_ino, os.stat(p).st_mtime_ns)

    result = compact_days(ws, dreamed(D, 1), {k(D, 1)}, [D], fragment_gc=True)

    assert (p.read_bytes(), os.stat(p).st_ino, os.stat(p).st_mtime_ns) == before
    assert result.files == [] and result.watermarks_dropped == 0


def test_three_watermarks_of_one_source_for_the_same_entry_collapse_to_the_last(ws, agent_dir):
    lines = [watermark_line(D, n, S1, entry="7e682f27") for n in (1, 2, 3)]
    write_stream(agent_dir, D, lines)

    compact_days(ws, DreamingState(), set(), [D], fragment_gc=False)

    assert path_of(agent_dir).read_text() == lines[2] + "\n"


def test_a_real_twelve_row_sample_collapses_to_three(ws, agent_dir):
    entries = ["639cc130", "7e682f27", "a1b2c3d4", "0f9e8d7c"]
    lines = [watermark_line(D, 10 * i + j, src, entry=entries[i]) for i in range(4) for j, src in enumerate((S1, S2, S3))]
    assert len(lines) == 12
    write_stream(agent_dir, D, lines)

    result = compact_days(ws, DreamingState(), set(), [D], fragment_gc=False)

    kept = path_of(agent_dir).read_text().splitlines()
    assert kept == lines[-3:] and result.watermarks_dropped == 9
    assert [json.loads(line)["source"] for line in kept] == [S1, S2, S3]


def test_fragment_gc_drops_dreamed_uncited_keeps_undreamed_and_cited(ws, agent_dir):
    lines = [fragment_line(D, 1, "a", "dreamed and cited"), fragment_line(D, 2, "b", "dreamed, uncited"),
             fragment_line(D, 3, "c", "not dreamed yet"), watermark_line(D, 4)]
    write_stream(agent_dir, D, lines)

    result = compact_days(ws, dreamed(D, 1, 2), {k(D, 1)}, [D], fragment_gc=True)

    assert path_of(agent_dir).read_text() == "".join(lines[i] + "\n" for i in (0, 2, 3))
    assert result.fragments_dropped == [k(D, 2)]


def test_a_citation_under_another_date_does_not_pin(ws, agent_dir):
    same_id_other_day = (D1, uuid_at(D, 1))
    write_stream(agent_dir, D, [fragment_line(D, 1, "a", "dreamed")])

    result = compact_days(ws, dreamed(D, 1), {same_id_other_day}, [D], fragment_gc=True)

    assert result.fragments_dropped == [k(D, 1)]
    assert path_of(agent_dir).read_text() == ""


def test_without_fragment_gc_fragments_stay_but_watermark_gc_still_runs(ws, agent_dir):
    lines = [fragment_line(D, 1, "a", "dreamed, uncited"), watermark_line(D, 2), watermark_line(D, 3)]
    write_stream(agent_dir, D, lines)

    result = compact_days(ws, dreamed(D, 1), set(), [D], fragment_gc=False)

    assert path_of(agent_dir).read_text() == lines[0] + "\n" + lines[2] + "\n"
    assert result.fragments_dropped == [] and result.watermarks_dropped == 1


def test_a_missing_file_or_day_is_no_problem(ws, agent_dir):
    assert compact_days(ws, dreamed(D, 1), set(), [D], fragment_gc=True).files == []
    write_stream(agent_dir, D1, [watermark_line(D1, 1), watermark_line(D1, 2)])
    result = compact_days(ws, DreamingState(), set(), [D, D1], fragment_gc=True)
    assert result.files == [f"memory/streams/{D1}.jsonl"]
    assert not path_of(agent_dir, D).exists()


def test_only_the_days_asked_for_are_touched(ws, agent_dir):
    write_stream(agent_dir, D1, [fragment_line(D1, 1, "a", "old"), watermark_line(D1, 2), watermark_line(D1, 3)])
    write_stream(agent_dir, D, [watermark_line(D, 1), watermark_line(D, 2)])
    before = path_of(agent_dir, D1).read_bytes()

    compact_days(ws, dreamed(D1, 1), set(), [D], fragment_gc=True)

    assert path_of(agent_dir, D1).read_bytes() == before


def test_malformed_and_legacy_lines_are_always_kept_verbatim(ws, agent_dir):
    legacy = '{"type":"legacy_prose","ts":"2026-05-22T00:00:00.000Z","text":"old prose","origin":"migration"}'
    lines = [fragment_line(D, 1, "a", "dreamed"), "{not json", legacy, '{"type":"mystery","id":"x"}',
             watermark_line(D, 2), watermark_line(D, 3)]
    write_stream(agent_dir, D, lines)

    result = compact_days(ws, dreamed(D, 1), set(), [D], fragment_gc=True)

    assert path_of(agent_dir).read_text() == "".join(lines[i] + "\n" for i in (1, 2, 3, 5))
    assert result.fragments_dropped == [k(D, 1)] and result.watermarks_dropped == 1


def test_a_hard_forget_purges_whatever_else_holds(ws, agent_dir):
    lines = [fragment_line(D, 1, "a", "cited but forgotten"), fragment_line(D, 2, "b", "undreamed but forgotten"),
             fragment_line(D, 3, "c", "kept")]
    write_stream(agent_dir, D, lines)

    result = compact_days(ws, dreamed(D, 1), {k(D, 1)}, [D], fragment_gc=False, purge={k(D, 1), k(D, 2)})

    assert path_of(agent_dir).read_text() == lines[2] + "\n"
    assert sorted(result.fragments_dropped) == [k(D, 1), k(D, 2)]


def test_a_trailing_partial_line_is_carried_verbatim(ws, agent_dir):
    lines = [fragment_line(D, 1, "a", "dreamed"), watermark_line(D, 2), watermark_line(D, 3)]
    write_stream(agent_dir, D, lines)
    partial = fragment_line(D, 4, "d", "being written")[:30]
    with open(path_of(agent_dir), "a") as fh:
        fh.write(partial)

    compact_days(ws, dreamed(D, 1), set(), [D], fragment_gc=True)

    assert path_of(agent_dir).read_text() == lines[2] + "\n" + partial
