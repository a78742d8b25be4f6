"""Recall gives the same answer from a warm index as from one built anew, when a reflection
starts holding fragments for review.

Found by the attacker round (session 10): the undreamed tail leaves out the fragments a pending
reflection holds (`index.undreamed`), but the index rebuilt its tail only when the streams, the
dreaming state or the tombstones changed. `dream --review all` keeps the held fragments undreamed
in TypeClaw's state, so none of those changed: a warm index went on returning the two held
fragments, and the same query after the index was deleted returned nothing.
"""
from __future__ import annotations

import time

import pytest

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.index.search import close_all, index_path
from dreamdeck.core.io.cache import RACY_NS, set_clock
from dreamdeck.core.ops.recall import recall
from tests.support.dreamers import Scripted, draft
from tests.support.memory import cite, commit_all, fragment_line, write_stream

D = "2026-05-21"

pytestmark = pytest.mark.usefixtures("fresh_search_indexes")  # tests/conftest.py


def _dream(inp, scratch):
    scratch.write_shard("kayak", draft("The kayak is stored by the river", [cite(D, 1), cite(D, 2)]))


@pytest.fixture
def settled():
    """Files written by the test count as settled (past the racy window), as they would be a
    few seconds later: the index trusts their stamps."""
    set_clock(lambda: time.time_ns() + 10 * RACY_NS)
    yield
    set_clock(None)


def shown(ws, query: str) -> list[tuple[str, str]]:
    return [(b.kind, b.key) for b in recall(ws, query, record=False)]


def fresh(ws, query: str) -> list[tuple[str, str]]:
    close_all()
    for leftover in index_path(ws).parent.glob(index_path(ws).name + "*"):
        leftover.unlink()
    return shown(ws, query)


def test_a_warm_index_and_a_new_one_agree_once_a_reflection_holds_the_fragments(ws, agent_dir, settled):
    write_stream(agent_dir, D, [fragment_line(D, 1, "kayak", "the kayak is stored by the river"),
                                fragment_line(D, 2, "kayak", "the kayak paddles are blue")])
    commit_all(agent_dir)
    assert len(shown(ws, "kayak")) == 2  # warm now: both undreamed fragments

    assert run_dream(ws, dreamer=Scripted(_dream, summary="kayak"), review="all").reflection == "r-1"

    warm = shown(ws, "kayak")
    assert warm == fresh(ws, "kayak")
