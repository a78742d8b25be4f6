"""The offline dreamer keeps its index of the shards' beliefs as a projection in the private
folder (`dreaming.offline_projection`): a fresh process reads it instead of re-reading 10,000
headings. It may only ever cost speed: a dream with it, without it, with it stale, corrupt or
planted wrong writes the same bytes."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from dreamdeck.core.dreaming import offline_projection
from dreamdeck.core.dreaming.matching import ShardMatcher
from dreamdeck.core.dreaming.offline import OfflineDreamer
from dreamdeck.core.dreaming.protocol import DreamInput, DreamScratch, UndreamedFragment
from dreamdeck.core.formats.shards import ShardMeta, render_shard, strength_of
from dreamdeck.core.io.cache import clear_all

TODAY = "2026-03-22"


def shard(sentence: str, *cites: str) -> str:
    body = f"{sentence}\n\nfragments:\n" + "".join(f"- streams/{c}\n" for c in cites)
    count, days, last = strength_of(body, TODAY)
    return render_shard(ShardMeta(sentence.rstrip("."), count, days, last), body)


SHARDS = {
    "deploy-window": shard("Mentioned once: deploy window: Tuesday 14:00.", "2026-03-01#a1"),
    "package-manager": shard("Mentioned twice: The team uses pnpm for the web app.", "2026-03-01#a2", "2026-03-02#a3"),
    "push-rule": shard("Mentioned once: Never push to main without a review.", "2026-03-02#a4"),
    "backup-retention": shard("Mentioned once: backup retention: 30 days.", "2026-03-03#a5"),
    "handbook": shard("Mentioned once: To do: update the on-call handbook.", "2026-03-03#a6"),
}
FRAGMENTS = [
    UndreamedFragment("2026-03-10", "b1", "Deploys", "deploy window: Thursday 10:00"),
    UndreamedFragment("2026-03-10", "b2", "Tooling", "The team uses pnpm for the web app."),
    UndreamedFragment("2026-03-10", "b3", "Rules", "never push to main without a review!"),
    UndreamedFragment("2026-03-11", "b4", "Backups", "backup retention: 45 days"),
    UndreamedFragment("2026-03-11", "b5", "Notes", "Dana prefers short standups on Mondays."),
]


def dream(files: dict[str, str], cache_dir: Path | None,
          fragments: list[UndreamedFragment] = FRAGMENTS) -> tuple[dict[str, str], tuple]:
    """A dream as `run_dream` has it: the outcome's `settle` (the projection) once it is done."""
    scratch = DreamScratch(dict(files))
    outcome = OfflineDreamer().dream(DreamInput(TODAY, list(fragments), [], cache_dir=cache_dir), scratch)
    if outcome.settle is not None:
        outcome.settle()
    return scratch.files, (outcome.summary, outcome.questions, outcome.contradictions, outcome.folded, outcome.changes)


@pytest.fixture
def without_projection():
    clear_all()
    return dream(SHARDS, None)


def fresh_dream(files: dict[str, str], cache_dir: Path,
                fragments: list[UndreamedFragment] = FRAGMENTS) -> tuple[dict[str, str], tuple]:
    clear_all()  # what a new process starts with: only the projection file carries over
    return dream(files, cache_dir, fragments)


def test_a_dream_writes_the_same_bytes_with_and_without_the_projection(tmp_path, without_projection):
    assert fresh_dream(SHARDS, tmp_path) == without_projection  # builds it
    assert offline_projection.projection_path(tmp_path).is_file()
    assert fresh_dream(SHARDS, tmp_path) == without_projection  # reads it


def test_a_fresh_process_reads_every_unchanged_belief_from_the_projection(tmp_path):
    fresh_dream(SHARDS, tmp_path)
    clear_all()
    matcher = ShardMatcher(SHARDS, lambda slug: True, known=offline_projection.load(tmp_path))
    assert set(matcher.entries) == set(SHARDS) and matcher.recomputed == set()
    changed = dict(SHARDS, **{"push-rule": shard("Mentioned once: Never force-push to main.", "2026-03-02#a4")})
    matcher = ShardMatcher(changed, lambda slug: True, known=offline_projection.load(tmp_path))
    assert set(matcher.entries) == set(SHARDS) - {"push-rule"}  # its kept entry is of another heading
    assert matcher.all_entries()["push-rule"].text == "Never force-push to main" and matcher.recomputed == {"push-rule"}


def test_a_stale_projection_of_other_beliefs_changes_no_dream(tmp_path, without_projection):
    other = {slug: shard("Mentioned once: backup retention: 7 days.", "2026-03-01#z9") for slug in SHARDS}
    fresh_dream(other, tmp_path)  # the same slugs, other beliefs
    assert fresh_dream(SHARDS, tmp_path) == without_projection


def test_a_planted_wrong_projection_changes_no_dream(tmp_path, without_projection):
    fresh_dream(SHARDS, tmp_path)
    with sqlite3.connect(offline_projection.projection_path(tmp_path)) as db:
        # The right headings, the wrong words: the deploy window would no longer meet its update.
        db.execute("UPDATE shards SET terms = 'lunch', lookup = 'lunch', subject = 'lunch'")
    assert fresh_dream(SHARDS, tmp_path) == without_projection
    with sqlite3.connect(offline_projection.projection_path(tmp_path)) as db:
        db.execute("UPDATE shards SET labels = X'00ff', claim = 7")  # not even text
    assert fresh_dream(SHARDS, tmp_path) == without_projection
    clear_all()
    assert ShardMatcher(SHARDS, lambda slug: True, known=offline_projection.load(tmp_path)).recomputed == set()


def test_a_corrupt_projection_file_is_rebuilt_and_changes_no_dream(tmp_path, without_projection):
    fresh_dream(SHARDS, tmp_path)
    offline_projection.projection_path(tmp_path).write_bytes(b"not a database " * 100)
    assert fresh_dream(SHARDS, tmp_path) == without_projection
    clear_all()
    assert set(offline_projection.load(tmp_path)) == set(SHARDS)


def test_a_projection_made_by_other_code_is_rebuilt(tmp_path, without_projection):
    fresh_dream(SHARDS, tmp_path)
    with sqlite3.connect(offline_projection.projection_path(tmp_path)) as db:
        db.execute("UPDATE meta SET v = 'older code' WHERE k = 'version'")
    clear_all()
    assert offline_projection.load(tmp_path) == {}
    assert fresh_dream(SHARDS, tmp_path) == without_projection
    clear_all()
    assert set(offline_projection.load(tmp_path)) == set(SHARDS)


def test_a_dream_run_keeps_the_projection_in_the_workspaces_private_folder(ws):
    from dreamdeck.core.dreaming.run import run_dream
    from tests.support.memory import fragment_line, write_stream

    write_stream(ws.root, "2026-05-21", [fragment_line("2026-05-21", 1, "Tooling", "The team uses pnpm.")])
    run_dream(ws, dreamer_name="offline")
    assert offline_projection.projection_path(ws.lock_dir).is_file()


@pytest.mark.parametrize("text", [
    "deploy window: Tuesday 14:00", "Never push to main without a review.", "- [x] update the on-call handbook",
    "The team moved standup from 9:00 to 9:30", "use pnpm, not bun", "Backups are not on Fridays anymore; backups run Mondays",
    "| worker | degraded |", "部署窗口从周二改为周四", "백업 시간을 02:00에서 03:00으로 변경", "Dana met Lisbon's team \udcff",
])
def test_a_claim_kept_as_json_reads_back_as_the_same_claim(text):
    from dreamdeck.core.claims.codec import claim_from_json, claim_to_json
    from dreamdeck.core.claims.extract import extract

    claim = extract(text)
    assert claim_from_json(claim_to_json(claim)) == claim


def test_a_fresh_process_reads_the_claims_it_compared_with_from_the_projection(tmp_path, without_projection):
    fresh_dream(SHARDS, tmp_path)
    clear_all()
    kept = offline_projection.load(tmp_path)
    assert kept["deploy-window"].claim is not None  # the update was compared with it
    with sqlite3.connect(offline_projection.projection_path(tmp_path)) as db:
        db.execute("UPDATE shards SET claim = replace(claim, 'deploy', 'lunch')")  # digest no longer matches
    assert fresh_dream(SHARDS, tmp_path) == without_projection
