"""The reason each collected fragment left the streams is recorded durably (issue 10, item 6):
it survives a compaction that waited for a quiet file, a kill between the GC and the commit,
and a change that collects more than an audit line can name; the GC's git note on the commit
holds every line with its reason, and `dreamdeck collected REV` prints them."""
from __future__ import annotations

import json

import pytest

from dreamdeck.core.door.apply import recover_journal
from dreamdeck.core.door.backlog import compact_backlog
from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.git.notes import read_gc_entries
from tests.support.dreamers import Scripted, draft
from tests.support.git import git
from tests.support.memory import cite, fragment_line, the_next_day, uuid_at, write_stream
from tests.support.processes import run_cli

D = "2026-05-22"
DUP = f"duplicate of streams/{D}#{uuid_at(D, 1)}"
NOISE = "noise: scripted: not cited"


class Killed(BaseException):
    """Raised at a door step: the process 'dies' there, leaving the journal."""


def _stream(agent_dir, n: int = 4):
    write_stream(agent_dir, D, [fragment_line(D, k, "pm", f"uses pnpm, note {k}") for k in range(1, n + 1)])


def _cites_first_folds_second(inp, scratch):
    scratch.write_shard("pm", draft("Uses pnpm", [cite(D, 1)]))
    scratch.outcome.folded[f"{D}#{uuid_at(D, 2)}"] = f"{D}#{uuid_at(D, 1)}"


def _expected(n: int = 4) -> dict[str, str]:
    return {f"{D}#{uuid_at(D, 2)}": DUP, **{f"{D}#{uuid_at(D, k)}": NOISE for k in range(3, n + 1)}}


def _audit_at_head(agent_dir) -> list[str]:
    return git(agent_dir, "show", "HEAD:memory/meta/audit.log").splitlines()


def test_a_compaction_that_waited_still_gives_the_reasons_its_change_gave(ws, agent_dir):
    _stream(agent_dir)
    run_dream(ws, dreamer=Scripted(_cites_first_folds_second), review="none")  # D is today: it waits

    result = compact_backlog(the_next_day(ws), actor="human:cli", trigger="doctor")

    assert result is not None and result.reasons == _expected()
    gc_line = [ln for ln in _audit_at_head(agent_dir) if "fragment GC collected" in ln][-1]
    assert all(f"{key}: {why}" in gc_line for key, why in _expected().items())
    assert "no reason given" not in gc_line


def test_a_kill_after_the_backlog_is_saved_still_audits_the_deferral_once(ws, agent_dir):
    _stream(agent_dir)

    def die(step: str) -> None:
        if step == "gc":  # the backlog is written; the audit lines are not
            raise Killed()

    with pytest.raises(Killed):
        run_dream(ws, dreamer=Scripted(_cites_first_folds_second), review="none", fault=die)
    recover_journal(ws)

    deferred = [ln for ln in _audit_at_head(agent_dir) if "compaction deferred" in ln]
    assert len(deferred) == 1 and f"{D}: today's stream" in deferred[0]


@pytest.mark.parametrize("step", ["gc-planned", "gc"])
def test_a_kill_between_the_gc_and_the_commit_keeps_every_reason(ws, agent_dir, step):
    _stream(agent_dir)
    ws2 = the_next_day(ws)

    def die(name: str) -> None:
        if name == step:
            raise Killed()

    with pytest.raises(Killed):
        run_dream(ws2, dreamer=Scripted(_cites_first_folds_second), review="none", fault=die)
    recover_journal(ws2)

    gc_line = [ln for ln in _audit_at_head(agent_dir) if "fragment GC collected" in ln][-1]
    assert all(f"{key}: {why}" in gc_line for key, why in _expected().items())
    head = git(agent_dir, "rev-parse", "HEAD").strip()
    assert {f"{e.day}#{e.fid}": e.reason for e in read_gc_entries(agent_dir, head)} == _expected()


def test_the_gc_note_holds_every_collected_line_with_its_reason_beyond_the_audit_lines_twenty(ws, agent_dir):
    _stream(agent_dir, 30)

    run_dream(the_next_day(ws), dreamer=Scripted(_cites_first_folds_second), review="none")

    head = git(agent_dir, "rev-parse", "HEAD").strip()
    entries = read_gc_entries(agent_dir, head)
    assert {f"{e.day}#{e.fid}": e.reason for e in entries} == _expected(30)
    assert {e.line for e in entries} == {fragment_line(D, k, "pm", f"uses pnpm, note {k}") for k in range(2, 31)}
    gc_line = [ln for ln in _audit_at_head(agent_dir) if "fragment GC collected 29" in ln][-1]
    assert "and 9 more" in gc_line and "dreamdeck collected" in gc_line


def test_collected_prints_each_fragment_a_commit_collected_with_its_reason(ws, agent_dir):
    _stream(agent_dir, 30)
    run_dream(the_next_day(ws), dreamer=Scripted(_cites_first_folds_second), review="none")

    out = run_cli(agent_dir, "collected", today="2026-05-23").stdout
    data = json.loads(run_cli(agent_dir, "collected", "HEAD", "--json", today="2026-05-23").stdout)

    assert f"streams/{D}#{uuid_at(D, 2)}: {DUP}" in out and f"streams/{D}#{uuid_at(D, 30)}: {NOISE}" in out
    assert out.count("streams/") == 29 + out.count("duplicate of streams/")
    assert {c["fragment"]: c["reason"] for c in data["collected"]} == _expected(30)
    assert data["collected"][0]["line"].startswith("{")


def test_collected_on_a_commit_that_collected_nothing_says_so(ws, agent_dir):
    _stream(agent_dir, 1)
    run_dream(the_next_day(ws), dreamer=Scripted(_cites_first_folds_second), review="none")

    proc = run_cli(agent_dir, "collected", "HEAD~0", today="2026-05-23")

    assert proc.returncode == 0 and "collected nothing" in proc.stdout


def test_collected_on_an_unknown_revision_is_one_clear_line(ws, agent_dir):
    _stream(agent_dir, 1)
    run_dream(the_next_day(ws), dreamer=Scripted(_cites_first_folds_second), review="none")

    proc = run_cli(agent_dir, "collected", "no-such-rev", today="2026-05-23", check=False)

    assert proc.returncode != 0 and len(proc.stderr.strip().splitlines()) == 1 and "no-such-rev" in proc.stderr


def test_an_approvals_decision_record_says_what_it_collected_and_why(ws, agent_dir):
    from dreamdeck.core.ops.reflections import approve

    _stream(agent_dir)
    run_dream(the_next_day(ws), dreamer=Scripted(_cites_first_folds_second), review="all")

    result = approve(the_next_day(ws), "r-1")

    committed = json.loads(git(agent_dir, "show", "HEAD:memory/meta/reflections/r-1.json"))
    assert committed["status"] == "approved"
    assert committed["decisions"][-1]["collected"] == result.reasons == _expected()
