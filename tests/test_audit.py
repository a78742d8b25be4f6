"""memory/meta/audit.log: Moltbot §12.4 lines, tolerant reading, filters, concurrent appends."""
from __future__ import annotations

import multiprocessing
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from dreamdeck.core.errors import BadInput
from dreamdeck.core.store.audit import (
    AuditEntry,
    AuditProblem,
    append_entries,
    append_entry,
    audit_path,
    format_entry,
    format_timestamp,
    parse_line,
    parse_log,
    read_entries,
    read_log,
)

NOW = datetime(2026, 2, 2, 15, 30, 42, tzinfo=UTC)

SECTION_12_4 = """\
2026-02-02T15:30Z | EDIT | MEMORY.md | bot:trigger-remember | auto | added "hybrid approach chosen" to Active Context
2026-02-02T15:31Z | CREATE | memory/graph/entities/concept--hybrid-arch.md | bot:trigger-remember | auto | new entity from user "remember" command
2026-02-02T16:00Z | APPEND | memory/episodes/2026-02-02.md | bot:auto-detect | auto | logged architecture discussion
2026-02-03T03:00Z | EDIT | MEMORY.md | reflection:r-012 | approved | rewrote Active Context and Critical Facts
2026-02-03T03:00Z | EDIT | USER.md | reflection:r-012 | approved | added timezone preference to Context
2026-02-03T03:00Z | MERGE | memory/graph/entities/* | reflection:r-012 | approved | consolidated 3 duplicate entities
2026-02-03T03:01Z | DECAY | memory/meta/decay-scores.json | system:decay | auto | 2 entries transitioned: fading→dormant
2026-02-05T10:00Z | EDIT | SOUL.md | manual | — | ⚠️ CRITICAL: behavioral guideline modified
2026-02-06T12:00Z | REVERT | MEMORY.md | manual | — | user reverted to commit abc1234
"""


def test_timestamps_are_utc_to_the_minute():
    assert format_timestamp(NOW) == "2026-02-02T15:30Z"
    plus_two = timezone(timedelta(hours=2))
    assert format_timestamp(datetime(2026, 2, 2, 17, 30, tzinfo=plus_two)) == "2026-02-02T15:30Z"
    with pytest.raises(ValueError):
        format_timestamp(datetime(2026, 2, 2, 15, 30))


def test_format_matches_the_section_12_4_layout():
    entry = AuditEntry.at(NOW, "EDIT", "MEMORY.md", "bot:trigger-remember", "auto",
                          'added "hybrid approach chosen" to Active Context')
    assert format_entry(entry) == SECTION_12_4.splitlines()[0]
    alert = AuditEntry.at(NOW, "alert", "SOUL.md", "system:audit", "-", "Critical file change detected.")
    assert format_entry(alert) == "2026-02-02T15:30Z | ALERT | SOUL.md | system:audit | — | Critical file change detected."


def test_every_section_12_4_example_parses_and_formats_back():
    entries, problems = parse_log(SECTION_12_4)
    assert problems == []
    assert [e.action for e in entries] == ["EDIT", "CREATE", "APPEND", "EDIT", "EDIT", "MERGE", "DECAY", "EDIT", "REVERT"]
    assert entries[7] == AuditEntry("2026-02-05T10:00Z", "EDIT", "SOUL.md", "manual", "—",
                                    "⚠️ CRITICAL: behavioral guideline modified")
    assert "\n".join(format_entry(e) for e in entries) + "\n" == SECTION_12_4


def test_a_summary_may_contain_the_separator():
    entry = AuditEntry.at(NOW, "COMMIT", "memory/topics/a.md", "bot:main", "approved", "chose a | b | c")
    line = format_entry(entry)
    assert parse_line(line) == entry


def test_unknown_actions_and_approvals_are_refused_on_write():
    with pytest.raises(ValueError, match="action"):
        AuditEntry.at(NOW, "SMASH", "x", "manual")
    with pytest.raises(ValueError, match="approval"):
        format_entry(AuditEntry("2026-02-02T15:30Z", "EDIT", "x", "manual", "maybe", ""))


@pytest.mark.parametrize(
    "line",
    [
        "not an audit line",
        "2026-02-02T15:30Z | EDIT | MEMORY.md | manual",  # too few fields
        "yesterday | EDIT | MEMORY.md | manual | auto | text",  # bad timestamp
        "2026-02-02T15:30Z | edit things | MEMORY.md | manual | auto | text",  # bad action
        "2026-02-02T15:30Z | EDIT |  | manual | auto | text",  # empty file
    ],
)
def test_a_malformed_line_is_a_problem_never_an_exception(line):
    result = parse_line(line, 7)
    assert isinstance(result, AuditProblem)
    assert result.line_no == 7 and str(result).startswith("audit.log line 7:")


def test_reading_skips_bad_lines_and_keeps_the_rest(tmp_path: Path):
    path = audit_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(SECTION_12_4 + "garbage here\r\n\n# a comment\n2026-02-07T09:00:30Z | PIN | memory/vault/x.md | manual | — | pinned\n")
    entries, problems = read_log(tmp_path)
    assert len(entries) == 10 and entries[-1].action == "PIN"
    assert [p.line_no for p in problems] == [10]
    assert read_entries(tmp_path, action="pin")[0].timestamp == "2026-02-07T09:00:30Z"


def test_fields_are_forced_onto_one_line_and_pipes_cannot_shift_columns(tmp_path: Path):
    entry = AuditEntry.at(NOW, "EDIT", "weird|name\n.md", "bot:x\r\ninjected | line", "auto",
                          "first line\nsecond line\u2028third | still summary")
    assert append_entry(tmp_path, entry) == 1
    text = audit_path(tmp_path).read_text()
    assert text.count("\n") == 1
    (parsed,) = read_entries(tmp_path)
    assert parsed.file == "weird¦name .md"
    assert parsed.actor == "bot:x injected ¦ line"
    assert parsed.summary == "first line second line third | still summary"


def test_secrets_in_a_summary_are_redacted(tmp_path: Path):
    token = "ghp_" + "Z9y8" * 10
    append_entry(tmp_path, AuditEntry.at(NOW, "EDIT", "MEMORY.md", "manual", "—", f"pasted {token}"))
    text = audit_path(tmp_path).read_text()
    assert token not in text and "[REDACTED:github token]" in text


def test_append_never_glues_onto_a_hand_edited_last_line(tmp_path: Path):
    path = audit_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(SECTION_12_4.rstrip("\n"))
    append_entry(tmp_path, AuditEntry.at(NOW, "ACK", "SOUL.md", "manual", "—", "seen"))
    entries, problems = read_log(tmp_path)
    assert problems == [] and len(entries) == 10 and entries[-1].action == "ACK"


def test_filters_by_action_actor_file_and_dates(tmp_path: Path):
    path = audit_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(SECTION_12_4)
    assert len(read_entries(tmp_path)) == 9
    assert [e.file for e in read_entries(tmp_path, action="edit")] == ["MEMORY.md", "MEMORY.md", "USER.md", "SOUL.md"]
    assert len(read_entries(tmp_path, action=["MERGE", "decay"])) == 2
    assert len(read_entries(tmp_path, actor="REFLECTION:")) == 3  # substring, case-insensitive
    assert len(read_entries(tmp_path, actor="reflection:*")) == 3  # glob
    assert len(read_entries(tmp_path, actor="bot:*")) == 3
    assert [e.action for e in read_entries(tmp_path, file="soul.md")] == ["EDIT"]
    assert len(read_entries(tmp_path, file="memory/graph/*")) == 2  # glob over the whole path
    assert len(read_entries(tmp_path, file="memory.md")) == 3
    assert len(read_entries(tmp_path, since="2026-02-03")) == 6
    assert len(read_entries(tmp_path, until="2026-02-02")) == 3
    assert len(read_entries(tmp_path, since="2026-02-03", until="2026-02-03")) == 4
    assert len(read_entries(tmp_path, since=date(2026, 2, 5))) == 2
    assert len(read_entries(tmp_path, since="2026-02-03T03:01Z")) == 3
    assert len(read_entries(tmp_path, until=datetime(2026, 2, 2, 15, 31, 59, tzinfo=UTC))) == 2
    assert read_entries(tmp_path, action="EDIT", actor="manual", since="2026-02-04") == [
        AuditEntry("2026-02-05T10:00Z", "EDIT", "SOUL.md", "manual", "—", "⚠️ CRITICAL: behavioral guideline modified")
    ]


@pytest.mark.parametrize("bound", ["2026-99-01", "2026-02-30", "2026-02-03T25:00", "2026-02-03T10:61Z", "last week", ""])
def test_a_date_bound_that_is_no_real_day_or_minute_is_refused_in_one_line(tmp_path: Path, bound: str):
    """A bound like 2026-99-01 used to match nothing silently ("No audit entries match.")."""
    path = audit_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(SECTION_12_4)
    for kwargs in ({"since": bound}, {"until": bound}):
        with pytest.raises(BadInput, match="expected YYYY-MM-DD|no such"):
            read_entries(tmp_path, **kwargs)


def test_reading_a_missing_log_is_empty(tmp_path: Path):
    assert read_entries(tmp_path) == []
    assert read_log(tmp_path) == ([], [])


def _append_many(root: str, writer: int, count: int) -> None:
    for i in range(count):
        summary = f"writer {writer} entry {i} " + "x" * 3000  # long lines: bigger than a pipe buffer chunk
        batch = [AuditEntry.at(NOW, "APPEND", f"memory/streams/{writer}.jsonl", f"bot:w{writer}", "auto",
                               summary + f" part {k}") for k in range(2)]
        append_entries(Path(root), batch)


def test_concurrent_appends_keep_whole_lines(tmp_path: Path):
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_append_many, args=(str(tmp_path), w, 25)) for w in range(6)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(300)  # a hang guard only: six spawned interpreters on a loaded 2-core machine take a while
        assert p.exitcode == 0
    entries, problems = read_log(tmp_path)
    assert problems == []
    assert len(entries) == 6 * 25 * 2
    for w in range(6):
        mine = [e.summary.split(" x")[0] + e.summary[-7:] for e in entries if e.actor == f"bot:w{w}"]
        assert mine == [f"writer {w} entry {i} part {k}" for i in range(25) for k in range(2)]
