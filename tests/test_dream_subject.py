"""A dream commit's subject agrees with its receipt: `dream: N fragments` counts what the run saw.

TypeClaw's own rule (`commit_memory` with no subject, tested in test_gitops.py) counts every
fragment of each staged stream file; for a dreamdeck run that said "4 fragments" for a run that
saw 1, and "watermarks only" for a run whose stream files were already in git, even when it
parked a reflection. The run knows the number, so it says it.
"""
from __future__ import annotations

import re

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.git.commit import DREAM_EMOJI
from dreamdeck.core.store.state import load_state, save_state
from tests.support.dreamers import Scripted, cite_all
from tests.support.git import git
from tests.support.memory import commit_all, fragment_line, shard_text, uuid_at, write_shard, write_stream

D = "2026-05-22"
EMOJI = "|".join(map(re.escape, DREAM_EMOJI))


def subject(root) -> str:
    return git(root, "log", "-1", "--format=%s").strip()


def test_a_run_that_saw_one_of_four_fragments_says_one_fragment(ws, agent_dir):
    write_stream(agent_dir, D, [fragment_line(D, n, "pm", f"pnpm {n}") for n in (1, 2, 3)])
    state, _ = load_state(ws.state_path)
    save_state(ws.state_path, state.add_dreamed(D, {uuid_at(D, n) for n in (1, 2, 3)}, "2026-05-22T08:00:00+00:00"))
    write_shard(agent_dir, "pm", shard_text("Uses pnpm", [f"streams/{D}#{uuid_at(D, n)}" for n in (1, 2, 3)]))
    commit_all(agent_dir)  # three dreamed fragments, cited, so they stay in the file
    write_stream(agent_dir, D, [fragment_line(D, n, "pm", f"pnpm {n}") for n in (1, 2, 3, 4)])

    r = run_dream(ws, dreamer=Scripted(cite_all("pm", "Uses pnpm")), review="none")

    assert r.fragments_seen == 1 and r.commit
    assert re.fullmatch(rf"dream: 1 fragment ({EMOJI})", subject(agent_dir))


def test_a_run_that_parked_a_reflection_counts_its_fragments_not_watermarks_only(ws, agent_dir):
    write_stream(agent_dir, D, [fragment_line(D, n, "pm", f"pnpm {n}") for n in (1, 2)])
    commit_all(agent_dir)  # the streams are already in git: nothing of them is staged by the run

    r = run_dream(ws, dreamer=Scripted(cite_all("pm", "Uses pnpm")), review="all")

    assert r.status == "pending" and r.reflection == "r-1" and r.fragments_seen == 2
    assert re.fullmatch(rf"dream: 2 fragments ({EMOJI})", subject(agent_dir))
