"""Readings are not contradictions (issue 11): a status reading that changes every day ("disk:
61% used", "queue depth: 14", "heartbeat: ok at 09:00") is replaced by its newer value
mechanically, like a ticked task; a real setting change still asks. `claims.readings` defines a
reading by rule; the dreamer's behaviour is asserted on the shard bytes it writes."""
from __future__ import annotations

import pytest

from dreamdeck.core.claims.extract import extract
from dreamdeck.core.claims.readings import is_reading
from dreamdeck.core.dreaming.offline import OfflineDreamer
from dreamdeck.core.dreaming.protocol import DreamInput, DreamScratch, UndreamedFragment
from dreamdeck.core.formats.citations import sectioned_citations
from dreamdeck.core.formats.shards import parse_shard

TODAY = "2026-03-22"


@pytest.mark.parametrize("line", [
    "disk: 61% used", "disk usage: 61%", "queue depth: 14", "cpu load: 0.4", "latency p95: 120 ms",
    "memory: 3.2 GB free", "heartbeat: ok", "heartbeat: ok at 09:00", "heartbeat: failed (gateway timeout at 18:40)",
    "Heartbeat: OK ✅", "| worker | degraded |", "磁盘：已用 61%", "心跳：正常", "하트비트: 정상",
])
def test_a_measurement_or_a_status_under_a_key_is_a_reading(line):
    assert is_reading(extract(line))


@pytest.mark.parametrize("line", [
    "backup cron: 02:00", "backup cron: 02:00 daily", "standup: 09:00", "API timeout: 30s", "retention: 30 days",
    "max parallel jobs: 4", "max tokens: 4000", "alert threshold: 80%", "sampling rate: 10%", "replicas: 3",
    "notes app: Obsidian", "deploy window: Thursday afternoon", "API timeout: disabled", "cost alerts: none",
    "moved the backup cron from 02:00 to 04:30", "The disk is 61% used.", "runtime: node 20", "sdk: 1.2.3",
])
def test_a_setting_a_clock_time_or_an_announced_change_is_not_a_reading(line):
    assert not is_reading(extract(line))


@pytest.mark.parametrize("line", [
    "python: 3.11", "Python: 3.12.1", "node: 20", "node: v20", "pnpm: 9.1.0", "runtime: node@20",
    "python version: 3.12", "| python | 3.11 |", "Postgres: 16", "ubuntu: 24.04", "macOS: 15.1",
    "openclaw: 2026.3.1", "model: claude-sonnet-4", "cli: dreamdeck@0.4",
])
def test_a_version_is_a_settings_value_an_upgrade_the_person_should_see(line):
    assert not is_reading(extract(line))


@pytest.mark.parametrize("line", [
    "load: 3.11", "cpu load: 0.4", "redis: ok", "postgres: healthy", "node: degraded", "python jobs: 3 pending",
    "error rate: 0.25%",
])
def test_a_software_name_with_a_status_or_a_measurement_is_still_a_reading(line):
    assert is_reading(extract(line))


def _two_days(topic: str, first: str, second: str):
    files: dict = {}
    outcomes = []
    for day, body in ((2, first), (3, second)):
        scratch = DreamScratch(dict(files))
        fragment = UndreamedFragment(f"2026-03-{day:02d}", f"f{day:02d}", topic, body)
        outcomes.append(OfflineDreamer().dream(DreamInput(TODAY, [fragment], ""), scratch))
        files = scratch.files
    return files, outcomes[-1]


@pytest.mark.parametrize(("first", "second"), [
    ("disk: 61% used", "disk: 64% used"), ("queue depth: 14", "queue depth: 9"),
    ("heartbeat: ok at 09:00", "heartbeat: failed at 10:30"), ("心跳：正常", "心跳：异常"),
])
def test_a_newer_reading_replaces_the_belief_with_no_question_and_no_flagged_contradiction(first, second):
    files, outcome = _two_days("Status", first, second)
    [(slug, text)] = files.items()
    meta, body = parse_shard(text)
    assert meta.heading == f"Mentioned once: {second}"  # the value itself, no "is not … anymore" guard
    sections = sectioned_citations(body)
    assert (sorted(sections.active_keys()), sorted(sections.superseded_keys())) == (
        [("2026-03-03", "f03")], [("2026-03-02", "f02")])
    assert (outcome.contradictions, outcome.questions) == ([], [])
    assert outcome.changes == {slug: "reading updated"}
    assert outcome.summary == "1 fragment: 0 new topics, 0 reinforced, 0 contradictions, 1 reading updated"


@pytest.mark.parametrize(("first", "second"), [
    ("backup cron: 02:00", "backup cron: 03:00"),
    ("backup cron: 02:00", "moved the backup cron from 02:00 to 03:00"),
    ("max parallel jobs: 4", "max parallel jobs: 8"),
    ("python: 3.11", "python: 3.12"),
    ("runtime: node@20", "runtime: node@22"),
])
def test_a_changed_setting_is_still_a_flagged_contradiction_with_a_question(first, second):
    files, outcome = _two_days("Ops", first, second)
    assert len(outcome.contradictions) == 1 and len(outcome.questions) == 1
    assert "reading updated" not in " ".join(outcome.changes.values())


def test_a_reading_logged_every_day_of_one_run_is_one_shard_holding_the_latest_value():
    # Dreamed once for a week (not each day), "disk" takes a new value on every line: still
    # a reading, as on two days, never a shard per line.
    frags = [UndreamedFragment(f"2026-03-{day:02d}", f"f{day:02d}", "Status", f"disk on db-1: {60 + day}% used")
             for day in range(2, 8)]
    scratch = DreamScratch({})
    outcome = OfflineDreamer().dream(DreamInput(TODAY, frags, ""), scratch)
    [(slug, text)] = scratch.files.items()
    meta, body = parse_shard(text)
    assert meta.heading == "Mentioned once: disk on db-1: 67% used"
    sections = sectioned_citations(body)
    assert sorted(sections.active_keys()) == [("2026-03-07", "f07")]
    assert len(sections.superseded_keys()) == 5
    assert (outcome.contradictions, outcome.questions) == ([], [])


def test_a_log_line_logged_every_day_stays_one_observation_a_day():
    frags = [UndreamedFragment(f"2026-03-{day:02d}", f"f{day:02d}", "Usage", f"tokens used today: {80 + day}k")
             for day in range(2, 8)]
    scratch = DreamScratch({})
    OfflineDreamer().dream(DreamInput(TODAY, frags, ""), scratch)
    assert all(not sectioned_citations(parse_shard(t)[1]).superseded_keys() for t in scratch.files.values())
