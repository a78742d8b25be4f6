"""A dream's receipt (memory/meta/receipts/<id>.json) is committed with what the run did."""
from __future__ import annotations

import json

from dreamdeck.core.dreaming.run import list_receipts, run_dream
from tests.support.dreamers import finish_accounting
from tests.support.git import git
from tests.support.memory import fragment_line, the_next_day, watermark_line, write_stream

D = "2026-05-21"


class CitesFirst:
    name = "scripted"

    def dream(self, inp, scratch):
        f = inp.fragments[0]
        scratch.write_shard("pm", f"The user uses pnpm.\n\nfragments:\n- {f.citation}\n")
        finish_accounting(inp, scratch, "one new topic", questions=["is that right?"])
        return scratch.outcome


def test_the_committed_receipt_records_what_was_created_and_collected(ws, agent_dir):
    write_stream(agent_dir, D, [fragment_line(D, 1, "pm", "uses pnpm"), watermark_line(D, 2),
                                watermark_line(D, 3), fragment_line(D, 4, "noise", "small talk")])

    r = run_dream(the_next_day(ws), dreamer=CitesFirst(), review="none", trigger="schedule")

    committed = json.loads(git(agent_dir, "show", f"HEAD:memory/meta/receipts/{r.id}.json"))
    assert committed["status"] == "applied" and committed["trigger"] == "schedule"
    assert committed["fragments_seen"] == 2 and committed["shards_created"] == ["pm"]
    assert committed["citations_added"] == 1
    assert len(committed["fragments_dropped"]) == 1 and committed["watermarks_dropped"] == 1
    assert committed["summary"] == "one new topic" and committed["questions"] == ["is that right?"]
    assert "1 uncited fragment collected" in committed["message"]
    assert list_receipts(ws)[0]["id"] == r.id
    assert git(agent_dir, "status", "--porcelain") == ""
