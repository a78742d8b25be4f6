"""Recall ranks only the best candidates (by BM25, or by strength for a query with no
discriminating word) and takes more while one below could still overtake (`ops.recall`'s cut):
on generated memory its answer is always the answer of ranking every match."""
from __future__ import annotations

import random

import pytest

from dreamdeck.core.ops import recall as recall_module
from dreamdeck.core.ops.recall import recall
from dreamdeck.core.store.state import DreamingState, save_state
from tests.support.memory import fragment_line, shard_text, uuid_at, write_shard, write_stream

WORDS = ["glider", "pnpm", "deploy", "kayak", "oncall", "ledger", "atlas", "tuesday", "rust", "tokyo"]
DAYS = ["2026-05-21", "2026-05-10", "2026-04-27", "2026-04-02", "2026-03-23", "2026-02-01", "2026-01-22"]


pytestmark = pytest.mark.usefixtures("fresh_search_indexes")  # tests/conftest.py


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 7)))


def _generate(ws, rng: random.Random) -> None:
    """Beliefs of every decay status with word-salad prose (ties and near-ties in BM25), vault
    copies that differ from their topic, undreamed fragments, and some beliefs already shown."""
    dreamed: dict[str, set[str]] = {}
    for n in range(36):
        days = rng.sample(DAYS, rng.randrange(1, 4))
        cites = [f"streams/{d}#{uuid_at(d, n + 1)}" for d in days]
        for d in days:
            dreamed.setdefault(d, set()).add(uuid_at(d, n + 1))
        write_shard(ws.root, f"belief-{n}", shard_text(f"The user {_sentence(rng)}", cites))
        if rng.random() < 0.2:
            write_shard(ws.root, f"belief-{n}", shard_text(f"Pinned: {_sentence(rng)}", cites), folder="vault")
    write_stream(ws.root, "2026-05-22", [fragment_line("2026-05-22", 100 + k, rng.choice(WORDS), _sentence(rng))
                                         for k in range(8)])
    state = DreamingState()
    for day, ids in dreamed.items():
        state = state.add_dreamed(day, ids, f"{day}T04:00:00+00:00")
    save_state(ws.state_path, state)
    for _ in range(6):
        recall(ws, rng.choice(WORDS), budget="lean")  # access counts and last-access days


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_cut_never_changes_the_answer_of_ranking_every_match(ws, monkeypatch, seed):
    rng = random.Random(seed)
    _generate(ws, rng)
    for _ in range(60):
        query = " ".join(rng.sample(WORDS, rng.randrange(1, 4)))
        if rng.random() < 0.3:  # every belief says "user": a query with no discriminating word, ranked by strength
            query = " ".join(["user", *rng.sample(WORDS, rng.randrange(0, 2))])
        options = {"budget": rng.choice(["lean", "balanced", "deep"]), "limit": rng.choice([None, 1, 3, 20]),
                   "include_dormant": rng.random() < 0.5, "max_bytes": rng.choice([None, 120, 400]), "record": False}
        monkeypatch.setattr(recall_module, "FIRST_CANDIDATES", 10_000)
        every_match = recall(ws, query, **options)
        monkeypatch.setattr(recall_module, "FIRST_CANDIDATES", rng.choice([1, 2, 3]))
        assert recall(ws, query, **options) == every_match, (query, options)
