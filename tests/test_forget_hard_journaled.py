"""A hard forget's audit-log scrub and its search-index purge are steps of its journaled change
(issue 10, item 4): a kill at any point is finished by `doctor --fix` (`recover_journal`) with the
forget's own commit; and afterwards the private search index holds no byte of the text."""
from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

import pytest

from dreamdeck.core.door.apply import recover_journal
from dreamdeck.core.index.search import index_path, open_index
from dreamdeck.core.ops.forget import forget_fragment
from dreamdeck.core.store.audit import AuditEntry, append_entries
from tests.support.git import git, trailer_lines
from tests.support.memory import commit_all, fragment_line, make_quiet, uuid_at, write_stream
from tests.support.processes import run_program

D = "2026-05-20"
SECRET_WORDS = "Frankfurt staging cutover on Tuesday"
BODY = f"The {SECRET_WORDS}."


def _seed(ws, agent_dir) -> str:
    write_stream(agent_dir, D, [fragment_line(D, 1, "infra", BODY), fragment_line(D, 2, "misc", "Lunch is at noon.")])
    # a dream's audit line quoting the fragment, as a summary can
    append_entries(agent_dir, [AuditEntry.at(datetime(2026, 5, 21, tzinfo=UTC), "DREAM", "memory/topics",
                                             "dreamer:x", "auto", f"noted: {BODY}")])
    commit_all(agent_dir)
    make_quiet(agent_dir)
    return uuid_at(D, 1)


def _index_holds(ws, words: str) -> bool:
    """Whether the index file, queried directly, finds the words, or its bytes (and WAL) hold them."""
    path = index_path(ws)
    found = False
    if path.exists():
        conn = sqlite3.connect(path)
        try:
            found = bool(conn.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", ('"Frankfurt"',)).fetchone()[0])
        finally:
            conn.close()
    raw = b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*") if p.is_file())
    return found or words.encode() in raw


def test_after_a_hard_forget_the_search_index_holds_no_byte_of_the_text(ws, agent_dir):
    fid = _seed(ws, agent_dir)
    open_index(ws).refresh()
    assert _index_holds(ws, SECRET_WORDS)  # the undreamed tail is searchable

    forget_fragment(ws, D, fid, "private", hard=True)

    assert not _index_holds(ws, SECRET_WORDS)
    open_index(ws).refresh()  # rebuilt from the files, as the next query does
    assert not _index_holds(ws, SECRET_WORDS)
    assert open_index(ws).search("Lunch")  # the rest is still found


@pytest.mark.slow
@pytest.mark.parametrize("step", ["journal", "audit-scrubbed", "access-scrubbed", "index-purged", "audit"])
def test_a_kill_anywhere_in_a_hard_forget_is_finished_with_its_own_commit(ws, agent_dir, step):
    fid = _seed(ws, agent_dir)
    open_index(ws).refresh()
    before = git(agent_dir, "rev-parse", "HEAD").strip()

    proc = run_program("forget_hard_with_fault", str(agent_dir), ws.today(), f"{D}#{fid}", step,
                       capture_output=True, text=True, timeout=120)
    assert proc.returncode == -9, f"step {step!r} was never reached: {proc.stderr[-2000:]}"
    assert git(agent_dir, "rev-parse", "HEAD").strip() == before  # killed before its commit

    said = recover_journal(ws)

    assert said and "completed the interrupted forget" in said
    assert git(agent_dir, "rev-parse", "HEAD~1").strip() == before
    assert git(agent_dir, "log", "-1", "--format=%s").startswith(f"memory: forget streams/{D}#{fid} (hard)")
    assert "Change-Id: " in git(agent_dir, "log", "-1", "--format=%B") and "Actor: human:cli" in trailer_lines(agent_dir)
    assert git(agent_dir, "status", "--porcelain").strip() == ""
    audit = (ws.meta_dir / "audit.log").read_text()
    assert SECRET_WORDS not in audit and "noted: [forgotten]" in audit
    assert SECRET_WORDS not in git(agent_dir, "show", "HEAD:memory/meta/audit.log")
    assert SECRET_WORDS not in (agent_dir / "memory" / "streams" / f"{D}.jsonl").read_text()
    assert not _index_holds(ws, SECRET_WORDS)


def test_after_a_hard_forget_no_turn_projection_holds_the_text(ws, agent_dir):
    import time

    from dreamdeck.core.io.cache import set_clock

    fid = _seed(ws, agent_dir)
    set_clock(lambda: time.time_ns() + 10 * 10**9)  # every file settled: the projections are written
    try:
        _forget_and_inject(ws, fid)
    finally:
        set_clock(None)


def _forget_and_inject(ws, fid) -> None:
    from dreamdeck.core.ops.inject import inject

    assert "Frankfurt" in inject(ws, "frankfurt staging", record=False).text  # projections written
    folder = index_path(ws).parent
    assert SECRET_WORDS.encode() in b"".join(p.read_bytes() for p in folder.glob("typeclaw-*") if p.is_file())

    forget_fragment(ws, D, fid, "private", hard=True)

    assert not any(SECRET_WORDS.encode() in p.read_bytes() for p in folder.glob("typeclaw-*") if p.is_file())
    assert "Frankfurt" not in inject(ws, "frankfurt staging", record=False).text
