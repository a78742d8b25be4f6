"""A fragment can state more than one thing (issue 11: one belief per claim): each sentence of a
paragraph line, each line of a multi-line note, becomes its own claim citing the fragment, so
no observation exists only as the unread tail of a belief's evidence; a sentence leaning on the
one before ("It is wiped…") stays in that belief; hard-wrapped prose is one line; a list under a
header line is one claim; abbreviations never split a sentence. Asserted on the shard bytes."""
from __future__ import annotations

import pytest

from dreamdeck.core.claims.statements import statements
from tests.test_offline_claims import cited, dream, frag, headings, sections


def _beliefs(files) -> list[str]:
    return sorted(headings(files).values())


def test_each_sentence_of_a_paragraph_line_is_its_own_belief_citing_the_fragment():
    files, outcome = dream([frag(2, 1, "meetings", "Dana approved the Q3 budget. Next review is in January.")])

    assert _beliefs(files) == ["Mentioned once: Dana approved the Q3 budget",
                               "Mentioned once: Next review is in January"]
    assert all(sections(text)[0] == [("2026-03-02", "f02-1")] for text in files.values())
    assert outcome.folded == {}


def test_a_sentence_leaning_on_the_one_before_stays_in_its_belief():
    files, _ = dream([frag(2, 1, "build", "The build cache lives on the NAS. It is wiped every Sunday night.")])

    assert _beliefs(files) == ["Mentioned once: The build cache lives on the NAS; it is wiped every Sunday night"]


def test_each_line_of_a_multi_line_note_is_its_own_belief():
    files, _ = dream([frag(2, 1, "infra", "The staging box is slow.\nDana wants more RAM before Friday.")])

    assert _beliefs(files) == ["Mentioned once: Dana wants more RAM before Friday",
                               "Mentioned once: The staging box is slow"]


def test_hard_wrapped_prose_is_one_statement():
    files, _ = dream([frag(2, 1, "infra", "The staging server moves to Frankfurt on\nTuesday after the window closes.")])

    assert _beliefs(files) == ["Mentioned once: The staging server moves to Frankfurt on Tuesday after the window closes"]


def test_a_list_under_a_header_line_is_one_belief_that_keeps_every_item():
    files, _ = dream([frag(2, 1, "deploy", "Deploy checklist:\n- run the migrations first\n- then restart the workers")])

    assert _beliefs(files) == ["Mentioned once: Deploy checklist: run the migrations first; then restart the workers"]


def test_a_known_sentence_in_a_longer_fragment_reinforces_and_the_new_one_is_a_new_belief():
    files, outcome = dream([
        frag(1, 1, "build", "The build cache lives on the NAS."),
        frag(2, 1, "build", "The build cache lives on the NAS. Dana wipes the cache every Sunday night."),
    ])

    assert len(files) == 2 and cited(files) == {("2026-03-01", "f01-1"), ("2026-03-02", "f02-1")}
    nas = next(t for t in files.values() if "NAS" in t)
    assert sections(nas)[0] == [("2026-03-01", "f01-1"), ("2026-03-02", "f02-1")]  # two days of support
    assert outcome.folded == {}


def test_a_fragment_repeating_a_same_day_note_is_cited_by_what_it_adds_not_folded():
    files, outcome = dream([
        frag(2, 1, "build", "The build cache lives on the NAS."),
        frag(2, 2, "build", "The build cache lives on the NAS. Dana has it wiped every Sunday night."),
    ])

    assert outcome.folded == {}
    wiped = next(t for t in files.values() if "wiped" in t)
    assert sections(wiped)[0] == [("2026-03-02", "f02-2")]


def test_a_fragment_that_only_repeats_a_same_day_note_is_still_folded():
    files, outcome = dream([
        frag(2, 1, "build", "The build cache lives on the NAS. It is wiped every Sunday night."),
        frag(2, 2, "build", "The build cache lives on the NAS! It is wiped every Sunday night!"),
    ])

    assert outcome.folded == {"2026-03-02#f02-2": "2026-03-02#f02-1"}
    assert cited(files) == {("2026-03-02", "f02-1")}


def test_chinese_sentences_split_at_their_own_stops():
    files, _ = dream([frag(2, 1, "构建", "构建缓存放在NAS上。运维每周日晚上会清空缓存。")])

    assert len(files) == 2 and all(sections(t)[0] == [("2026-03-02", "f02-1")] for t in files.values())


@pytest.mark.parametrize("body", [
    "Use Conventional Commits, e.g. fix(api): retry on 503.",
    "Dr. Smith approved the Q3 budget.",
    "Upgraded Node to v20.11. then reran the suite.",
    "Ping me at 9 a.m. every weekday.",
    "The quota is 1.5 GB per user.",
])
def test_an_abbreviation_or_a_number_never_splits_a_sentence(body):
    assert statements(body) == [body]


def test_a_fragment_of_many_sentences_makes_at_most_a_bounded_number_of_beliefs():
    body = " ".join(f"Service number {n} runs on host {n}." for n in range(1, 21))  # twenty distinct claims

    said = statements(body)

    assert 1 < len(said) <= 8 and said[-1].endswith("Service number 20 runs on host 20.")


def test_a_later_sentence_the_belief_already_says_adds_no_second_belief():
    files, _ = dream([
        frag(1, 1, "rules", "Never push directly to main, open a PR and wait for review."),
        frag(4, 1, "rules", "Never push directly to main. Open a PR and wait for review."),
    ])

    assert _beliefs(files) == ["Observed on 2 days: Never push directly to main, open a PR and wait for review"]


def test_a_line_leaning_on_the_line_before_stays_in_its_belief():
    files, _ = dream([frag(2, 1, "infra", "The staging box is slow.\nIt needs more RAM before Friday.")])

    assert _beliefs(files) == ["Mentioned once: The staging box is slow; it needs more RAM before Friday"]
