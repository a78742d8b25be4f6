"""The offline dreamer's index is built lazily (`dreaming.offline_pieces`): a heading's terms are
found from its whitespace pieces and a term's list only when a run looks the term up, and the
projection is kept after the run (`DreamOutcome.settle`). It may only ever cost speed: the index
answers as one holding every heading up front, and a dream writes the same bytes whether its
index is built lazily, read whole from the projection, or in part."""
from __future__ import annotations

import random
import sqlite3

from dreamdeck.core.claims.extract import extract
from dreamdeck.core.claims.index import ClaimIndex
from dreamdeck.core.claims.statements import statements
from dreamdeck.core.claims.tokens import term_pieces, values
from dreamdeck.core.dreaming import offline_projection
from dreamdeck.core.dreaming.matching import ShardMatcher, heading_of, label_words, shard_entry
from dreamdeck.core.dreaming.offline import OfflineDreamer
from dreamdeck.core.dreaming.protocol import DreamInput, DreamScratch, UndreamedFragment
from dreamdeck.core.io.cache import clear_all
from tests.test_offline_projection import TODAY, dream, fresh_dream, shard

_SYLLABLES = ["ka", "lo", "mi", "ren", "tu", "vas", "qui", "dor", "pel", "zan"]
_HAN = ["部署窗口", "备份时间", "值班手册", "代码评审"]
_HANGUL = ["백업 시간을", "배포 창을", "회의 시간은"]


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(2))


def _sentence(rng: random.Random, n: int) -> str:
    """Every kind of heading the index reads another way: words (some in over `COMMON`
    headings), keys, guards, Han and Hangul text, values only, a value across a space."""
    a, b, c = _word(rng), _word(rng), _word(rng)
    return [
        f"The user prefers {a} {b} for {c} work.",
        f"{a} {b}: {rng.randint(1, 90)}s",
        f"Never run {a} against the {b} cluster.",
        f"{a} {b} is not {c} anymore; {a} {b} is {_word(rng)}.",
        f"{rng.choice(_HAN)}改为{a}",
        f"{rng.choice(_HANGUL)} {a}로 변경",
        f"{rng.randint(10, 23)}:00 {rng.randint(10, 23)}:30",
        f"Standup with {a} at {rng.randint(1, 11)} am",
        f"The user prefers {a} {b} logs.",
    ][n % 9]


def _memory(shards: int = 2000, fragments: int = 240) -> tuple[dict[str, str], list[UndreamedFragment]]:
    rng = random.Random(11)
    sentences = [_sentence(rng, n) for n in range(shards)]
    files = {f"s{n:04d}-{_word(rng)}": shard(f"Mentioned once: {text}", f"2026-03-01#o{n}") for n, text in enumerate(sentences)}
    frags = []
    for n in range(fragments):
        roll = n % 4
        text = sentences[rng.randrange(shards)] if roll < 2 else _sentence(rng, rng.randrange(9))
        if roll == 3 and frags:
            text = frags[-1].body  # a same-day duplicate
        frags.append(UndreamedFragment(f"2026-03-{10 + n % 3}", f"f{n:04d}", _word(rng), text))
    return files, frags


def test_a_first_run_indexes_up_front_only_what_pieces_cannot_tell_and_keeps_every_entry_after_it(tmp_path):
    files, frags = _memory(300, 60)
    clear_all()
    entries = ShardMatcher(files, lambda slug: True).entries
    # Han, Hangul, values only, a value across a space: the rest are found from their pieces.
    assert all(term_pieces(e.text) is None or not e.terms for e in entries.values())
    assert len(entries) == sum(1 for n in range(300) if n % 9 in (4, 5, 6, 7))
    scratch = DreamScratch(dict(files))
    outcome = OfflineDreamer().dream(DreamInput(TODAY, frags, [], cache_dir=tmp_path), scratch)
    assert not offline_projection.projection_path(tmp_path).exists()  # not on the dream's time
    assert outcome.settle is not None
    outcome.settle()
    clear_all()
    assert set(offline_projection.load(tmp_path)) == set(files)


def test_the_lazily_built_index_answers_as_one_holding_every_heading():
    files, frags = _memory()
    clear_all()
    matcher = ShardMatcher(files, lambda slug: True)
    whole = ClaimIndex()
    for slug in sorted(files):
        entry = shard_entry(slug, heading_of(files[slug]) or "")
        whole.add(slug, entry.lookup, entry.subject, entry.labels)
    claims = [extract(text) for f in frags for text in statements(f.body)]
    rewritten = sorted(files)[::7]
    for n, claim in enumerate(claims):
        if n == len(claims) // 2:  # the run rewrites beliefs: their old words still fetch them
            for slug in rewritten:
                matcher.remember(slug, "The user prefers tea for focus work.")
                new = extract("The user prefers tea for focus work.")
                whole.add(slug, new.terms, new.subject or frozenset(), label_words(slug))
        lookup = claim.terms or frozenset("=" + v for v in values(claim.text))
        subject = claim.subject or frozenset()
        loose = bool(claim.rejected)
        assert matcher.index.candidates(lookup, subject, loose=loose) == whole.candidates(lookup, subject, loose=loose)
        assert matcher.index.rare(claim.terms) == whole.rare(claim.terms)
    assert len(whole.keys("prefer") or ()) > 400  # a word too common to fetch candidates is among them


def test_a_dream_writes_the_same_bytes_whether_its_index_is_built_lazily_kept_whole_or_kept_in_part(tmp_path):
    files, frags = _memory()
    clear_all()
    lazily = dream(files, None, frags)
    assert fresh_dream(files, tmp_path, frags) == lazily  # no projection: lazily, then kept whole
    assert fresh_dream(files, tmp_path, frags) == lazily  # every entry read from the projection
    with sqlite3.connect(offline_projection.projection_path(tmp_path)) as db:
        db.execute("DELETE FROM shards WHERE rowid % 2 = 0")
    clear_all()
    assert 0 < len(offline_projection.load(tmp_path)) < len(files)
    assert fresh_dream(files, tmp_path, frags) == lazily  # half read, half built lazily
