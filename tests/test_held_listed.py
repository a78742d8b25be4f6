"""Reflections that still hold fragments with nothing left to approve (rejected, the rest of a
partial approval, a run that applied nothing) are listed by `review` under their own heading, with
how many fragments each holds and the commands that release or forget them (issue 10, item 5)."""
from __future__ import annotations

import json

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.ops.reflections import approve, reject
from dreamdeck.core.store.reflections import load_reflection
from tests.support.dreamers import Scripted, draft
from tests.support.memory import cite, fragment_line, uuid_at, write_stream
from tests.support.processes import run_cli

D = "2026-05-22"


def _dream(ws, agent_dir, script):
    write_stream(agent_dir, D, [fragment_line(D, n, "pm", f"uses pnpm, note {n}") for n in range(1, 4)])
    r = run_dream(ws, dreamer=Scripted(script), review="all")
    assert r.reflection == "r-1"


def _one(inp, scratch):
    scratch.write_shard("pm", draft("Uses pnpm", [cite(D, 1)]))


def _two(inp, scratch):
    scratch.write_shard("pm", draft("Uses pnpm", [cite(D, 1)]))
    scratch.write_shard("ci", draft("CI runs nightly", [cite(D, 2)]))


def test_a_rejected_reflection_that_holds_fragments_is_listed_with_its_count_and_commands(ws, agent_dir):
    _dream(ws, agent_dir, _one)
    reject(ws, "r-1", reason="not now")

    out = run_cli(agent_dir, "review").stdout
    data = json.loads(run_cli(agent_dir, "review", "--json").stdout)

    assert "Holding fragments for your decision" in out
    assert "r-1 [rejected] holds 3 fragments" in out
    assert 'dreamdeck reject r-1 --release --reason "…"' in out
    assert f'dreamdeck forget {D}#{uuid_at(D, 1)} --reason "…"' in out
    assert data["items"] == [] and [h["id"] for h in data["held"]] == ["r-1"] and len(data["held"][0]["held"]) == 3


def test_the_rest_of_a_partial_approval_is_listed_and_the_release_command_lets_it_go(ws, agent_dir):
    _dream(ws, agent_dir, _two)
    r = load_reflection(ws, "r-1")
    pm = next(h.id for f, d in r.hunks() if f.path == "topics/pm.md" for h in d.hunks)
    ci = next(h.id for f, d in r.hunks() if f.path == "topics/ci.md" for h in d.hunks)
    approve(ws, "r-1", hunks=[pm], rejected=[ci])
    assert load_reflection(ws, "r-1").status == "partial"

    assert "r-1 [partial] holds 2 fragments" in run_cli(agent_dir, "review").stdout
    run_cli(agent_dir, "reject", "r-1", "--release", "--reason", "dream them again")

    assert "Holding fragments" not in run_cli(agent_dir, "review").stdout


def test_a_forgotten_fragment_is_no_longer_counted_as_held(ws, agent_dir):
    _dream(ws, agent_dir, _one)
    reject(ws, "r-1", reason="not now")

    run_cli(agent_dir, "forget", f"{D}#{uuid_at(D, 3)}", "--reason", "noise")

    assert "r-1 [rejected] holds 2 fragments" in run_cli(agent_dir, "review").stdout
