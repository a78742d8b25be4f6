"""Tokenizing piece by piece (the cache that makes a fresh dream run cheap) changes nothing."""
from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from dreamdeck.core.claims.tokens import _tokens_of, terms, tokenize

_PIECES = st.sampled_from([
    "a", "Uses", " ", "  ", "\t", "\n", "\u00a0", "\u2028", ":", ".", ",", "-", "'", "’", "#", "@", "$", "¥",
    "/", "09", "9", "30", "am", "pm", "p.m.", "https://", "www.", "n't", "not", "no", "2026-01-02",
    "v2.3", "五个", "30天", "周五", "心跳", "不再", "하트비트를", "Friday", "March", "five", "e.g.",
])


def _whole(text: str) -> tuple:
    return _tokens_of(unicodedata.normalize("NFKC", text).replace("’", "'"))


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=24).map("".join))
def test_a_text_tokenized_piece_by_piece_reads_as_the_whole_text(text):
    assert tokenize.__wrapped__(text) == _whole(text)


def test_a_time_or_an_amount_across_a_space_stays_one_value():
    assert [t.norm for t in tokenize("standup at 9:00 am, budget $ 50")] == ["standup", "at", "9:00am", "budget", "$50"]


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=24).map("".join))
def test_a_texts_terms_read_piece_by_piece_are_its_tokens_terms(text):
    assert terms.__wrapped__(text) == frozenset(t.norm for t in _whole(text) if t.kind in ("word", "cjk"))
