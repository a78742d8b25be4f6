"""core.strength: the strength table (reference §4a, strength.test.ts) with the ladder and decay."""
from __future__ import annotations

import math

import pytest

from dreamdeck.core.formats.shards import Shard, ShardMeta, render_shard
from dreamdeck.core.index.strength import (
    StrengthRow,
    age_days,
    decay_score,
    decay_status,
    ladder_tier,
    row_for,
    sort_rows,
    strength_table,
)
from dreamdeck.core.store.settings import DecaySettings
from tests.support.memory import shard_text, write_shard

TODAY = "2026-05-22"
DECAY = DecaySettings()


def row(slug: str, cites: int = 1, days: int = 1, last: str = TODAY, heading: str = "H", age: int | None = 0) -> StrengthRow:
    return StrengthRow(slug, heading, cites, days, last, age, ladder_tier(days), 0.5, "active")


def shard_with(slug: str, heading: str, cites: int, days: int, last: str) -> Shard:
    text = render_shard(ShardMeta(heading, cites, days, last), f"{heading}.\n")
    return Shard.from_text(slug, None, text)  # type: ignore[arg-type]


# --- the promotion ladder -------------------------------------------------------------------------
@pytest.mark.parametrize("days,tier", [(0, "mentioned"), (1, "mentioned"), (2, "observed"), (3, "consistently"), (6, "consistently"), (7, "always"), (40, "always")])
def test_the_ladder_is_gated_on_distinct_days(days, tier):
    assert ladder_tier(days) == tier


def test_many_cites_on_one_day_is_still_mentioned():
    assert row_for(shard_with("s", "H", 12, 1, TODAY), TODAY, DECAY).tier == "mentioned"


# --- age ---------------------------------------------------------------------------------------------
def test_age_is_zero_on_the_same_day():
    assert age_days(TODAY, TODAY) == 0


def test_age_counts_whole_days():
    assert age_days(TODAY, "2026-05-12") == 10


def test_a_future_date_clamps_to_zero():
    assert age_days(TODAY, "2026-06-30") == 0


@pytest.mark.parametrize(
    "today,last,age",
    [
        ("2026-03-01", "2026-02-28", 1),
        ("2024-03-01", "2024-02-28", 2),  # leap year
        ("2026-05-01", "2026-04-30", 1),
        ("2026-01-01", "2025-12-31", 1),
        ("2027-01-01", "2026-01-01", 365),
        ("2025-01-01", "2024-01-01", 366),
    ],
)
def test_month_and_year_boundaries(today, last, age):
    assert age_days(today, last) == age


@pytest.mark.parametrize("last", ["yesterday", "2026-5-1", "20260501", ""])
def test_an_unparseable_date_has_no_age(last):
    assert age_days(TODAY, last) is None


def test_an_impossible_but_well_shaped_date_rolls_over_as_javascript_does():
    # TypeClaw `daysBetween` / `parseIsoDateUtc`: `Date.UTC(2026, 1, 30)` is March 2nd.
    assert age_days(TODAY, "2026-02-30") == age_days(TODAY, "2026-03-02") == 81


# --- rows ----------------------------------------------------------------------------------------------
def test_a_row_takes_its_values_from_the_frontmatter():
    r = row_for(shard_with("pnpm", "Uses pnpm", 3, 3, "2026-05-20"), TODAY, DECAY)
    assert (r.slug, r.heading, r.cites, r.days, r.last_reinforced, r.age, r.tier) == ("pnpm", "Uses pnpm", 3, 3, "2026-05-20", 2, "consistently")
    assert r.parse_error is None and not r.pinned


def test_a_malformed_shard_is_listed_with_counts_from_its_body_and_its_error():
    text = "---\nheading: H\nproposal: x\n---\nBelief.\n\nfragments:\n- streams/2026-05-18#a\n- streams/2026-05-20#b\n"
    r = row_for(Shard.from_text("bad", None, text), TODAY, DECAY)  # type: ignore[arg-type]
    assert (r.heading, r.cites, r.days, r.last_reinforced, r.age) == ("", 2, 2, "2026-05-20", 2)
    assert r.parse_error == "frontmatter field 'proposal': unknown"


def test_a_pinned_shard_never_decays():
    r = row_for(shard_with("old", "H", 1, 1, "2020-01-01"), TODAY, DECAY, pinned=True)
    assert (r.score, r.status, r.pinned) == (1.0, "pinned", True)


def test_to_json_rounds_the_score():
    r = row_for(shard_with("s", "H", 1, 1, "2026-04-22"), TODAY, DECAY)
    data = r.to_json()
    assert data["score"] == round(r.score, 4)
    assert data["slug"] == "s" and data["age"] == 30


# --- order ---------------------------------------------------------------------------------------------
def test_the_table_is_in_typeclaw_row_order(tmp_path):
    topics = tmp_path / "memory" / "topics"
    rows = [
        ("b-low", 1, 1, "2026-05-22"),
        ("a-low", 1, 1, "2026-05-22"),
        ("older", 1, 1, "2026-05-01"),
        ("more-days", 2, 2, "2026-05-01"),
        ("more-cites", 5, 1, "2026-05-01"),
        ("same-cites-fewer-days", 5, 0, "2026-05-21"),
    ]
    for slug, cites, days, last in rows:
        write_shard(tmp_path, slug, render_shard(ShardMeta(slug, cites, days, last), "x"))
    table = strength_table(topics, TODAY, DECAY)
    assert [r.slug for r in table] == ["more-cites", "same-cites-fewer-days", "more-days", "a-low", "b-low", "older"]


def test_an_empty_topics_folder_gives_an_empty_table(tmp_path):
    assert strength_table(tmp_path / "memory" / "topics", TODAY, DECAY) == []


def test_the_table_marks_pinned_slugs(tmp_path):
    write_shard(tmp_path, "p", shard_text("P", ["streams/2026-05-20#a"]))
    write_shard(tmp_path, "q", shard_text("Q", ["streams/2026-05-20#b"]))
    table = strength_table(tmp_path / "memory" / "topics", TODAY, DECAY, pinned={"p"})
    assert {r.slug: r.status for r in table} == {"p": "pinned", "q": "active"}


def test_sorting_by_a_column_breaks_ties_by_slug_and_puts_missing_ages_last():
    rows = [row("c", age=5), row("a", age=None), row("b", age=5), row("d", age=1)]
    assert [r.slug for r in sort_rows(rows, "age")] == ["d", "b", "c", "a"]
    assert [r.slug for r in sort_rows(rows, "slug", reverse=True)] == ["d", "c", "b", "a"]


def test_sorting_by_an_unknown_column_is_refused():
    with pytest.raises(ValueError, match="unknown column 'nope'"):
        sort_rows([row("a")], "nope")


# --- decay -------------------------------------------------------------------------------------------------
def test_decay_score_is_moltbots_formula():
    # e^(-lambda * age) * log2(days + 1) * type_weight, with lambda 0.03 and weight 1.2
    assert decay_score(1, 10, DECAY) == pytest.approx(math.exp(-0.3) * 1.0 * 1.2)
    assert decay_score(3, 60, DECAY) == pytest.approx(math.exp(-1.8) * 2.0 * 1.2)


def test_decay_score_is_clamped_to_one():
    assert decay_score(7, 0, DECAY) == 1.0


def test_decay_score_is_zero_without_days_or_age():
    assert decay_score(0, 0, DECAY) == 0.0
    assert decay_score(5, None, DECAY) == 0.0


def test_decay_score_falls_with_age():
    scores = [decay_score(1, age, DECAY) for age in (10, 30, 60, 120)]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize("score,status", [(1.0, "active"), (0.5, "active"), (0.49, "fading"), (0.2, "fading"), (0.19, "dormant"), (0.05, "dormant"), (0.049, "archived"), (0.0, "archived")])
def test_decay_status_bands(score, status):
    assert decay_status(score, DECAY) == status


def test_decay_parameters_come_from_settings():
    fast = DecaySettings(lambda_=0.3)
    assert decay_score(1, 10, fast) < decay_score(1, 10, DECAY)
    heavy = DecaySettings(type_weight=2.0)
    assert decay_score(1, 30, heavy) == pytest.approx(math.exp(-0.9) * 2.0)
    strict = DecaySettings(archive_threshold=0.15)
    assert decay_status(0.1, strict) == "archived"
    assert decay_status(0.1, DECAY) == "dormant"


def test_row_status_follows_the_score():
    fresh = row_for(shard_with("f", "H", 3, 3, TODAY), TODAY, DECAY)
    stale = row_for(shard_with("s", "H", 1, 1, "2025-05-22"), TODAY, DECAY)
    assert fresh.status == "active"
    assert stale.status == "archived"


# --- access (the access record feeds decay) --------------------------------------------------------
def test_rows_carry_access_count_and_last_access_and_being_shown_refreshes_decay(tmp_path):
    from dreamdeck.core.store.access import Usage

    write_shard(tmp_path, "old", shard_text("Old", ["streams/2026-03-01#a"]))
    [cold] = strength_table(tmp_path / "memory" / "topics", TODAY, DECAY, access={})
    assert (cold.access_count, cold.last_access, cold.status) == (0, None, "dormant")
    usage = {"topic:old": Usage(3, "2026-05-21")}
    [warm] = strength_table(tmp_path / "memory" / "topics", TODAY, DECAY, access=usage)
    assert (warm.access_count, warm.last_access, warm.status) == (3, "2026-05-21", "active")
    # Moltbot §9.1: base 0.7 (dreamed: auto-detected) × e^(−λ·1 day) × log2(1 day + 3 shown + 1) × 1.2
    assert warm.score == min(1.0, 0.7 * math.exp(-0.03) * math.log2(5) * 1.2)
    assert warm.to_json()["access_count"] == 3 and warm.to_json()["last_access"] == "2026-05-21"


def test_the_table_reads_the_access_record_of_its_memory_folder(ws):
    from dreamdeck.core.store.access import record_access

    write_shard(ws.root, "old", shard_text("Old", ["streams/2026-03-01#a"]))
    record_access(ws, "recall", "old", ["topic:old", "vault:old"])
    [row] = strength_table(ws.topics_dir, TODAY, DECAY)
    assert (row.access_count, row.last_access) == (2, TODAY)


def test_a_dreamed_topic_starts_at_moltbots_auto_detected_relevance(tmp_path):
    write_shard(tmp_path, "new", shard_text("New", [f"streams/{TODAY}#a"]))
    [row] = strength_table(tmp_path / "memory" / "topics", TODAY, DECAY, access={})
    assert row.score == pytest.approx(0.7 * 1.2)


# --- the tier is the word the belief's active evidence earns -------------------------------------------
def _replaced_belief(tmp_path, old_days: int = 4) -> None:
    """A belief that replaced one seen on `old_days` days: it is supported by one day of its own."""
    superseded = [f"streams/2026-05-{d:02d}#old{d}" for d in range(1, old_days + 1)]
    write_shard(tmp_path, "cadence", shard_text("Mentioned once: releases are cut on Thursdays",
                                                ["streams/2026-05-21#new1"], superseded=superseded))


def test_superseded_evidence_never_raises_the_tier_the_table_shows(tmp_path):
    _replaced_belief(tmp_path)
    (r,) = strength_table(tmp_path / "memory" / "topics", TODAY, DECAY)
    assert (r.cites, r.days) == (5, 5)  # TypeClaw's counts, as its recompute writes them
    assert (r.tier, r.active_days) == ("mentioned", 1)
    assert r.to_json()["active_days"] == 1 and r.to_json()["days"] == 5


def test_superseded_evidence_never_raises_the_decay_score(tmp_path):
    _replaced_belief(tmp_path, old_days=6)
    write_shard(tmp_path, "fresh", shard_text("Mentioned once: a new fact", ["streams/2026-05-21#f1"]))
    rows = {r.slug: r for r in strength_table(tmp_path / "memory" / "topics", TODAY, DECAY)}
    assert rows["cadence"].score == rows["fresh"].score


def test_the_tier_of_a_shard_read_whole_counts_only_its_active_evidence(tmp_path):
    _replaced_belief(tmp_path)
    path = tmp_path / "memory/topics/cadence.md"
    path.write_text(path.read_text().replace("---\n", "---\r\n", 1))  # not strict: read whole
    (r,) = strength_table(tmp_path / "memory" / "topics", TODAY, DECAY)
    assert (r.tier, r.active_days) == ("mentioned", 1)


def test_a_long_shard_whose_superseded_section_lies_past_the_head_is_still_counted(tmp_path):
    many = [f"streams/2026-05-21#n{i:04d}" for i in range(200)]  # ~6 KB of active citations, one day
    old = [f"streams/2026-05-{d:02d}#old{d}" for d in range(1, 9)]
    write_shard(tmp_path, "long", shard_text("Mentioned once: long", many, superseded=old))
    assert (tmp_path / "memory/topics/long.md").stat().st_size > 4096
    (r,) = strength_table(tmp_path / "memory" / "topics", TODAY, DECAY)
    assert (r.days, r.tier, r.active_days) == (9, "mentioned", 1)


def test_without_a_superseded_section_the_tier_follows_the_frontmatter(tmp_path):
    write_shard(tmp_path, "p", render_shard(ShardMeta("P", 9, 7, "2026-05-20"), "P.\n"))
    (r,) = strength_table(tmp_path / "memory" / "topics", TODAY, DECAY)
    assert (r.days, r.active_days, r.tier) == (7, 7, "always")


def test_a_superseded_heading_in_capitals_is_the_same_section(tmp_path):
    """TypeClaw reads section headings case-blind: 'SUPERSEDED:' sets its evidence apart too."""
    _replaced_belief(tmp_path)
    path = tmp_path / "memory/topics/cadence.md"
    path.write_text(path.read_text().replace("\nsuperseded:\n", "\nSUPERSEDED:\n"))
    (r,) = strength_table(tmp_path / "memory" / "topics", TODAY, DECAY)
    assert (r.tier, r.active_days) == ("mentioned", 1)
