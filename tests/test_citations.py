"""core.citations: `streams/DATE#ID` links, the section view, and the date-scoped superset check.

Acceptance: citations.test.ts and citation-superset.test.ts (reference §2, §5, §9).
"""
from __future__ import annotations

import pytest

from dreamdeck.core.formats.citations import (
    citation_keys,
    count,
    format_citation,
    keys_of,
    merge_into,
    missing_citations,
    normalize_citation,
    parse_citations,
    sectioned_citations,
    strip_citation_lines,
    summarize_missing,
)

A = "019ef1a2-0c11-7a3b-8d2e-5f4c3b2a1908"
B = "019ef6b7-3d22-7c4d-9e3f-6a5b4c3d2e19"
C = "019eec91-9b00-7f2a-8c1d-4e3b2a190817"


def union(*texts: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for text in texts:
        merge_into(out, parse_citations(text))
    return out


# --- parse_citations (section-blind) -----------------------------------------------------------
def test_the_canonical_form_is_parsed():
    assert parse_citations(f"streams/2026-05-21#{A}") == {"2026-05-21": {A}}


def test_bare_and_bulleted_citation_lines_are_parsed():
    assert parse_citations(f"streams/2026-05-21#{A}\n- streams/2026-05-22#{B}\n  - streams/2026-05-22#{C}") == {
        "2026-05-21": {A}, "2026-05-22": {B, C},
    }


def test_the_legacy_memory_prefix_is_accepted():
    assert parse_citations(f"- memory/2026-05-20#{A}") == {"2026-05-20": {A}}


def test_line_range_citations_are_ignored():
    assert parse_citations("- memory/2026-04-27:43-45\n- streams/2026-04-27:1-2") == {}


def test_repeated_citations_are_deduplicated():
    text = f"- streams/2026-05-21#{A}\n- streams/2026-05-21#{A}\n- memory/2026-05-21#{A}"
    assert parse_citations(text) == {"2026-05-21": {A}}
    assert count(parse_citations(text)) == 1


def test_inline_prose_citations_count():
    assert parse_citations(f"As seen in streams/2026-05-21#{A}, the user prefers pnpm.") == {"2026-05-21": {A}}


def test_the_same_id_under_two_dates_is_two_citations():
    cmap = parse_citations(f"- streams/2026-05-21#{A}\n- streams/2026-05-22#{A}")
    assert count(cmap) == 2
    assert keys_of(cmap) == {("2026-05-21", A), ("2026-05-22", A)}


def test_arbitrary_word_ids_are_citations():
    assert parse_citations("streams/2026-05-21#f-keep_2") == {"2026-05-21": {"f-keep_2"}}


def test_parse_citations_is_case_sensitive():
    assert parse_citations(f"STREAMS/2026-05-21#{A}\nMemory/2026-05-21#{B}") == {}


def test_ids_stop_at_the_first_non_word_character():
    assert parse_citations(f"(streams/2026-05-21#{A}).") == {"2026-05-21": {A}}
    assert parse_citations("streams/2026-05-21#abcé") == {"2026-05-21": {"abc"}}


def test_only_ascii_digits_make_a_date():
    # JS \d is ASCII: full-width and Arabic-Indic digits are not a citation date.
    assert parse_citations("streams/２０２６-05-21#x streams/٢٠٢٦-05-21#y") == {}


def test_reference_links_are_not_fragment_citations():
    assert parse_citations("references:\n- pnpm-lockfile-policy\nreferences/pnpm#x") == {}


def test_citation_keys_matches_parse_citations():
    text = f"- streams/2026-05-21#{A}\nsee memory/2026-05-22#{B}"
    assert citation_keys(text) == keys_of(parse_citations(text)) == {("2026-05-21", A), ("2026-05-22", B)}


def test_parse_citations_ignores_sections():
    body = f"fragments:\n- streams/2026-05-21#{A}\n\nsuperseded:\n- streams/2026-05-20#{C}"
    assert parse_citations(body) == {"2026-05-21": {A}, "2026-05-20": {C}}


# --- normalize ------------------------------------------------------------------------------------
def test_normalize_converts_the_memory_prefix_to_streams():
    assert normalize_citation(f"- memory/2026-05-20#{A}") == f"- streams/2026-05-20#{A}"


def test_normalize_is_idempotent():
    once = normalize_citation(f"memory/2026-05-20#{A} and streams/2026-05-21#{B}")
    assert normalize_citation(once) == once == f"streams/2026-05-20#{A} and streams/2026-05-21#{B}"


def test_normalize_leaves_line_ranges_alone():
    assert normalize_citation("memory/2026-04-27:43-45") == "memory/2026-04-27:43-45"


def test_format_citation_is_canonical():
    assert format_citation("2026-05-21", A) == f"streams/2026-05-21#{A}"


# --- sections --------------------------------------------------------------------------------------
def test_fragments_section_is_active_and_superseded_section_is_superseded():
    body = f"Belief.\n\nfragments:\n- streams/2026-05-21#{A}\n\nsuperseded:\n- streams/2026-05-20#{C}\n"
    sec = sectioned_citations(body)
    assert sec.active == {"2026-05-21": {A}}
    assert sec.superseded == {"2026-05-20": {C}}
    assert sec.active_keys() == {("2026-05-21", A)}
    assert sec.superseded_keys() == {("2026-05-20", C)}


def test_citations_before_any_heading_are_active():
    sec = sectioned_citations(f"- streams/2026-05-21#{A}\nsuperseded:\n- streams/2026-05-20#{C}")
    assert sec.active == {"2026-05-21": {A}}
    assert sec.superseded == {"2026-05-20": {C}}


def test_an_id_in_both_sections_is_active_only():
    body = f"superseded:\n- streams/2026-05-21#{A}\n- streams/2026-05-21#{B}\nfragments:\n- streams/2026-05-21#{A}"
    sec = sectioned_citations(body)
    assert sec.active == {"2026-05-21": {A}}
    assert sec.superseded == {"2026-05-21": {B}}


def test_an_id_active_under_another_date_is_not_superseded():
    # TypeClaw `splitCitationRefsBySection` compares fragment ids, not (date, id).
    sec = sectioned_citations(f"fragments:\n- streams/2026-05-21#{A}\nsuperseded:\n- streams/2026-05-20#{A}\n- streams/2026-05-20#{C}")
    assert sec.superseded == {"2026-05-20": {C}}


def test_a_day_whose_only_superseded_id_is_active_disappears_from_superseded():
    sec = sectioned_citations(f"fragments:\n- streams/2026-05-21#{A}\nsuperseded:\n- streams/2026-05-21#{A}")
    assert sec.superseded == {}


def test_references_heading_does_not_switch_sections():
    body = f"superseded:\n- streams/2026-05-20#{C}\nreferences:\n- pnpm-policy\n- streams/2026-05-21#{A}"
    assert sectioned_citations(body).superseded == {"2026-05-20": {C}, "2026-05-21": {A}}


def test_section_headings_are_case_insensitive_and_may_be_bulleted():
    body = f"  - Superseded :  \n- streams/2026-05-20#{C}\nFRAGMENTS:\n- streams/2026-05-21#{A}"
    sec = sectioned_citations(body)
    assert sec.superseded == {"2026-05-20": {C}}
    assert sec.active == {"2026-05-21": {A}}


def test_inline_prose_citations_are_not_section_lines():
    sec = sectioned_citations(f"The user said so (streams/2026-05-21#{A}).")
    assert sec.active == {} and sec.superseded == {}


def test_legacy_prefix_lines_are_sectioned_too():
    assert sectioned_citations(f"superseded:\n - memory/2026-05-20#{C}  ").superseded == {"2026-05-20": {C}}


# --- strip -------------------------------------------------------------------------------------------
def test_strip_keeps_prose_paragraphs_and_drops_citations_and_headings():
    body = (
        f"The user uses pnpm.\n\nIt is consistent.\n\nfragments:\n- streams/2026-05-21#{A}\n\n\n"
        f"superseded:\n- memory/2026-05-20#{C}\n"
    )
    assert strip_citation_lines(body) == "The user uses pnpm.\n\nIt is consistent."


def test_strip_returns_empty_for_a_body_of_citations_only():
    assert strip_citation_lines(f"fragments:\n- streams/2026-05-21#{A}\n\nsuperseded:\n- streams/2026-05-20#{C}\n") == ""


def test_strip_collapses_blank_runs_left_by_removed_lines():
    assert strip_citation_lines(f"one\n\n- streams/2026-05-21#{A}\n\ntwo") == "one\n\ntwo"


def test_strip_keeps_inline_citations_in_prose():
    assert strip_citation_lines(f"See streams/2026-05-21#{A} for it.") == f"See streams/2026-05-21#{A} for it."


# --- the superset check -----------------------------------------------------------------------------
def test_superset_passes_when_nothing_was_cited_before():
    assert missing_citations({}, {}) == []
    assert missing_citations({}, parse_citations(f"streams/2026-05-21#{A}")) == []


def test_superset_passes_on_equality_and_on_a_strict_superset():
    old = parse_citations(f"- streams/2026-05-21#{A}")
    assert missing_citations(old, old) == []
    assert missing_citations(old, parse_citations(f"- streams/2026-05-21#{A}\n- streams/2026-05-22#{B}")) == []


def test_superset_passes_across_a_restructure_into_another_section():
    old = parse_citations(f"fragments:\n- streams/2026-05-21#{A}")
    new = parse_citations(f"New belief.\n\nsuperseded:\n- streams/2026-05-21#{A}")
    assert missing_citations(old, new) == []


def test_inline_and_bullet_citations_count_the_same():
    old = parse_citations(f"- streams/2026-05-21#{A}")
    assert missing_citations(old, parse_citations(f"as streams/2026-05-21#{A} shows")) == []


def test_both_prefixes_match_each_other():
    assert missing_citations(parse_citations(f"- memory/2026-05-21#{A}"), parse_citations(f"- streams/2026-05-21#{A}")) == []
    assert missing_citations(parse_citations(f"- streams/2026-05-21#{A}"), parse_citations(f"- memory/2026-05-21#{A}")) == []


def test_superset_fails_and_lists_missing_ids_sorted_by_date_then_id():
    old = parse_citations(
        f"- streams/2026-05-22#{C}\n- streams/2026-05-21#{B}\n- streams/2026-05-22#{A}\n- streams/2026-05-21#{A}"
    )
    new = parse_citations(f"- streams/2026-05-21#{A}")
    assert missing_citations(old, new) == [("2026-05-21", B), ("2026-05-22", C), ("2026-05-22", A)]  # C < A as strings


def test_dropping_a_whole_date_fails():
    old = parse_citations(f"- streams/2026-05-20#{A}\n- streams/2026-05-21#{B}")
    assert missing_citations(old, parse_citations(f"- streams/2026-05-21#{B}")) == [("2026-05-20", A)]


def test_the_check_is_date_scoped_moving_an_id_to_another_date_fails():
    old = parse_citations(f"- streams/2026-05-21#{A}")
    assert missing_citations(old, parse_citations(f"- streams/2026-05-22#{A}")) == [("2026-05-21", A)]


def test_across_shards_a_merge_passes():
    before = union(f"- streams/2026-05-21#{A}", f"- streams/2026-05-22#{B}")
    assert missing_citations(before, union(f"- streams/2026-05-21#{A}\n- streams/2026-05-22#{B}")) == []


def test_across_shards_a_split_passes():
    before = union(f"- streams/2026-05-21#{A}\n- streams/2026-05-22#{B}")
    assert missing_citations(before, union(f"- streams/2026-05-21#{A}", f"- streams/2026-05-22#{B}")) == []


def test_across_shards_extra_ids_and_deleting_a_stale_shard_pass():
    before = union(f"- streams/2026-05-21#{A}", f"- streams/2026-05-21#{A}")  # a stale duplicate shard
    after = union(f"- streams/2026-05-21#{A}\n- streams/2026-05-22#{B}")
    assert missing_citations(before, after) == []


def test_across_shards_dropping_an_id_from_every_shard_fails():
    before = union(f"- streams/2026-05-21#{A}", f"- streams/2026-05-21#{A}\n- streams/2026-05-22#{B}")
    after = union(f"- streams/2026-05-21#{A}", "No citations left.")
    assert missing_citations(before, after) == [("2026-05-22", B)]


def test_frontmatter_text_is_part_of_the_union():
    before = union(f"---\nheading: from streams/2026-05-21#{A}\ncites: 1\n---\nbody")
    assert missing_citations(before, union("---\nheading: x\n---\nbody")) == [("2026-05-21", A)]


# --- the summary ------------------------------------------------------------------------------------
def test_summary_lists_up_to_three_ids():
    missing = [("2026-05-21", "a"), ("2026-05-21", "b"), ("2026-05-22", "c")]
    assert summarize_missing(missing) == "2026-05-21#a, 2026-05-21#b, 2026-05-22#c"


def test_summary_shows_the_rest_as_plus_n_more():
    missing = [("2026-05-21", x) for x in "abcde"]
    assert summarize_missing(missing) == "2026-05-21#a, 2026-05-21#b, 2026-05-21#c (+2 more)"


@pytest.mark.parametrize("n,suffix", [(0, ""), (1, ""), (3, ""), (4, " (+1 more)")])
def test_summary_suffix_appears_only_past_the_limit(n, suffix):
    missing = [("2026-05-21", f"id{i}") for i in range(n)]
    assert summarize_missing(missing).endswith(suffix)
    assert summarize_missing(missing).count("#") == min(n, 3)
