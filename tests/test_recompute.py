"""core.shards recompute: runtime-owned frontmatter (`recomputeShardFrontmatter`, reference §4a).

Acceptance: the Frontmatter block of dreaming.test.ts and belief-sentence (reference §9).
"""
from __future__ import annotations

import pytest

from dreamdeck.core.formats.shards import (
    ShardMeta,
    derive_heading,
    first_belief_sentence,
    parse_loose_shard,
    parse_shard,
    recompute_shard_text,
    render_shard,
    strength_of,
)
from tests.support.memory import shard_text, uuid_at

TODAY = "2026-05-22"
A, B, C = uuid_at("2026-05-18", 1), uuid_at("2026-05-20", 2), uuid_at("2026-05-21", 3)


def body_citing(*cites: str, belief: str = "The user uses pnpm.") -> str:
    return f"{belief}\n\nfragments:\n" + "".join(f"- {c}\n" for c in cites)


def stale(body: str, cites: int = 0, days: int = 0, last: str = "2020-01-01", heading: str = "The user uses pnpm.") -> str:
    return render_shard(ShardMeta(heading, cites, days, last), body)


def recompute(text: str, slug: str = "pnpm") -> str:
    out, warnings = recompute_shard_text(text, slug, TODAY)
    assert warnings == []
    return out


# --- counts --------------------------------------------------------------------------------------------
def test_stale_counts_are_fixed_three_citations_on_three_days():
    body = body_citing(f"streams/2026-05-18#{A}", f"streams/2026-05-21#{C}", f"streams/2026-05-20#{B}")
    meta, out_body = parse_shard(recompute(stale(body)))
    assert (meta.cites, meta.days, meta.last_reinforced) == (3, 3, "2026-05-21")
    assert out_body == body


def test_cites_count_distinct_ids_and_days_count_distinct_dates():
    body = body_citing(f"streams/2026-05-20#{A}", f"streams/2026-05-20#{B}", f"memory/2026-05-20#{A}", f"streams/2026-05-21#{A}")
    meta, _ = parse_shard(recompute(stale(body)))
    assert (meta.cites, meta.days, meta.last_reinforced) == (3, 2, "2026-05-21")


def test_superseded_and_inline_citations_count_too():
    body = f"Per streams/2026-05-19#{A}, pnpm.\n\nfragments:\n- streams/2026-05-20#{B}\n\nsuperseded:\n- streams/2026-05-18#{C}\n"
    meta, _ = parse_shard(recompute(stale(body)))
    assert (meta.cites, meta.days, meta.last_reinforced) == (3, 3, "2026-05-20")


def test_citations_in_the_frontmatter_do_not_count():
    text = stale(body_citing(f"streams/2026-05-20#{B}"), heading=f"Cited streams/2026-05-21#{C} in heading")
    meta, _ = parse_shard(recompute(text))
    assert (meta.cites, meta.days, meta.last_reinforced) == (1, 1, "2026-05-20")


def test_last_reinforced_falls_back_to_today_when_nothing_is_cited():
    meta, _ = parse_shard(recompute(stale("A belief with no evidence.\n", cites=5, days=2, last="2026-01-01")))
    assert (meta.cites, meta.days, meta.last_reinforced) == (0, 0, TODAY)


def test_strength_of_reads_the_body_section_blind():
    assert strength_of(f"x streams/2026-05-02#{A}\nsuperseded:\n- memory/2026-05-03#{B}", TODAY) == (2, 2, "2026-05-03")
    assert strength_of("nothing", TODAY) == (0, 0, TODAY)


# --- byte identity -----------------------------------------------------------------------------------
def test_correct_frontmatter_stays_byte_identical():
    text = shard_text("The user uses pnpm", [f"streams/2026-05-20#{B}", f"streams/2026-05-21#{C}"], tags=["tooling"])
    assert recompute(text) == text


def test_correct_frontmatter_with_no_citations_stays_byte_identical():
    text = render_shard(ShardMeta("Bare belief", 0, 0, TODAY), "Bare belief.\n")
    assert recompute(text) == text


def test_the_body_is_kept_verbatim_including_its_edges():
    body = "\n\n  Indented belief.  \n\nfragments:\n- streams/2026-05-20#" + B + "\n\n\n"
    _, out_body = parse_shard(recompute(stale(body)))
    assert out_body == body


def test_crlf_is_rewritten_as_lf():
    text = shard_text("H", [f"streams/2026-05-20#{B}"])
    assert recompute(text.replace("\n", "\r\n")) == text


def test_block_tags_are_rewritten_inline():
    text = "---\nheading: H\ncites: 0\ndays: 0\nlastReinforced: 2026-05-22\ntags:\n  - a\n  - b\n---\nH.\n"
    assert recompute(text) == "---\nheading: H\ncites: 0\ndays: 0\nlastReinforced: 2026-05-22\ntags: [a, b]\n---\nH.\n"


def test_empty_tags_stay_empty_and_absent_tags_stay_absent():
    with_empty = render_shard(ShardMeta("H", 0, 0, TODAY, ()), "H.\n")
    without = render_shard(ShardMeta("H", 0, 0, TODAY), "H.\n")
    assert recompute(with_empty) == with_empty
    assert recompute(without) == without


# --- headings ------------------------------------------------------------------------------------------
def test_a_raw_body_without_frontmatter_gets_its_heading_from_a_double_hash_line():
    raw = f"Intro line.\n## Package manager policy\n\nThe user uses pnpm.\n\nfragments:\n- streams/2026-05-20#{B}\n"
    out = recompute(raw)
    meta, body = parse_shard(out)
    assert meta == ShardMeta("Package manager policy", 1, 1, "2026-05-20")
    assert body == raw
    assert out == "---\nheading: Package manager policy\ncites: 1\ndays: 1\nlastReinforced: 2026-05-20\n---\n" + raw


def test_a_raw_body_without_a_heading_line_uses_the_first_belief_sentence():
    meta, _ = parse_shard(recompute(f"The user uses pnpm. Not bun.\n\nfragments:\n- streams/2026-05-20#{B}\n"))
    assert meta.heading == "The user uses pnpm."


def test_a_body_with_no_prose_falls_back_to_the_slug():
    meta, _ = parse_shard(recompute(f"fragments:\n- streams/2026-05-20#{B}\n", slug="pnpm-policy"))
    assert meta.heading == "pnpm-policy"


def test_an_empty_file_becomes_a_shard_named_after_its_slug():
    assert recompute("", slug="empty") == "---\nheading: empty\ncites: 0\ndays: 0\nlastReinforced: 2026-05-22\n---\n"


def test_an_existing_heading_is_kept_even_when_the_body_says_otherwise():
    meta, _ = parse_shard(recompute(stale("## Other\n\nDifferent sentence.\n", heading="Kept heading")))
    assert meta.heading == "Kept heading"


def test_derive_heading_prefers_existing_then_double_hash_then_sentence_then_slug():
    assert derive_heading("  Kept  ", "## H2\n", "slug") == "Kept"
    assert derive_heading("", "# H1\n## H2 line \n", "slug") == "H2 line"
    assert derive_heading(" ", "Sentence one. Two.", "slug") == "Sentence one."
    # TypeClaw's `/^##\s+(.+)$/m` lets `\s+` cross the line break: the next line is the heading.
    assert derive_heading("", f"## \nfragments:\n- streams/2026-05-20#{B}\n", "slug") == "fragments:"
    assert derive_heading("", f"fragments:\n- streams/2026-05-20#{B}\n", "slug") == "slug"


# --- the tolerant fallback -------------------------------------------------------------------------------
def test_malformed_tags_are_dropped_with_a_warning():
    text = "---\nheading: H\ncites: 0\ndays: 0\nlastReinforced: 2026-05-22\ntags: tooling, deploy\n---\nH.\n"
    out, warnings = recompute_shard_text(text, "h", TODAY)
    assert warnings == ["[dreaming] shard h: dropping malformed tags"]  # TypeClaw's words, on its logger
    assert out == "---\nheading: H\ncites: 0\ndays: 0\nlastReinforced: 2026-05-22\n---\nH.\n"


def test_good_tags_survive_a_fallback_parse():
    text = "---\nheading: H\ncites: many\ndays: 0\nlastReinforced: 2026-05-22\ntags: [tooling]\n---\nH.\n"
    out = recompute(text)
    assert parse_shard(out)[0].tags == ("tooling",)
    assert "\ncites: 0\n" in out


def test_good_block_tags_survive_a_fallback_parse():
    text = "---\nheading: H\nproposal: x\ntags:\n  - a\n  - b\n---\nH.\n"
    assert parse_shard(recompute(text))[0].tags == ("a", "b")


def test_unknown_keys_are_dropped_and_the_heading_kept():
    text = "---\nheading: Kept\nproposal: cli packages/x\nsource: muscle-memory\ncites: 9\n---\nBody.\n"
    assert recompute(text) == "---\nheading: Kept\ncites: 0\ndays: 0\nlastReinforced: 2026-05-22\n---\nBody.\n"


def test_a_fallback_without_a_heading_derives_one_from_the_body():
    meta, _ = parse_shard(recompute("---\ncites: 1\n---\n## From body\n"))
    assert meta.heading == "From body"


def test_unclosed_frontmatter_makes_the_whole_file_the_body():
    loose = parse_loose_shard("---\nheading: H\nno end")
    assert (loose.heading, loose.tags, loose.body) == ("", None, "---\nheading: H\nno end")


def test_the_recomputed_text_always_parses_strictly():
    for text in ("", "---\n", "---\n---\n", "plain", "---\nheading: X\n---\n", "---\ntags: [a\n---\nx"):
        parse_shard(recompute_shard_text(text, "s", TODAY)[0])


# --- the first belief sentence ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "body,sentence",
    [
        ("The user uses pnpm. Not bun.", "The user uses pnpm."),
        ("The user uses pnpm.", "The user uses pnpm."),
        ("Version 3.14 is pinned. Later text.", "Version 3.14 is pinned."),
        ("Pi is 3.14159", "Pi is 3.14159"),
        ("사용자는 pnpm을 쓴다。그리고 bun은 안 쓴다。", "사용자는 pnpm을 쓴다。"),
        ("用户使用 pnpm！其他", "用户使用 pnpm！"),
        ("本当ですか？はい", "本当ですか？"),
        ("هل هذا صحيح؟ نعم", "هل هذا صحيح؟"),
        ("यह सही है। और", "यह सही है।"),
        ("Really? Yes.", "Really?"),
        ("Stop! Now.", "Stop!"),
        ("No terminal punctuation", "No terminal punctuation"),
        ("# The user uses pnpm. More.", "The user uses pnpm."),
        ("## Heading without period", "Heading without period"),
        ("first line\ncontinues here. next", "first line"),  # TypeClaw takes the first line only
    ],
)
def test_first_belief_sentence(body, sentence):
    assert first_belief_sentence(body) == sentence


def test_first_belief_sentence_skips_citations_and_the_references_heading_only():
    # TypeClaw `firstBeliefSentence` skips a `references:` line but not its items
    # (golden belief_sentence: "references heading skipped").
    body = f"references:\n- pnpm-policy\n- lockfile\n\nThe user pins pnpm 9. Always.\n\nfragments:\n- streams/2026-05-20#{B}\n"
    assert first_belief_sentence(body) == "- pnpm-policy"
    assert first_belief_sentence(body.split("\n\n", 1)[1]) == "The user pins pnpm 9."


def test_first_belief_sentence_is_empty_for_citations_only():
    assert first_belief_sentence(f"fragments:\n- streams/2026-05-20#{B}\n\nsuperseded:\n- streams/2026-05-18#{A}\n") == ""
