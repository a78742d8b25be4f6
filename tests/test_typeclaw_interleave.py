"""What running TypeClaw's real dreaming handler beside dreamdeck found (issue 10, item 4).

The harness (/work/research/harness, suite dream_handler) ran TypeClaw's own handler on a copy of
the demo, interleaved with `dreamdeck dream`/`approve`/`reject`/`forget`/`unforget`. Each break it
found is reproduced here without node: TypeClaw's effect on disk is `tests/support/typeclaw_dream`
(written from the spec and its golden cases): it dreams what its state calls undreamed, advances
the state, and on the dates it touched drops what is dreamed and not cited by a flat topics/*.md.
"""
from __future__ import annotations

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.ops.doctor import examine
from dreamdeck.core.ops.reflections import reject
from dreamdeck.core.store.state import load_state
from tests.support.dreamers import Scripted, draft
from tests.support.memory import cite, commit_all, fragment_line, uuid_at, write_stream
from tests.support.typeclaw_dream import cite_new_shard, typeclaw_dream

D = "2026-05-22"


def stream_lines(root, day) -> list[str]:
    return (root / "memory/streams" / f"{day}.jsonl").read_text(encoding="utf-8").splitlines()


def _held_then_collected_by_typeclaw(ws, agent_dir) -> list[str]:
    """r-1 holds #1..#3 for review; TypeClaw's cron then dreams them (its LLM cites only a new
    fragment #4) and its GC takes the three. The three lines as they were, for comparison."""
    write_stream(agent_dir, D, [fragment_line(D, 1, "n", "something new"), fragment_line(D, 2, "n", "more of it"),
                                fragment_line(D, 3, "n", "and more")])
    commit_all(agent_dir)
    run_dream(ws, dreamer=Scripted(lambda inp, s: s.write_shard("n", draft("Something new", [cite(D, 1)]))),
              review="all")
    held = stream_lines(agent_dir, D)
    write_stream(agent_dir, D, [fragment_line(D, 4, "tea", "drinks tea")])
    typeclaw_dream(agent_dir, cite_new_shard("tea", "Drinks tea", lambda f: f["id"] == uuid_at(D, 4)))
    assert not set(held) & set(stream_lines(agent_dir, D))  # TypeClaw's GC took them
    return held


def test_releasing_a_reflection_puts_back_the_fragments_typeclaw_collected_to_be_dreamed_again(ws, agent_dir):
    held = _held_then_collected_by_typeclaw(ws, agent_dir)

    reject(ws, "r-1", reason="redo it", release=True)

    # released "to the next dream": they are in the stream again, undreamed, byte for byte
    assert set(held) <= set(stream_lines(agent_dir, D))
    state, _ = load_state(ws.state_path)
    assert not {uuid_at(D, n) for n in (1, 2, 3)} & set(state.dreamed_ids(D))
    assert not [f for f in examine(ws).findings if f.kind in ("missing-fragment", "unrecorded-loss")]
    dreamer = Scripted()
    run_dream(ws, dreamer=dreamer, review="all")
    assert {cite(D, n) for n in (1, 2, 3)} <= set(dreamer.seen[0])


def test_review_says_which_held_fragments_left_the_streams_and_how_to_put_them_back(ws, agent_dir):
    from tests.support.processes import run_cli

    _held_then_collected_by_typeclaw(ws, agent_dir)

    out = run_cli(agent_dir, "review", "r-1", today=D).stdout

    assert "kept in the streams" not in out  # it said so while TypeClaw's GC had taken all three
    gone = [line for line in out.splitlines() if "left the streams" in line]
    assert len(gone) == 1 and all(cite(D, n) in gone[0] for n in (1, 2, 3))
    assert "dreamdeck doctor --fix" in gone[0]


def test_a_forgotten_fragment_is_dreamed_in_the_state_typeclaw_reads_so_its_dream_and_search_skip_it(ws, agent_dir):
    """TypeClaw's dream and its memory_search tool take every fragment its state calls undreamed:
    a fragment forgotten before any dream (today's) reached both, soft-forgotten bytes and all."""
    from dreamdeck.core.ops.forget import forget_fragment, unforget

    write_stream(agent_dir, D, [fragment_line(D, 1, "infra", "The staging password rotates on Fridays"),
                                fragment_line(D, 2, "tea", "drinks tea")])
    commit_all(agent_dir)
    forget_fragment(ws, D, uuid_at(D, 1), "wrong")

    state, _ = load_state(ws.state_path)
    assert uuid_at(D, 1) in state.dreamed_ids(D) and uuid_at(D, 2) not in state.dreamed_ids(D)
    tc = typeclaw_dream(agent_dir, commit=False)
    assert tc.shown == [(D, uuid_at(D, 2))]

    unforget(ws, D, uuid_at(D, 1))  # back to the undreamed tail: the next dream reconsiders it
    assert uuid_at(D, 1) not in load_state(ws.state_path)[0].dreamed_ids(D)


def test_forgetting_a_held_fragment_leaves_its_reflection_approvable(ws, agent_dir):
    from dreamdeck.core.ops.forget import forget_fragment
    from dreamdeck.core.ops.reflections import approve

    write_stream(agent_dir, D, [fragment_line(D, 1, "n", "something new"), fragment_line(D, 2, "n", "more of it")])
    commit_all(agent_dir)
    run_dream(ws, dreamer=Scripted(lambda inp, s: s.write_shard("n", draft("Something new", [cite(D, 1)]))),
              review="all")
    forget_fragment(ws, D, uuid_at(D, 2), "noise")

    approve(ws, "r-1")  # not "dreamed outside dreamdeck": dreamdeck marked it, forgetting it

    assert cite(D, 1) in (agent_dir / "memory/topics/n.md").read_text()
