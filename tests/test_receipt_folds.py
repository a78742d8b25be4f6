"""A dream's receipt names every fragment it folded as a true duplicate, with the citation it
repeats; `dreamdeck dreams` and the receipt's one-line message show them."""
from __future__ import annotations

import json

from dreamdeck.core.dreaming.run import run_dream
from tests.support.git import git
from tests.support.memory import fragment_line, uuid_at, write_stream
from tests.support.processes import run_cli

D = "2026-05-22"


def dream_with_a_duplicate(ws, agent_dir):
    write_stream(agent_dir, D, [
        fragment_line(D, 1, "heartbeat", "heartbeat: ok"),
        fragment_line(D, 2, "heartbeat", "heartbeat: ok"),
        fragment_line(D, 3, "editor", "Dana prefers tabs over spaces in Go files."),
    ])
    return run_dream(ws, dreamer_name="offline", review="none")


def test_the_committed_receipt_names_each_folded_fragment_and_the_citation_it_duplicates(ws, agent_dir):
    r = dream_with_a_duplicate(ws, agent_dir)
    committed = json.loads(git(agent_dir, "show", f"HEAD:memory/meta/receipts/{r.id}.json"))
    assert committed["folded"] == {f"{D}#{uuid_at(D, 2)}": f"{D}#{uuid_at(D, 1)}"}
    assert "1 duplicate folded" in committed["message"]


def test_dreams_lists_the_folded_duplicates_under_their_dream(ws, agent_dir):
    dream_with_a_duplicate(ws, agent_dir)
    out = run_cli(ws.root, "dreams", today=D).stdout
    assert f"folded streams/{D}#{uuid_at(D, 2)} (duplicates streams/{D}#{uuid_at(D, 1)})" in out
