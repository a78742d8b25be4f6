"""The haystack finds exactly the documents that asking each document finds."""
from __future__ import annotations

import random

from dreamdeck.core.index.keyword_lane import token_matcher
from dreamdeck.core.index.tc_haystack import Haystack


def test_the_haystack_finds_what_each_document_finds_for_phrases_and_words():
    rng = random.Random(11)
    pieces = ["deploy", "deploys", "2026", "05", "-", "#", " ", "\n", "\0", "x", "café", "배포", "a1", "1a", ":"]
    for _ in range(300):
        docs = ["".join(rng.choice(pieces) for _ in range(rng.randrange(1, 8))) for _ in range(rng.randrange(1, 6))]
        hay = Haystack(docs)
        for token in ("deploy", "2026", "05", "a1", "café", "배포", "-", "x", "1a", "deploys 05"):
            assert hay.containing(token) == [n for n, d in enumerate(docs) if token in d], (docs, token)
            if " " not in token:
                matches = token_matcher(token)
                assert hay.with_word(token) == [n for n, d in enumerate(docs) if matches(d)], (docs, token)


def test_an_empty_phrase_is_in_every_document():
    assert Haystack(["a", "b", "c"]).containing("") == [0, 1, 2]
