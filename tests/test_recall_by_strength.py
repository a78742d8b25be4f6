"""A query with no discriminating word (every word it matches by is in half the beliefs or more)
is ranked by how strong each match is as a memory, not by BM25's ~1e-6 differences: matches
holding every word first, then pinned items, then by the decay value before clamping (more
reinforced, more recently used first); a block's score is its decay weight (`index.search_strength`)."""
from __future__ import annotations

import pytest

from dreamdeck.core.ops.recall import recall
from tests.support.memory import shard_text, uuid_at, write_shard

TODAY = "2026-05-22"


def cites(*days: str) -> list[str]:
    return [f"streams/{d}#{uuid_at(d, 1)}" for d in days]


pytestmark = pytest.mark.usefixtures("fresh_search_indexes")  # tests/conftest.py


@pytest.fixture
def strengths(ws):
    """Beliefs that all say "user": reinforced on 3, 2 and 1 recent days, one fading, one
    dormant, and a pinned copy in the vault (λ = 0.03)."""
    for slug, days in (("b-strong", ("2026-05-19", "2026-05-20", "2026-05-21")), ("c-mid", ("2026-05-20", "2026-05-21")),
                       ("a-weak", ("2026-05-21",)), ("d-fading", ("2026-04-27",)), ("e-dormant", ("2026-03-23",))):
        write_shard(ws.root, slug, shard_text(f"The user keeps {slug} notes", cites(*days)))
    write_shard(ws.root, "z-pinned", shard_text("The user keeps pinned notes", cites("2025-01-01")), folder="vault")
    return ws


def test_a_query_with_no_discriminating_word_returns_pinned_then_strongest_first(strengths):
    blocks = recall(strengths, "user", budget="deep", record=False)
    assert [(b.kind, b.key) for b in blocks] == [("vault", "z-pinned"), ("topic", "b-strong"), ("topic", "c-mid"),
                                                  ("topic", "a-weak"), ("topic", "d-fading")]
    assert [b.score for b in blocks] == [1.0, 1.0, 1.0, 1.0, blocks[-1].why["decay"]]  # the decay weight alone
    assert blocks[-1].why["status"] == "fading" and 0.2 <= blocks[-1].score < 0.5
    assert all(b.why["ranked_by"] == "strength" and b.why["bm25"] is None for b in blocks)
    assert [b.key for b in recall(strengths, "user notes", budget="deep", include_dormant=True, record=False)] == [
        "z-pinned", "b-strong", "c-mid", "a-weak", "d-fading", "e-dormant"]


def test_being_shown_makes_a_belief_stronger_for_such_a_query(strengths):
    for _ in range(2):
        recall(strengths, "a-weak", budget="lean")  # a discriminating word: BM25 finds it, the record counts it
    assert [b.key for b in recall(strengths, "user", budget="lean", record=False)] == ["z-pinned", "a-weak", "b-strong"]


def test_matches_holding_every_word_come_before_stronger_ones_holding_fewer(ws):
    write_shard(ws.root, "strong", shard_text("The user uses pnpm", cites("2026-05-19", "2026-05-20", "2026-05-21")))
    write_shard(ws.root, "flies", shard_text("The user flies gliders", cites("2026-05-21")))
    write_shard(ws.root, "waxes", shard_text("The user waxes gliders", cites("2026-05-21")))
    assert [b.key for b in recall(ws, "user gliders", record=False)] == ["flies", "waxes", "strong"]


def test_a_query_with_a_discriminating_word_is_still_ranked_by_bm25(strengths):
    [block] = recall(strengths, "user c-mid", record=False)
    assert block.key == "c-mid" and block.why["bm25"] > 0 and "ranked_by" not in block.why


def test_a_belief_shown_after_such_a_query_moves_up_in_the_next_one(strengths):
    assert [b.key for b in recall(strengths, "user", budget="lean", record=False)] == ["z-pinned", "b-strong", "c-mid"]
    for _ in range(2):
        recall(strengths, "a-weak", budget="lean")
    assert [b.key for b in recall(strengths, "user", budget="lean", record=False)] == ["z-pinned", "a-weak", "b-strong"]
    recall(strengths, "c-mid", budget="lean")  # shown once more, again after the order was read
    recall(strengths, "c-mid", budget="lean")
    recall(strengths, "c-mid", budget="lean")
    assert [b.key for b in recall(strengths, "user", budget="lean", record=False)] == ["z-pinned", "c-mid", "a-weak"]


def test_the_strength_order_follows_the_day_in_a_long_running_process(ws):
    # "older": 3 days up to 05-21; "later": 2 days up to 05-30, past today (age 0 until then).
    # On 05-22 the older one is stronger (more days, one day old); by 06-10 the later one is.
    write_shard(ws.root, "older", shard_text("The user rows older boats", cites("2026-05-19", "2026-05-20", "2026-05-21")))
    write_shard(ws.root, "later", shard_text("The user rows later boats", cites("2026-05-29", "2026-05-30"),
                                              today="2026-06-10"))
    assert [b.key for b in recall(ws, "user", budget="lean", record=False)] == ["older", "later"]
    from dreamdeck.core.workspace import Workspace

    later = Workspace.open(ws.root, today="2026-06-10")
    assert [b.key for b in recall(later, "user", budget="lean", include_dormant=True, record=False)] == ["later", "older"]
