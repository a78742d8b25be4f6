"""The strength table in the dreamer's prompt, and the age of a date, byte for byte with TypeClaw
v0.45.1: every golden case (tests/data/typeclaw) through ours.

The prompt table is TypeClaw's (unparseable shards left out); the app's table is dreamdeck's
own and keeps them, with their error, so nobody loses sight of them.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.index.strength import age_days, iso_utc_day, prompt_rows, row_from_text, sort_rows, strength_table
from dreamdeck.core.store.settings import DecaySettings
from dreamdeck.core.store.shard_files import list_shard_paths
from dreamdeck.core.workspace import Workspace
from tests.support.dreamers import Scripted
from tests.support.memory import fragment_line, write_stream
from tests.support.typeclaw_golden import case_named, cases, file_bytes, today_of

DOT_FILES = (
    "dreamdeck lists no file whose name starts with '.' under topics/ (as everywhere it lists shards); "
)
DEVIATIONS = {
    # TypeClaw `topicShardPath` throws `invalid topic slug: ".hidden"`, which aborts every dream
    # run and every memory injection; dreamdeck does not stop dreaming over it.
    "file named .hidden.md makes loadAllShards throw (invalid slug)":
        DOT_FILES + "TypeClaw throws and stops dreaming altogether, which dreamdeck does not copy",
    # `.md` is a dot-file with an empty name: TypeClaw lists it as the slug "".
    "file named .md gives an empty slug": DOT_FILES + "TypeClaw lists `.md` as a shard with the empty slug",
}


def write_agent(root: Path, case: dict) -> Path:
    topics = root / "memory" / "topics"
    if "shards" in case:
        topics.mkdir(parents=True)
    for slug, text in case.get("shards", {}).items():
        (topics / f"{slug}.md").write_bytes(file_bytes(text))
    for rel, spec in case.get("files", {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(file_bytes(spec))
    return topics


def rows_as_the_dream_run_builds_them(topics: Path, today: str) -> list:
    """What `run_dream` hands the dreamer: its listing of topics/, each file's text as read."""
    return prompt_rows(((slug, Path(p).read_bytes().decode("utf-8", "replace")) for slug, p in list_shard_paths(topics)), today)


# TypeClaw `loadTopicStrengths` + `compareShardStrengths` (dreaming.ts), over `loadAllShards`
# (load-shards.ts): the rows and their order. The prompt renders them as data lines, not as
# TypeClaw's markdown table (`renderShardStrengthsTable`), which a heading could break out of.
@pytest.mark.parametrize("case", cases("strength_table", skip=DEVIATIONS))
def test_the_prompt_strength_rows_match_typeclaw(case, tmp_path: Path):
    topics = write_agent(tmp_path, case)
    rows = rows_as_the_dream_run_builds_them(topics, today_of(case))
    assert [(r.slug, r.heading, r.cites, r.days, r.last_reinforced, r.age) for r in rows] == [
        (r["slug"], r["heading"], r["citationCount"], r["distinctDays"], r["lastReinforcedDate"], r["daysSinceLastReinforced"])
        for r in case["expected"]["rows"]
    ]


# TypeClaw `compareShardStrengths`: the rows' order (the app's default order is the same).
@pytest.mark.parametrize("case", cases("strength_table", skip=DEVIATIONS))
def test_the_app_table_orders_rows_as_typeclaw_and_keeps_the_unparseable_ones(case, tmp_path: Path):
    topics = write_agent(tmp_path, case)
    rows = strength_table(topics, today_of(case), DecaySettings())
    loaded = [r for r in rows if r.parse_error is None]
    assert [(r.slug, r.heading, r.cites, r.days, r.last_reinforced, r.age) for r in loaded] == [
        (r["slug"], r["heading"], r["citationCount"], r["distinctDays"], r["lastReinforcedDate"], r["daysSinceLastReinforced"])
        for r in case["expected"]["rows"]
    ]
    # What TypeClaw skips with a console warning, the app lists with the same reason.
    assert sorted(f"warn: [memory] skipping malformed topic shard {r.slug}: {r.parse_error}"
                  for r in rows if r.parse_error) == case["expected"]["console"]


# TypeClaw `daysBetween` + `parseIsoDateUtc` (dreaming.ts): `Date.UTC` rolls impossible dates
# over, maps years 0–99 to 1900–1999, and anything not shaped YYYY-MM-DD has no age.
@pytest.mark.parametrize("case", cases("date_helpers"))
def test_age_matches_typeclaw_days_between(case):
    expected = case["expected"]
    assert age_days(case["today"], case["earlier"]) == expected["daysBetween"]
    day = iso_utc_day(case["earlier"])
    assert (None if day is None else day * 86_400_000) == expected["parseIsoDateUtc_earlier"]


# --- the rules, one by one -----------------------------------------------------------------------------
# TypeClaw `parseIsoDateUtc`: `Date.UTC(0, -1, 0)` is 1899-11-30, 46,249 days before 2026-07-16.
@pytest.mark.parametrize("last, age", [("2026-02-31", 135), ("2026-13-01", 0), ("2026-00-10", 218),
                                       ("0000-00-00", 46249), ("0099-01-01", 10058), ("9999-99-99", 0)])
def test_an_impossible_date_ages_as_javascripts_date_utc_rolls_it_over(last, age):
    assert age_days("2026-07-16", last) == age


# TypeClaw `loadTopicStrengths`: the prompt table shows only what `parseShard` accepts, while the
# app's strength table keeps every shard; both in `compareShardStrengths` order.
def test_the_prompt_leaves_out_unparseable_shards_that_the_app_table_shows(agent_dir: Path):
    case = case_named("strength_table", "malformed shard skipped with console warning")
    write_agent(agent_dir, case)
    write_stream(agent_dir, "2026-07-16", [fragment_line("2026-07-16", 1, "t", "a new fragment")])
    seen: list[list] = []
    ws = Workspace.open(agent_dir, today="2026-07-16")
    run_dream(ws, dreamer=Scripted(lambda inp, scratch: seen.append([r.slug for r in inp.strength_rows])), review="none")
    assert seen == [[r["slug"] for r in case["expected"]["rows"]]]
    app = strength_table(ws.topics_dir, "2026-07-16", DecaySettings())
    assert sorted(r.slug for r in app) == ["bad", "bom", "good", "nofm"]


# TypeClaw `compareShardStrengths` ties on slug with `localeCompare` (ICU): case and punctuation
# weigh less than letters, so `a < A < a_b < a-b < ab < B`, unlike code-point order.
def test_slug_ties_sort_as_javascripts_locale_compare():
    case = case_named("strength_table", "slug tie order uses localeCompare (case, hyphen, underscore, digits, accents)")
    rows = strength_table_rows(case)
    assert [r.slug for r in sort_rows(rows)] == [r["slug"] for r in case["expected"]["rows"]]


def strength_table_rows(case: dict):
    return [row_from_text(slug, f"{slug}.md", text, case["today"], DecaySettings())
            for slug, text in sorted(case["shards"].items())]
