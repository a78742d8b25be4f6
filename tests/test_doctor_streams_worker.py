"""doctor reads a year of streams in a second process (`ops.doctor_streams`) while it judges the
shards: what the worker answers is exactly what this process would read, and whatever goes wrong
in it (a FIFO, a link, a worker not wanted any more) costs only speed, never a finding."""
from __future__ import annotations

import os
from collections import defaultdict

import pytest

try:
    import fcntl
except ImportError:  # not on Windows
    fcntl = None  # type: ignore[assignment]

from dreamdeck.core.errors import DreamdeckError
from dreamdeck.core.ops import doctor_memory, doctor_record, doctor_streams
from dreamdeck.core.ops.doctor import examine
from dreamdeck.core.ops.doctor_memory import _by_date, _joined
from dreamdeck.core.ops.doctor_streams import Reads, read_day, read_state
from tests.support.memory import cite, fragment_line, shard_text, uuid_at, write_shard, write_stream

DAY, OTHER = "2026-05-20", "2026-05-21"


@pytest.fixture
def memory(agent_dir):
    """Two days (one with a malformed line), a shard citing a fragment no stream holds, and a
    corrupt dreaming state."""
    write_stream(agent_dir, DAY, [fragment_line(DAY, 1, "tz", "Lives in Berlin."), '{"type":"fragment","id":',
                                  fragment_line(DAY, 2, "tz", "Moved to Lisbon.")])
    write_stream(agent_dir, OTHER, [fragment_line(OTHER, 1, "tea", "Drinks green tea.")])
    write_shard(agent_dir, "home", shard_text("Lives in Lisbon", [cite(DAY, 1), cite(DAY, 2), cite(OTHER, 9)]))
    (agent_dir / "memory" / ".dreaming-state.json").write_text("{not json", encoding="utf-8")
    return agent_dir


def findings(ws) -> list[dict]:
    doctor_record.discard(ws)
    return [f.__dict__ for f in examine(ws).findings]


def test_doctor_finds_the_same_with_the_streams_read_by_a_worker(memory, ws, monkeypatch):
    here = findings(ws)
    monkeypatch.setattr(doctor_streams, "WORKER_BYTES", 0)

    by_worker = findings(ws)

    assert by_worker == here
    assert {f["kind"] for f in here} == {"malformed-line", "missing-fragment", "corrupt-state"}


def test_keys_grouped_by_date_across_batches_are_each_checked_by_the_worker(memory, ws, monkeypatch):
    """The caller groups the citation keys by date a few shards at a time: a date whose keys come
    in several batches (held and missing mixed, a key cited by two shards, a day no stream holds,
    a shard citing one in its heading) is reported exactly as this process reports it."""
    write_shard(memory, "a", shard_text("Tea", [cite(OTHER, 1), cite(DAY, 1)]))
    write_shard(memory, "b", shard_text("Tea and more", [cite(OTHER, 7), cite(DAY, 2), cite("2026-05-23", 1)]))
    write_shard(memory, "c", shard_text("Berlin", [cite(DAY, 1), cite(OTHER, 7), cite(DAY, 8)]))
    write_shard(memory, "d", shard_text(f"From {cite(OTHER, 5)}", [cite(OTHER, 1)]))
    write_shard(memory, "e", shard_text("Nothing cited", []))
    here = findings(ws)
    monkeypatch.setattr(doctor_streams, "WORKER_BYTES", 0)
    monkeypatch.setattr(doctor_memory, "KEYS_BATCH", 2)

    by_worker = findings(ws)

    assert by_worker == here
    assert sorted(f["detail"].split()[1] for f in here if f["kind"] == "missing-fragment") == sorted([
        f"streams/{key}," for key in ("2026-05-23#" + uuid_at("2026-05-23", 1), f"{DAY}#{uuid_at(DAY, 8)}",
                                      f"{OTHER}#{uuid_at(OTHER, 5)}", f"{OTHER}#{uuid_at(OTHER, 7)}",
                                      f"{OTHER}#{uuid_at(OTHER, 7)}", f"{OTHER}#{uuid_at(OTHER, 9)}")])


@pytest.mark.parametrize("state", ["{not json", '{"version": 2, "dreamedThrough": {}}', None, "fifo", "link"])
def test_the_worker_proves_the_state_file_as_this_process_does(memory, ws, monkeypatch, state):
    """The stream worker proves the dreaming state file while the shards are judged: its answer
    (stamp, problem) is `read_state`'s here, for a corrupt, a sound and a missing state file,
    whether or not any citation key was sent; a FIFO or a link it leaves to this process; what
    doctor says is the same either way."""
    path = memory / "memory" / ".dreaming-state.json"
    path.unlink()
    if state == "fifo":
        os.mkfifo(path)
    elif state == "link":
        (memory / "elsewhere.json").write_text('{"version": 2, "dreamedThrough": {}}', encoding="utf-8")
        path.symlink_to(memory / "elsewhere.json")
    elif state is not None:
        path.write_text(state, encoding="utf-8")
    here = outcome(ws)
    monkeypatch.setattr(doctor_streams, "WORKER_BYTES", 0)
    days = [(DAY, str(memory / "memory" / "streams" / f"{DAY}.jsonl"))]
    answers = []
    for keys in ([], [f"{DAY}#{uuid_at(DAY, 1)}"]):
        with Reads(days, state=str(path)) as reads:
            reads.day(days[0][1])
            if keys:
                send_as_shards(reads, keys)
            answers.append(reads.state())

    try:
        expected = read_state(str(path))[::2]  # (stamp, problem): the time each read started differs
    except DreamdeckError:  # a FIFO or a link, refused: the worker leaves it to this process, which refuses it again
        expected = None
    assert [answer and answer[::2] for answer in answers] == [expected, expected]
    assert outcome(ws) == here


def outcome(ws) -> list[dict] | str:
    """doctor's findings, or the one line it stops with (a FIFO in the state file's place)."""
    try:
        return findings(ws)
    except DreamdeckError as exc:
        return str(exc)


def test_a_state_the_worker_did_not_prove_is_read_here(memory, ws, monkeypatch):
    """A worker gone before its last answer (or one not asked) leaves the state file to this
    process: `state` says so, and doctor still reports the corrupt state."""
    monkeypatch.setattr(doctor_streams, "WORKER_BYTES", 0)
    days = [(DAY, str(memory / "memory" / "streams" / f"{DAY}.jsonl"))]
    state = str(memory / "memory" / ".dreaming-state.json")

    with Reads(days) as reads:
        reads.day(days[0][1])
        assert reads.state() is None  # not asked
    with Reads(days, state=state) as reads:
        reads.day(days[0][1])
        assert reads.worker is not None
        reads.worker.kill()
        assert reads.state() is None

    assert "corrupt-state" in {f["kind"] for f in findings(ws)}


def test_a_workers_answer_is_what_this_process_reads(memory, monkeypatch):
    monkeypatch.setattr(doctor_streams, "WORKER_BYTES", 0)
    paths = [str(memory / "memory" / "streams" / f"{day}.jsonl") for day in (DAY, OTHER)]

    with Reads(zip((DAY, OTHER), paths)) as reads:
        answered = [reads.day(path) for path in paths]
        assert reads.by_worker

    assert [day[2:] for day in answered] == [read_day(path)[2:] for path in paths]
    assert answered[0][3] == [(2, answered[0][3][0][1])] and uuid_at(DAY, 2) in answered[0][2]


@pytest.mark.parametrize("plant", [
    lambda streams: os.mkfifo(streams / "2026-05-22.jsonl"),
    lambda streams: (streams / "2026-05-22.jsonl").symlink_to(streams / f"{OTHER}.jsonl"),
])
def test_a_file_the_worker_cannot_read_gives_what_this_process_gives(memory, ws, monkeypatch, plant):
    plant(memory / "memory" / "streams")
    here = findings(ws)
    monkeypatch.setattr(doctor_streams, "WORKER_BYTES", 0)

    assert findings(ws) == here


def test_a_worker_whose_answer_is_not_wanted_is_stopped(memory, monkeypatch):
    monkeypatch.setattr(doctor_streams, "WORKER_BYTES", 0)
    with Reads([(DAY, str(memory / "memory" / "streams" / f"{DAY}.jsonl"))]) as reads:
        worker = reads.worker
        assert worker is not None

    assert worker.poll() is not None


def send_as_shards(reads: Reads, keys: list[str], per_shard: int = 2) -> None:
    """Give the worker `keys` as the caller does: grouped by their date a few shards at a time
    (some shards citing nothing, a batch with none), the last batch marked so."""
    shards = [keys[i:i + per_shard] for i in range(0, len(keys), per_shard)]
    shards.insert(1, [])

    def grouped(batch: list[list[str]]) -> dict[str, str]:
        by_date: defaultdict[str, list[str]] = defaultdict(list)
        for shard in batch:
            _by_date(shard, by_date)
        return _joined(by_date)

    reads.send_keys(grouped(shards[:2]))
    reads.send_keys({})
    reads.send_keys(grouped(shards[2:]), last=True)


def test_the_worker_answers_which_citation_keys_its_days_do_not_hold(memory, monkeypatch):
    monkeypatch.setattr(doctor_streams, "WORKER_BYTES", 0)
    days = [(day, str(memory / "memory" / "streams" / f"{day}.jsonl")) for day in (DAY, OTHER)]
    held = [f"{DAY}#{uuid_at(DAY, 1)}", f"{OTHER}#{uuid_at(OTHER, 1)}"]
    not_held = [f"{OTHER}#{uuid_at(DAY, 1)}", f"{DAY}#{uuid_at(DAY, 9)}", f"2026-05-23#{uuid_at(DAY, 2)}"]

    with Reads(days) as reads:
        assert reads.not_held() is None  # nothing answered yet: the caller checks
        reads.day(days[0][1])
        assert reads.not_held() is None  # no keys given: the caller checks
        send_as_shards(reads, held + not_held + held)
        answer = reads.not_held()

    assert answer == set(not_held)


def test_keys_given_to_a_worker_that_died_cost_nothing_and_the_caller_checks(memory, monkeypatch):
    """The keys go down the pipe from a thread while this process goes on: a worker gone by then
    (more keys than a pipe holds) leaves no thread waiting, and `not_held` says so."""
    monkeypatch.setattr(doctor_streams, "WORKER_BYTES", 0)
    days = [(DAY, str(memory / "memory" / "streams" / f"{DAY}.jsonl"))]

    with Reads(days) as reads:
        reads.day(days[0][1])
        worker = reads.worker
        assert worker is not None
        worker.kill()
        send_as_shards(reads, [f"{DAY}#{uuid_at(DAY, 1)}"] * 100_000, per_shard=1000)
        sender = reads.sender
        assert reads.not_held() is None

    assert sender is not None and not sender.is_alive()


@pytest.mark.parametrize("missing", [[], [f"{OTHER}#{uuid_at(DAY, 1)}"]])
def test_a_day_the_worker_did_not_read_holds_none_of_its_keys(memory, monkeypatch, missing):
    monkeypatch.setattr(doctor_streams, "WORKER_BYTES", 0)
    days = [(DAY, str(memory / "memory" / "streams" / f"{DAY}.jsonl"))]
    held = [f"{DAY}#{uuid_at(DAY, 1)}", f"{DAY}#{uuid_at(DAY, 2)}"]

    with Reads(days) as reads:
        reads.day(days[0][1])
        send_as_shards(reads, [*held, *missing])
        answer = reads.not_held()

    assert answer == set(missing)


@pytest.mark.skipif(not os.path.exists("/proc/self/environ"), reason="reads a process's environment from /proc")
def test_the_worker_keeps_freed_memory_for_reuse(memory, monkeypatch):
    monkeypatch.setattr(doctor_streams, "WORKER_BYTES", 0)
    days = [(DAY, str(memory / "memory" / "streams" / f"{DAY}.jsonl"))]

    with Reads(days) as reads:
        assert reads.worker is not None
        reads.day(days[0][1])  # answered: the worker has run, so /proc holds its own environment, not the forked parent's
        assert reads.by_worker
        with open(f"/proc/{reads.worker.pid}/environ", "rb") as fh:
            environ = dict(item.split(b"=", 1) for item in fh.read().split(b"\0") if b"=" in item)

    assert environ[b"MALLOC_MMAP_THRESHOLD_"] == environ[b"MALLOC_TRIM_THRESHOLD_"] == str(1 << 30).encode()


@pytest.mark.skipif(not hasattr(fcntl, "F_GETPIPE_SZ"), reason="a pipe's size is Linux's to tell")
def test_the_pipes_to_the_worker_hold_a_megabyte(memory, monkeypatch):
    """Each side writes its pickle from a thread while another computes: a 64 KB pipe made every
    refill wait for the interpreter, and 40 MB took seconds of wall."""
    monkeypatch.setattr(doctor_streams, "WORKER_BYTES", 0)
    with Reads([(DAY, str(memory / "memory" / "streams" / f"{DAY}.jsonl"))]) as reads:
        worker = reads.worker
        assert worker is not None and worker.stdin is not None and worker.stdout is not None
        sizes = [fcntl.fcntl(pipe.fileno(), fcntl.F_GETPIPE_SZ) for pipe in (worker.stdin, worker.stdout)]

    assert sizes == [doctor_streams.PIPE_BYTES] * 2


@pytest.mark.parametrize("plant", [
    lambda streams: os.mkfifo(streams / "2026-05-22.jsonl"),
    lambda streams: _bind_socket(streams / "2026-05-22.jsonl"),
], ids=["fifo", "socket"])
def test_doctor_names_a_fifo_or_a_socket_named_like_a_stream(memory, ws, plant):
    """TypeClaw's read of it would wait forever: doctor must not call the folder healthy."""
    plant(memory / "memory" / "streams")
    special = [f for f in findings(ws) if f["kind"] == "special-file"]
    assert [f["where"] for f in special] == ["memory/streams/2026-05-22.jsonl"]
    assert "not a file" in special[0]["detail"]


def _bind_socket(path) -> None:
    import socket

    sock = socket.socket(socket.AF_UNIX)
    here = os.getcwd()
    os.chdir(path.parent)  # bound by its short name: a test's temp path is longer than AF_UNIX allows
    try:
        sock.bind(path.name)
    finally:
        os.chdir(here)
        sock.close()  # the socket file stays


def test_a_day_too_big_to_read_is_one_line_and_is_never_read(memory, ws, monkeypatch):
    """`yes >> day.jsonl` grows a file by a gigabyte a second: doctor answers with one problem line
    for it instead of reading it (worker or not)."""
    monkeypatch.setattr(doctor_streams, "DAY_READ_LIMIT", 200)
    path = memory / "memory" / "streams" / "2026-05-19.jsonl"
    path.write_bytes(b"x" * 201)
    problems = [f for f in findings(ws) if f["where"].startswith("memory/streams/2026-05-19.jsonl")]
    assert len(problems) == 1 and "too big to be a day's stream" in problems[0]["detail"]
    assert read_day(str(path))[2:] == ("", [(1, problems[0]["detail"])])
