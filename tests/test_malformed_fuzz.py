"""Issue 10 item 10: malformed data never blocks with a traceback, and is never silently lost.

Every CLI verb is run, in process, against a workspace where one file dreamdeck reads has been
damaged: streams (truncated, binary, invalid UTF-8, a huge line), shard frontmatter, the
dreaming state, a reflection, the tombstones, the settings, the proposals file, the journal.
Rules checked on every run:
- never a traceback: the command line's bug status (70) is never returned;
- a failure is one line on stderr;
- nothing lost: the damaged bytes are still on disk afterwards (kept verbatim, kept aside, or
  refused), and a corrupt state file is never replaced by a mutation.
Hypothesis picks (corruption, verb) pairs beyond the fixed grid of reads; the whole file runs
in seconds.
"""
from __future__ import annotations

import contextlib
import io
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dreamdeck.cli.main import EXIT_BUG, main
from dreamdeck.core.io.cache import clear_all
from tests.support.agent import agent_folder
from tests.support.memory import cite, commit_all, fragment_line, shard_text, uuid_at, write_shard, write_stream

D0, D = "2026-05-20", "2026-05-22"


def run(root: Path, *args: str) -> tuple[int, str, str]:
    clear_all()  # each run as a fresh process would see it
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(["-w", str(root), "--today", D, *args])
        except SystemExit as exc:  # argparse
            status = int(exc.code or 0)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def seeded(tmp_path_factory) -> Path:
    """Streams, shards, a dreaming state, a pending reflection, a proposal, a tombstone and an audit log."""
    root = agent_folder(tmp_path_factory.mktemp("seed"))
    write_stream(root, D0, [fragment_line(D0, i, "tea", f"the user drinks tea {i}") for i in range(1, 4)])
    write_shard(root, "tea", shard_text("The user drinks tea", [cite(D0, 1), cite(D0, 2)]))
    write_shard(root, "coffee", shard_text("The user avoids coffee", [cite(D0, 3)]))
    commit_all(root)
    for args in (("dream", "--dreamer", "offline", "--review", "none"),  # a dreaming state to damage
                 ("remember", "--topic", "deploy", "deploys go out on tuesdays"),
                 ("dream", "--dreamer", "offline", "--review", "all"),
                 ("propose", "--from", "researcher", "--store", "semantic", "--content", "the user likes oolong"),
                 ("forget", f"{D0}#{uuid_at(D0, 3)}", "--reason", "wrong"),
                 ("alerts", "--ack")):
        status, _out, err = run(root, *args)
        assert status == 0, (args, err)
    return root


def _append(rel: str, data: bytes):
    def damage(root: Path) -> tuple[Path, bytes]:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "ab") as fh:
            fh.write(data)
        return path, data
    return damage


def _replace(rel: str, data: bytes):
    def damage(root: Path) -> tuple[Path, bytes]:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir():
            shutil.rmtree(path)
        path.write_bytes(data)
        return path, data
    return damage


def _folder(rel: str):
    def damage(root: Path) -> tuple[Path, bytes]:
        path = root / rel
        if path.exists():
            path.unlink()
        path.mkdir(parents=True)
        return path, b""
    return damage


def _fifo(rel: str):
    def damage(root: Path) -> tuple[Path, bytes]:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if os.path.lexists(path):
            path.unlink()
        os.mkfifo(path)  # a reader that opens it blocking waits for a writer forever
        return path, b""
    return damage


def _not_kept(damage):
    """`damage`, whose bytes a mutation may replace (only a crash-free read is checked)."""
    return lambda root: (damage(root)[0], b"")


def _receipt(data: bytes):
    def damage(root: Path) -> tuple[Path, bytes]:
        path = sorted((root / "memory" / "meta" / "receipts").iterdir())[0]
        path.write_bytes(data)
        return path, data
    return damage


def _truncate(rel: str, keep: int):
    def damage(root: Path) -> tuple[Path, bytes]:
        path = root / rel
        data = path.read_bytes()[:keep]
        path.write_bytes(data)
        return path, data
    return damage


STREAM = f"memory/streams/{D0}.jsonl"
TODAY = f"memory/streams/{D}.jsonl"
STATE = "memory/.dreaming-state.json"
CORRUPTIONS = {
    "stream-truncated-line": _append(STREAM, b'{"type":"fragment","id":"0190'),
    "stream-binary": _append(STREAM, bytes(range(256)) + b"\n"),
    "stream-invalid-utf8": _append(STREAM, b'{"type":"fragment","id":"x","body":"\xff\xfe"}\n'),
    "stream-huge-line": _append(TODAY, b'{"type":"fragment","body":"' + b"a" * 2_000_000 + b'"}\n'),
    "stream-nul-bytes": _append(TODAY, b"\x00\x00\x00\n"),
    "stream-wrong-types": _append(TODAY, b'{"type":"fragment","id":7,"ts":[],"body":{"a":1},"topic":null}\n'),
    "stream-is-a-folder": _folder("memory/streams/2026-05-21.jsonl"),
    "shard-unclosed-frontmatter": _replace("memory/topics/tea.md", b"---\nheading: tea\ncites: 2\n"),
    "shard-invalid-utf8": _replace("memory/topics/tea.md", b"---\nheading: t\xff\n---\n\xfe body\n"),
    "shard-binary": _replace("memory/topics/coffee.md", bytes(range(256)) * 4),
    "shard-is-a-folder": _folder("memory/topics/milk.md"),
    "state-truncated": _truncate(STATE, 20),
    "state-deeply-nested": _replace(STATE, b"[" * 100_000 + b"]" * 100_000),
    "state-wrong-types": _replace(STATE, b'{"version": 2, "dreamedThrough": {"2026-05-20": {"dreamedIds": 5}}}'),
    "state-is-a-folder": _folder(STATE),
    "reflection-wrong-types": _replace("memory/meta/reflections/r-1.json",
                                       b'{"id": 5, "status": ["pending"], "hunks": "x", "created": {}}'),
    "reflection-truncated": _truncate("memory/meta/reflections/r-1.json", 30),
    "tombstones-wrong-types": _append("memory/meta/tombstones.jsonl", b'[1,2]\n{"date": 5, "id": null}\n"x"\n'),
    "tombstones-deeply-nested": _append("memory/meta/tombstones.jsonl", b"[" * 100_000 + b"\n"),
    "tombstones-wrong-field-types": _append("memory/meta/tombstones.jsonl",
                                            b'{"op":"forget","date":"2026-05-20","id":"x","hash":[1],"topic":{},"reason":5}\n'),
    "access-deeply-nested": _append("memory/meta/access.jsonl", b"[" * 100_000 + b"\n"),
    # the backlog only ever delays a compaction: a damaged one is reported and rewritten by design
    "backlog-deeply-nested": _not_kept(_replace("memory/meta/compaction-backlog.json", b"[" * 100_000)),
    "baseline-deeply-nested": _replace("memory/meta/critical-baseline.json", b"[" * 100_000),
    "reflection-deeply-nested": _replace("memory/meta/reflections/r-1.json", b'{"id":' + b"[" * 100_000 + b"}"),
    "receipt-deeply-nested": _receipt(b'{"run":' + b"[" * 100_000 + b"}"),
    "stream-is-a-fifo": _fifo("memory/streams/2026-05-21.jsonl"),
    "tombstones-invalid-utf8": _append("memory/meta/tombstones.jsonl", b'{"date":"\xff"}\n'),
    "settings-invalid": _replace("dreamdeck.toml", b"[dreaming\nreview = \n"),
    "settings-inf": _replace("dreamdeck.toml", b"[decay]\nhalf_life_days = inf\n"),
    "settings-is-a-folder": _folder("dreamdeck.toml"),
    "proposals-garbage": _replace("memory/meta/pending-memories.md", b"\xff\xfe## p-1\n---\nstatus: [\n"),
    "audit-garbage": _append("memory/meta/audit.log", b"\xff | not | an audit line\n"),
    "journal-truncated": _replace("memory/meta/.journal.json", b'{"change_id": "x", "commit": {'),
    "journal-wrong-types": _replace("memory/meta/.journal.json", b'{"change_id": 5, "commit": [], "targets": "x"}'),
}

READS = [
    ("topics",), ("topics", "--json"), ("show", "tea"), ("stream",), ("stream", "--all"), ("dreams",), ("log",),
    ("audit",), ("verify",), ("doctor",), ("doctor", "--json"), ("review",), ("review", "r-1"), ("tombstones",),
    ("rollback", "HEAD", "--preview"), ("alerts",), ("recall", "tea"), ("inject",), ("access",), ("vault",),
    ("collected",),
]
WRITES = [
    ("remember", "--topic", "tea", "the user drinks rooibos"), ("dream", "--dreamer", "offline"),
    ("approve", "r-1"), ("reject", "r-1"), ("pin", "tea"), ("unpin", "tea"), ("forget", "coffee", "--reason", "no"),
    ("unforget", f"{D0}#{uuid_at(D0, 3)}"), ("approve", "p-1"), ("doctor", "--fix"),
]


# Damage to memory's content, all at once (one file each): no verb may stop at the first of them.
CONTENT = ["stream-truncated-line", "stream-binary", "stream-invalid-utf8", "stream-huge-line", "stream-nul-bytes",
           "stream-wrong-types", "stream-is-a-folder", "shard-invalid-utf8", "shard-binary", "shard-is-a-folder",
           "reflection-wrong-types", "tombstones-wrong-types", "tombstones-invalid-utf8", "proposals-garbage",
           "audit-garbage"]
# Nested a hundred thousand deep (a RecursionError in json), wrong-typed fields, a FIFO: one file
# each, all at once, under every verb.
NESTED = ["tombstones-deeply-nested", "tombstones-wrong-field-types", "access-deeply-nested", "backlog-deeply-nested",
          "baseline-deeply-nested", "reflection-deeply-nested", "receipt-deeply-nested", "stream-is-a-fifo"]


def fresh_copy(seeded: Path, tmp: Path) -> Path:
    root = tmp / "agent"
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(seeded, root, symlinks=True)
    return root


def damaged_copy(seeded: Path, tmp: Path, *corruptions: str) -> tuple[Path, list[tuple[Path, bytes]]]:
    root = fresh_copy(seeded, tmp)
    return root, [CORRUPTIONS[c](root) for c in corruptions]


def check(root: Path, damage: list[tuple[Path, bytes]], args: tuple[str, ...]) -> tuple[int, str]:
    status, out, err = run(root, *args)
    assert status != EXIT_BUG, f"{args}: a traceback\n{err}"
    assert "Traceback" not in err
    if status not in (0, 1) or (status and not out):
        assert err.startswith("dreamdeck"), (args, err)
        assert len(err.strip().splitlines()) <= 2, f"{args}: not one clear line:\n{err}"
    for path, data in damage:
        if not data:
            continue
        if path.is_file():
            kept = data in path.read_bytes() or _kept_aside(path, data)
        else:
            kept = _kept_aside(path, data)
        assert kept, f"{args}: the damaged bytes of {path.name} were lost"
    return status, err


def _kept_aside(path: Path, data: bytes) -> bool:
    return any(data in p.read_bytes() for p in path.parent.glob(f"{path.name}*") if p.is_file() and p != path)


def test_every_read_verb_answers_memory_damaged_everywhere_at_once(seeded, tmp_path):
    root, damage = damaged_copy(seeded, tmp_path, *CONTENT)
    for args in READS:
        check(root, damage, args)


@pytest.mark.parametrize("args", WRITES, ids=lambda a: "-".join(a[:2]))
def test_every_mutation_over_memory_damaged_everywhere_keeps_the_damaged_bytes(seeded, tmp_path, args):
    root, damage = damaged_copy(seeded, tmp_path, *CONTENT)
    check(root, damage, args)


def test_approving_a_proposal_over_a_malformed_line_in_todays_stream_commits_and_leaves_no_journal(seeded, tmp_path):
    """The proposal's fragment line is restored to today's stream past the ids already there: a
    line of NUL bytes there crashed the door after its files were written, and the journal it
    left crashed every `doctor --fix` after (memory stuck until the line was removed by hand)."""
    root, damage = damaged_copy(seeded, tmp_path, "stream-nul-bytes")

    status, err = check(root, damage, ("approve", "p-1"))

    assert status == 0, err
    assert not (root / "memory" / "meta" / ".journal.json").exists()
    assert check(root, damage, ("doctor", "--fix"))[0] in (0, 1)


def test_every_verb_answers_deeply_nested_json_wrong_field_types_and_a_fifo(seeded, tmp_path):
    root, damage = damaged_copy(seeded, tmp_path, *NESTED)
    for args in READS + WRITES:
        check(root, damage, args)


# A FIFO where dreamdeck reads a file: opened blocking, it waits for a writer forever.
FIFOS = ["dreamdeck.toml", "memory/meta/access.jsonl", "memory/meta/audit.log", "memory/meta/reflections/r-1.json",
         "memory/meta/pending-memories.md", "memory/meta/.journal.json", "memory/meta/critical-baseline.json",
         "memory/meta/compaction-backlog.json", "memory/meta/tombstones.jsonl", STATE]


@pytest.mark.parametrize("rel", FIFOS)
def test_a_fifo_where_dreamdeck_reads_a_file_is_answered_never_waited_on(seeded, tmp_path, rel):
    root = fresh_copy(seeded, tmp_path)
    damage = [_fifo(rel)(root)]
    for args in (("topics",), ("review",), ("doctor",), ("alerts",), ("audit",), ("dream", "--dreamer", "offline")):
        check(root, damage, args)


@settings(max_examples=16, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(corruption=st.sampled_from(sorted(CORRUPTIONS)), args=st.sampled_from(READS + WRITES))
def test_any_verb_over_any_one_damaged_file_never_crashes_and_loses_nothing(seeded, tmp_path, corruption, args):
    root, damage = damaged_copy(seeded, tmp_path, corruption)
    check(root, damage, args)


GATES = ["state-truncated", "state-deeply-nested", "state-wrong-types", "state-is-a-folder", "settings-invalid",
         "settings-inf", "settings-is-a-folder", "journal-truncated", "journal-wrong-types", "reflection-truncated"]


@pytest.mark.parametrize("corruption", GATES)
def test_a_damaged_state_settings_or_journal_is_named_in_one_line(seeded, tmp_path, corruption):
    root, damage = damaged_copy(seeded, tmp_path, corruption)
    for args in (("doctor",), ("remember", "--topic", "tea", "the user drinks rooibos")):
        check(root, damage, args)


@pytest.mark.parametrize("args", [WRITES[0], WRITES[2], WRITES[4], WRITES[6]], ids=lambda a: a[0])
def test_a_mutation_never_replaces_a_corrupt_state_file(seeded, tmp_path, args):
    root, [(path, data)] = damaged_copy(seeded, tmp_path, "state-truncated")
    status, err = check(root, [(path, data)], args)
    assert path.read_bytes() == data, f"{args} replaced the corrupt state"
    if status:
        assert ".dreaming-state.json" in err
