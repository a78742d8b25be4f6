"""A query leaves out the words BM25 floors at ~0 (in half the documents or more) when it has a
rarer one (`index.search_cut`): on generated memory its ranking is the ranking of the whole
query minus the documents holding only floored words, with every score within the floored
words' share, and the same top-n wherever BM25 itself separates the n-th from the next."""
from __future__ import annotations

import random

import pytest

from dreamdeck.core.formats.search_terms import match_terms
from dreamdeck.core.index.search import SearchIndex, open_index
from dreamdeck.core.index.search_cut import FLOORED_SHARE, TermCounts
from dreamdeck.core.index.search_query import BODY_WEIGHT, TITLE_WEIGHT
from tests.support.memory import fragment_line, shard_text, write_shard, write_stream

# Skewed: the first words are in most documents (floored), the last ones in few.
WORDS = ["user", "user", "user", "deploy", "deploy", "kayak", "glider", "ledger", "tokyo", "rust", "oncall"]


pytestmark = pytest.mark.usefixtures("fresh_search_indexes")  # tests/conftest.py


def _generate(ws, rng: random.Random) -> None:
    for n in range(rng.randrange(8, 30)):
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 8)))
        write_shard(ws.root, f"b-{n}", shard_text(f"The user {words}", []))
    write_stream(ws.root, "2026-05-22", [fragment_line("2026-05-22", 100 + k, rng.choice(WORDS), rng.choice(WORDS))
                                         for k in range(4)])


def _whole(conn, phrases: list[str]) -> list[tuple[str, float]]:
    """Every match of the whole query, best first, as the index ranked before the cut."""
    rows = conn.execute("SELECT d.kind || ':' || d.key, -bm25(fts, ?, ?) AS s FROM fts JOIN docs d ON d.id = fts.rowid "
                        "WHERE fts MATCH ? ORDER BY s DESC, d.kind, d.key", (TITLE_WEIGHT, BODY_WEIGHT, " OR ".join(phrases)))
    return rows.fetchall()


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_leaving_out_floored_words_keeps_bm25s_ranking_of_the_documents_it_weighs(ws, seed):
    rng = random.Random(seed)
    _generate(ws, rng)
    index = open_index(ws)
    index.refresh()
    conn = index._connect()
    cuts = 0
    for _ in range(40):
        query = " ".join(rng.sample(sorted(set(WORDS)), rng.randrange(1, 4)))
        phrases = match_terms(query)
        kept, _ = TermCounts().weighed(conn, phrases)
        whole = _whole(conn, phrases)
        got = [(f"{h.kind}:{h.key}", h.relevance) for h in index.query(query, 10_000)]
        if kept == phrases:
            assert got == whole, query
            continue
        cuts += 1
        share = FLOORED_SHARE * (len(phrases) - len(kept))
        weighed = {key for key, _ in _whole(conn, kept)}
        score = dict(whole)
        assert [k for k, _ in got] and {k for k, _ in got} == weighed, query
        assert all(s <= share for k, s in whole if k not in weighed), query  # left out: BM25 gave them ~0
        assert all(abs(score[k] - s) <= share for k, s in got), query
        same_order = [k for k, _ in whole if k in weighed]
        for n in range(1, len(same_order)):
            if score[same_order[n - 1]] - score[same_order[n]] > 2 * share:  # BM25 itself separates them
                assert {k for k, _ in got[:n]} == set(same_order[:n]), (query, n)
    assert cuts  # the generated memory does have floored words


def test_the_word_counts_follow_the_index_as_it_changes_in_this_and_other_processes(ws):
    write_shard(ws.root, "zeppelin", shard_text("The zeppelin is kept in the hangar", []))
    for n, text in enumerate(["River one", "River two", "Lake one", "Lake two"]):
        write_shard(ws.root, f"water-{n}", shard_text(text, []))
    index = open_index(ws)
    assert [h.key for h in index.search("zeppelin river")] == ["zeppelin", "water-0", "water-1"]
    write_shard(ws.root, "water-4", shard_text("River three", []))  # now 3 of 6: floored
    assert [h.key for h in index.search("zeppelin river")] == ["zeppelin"]
    write_shard(ws.root, "water-5", shard_text("Sea one", []))
    write_shard(ws.root, "water-6", shard_text("Sea two", []))
    other = SearchIndex(ws)  # another process's index object commits the change
    other.refresh()
    other.close()
    assert [h.key for h in index.query("zeppelin river")] == ["zeppelin", "water-0", "water-1", "water-4"]


def test_a_query_of_floored_words_only_is_asked_whole(ws):
    for n in range(4):
        write_shard(ws.root, f"tip-{n}", shard_text(f"The user waxes glider {n}", []))
    assert len(open_index(ws).search("user glider")) == 4
