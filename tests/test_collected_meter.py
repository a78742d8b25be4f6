"""The collected meter and the loss bound (invariant 2): every apply says how many fragments its
compaction took from the streams (ApplyResult, the receipt, the audit line, the command's output),
and a run that would leave more than `[dreaming] loss_bound` (default 25%) of the distinct
fragments it was shown to be collected with no reason is held for review, whatever the policy."""
from __future__ import annotations

import json

from dreamdeck.core.dreaming.run import run_dream
from tests.support.dreamers import Scripted, draft
from tests.support.git import git
from tests.support.memory import cite, fragment_line, the_next_day, uuid_at, write_stream
from tests.support.processes import run_cli

D = "2026-05-22"


def _four(agent_dir):
    return write_stream(agent_dir, D, [fragment_line(D, n, "pm", f"uses pnpm, note {n}") for n in range(1, 5)])


def _cites_first(inp, scratch):
    scratch.write_shard("pm", draft("Uses pnpm", [cite(D, 1)]))


def test_a_run_that_would_collect_three_of_four_fragments_with_no_reason_is_held_for_review_under_review_none(ws, agent_dir):
    path = _four(agent_dir)
    before = path.read_bytes()

    r = run_dream(the_next_day(ws), dreamer=Scripted(_cites_first, accounts=False), review="none")

    assert r.status == "pending" and r.reflection == "r-1" and r.auto_applied == [] and r.pending == ["topics/pm.md"]
    assert r.held_over_bound == 0.75 and "over the loss bound" in r.message
    assert not (agent_dir / "memory" / "topics" / "pm.md").exists()
    assert path.read_bytes() == before and r.fragments_dropped == []  # the reflection protects all four
    committed = json.loads(git(agent_dir, "show", f"HEAD:memory/meta/receipts/{r.id}.json"))
    assert committed["held_over_bound"] == 0.75 and committed["status"] == "pending"


def test_the_loss_bound_is_a_setting(ws, agent_dir):
    path = _four(agent_dir)
    (agent_dir / "dreamdeck.toml").write_text("[dreaming]\nloss_bound = 0.75\n")

    r = run_dream(the_next_day(ws), dreamer=Scripted(_cites_first, accounts=False), review="none")

    assert r.status == "applied" and r.held_over_bound is None
    assert sorted(r.fragments_dropped) == sorted(f"{D}#{uuid_at(D, n)}" for n in (2, 3, 4))
    assert path.read_text() == fragment_line(D, 1, "pm", "uses pnpm, note 1") + "\n"


def test_fragments_declared_noise_with_a_reason_do_not_count_against_the_bound(ws, agent_dir):
    _four(agent_dir)

    r = run_dream(the_next_day(ws), dreamer=Scripted(_cites_first), review="none")  # declares the rest noise

    assert r.status == "applied" and len(r.fragments_dropped) == 3


def test_a_dream_reports_what_its_compaction_collected_in_the_receipt_and_the_audit_line(ws, agent_dir):
    _four(agent_dir)

    r = run_dream(the_next_day(ws), dreamer=Scripted(_cites_first), review="none")

    assert len(r.fragments_dropped) == 3 and "3 uncited fragments collected" in r.message
    committed = json.loads(git(agent_dir, "show", f"HEAD:memory/meta/receipts/{r.id}.json"))
    assert len(committed["fragments_dropped"]) == 3
    audit = git(agent_dir, "show", "HEAD:memory/meta/audit.log").splitlines()
    gc_line = [ln for ln in audit if "fragment GC" in ln][-1]
    assert "fragment GC collected 3 dreamed, uncited fragments (" in gc_line  # each with its reason (test_gc_reasons)


def test_review_says_a_run_was_held_over_the_bound_and_approving_it_prints_what_was_collected(ws, agent_dir):
    path = _four(agent_dir)
    held = run_dream(the_next_day(ws), dreamer=Scripted(_cites_first, accounts=False), review="none")
    assert held.status == "pending" and "0 uncited fragments collected" in held.message  # the meter, 0 included

    shown = run_cli(agent_dir, "review", held.reflection, today="2026-05-23").stdout
    assert "held over the loss bound: applied, it would leave 75% of the 4 fragments" in shown

    out = run_cli(agent_dir, "approve", held.reflection, today="2026-05-23").stdout

    assert "3 fragments collected from the streams" in out
    assert path.read_text() == fragment_line(D, 1, "pm", "uses pnpm, note 1") + "\n"


def test_a_compaction_that_waits_says_so_in_the_receipt(ws, agent_dir):
    _four(agent_dir)

    r = run_dream(ws, dreamer=Scripted(_cites_first), review="none")  # D is today: never rewritten

    assert r.status == "applied" and r.fragments_dropped == []
    assert list(r.compaction_waiting) == [D] and "today's stream" in r.compaction_waiting[D]
    assert f"0 uncited fragments collected, compaction of {D} waits" in r.message


def test_days_that_wait_for_the_same_reason_are_said_once():
    from dreamdeck.core.door.changeset import collection_said

    quiet = "written to {} s ago (quiet period 300 s): a writer may hold it open"
    waiting = {f"2026-11-{d}": quiet.format(d) for d in range(17, 24)}
    waiting["2026-11-24"] = "today's stream: a writer may hold it open"
    waiting["2026-11-10"] = "held open for writing by process 42"

    said = collection_said(0, waiting)

    assert said == ("0 uncited fragments collected, compaction of 2026-11-10 waits (held open for writing by process 42), "
                    "compaction of 8 days waits (2026-11-17 to 2026-11-24: a writer may hold them open)")
