"""Every fragment an apply removes from the streams, with its reason (issue 10, item 6): the
preview `review r-N` and the app's confirm show (`ops.review.preview_approval`, the door's own
judgment on the approval's ChangeSet) is exactly what the apply then removes, what it returns,
what the audit line and a dream's receipt record; and a deferred compaction is audited."""
from __future__ import annotations

import json

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.ops.reflections import approve
from dreamdeck.core.ops.review import preview_approval
from tests.support.dreamers import Scripted, draft
from tests.support.git import git
from tests.support.memory import cite, fragment_line, the_next_day, uuid_at, write_stream
from tests.support.processes import run_cli

D = "2026-05-22"


def _four(agent_dir):
    return write_stream(agent_dir, D, [fragment_line(D, n, "pm", f"uses pnpm, note {n}") for n in range(1, 5)])


def _cites_first_folds_second(inp, scratch):
    scratch.write_shard("pm", draft("Uses pnpm", [cite(D, 1)]))
    scratch.outcome.folded[f"{D}#{uuid_at(D, 2)}"] = f"{D}#{uuid_at(D, 1)}"


def _held(ws, agent_dir):
    _four(agent_dir)
    r = run_dream(the_next_day(ws), dreamer=Scripted(_cites_first_folds_second), review="all")
    assert r.status == "pending" and r.reflection == "r-1"
    return the_next_day(ws), r


def _gone(before: str, after: str) -> list[str]:
    kept = set(after.splitlines())
    return sorted(line for line in before.splitlines() if line not in kept)


def test_the_preview_of_an_approval_is_exactly_what_it_removes_with_each_reason(ws, agent_dir):
    ws2, _r = _held(ws, agent_dir)
    path = agent_dir / "memory" / "streams" / f"{D}.jsonl"
    before = path.read_text()

    preview = preview_approval(ws2, "r-1")
    result = approve(ws2, "r-1")

    shown = {c.key: c.reason for c in preview.now}
    assert shown == {f"{D}#{uuid_at(D, 2)}": f"duplicate of streams/{D}#{uuid_at(D, 1)}",
                     f"{D}#{uuid_at(D, 3)}": "noise: scripted: not cited", f"{D}#{uuid_at(D, 4)}": "noise: scripted: not cited"}
    assert sorted(c.line for c in preview.now) == _gone(before, path.read_text())
    assert result.reasons == shown and preview.later == []
    gc_line = [ln for ln in git(agent_dir, "show", "HEAD:memory/meta/audit.log").splitlines() if "fragment GC" in ln][-1]
    assert all(f"{key}: {why}" in gc_line for key, why in shown.items())


def _two_shards(inp, scratch):
    scratch.write_shard("pm", draft("Uses pnpm", [cite(D, 1)]))
    scratch.write_shard("ci", draft("CI runs nightly", [cite(D, 3)]))


def test_a_partial_approval_previews_exactly_what_it_removes(ws, agent_dir):
    path = _four(agent_dir)
    run_dream(the_next_day(ws), dreamer=Scripted(_two_shards), review="all")
    ws2 = the_next_day(ws)
    before = path.read_text()
    files = json.loads(run_cli(agent_dir, "review", "r-1", "--json", today="2026-05-23").stdout)["files"]
    hunk = next(f for f in files if f["path"] == "topics/pm.md")["hunks"][0]["id"]

    preview = preview_approval(ws2, "r-1", [hunk])
    approve(ws2, "r-1", hunks=[hunk])

    # the undecided hunk's fragment (and what the dream left uncited) stay held: nothing goes
    assert sorted(c.line for c in preview.now) == _gone(before, path.read_text()) == []


def test_review_lists_each_fragment_the_approval_would_collect_with_its_reason(ws, agent_dir):
    _held(ws, agent_dir)

    out = run_cli(agent_dir, "review", "r-1", today="2026-05-23").stdout
    data = json.loads(run_cli(agent_dir, "review", "r-1", "--json", today="2026-05-23").stdout)

    assert "approving it all collects 3 fragments from the streams:" in out
    assert f"  streams/{D}#{uuid_at(D, 2)}: duplicate of streams/{D}#{uuid_at(D, 1)}" in out
    assert f"  streams/{D}#{uuid_at(D, 3)}: noise: scripted" in out
    assert {c["fragment"]: c["reason"] for c in data["collects"]}[f"{D}#{uuid_at(D, 4)}"] == "noise: scripted: not cited"
    assert data["collects_waiting"] == []


def test_a_fragment_whose_day_waits_is_previewed_with_why(ws, agent_dir):
    _four(agent_dir)
    run_dream(ws, dreamer=Scripted(_cites_first_folds_second), review="all")  # D is today: it waits

    preview = preview_approval(ws, "r-1")

    assert preview.now == [] and len(preview.later) == 3
    assert all("today's stream" in c.waits for c in preview.later)


def test_a_dreams_receipt_records_why_each_collected_fragment_went(ws, agent_dir):
    path = _four(agent_dir)
    before = path.read_text()

    r = run_dream(the_next_day(ws), dreamer=Scripted(_cites_first_folds_second), review="none")

    committed = json.loads(git(agent_dir, "show", f"HEAD:memory/meta/receipts/{r.id}.json"))
    assert committed["collected"] == {f"{D}#{uuid_at(D, 2)}": f"duplicate of streams/{D}#{uuid_at(D, 1)}",
                                      f"{D}#{uuid_at(D, 3)}": "noise: scripted: not cited", f"{D}#{uuid_at(D, 4)}": "noise: scripted: not cited"}
    assert len(_gone(before, path.read_text())) == 3


def test_a_deferred_compaction_gets_one_audit_line_saying_which_days_and_why(ws, agent_dir):
    _four(agent_dir)

    run_dream(ws, dreamer=Scripted(_cites_first_folds_second), review="none")  # D is today: it waits

    audit = git(agent_dir, "show", "HEAD:memory/meta/audit.log").splitlines()
    deferred = [ln for ln in audit if "compaction deferred" in ln]
    assert len(deferred) == 1 and f"{D}: today's stream: a writer may hold it open" in deferred[0]
    assert "memory/meta/compaction-backlog.json" in deferred[0]
