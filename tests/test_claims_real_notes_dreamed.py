"""Realistic daily notes through the real `run_dream` with the offline dreamer (issue 11, a pass
over notes the way real agents keep them): asserted on the shards written under memory/topics."""
from __future__ import annotations

import re

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.formats.citations import sectioned_citations
from dreamdeck.core.formats.shards import parse_shard
from dreamdeck.core.formats.slugs import SLUG_REGEX
from tests.support.memory import commit_all, fragment_line, topics, uuid_at, write_stream


def day(n: int) -> str:
    return f"2026-05-{n:02d}"


def dream_daily(ws, agent_dir, notes: dict[int, list[tuple[str, str]]]) -> dict[str, str]:
    """Each day's notes (topic, body) written to its stream and dreamed that day, auto-applied,
    as the watcher does; the topic shards' text by slug."""
    n = 0
    for d in sorted(notes):
        lines = []
        for topic, body in notes[d]:
            n += 1
            lines.append(fragment_line(day(d), n, topic, body))
        write_stream(agent_dir, day(d), lines)
        commit_all(agent_dir)
        run_dream(ws, dreamer_name="offline", review="none")
    return {name.removesuffix(".md"): data.decode() for name, data in topics(agent_dir).items()}


def heading(text: str) -> str:
    return parse_shard(text)[0].heading


def active_and_superseded(text: str) -> tuple[list[str], list[str]]:
    s = sectioned_citations(parse_shard(text)[1])
    return sorted(d for d, _ in s.active_keys()), sorted(d for d, _ in s.superseded_keys())


# --- 1. strength counts the days the current reading has held ------------------------------------

def test_a_status_back_to_ok_after_one_failed_day_counts_every_ok_day(ws, agent_dir):
    notes = {d: [("Heartbeat", "heartbeat: ok")] for d in range(1, 9)}
    notes[5] = [("Heartbeat", "heartbeat: failed (gateway timeout)")]
    shards = dream_daily(ws, agent_dir, notes)
    assert list(shards) == ["heartbeat"]
    assert heading(shards["heartbeat"]) == "Always (7 days): heartbeat: ok"
    active, superseded = active_and_superseded(shards["heartbeat"])
    assert active == [day(d) for d in (1, 2, 3, 4, 6, 7, 8)] and superseded == [day(5)]


def test_a_reading_back_to_an_old_value_regains_only_that_values_days(ws, agent_dir):
    """disk 61% on days 1-2, 64% on 3, 61% again on 4: the 61% days rejoin; 64% stays superseded."""
    shards = dream_daily(ws, agent_dir, {1: [("Disk", "disk: 61% used")], 2: [("Disk", "disk: 61% used")],
                                         3: [("Disk", "disk: 64% used")], 4: [("Disk", "disk: 61% used")]})
    assert heading(shards["disk"]) == "Consistently (3 days): disk: 61% used"
    assert active_and_superseded(shards["disk"]) == ([day(1), day(2), day(4)], [day(3)])


# --- 2. a rule restated with emphasis and a second sentence is one claim -------------------------

def test_a_rule_restated_with_emphasis_and_a_second_sentence_reinforces_it(ws, agent_dir):
    shards = dream_daily(ws, agent_dir, {
        1: [("Rules", "never push directly to main")],
        3: [("Rules", "NEVER push to main. PRs only.")],
        4: [("Rules", "never push to release branches")],
    })
    beliefs = sorted(heading(t) for t in shards.values())
    assert beliefs == ["Mentioned once: never push to release branches",
                       "Observed on 2 days: never push directly to main"]


# --- 3. Chinese restatements of one rule are one claim -------------------------------------------

def test_chinese_restatements_of_one_rule_are_one_claim_and_another_rule_stays_apart(ws, agent_dir):
    shards = dream_daily(ws, agent_dir, {
        1: [("规则", "不要在周五部署")], 3: [("规则", "周五禁止部署")], 5: [("规则", "周五不部署")],
        6: [("规则", "不要在周五开会")], 7: [("规则", "周末不要打扰用户")],
    })
    beliefs = sorted(heading(t) for t in shards.values())
    assert beliefs == ["Consistently (3 days): 不要在周五部署", "Mentioned once: 不要在周五开会",
                       "Mentioned once: 周末不要打扰用户"]


# --- 4. a new time for the same setting, named a little differently, supersedes ------------------

def test_a_new_time_for_the_backup_named_without_cron_supersedes_the_old_time(ws, agent_dir):
    shards = dream_daily(ws, agent_dir, {
        1: [("Backup", "backup cron runs at 03:00"), ("Backup", "backup prune runs at 05:00")],
        3: [("Backup", "backup now at 04:30")],
    })
    beliefs = sorted(heading(t) for t in shards.values())
    assert beliefs == ["Mentioned once: Not 03:00 anymore; backup now at 04:30",
                       "Mentioned once: backup prune runs at 05:00"]
    superseded = [k for t in shards.values() for k in sectioned_citations(parse_shard(t)[1]).superseded_keys()]
    assert superseded == [(day(1), uuid_at(day(1), 1))]


# --- 5. Chinese slugs are short and readable -----------------------------------------------------

def test_chinese_slugs_are_short_readable_pinyin_words(ws, agent_dir):
    shards = dream_daily(ws, agent_dir, {1: [
        ("今日工作", "修复了登录页面在移动端偶尔白屏的问题，原因是缓存策略配置错误"),
        ("今日工作", "和产品经理讨论了下个版本的需求优先级"),
        ("用户偏好与沟通习惯", "用户偏好使用飞书通知而不是邮件，周末不要打扰"),
    ]})
    slugs = sorted(shards)
    assert all(SLUG_REGEX.fullmatch(s) and len(s) <= 40 for s in slugs), slugs
    # words, not syllables glued across word boundaries ("hechan-pinjing", "yugou-tongxi-guan")
    assert slugs == ["jinri-gongzuo", "jinri-gongzuo-chanpin-jingli-taolun", "yonghu-pianhao-goutong-xiguan"]
    assert not any(re.search(r"\b(?:hechan|pinjing|yugou|tongxi)\b", s) for s in slugs), slugs
