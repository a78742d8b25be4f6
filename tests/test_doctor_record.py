"""doctor's per-file record (`ops.doctor_record`): only a changed file is read again, and the
record can only ever cost speed — damaged, foreign or unusable, it is built again and doctor
still finds what is really wrong."""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import time

import pytest

from dreamdeck.core.formats.stream_lines import parse_stream_bytes, stream_problems
from dreamdeck.core.io.cache import RACY_NS, set_clock
from dreamdeck.core.ops import doctor_memory, doctor_record, doctor_streams
from dreamdeck.core.ops.doctor import examine
from dreamdeck.core.store.reflections import Reflection, reflections_dir
from dreamdeck.core.store.tombstones import Tombstone, record
from dreamdeck.core.workspace import Workspace
from tests.support.agent import agent_folder
from tests.support.memory import cite, fragment_line, shard_text, uuid_at, write_shard, write_stream
from tests.support.processes import start_cli

DAY = "2026-05-20"


@pytest.fixture
def settled():
    """Files written by the test count as settled (past the racy window), so they are recorded."""
    set_clock(lambda: time.time_ns() + 10 * RACY_NS)
    yield
    set_clock(None)


@pytest.fixture
def memory(agent_dir, ws):
    """Two fragments on DAY, a shard citing both, a shard citing the first."""
    write_stream(agent_dir, DAY, [fragment_line(DAY, 1, "tz", "Lives in Berlin."),
                                  fragment_line(DAY, 2, "tz", "Moved to Lisbon.")])
    write_shard(agent_dir, "home", shard_text("Lives in Lisbon", [cite(DAY, 1), cite(DAY, 2)]))
    write_shard(agent_dir, "city", shard_text("Knows Berlin", [cite(DAY, 1)]))
    return agent_dir


def findings(ws) -> list[tuple[str, str, str]]:
    return [(f.kind, f.where, f.detail) for f in examine(ws).findings]


def full_examination(ws) -> list[tuple[str, str, str]]:
    """What doctor finds with no record at all: every file read."""
    doctor_record.discard(ws)
    return findings(ws)


def drop_line(path, fid: str) -> None:
    path.write_bytes(b"".join(ln for ln in path.read_bytes().splitlines(keepends=True) if fid.encode() not in ln))


def missing_of(found, slug: str, n: int) -> bool:
    return ("missing-fragment", f"memory/topics/{slug}.md",
            f"cites streams/{DAY}#{uuid_at(DAY, n)}, which no stream holds") in found


def test_the_record_answers_exactly_what_reading_every_file_finds(memory, ws, settled):
    stream = memory / "memory/streams" / f"{DAY}.jsonl"
    assert findings(ws) == [] and doctor_record.record_path(ws).is_file()
    steps = [
        lambda: drop_line(stream, uuid_at(DAY, 2)),  # a cited fragment leaves its stream
        lambda: write_stream(memory, DAY, ["{not json", fragment_line(DAY, 2, "tz", "Moved to Lisbon.")]),
        lambda: write_shard(memory, "ghost", shard_text("Ghost", [cite("2026-05-19", 7)])),  # a day with no stream
        lambda: write_stream(memory, "2026-05-19", [fragment_line("2026-05-19", 7, "g", "Back.")]),
        lambda: (memory / "memory/topics/home.md").write_text("---\nheading: x\n---\nno frontmatter counts\n"),
        lambda: (memory / "memory/topics/ghost.md").unlink(),
        lambda: os.remove(memory / "memory/streams/2026-05-19.jsonl"),
        lambda: write_shard(memory, "kept", shard_text("Kept", [cite(DAY, 1)]), folder="vault"),
        lambda: drop_line(stream, uuid_at(DAY, 1)),
        lambda: record(ws, "forget", Tombstone(DAY, uuid_at(DAY, 1), "", "forgotten", "human:test", "2026-05-22T00:00:00Z")),
    ]
    for step in steps:
        step()
        incremental = findings(ws)
        assert incremental == full_examination(ws)
        assert findings(ws) == incremental  # and the rebuilt record answers the same again


def test_a_damaged_record_is_built_again_and_a_real_missing_fragment_is_still_found(memory, ws, settled):
    damages = [
        lambda path: path.write_bytes(b"not a database at all" * 100),
        lambda path: path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2]),
        lambda path: _set_user_version(path, 99),  # another version of the record
    ]
    for n, damage in enumerate(damages, start=3):
        write_stream(memory, DAY, [fragment_line(DAY, n, "tz", f"Fact {n}.")])
        write_shard(memory, f"topic-{n}", shard_text(f"Fact {n}", [cite(DAY, n)]))
        assert findings(ws) == []
        _checkpoint(ws)
        drop_line(memory / "memory/streams" / f"{DAY}.jsonl", uuid_at(DAY, n))
        damage(doctor_record.record_path(ws))
        assert missing_of(findings(ws), f"topic-{n}", n)
        assert missing_of(findings(ws), f"topic-{n}", n)  # and from the record built again
        (memory / "memory/topics" / f"topic-{n}.md").unlink()


def test_a_record_of_another_workspace_or_an_unusable_one_costs_only_speed(tmp_path, memory, ws, settled):
    other = Workspace.open(agent_folder(tmp_path / "other"), today="2026-05-22")
    findings(other)
    _checkpoint(other)
    findings(ws)
    drop_line(memory / "memory/streams" / f"{DAY}.jsonl", uuid_at(DAY, 2))
    doctor_record.discard(ws)
    shutil.copy(doctor_record.record_path(other), doctor_record.record_path(ws))
    assert missing_of(findings(ws), "home", 2)
    doctor_record.discard(ws)
    doctor_record.record_path(ws).mkdir()  # a folder where the record belongs: nothing can be kept
    assert missing_of(findings(ws), "home", 2)


def test_a_held_fragment_that_leaves_its_stream_after_the_record_was_made_is_found(memory, ws, settled):
    """The protected keys are read fresh each run and looked up in the streams as recorded now."""
    folder = reflections_dir(ws)
    folder.mkdir(parents=True)
    held = Reflection(id="r-1", created="2026-05-22T00:00:00Z", held=[f"{DAY}#{uuid_at(DAY, 2)}"],
                      fragments=[{"date": DAY, "id": uuid_at(DAY, 2), "topic": "tz", "body": "Moved to Lisbon."}])
    (folder / "r-1.json").write_text(held.to_json())
    (memory / "memory/topics/home.md").unlink()
    assert findings(ws) == []
    drop_line(memory / "memory/streams" / f"{DAY}.jsonl", uuid_at(DAY, 2))
    assert [(kind, where) for kind, where, _ in findings(ws)] == [("missing-fragment", "memory/meta/reflections")]


def test_a_shard_changed_with_its_size_and_mtime_put_back_is_read_again(memory, ws, settled):
    path = memory / "memory/topics/city.md"
    assert findings(ws) == []
    before = os.stat(path)
    path.write_text(path.read_text().replace(uuid_at(DAY, 1), uuid_at(DAY, 9)))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(path).st_size == before.st_size
    assert missing_of(findings(ws), "city", 9)


def test_a_stream_changed_with_its_size_and_mtime_put_back_is_read_again(memory, ws, settled):
    path = memory / "memory/streams" / f"{DAY}.jsonl"
    assert findings(ws) == []
    before = os.stat(path)
    path.write_bytes(path.read_bytes().replace(uuid_at(DAY, 2).encode(), uuid_at(DAY, 8).encode()))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(path).st_size == before.st_size
    assert missing_of(findings(ws), "home", 2)


def test_a_file_changed_within_the_racy_window_is_not_recorded(memory, ws):
    """Written just now (the real clock): read, but kept with no stamp, so read again next time."""
    findings(ws)
    with sqlite3.connect(doctor_record.record_path(ws)) as db:
        assert db.execute("SELECT count(*) FROM shard WHERE stamp IS NOT NULL").fetchone()[0] == 0
        assert db.execute("SELECT count(*) FROM stream WHERE stamp IS NOT NULL").fetchone()[0] == 0
        assert db.execute("SELECT count(*) FROM shard").fetchone()[0] == 2


def test_a_shard_citing_nothing_is_judged_again_on_a_new_day(agent_dir, ws, settled):
    """TypeClaw's recompute reinforces a shard citing nothing "today": its frontmatter goes stale
    when the date moves, though its bytes did not."""
    write_shard(agent_dir, "bare", shard_text("Nothing cited", [], today="2026-05-22"))
    assert findings(ws) == []
    tomorrow = Workspace.open(agent_dir, today="2026-05-23")
    assert [f.kind for f in examine(tomorrow).findings] == ["stale-frontmatter"]


def test_stream_problems_are_the_malformed_lines_a_full_parse_reports():
    lines = [
        fragment_line(DAY, 1, "t", "b"),
        "{not json",
        "\ufeff" + fragment_line(DAY, 2, "t", "b"),
        '{"type":"fragment","id":"","ts":"2026-05-20T01:00:00.000Z","source":"s","entry":"e","topic":"t","body":"b"}',
        '{"type":"fragment","id":"x","ts":"2026-02-30T01:00:00Z","source":"s","entry":"e","topic":"t","body":"b"}',
        '{"type":"fragment","id":"x","ts":"2026-05-20T01:00:00Z","source":"s","entry":"e","topic":"t","body":7}',
        '{"type":"fragment","id":"x","ts":"2026-05-20T01:00:00Z","source":"s","entry":"e","topic":"t","body":"b","who":""}',
        '{"type":"fragment","id":"x","ts":"2026-05-20T01:00:00Z","source":"s","entry":"e","topic":"t","body":"b","x":NaN}',
        "",
        '{"type":"watermark","id":"w","ts":"2026-05-20T01:00:00Z","source":"s","entry":"e"}',
        '[1, 2]',
    ]
    data = "\n".join(lines).encode() + b"\n\xff\xfe\n"
    expected = [(ln.lineno, ln.error) for ln in parse_stream_bytes(data) if ln.error]
    assert stream_problems(data) == expected and len(expected) == 9


def test_two_doctors_at_once_share_the_record_and_a_third_run_reuses_it(memory, ws, monkeypatch):
    """Two real processes start on a workspace with no record: both say the same, the record they
    leave is whole, and a third run answers from it without reading a file again."""
    write_stream(memory, "2026-05-19", ["{not json", fragment_line("2026-05-19", 1, "t", "b")])
    write_shard(memory, "ghost", shard_text("Ghost", [cite("2026-05-19", 9)]))
    time.sleep(2.1)  # past the racy window, so what the processes read may be recorded
    procs = [start_cli(memory, "doctor", "--json", today="2026-05-22") for _ in range(2)]
    outs = [proc.communicate(timeout=120) for proc in procs]
    assert [proc.returncode for proc in procs] == [1, 1] and not any(b"Traceback" in err for _, err in outs)
    assert outs[0][0] == outs[1][0]
    reported = json.loads(outs[0][0])["findings"]
    assert {f["kind"] for f in reported} == {"missing-fragment", "malformed-line"}
    with sqlite3.connect(doctor_record.record_path(ws)) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)

    def refuse(*_args):
        raise AssertionError("a recorded file was read again")

    monkeypatch.setattr(doctor_streams, "id_lines_and_problems", refuse)
    monkeypatch.setattr(doctor_memory, "examine_shard", refuse)
    assert [f.__dict__ for f in examine(ws).findings] == reported


def test_a_record_another_doctor_holds_is_bypassed_not_waited_on(memory, ws, monkeypatch, settled):
    assert findings(ws) == []
    drop_line(memory / "memory/streams" / f"{DAY}.jsonl", uuid_at(DAY, 2))
    monkeypatch.setattr(doctor_record, "BUSY_WAIT_S", 0.2)
    holder = sqlite3.connect(doctor_record.record_path(ws), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another doctor, mid-run
    try:
        assert missing_of(findings(ws), "home", 2)  # found without the record
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert missing_of(findings(ws), "home", 2)  # and with it, once it is free


def test_a_first_record_a_killed_run_left_half_built_is_removed(memory, ws):
    """A first record is built under `doctor-record.sqlite.PID.new`; SIGKILL leaves it behind."""
    gone = _finished_pid()
    folder = doctor_record.record_path(ws).parent
    folder.mkdir(parents=True, exist_ok=True)
    orphan = folder / f"{doctor_record.RECORD}.{gone}.new"
    orphan.write_bytes(b"half a record" * 1000)
    assert findings(ws) == []
    assert not orphan.exists() and doctor_record.record_path(ws).is_file()


def _finished_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def _checkpoint(ws) -> None:
    """Fold SQLite's write-ahead log into the record file, so damaging the file damages it all."""
    with sqlite3.connect(doctor_record.record_path(ws)) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _set_user_version(path, version: int) -> None:
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {version}")


def test_an_id_holding_a_newline_never_makes_a_citation_look_held(agent_dir, ws, settled):
    """JSON can spell an id with a newline in it; the record keeps a day's ids one a line."""
    tricky = fragment_line(DAY, 1, "t", "b").replace(uuid_at(DAY, 1), "x\\nghost")
    write_stream(agent_dir, DAY, [tricky])
    write_shard(agent_dir, "ghost", shard_text("Ghost", [f"streams/{DAY}#ghost"]))
    for _ in range(2):  # from the files read, then from the record
        assert ("missing-fragment", "memory/topics/ghost.md", f"cites streams/{DAY}#ghost, which no stream holds") \
            in findings(ws)


def test_a_key_whose_id_spans_lines_or_is_empty_is_never_held_by_a_recorded_day(agent_dir, ws, settled):
    """Protection asks the record about the keys reflections hold (any JSON string): a recorded day
    is searched in its ids as stored, one a line, where `a\\nb` once matched two ids in a row.
    Asked together or one at a time, the answers are the same."""
    write_stream(agent_dir, DAY, [fragment_line(DAY, n, "t", f"fact {n}") for n in range(1, 41)])
    write_stream(agent_dir, "2026-05-21", [fragment_line("2026-05-21", 1, "t", "one")])
    assert findings(ws) == []  # the record now holds both days
    first, second = uuid_at(DAY, 1), uuid_at(DAY, 2)
    asked = {(DAY, uuid_at(DAY, n)) for n in range(1, 61)}  # 40 held, 20 not
    asked |= {("2026-05-21", uuid_at("2026-05-21", 1)), ("2026-05-21", uuid_at("2026-05-21", 2)),
              (DAY, f"{first}\n{second}"), (DAY, ""), ("2026-05-22", first)}

    many = doctor_memory.held_in_streams(ws, sorted(asked))
    few = set().union(*(doctor_memory.held_in_streams(ws, [key]) for key in sorted(asked)))

    expected = {(DAY, uuid_at(DAY, n)) for n in range(1, 41)} | {("2026-05-21", uuid_at("2026-05-21", 1))}
    assert many == few == expected
