"""The offline dreamer groups by claims, not labels (issue 11): every distinct observation is
cited, only true duplicates fold, only real updates supersede, strength counts active days,
and non-Latin headings get readable slugs. Asserted on the shard bytes the dreamer writes."""
from __future__ import annotations

import pytest

from dreamdeck.core.dreaming.offline import OfflineDreamer
from dreamdeck.core.dreaming.protocol import DreamInput, DreamScratch, UndreamedFragment
from dreamdeck.core.formats.citations import citation_keys, sectioned_citations
from dreamdeck.core.formats.shards import ShardMeta, parse_shard, render_shard, strength_of
from dreamdeck.core.formats.slugs import SLUG_REGEX

TODAY = "2026-03-22"


def frag(day: int, n: int, topic: str, body: str) -> UndreamedFragment:
    return UndreamedFragment(date=f"2026-03-{day:02d}", id=f"f{day:02d}-{n}", topic=topic, body=body)


def dream(fragments, shards=None):
    scratch = DreamScratch(dict(shards or {}))
    outcome = OfflineDreamer().dream(DreamInput(TODAY, list(fragments), ""), scratch)
    return scratch.files, outcome


def headings(files) -> dict[str, str]:
    return {slug: parse_shard(text)[0].heading for slug, text in files.items()}


def sections(text: str):
    s = sectioned_citations(parse_shard(text)[1])
    return sorted(s.active_keys()), sorted(s.superseded_keys())


def cited(files) -> set:
    return set().union(*(citation_keys(t) for t in files.values())) if files else set()


def topic_shard(sentence: str, active: list[str], tags=None) -> str:
    body = f"{sentence}\n\nfragments:\n" + "".join(f"- streams/{c}\n" for c in active)
    cites, days, last = strength_of(body, TODAY)
    return render_shard(ShardMeta(sentence.rstrip("."), cites, days, last, tags), body)


# --- nothing distinct is lost ------------------------------------------------------------------

def test_every_distinct_bullet_under_one_heading_is_cited_as_its_own_claim():
    files, outcome = dream([
        frag(2, 1, "Today", "fixed the checkout bug"),
        frag(2, 2, "Today", "reviewed the checkout PR"),
        frag(2, 3, "Today", "paired with Bob on the search tests"),
    ])
    assert cited(files) == {("2026-03-02", "f02-1"), ("2026-03-02", "f02-2"), ("2026-03-02", "f02-3")}
    assert sorted(headings(files).values()) == [
        "Mentioned once: fixed the checkout bug", "Mentioned once: paired with Bob on the search tests",
        "Mentioned once: reviewed the checkout PR"]
    assert outcome.folded == {}


def test_a_same_day_near_duplicate_is_folded_and_names_the_citation_it_duplicates():
    files, outcome = dream([frag(2, 1, "Heartbeat", "heartbeat: ok"), frag(2, 2, "Heartbeat", "Heartbeat: OK ✅")])
    assert files["heartbeat"].endswith("Mentioned once: heartbeat: ok.\n\nfragments:\n- streams/2026-03-02#f02-1\n")
    assert outcome.folded == {"2026-03-02#f02-2": "2026-03-02#f02-1"}
    assert outcome.summary == "2 fragments: 1 new topic, 0 reinforced, 0 contradictions, 1 not cited (same day)"


def test_a_same_day_restatement_that_adds_detail_is_cited():
    files, outcome = dream([
        frag(2, 1, "Deploys", "Deploys happen on Fridays."),
        frag(2, 2, "Deploys", "Deploys happen on Fridays, never after 15:00."),
    ])
    assert cited(files) == {("2026-03-02", "f02-1"), ("2026-03-02", "f02-2")}
    assert outcome.folded == {}


def test_a_duplicate_of_a_citation_made_by_an_earlier_run_names_that_citation():
    before = topic_shard("Mentioned once: heartbeat: ok.", ["2026-03-02#early"])
    files, outcome = dream([frag(2, 5, "Heartbeat", "Heartbeat: OK")], {"heartbeat": before})
    assert files == {"heartbeat": before}
    assert outcome.folded == {"2026-03-02#f02-5": "2026-03-02#early"}


# --- reinforcement is the same claim on another day, however labelled ---------------------------

def test_the_same_claim_under_near_duplicate_headings_is_one_belief():
    files, _ = dream([
        frag(1, 1, "Deploy process", "Deploys go to staging first, then to prod after the smoke tests pass."),
        frag(5, 1, "Deployment process", "deploys go to staging first, then prod once the smoke tests pass"),
        frag(8, 1, "deploy-process", "Deploys: staging first, then prod after the smoke tests pass."),
    ])
    assert list(files) == ["deploy-process"]
    assert headings(files)["deploy-process"] == (
        "Consistently (3 days): Deploys go to staging first, then to prod after the smoke tests pass")


def test_a_rule_restated_with_emphasis_reinforces_and_never_contradicts():
    files, outcome = dream([
        frag(1, 1, "Rules", "Never push directly to main; open a PR and wait for review."),
        frag(3, 1, "Rules", "**NEVER** push directly to main — open a PR and wait for review."),
        frag(6, 1, "Rules", "Reminder: never push directly to main, open a PR and wait for review!"),
        frag(6, 2, "Rules", "Never force-push to shared branches."),
    ])
    assert outcome.contradictions == []
    assert sorted(headings(files).values()) == [
        "Consistently (3 days): Never push directly to main; open a PR and wait for review",
        "Mentioned once: Never force-push to shared branches"]


# --- contradiction: the same subject with another value, never a word alone ----------------------

def test_a_temporal_word_alone_never_supersedes_an_unrelated_belief():
    prs = topic_shard("The user always wants small PRs (under ~400 lines).", [f"2026-03-{d:02d}#p{d}" for d in range(1, 11)])
    files, outcome = dream([frag(12, 1, "code review", "Dana said the team now prefers Vitest snapshots for UI tests.")],
                           {"code-review": prs})
    assert files["code-review"] == prs
    assert outcome.contradictions == []
    assert len(files) == 2


def test_sibling_rows_and_bullets_about_different_subjects_never_supersede_each_other():
    fragments = []
    for day in (2, 3, 4):
        fragments += [frag(day, 1, "Services", "| api | up |"), frag(day, 2, "Services", "| worker | up |"),
                      frag(day, 3, "Team", "Alice: frontend"), frag(day, 4, "Team", "Bob: backend")]
    files, outcome = dream(fragments)
    assert outcome.contradictions == []
    assert all(not sections(text)[1] for text in files.values())
    assert len(files) == 4 and len(cited(files)) == 12


def test_a_setting_moved_from_x_to_y_supersedes_and_keeps_a_guard():
    files, outcome = dream([
        frag(1, 1, "Settings", "backup cron: 02:00 daily"),
        frag(2, 1, "Config", "backup cron: 02:00 daily"),
        frag(9, 1, "Settings", "moved the backup cron from 02:00 to 04:30 (disk contention with the indexer)"),
        frag(10, 1, "Config", "backup cron: 04:30 daily"),
    ])
    [text] = files.values()
    assert parse_shard(text)[0].heading == (
        "Observed on 2 days: Backup cron is not 02:00 daily anymore; "
        "moved the backup cron from 02:00 to 04:30 (disk contention with the indexer)")
    assert sections(text) == ([("2026-03-09", "f09-1"), ("2026-03-10", "f10-1")],
                              [("2026-03-01", "f01-1"), ("2026-03-02", "f02-1")])
    assert len(outcome.contradictions) == 1


def test_a_timeout_raised_then_disabled_ends_as_the_belief():
    files, _ = dream([
        frag(1, 1, "Settings", "API timeout: 30s"),
        frag(6, 1, "Settings", "raised the API timeout to 60s after the 504s"),
        frag(8, 1, "Config", "API timeout: 60s"),
        frag(13, 1, "Settings", "disabled the API timeout entirely for the long exports"),
        frag(15, 1, "Config", "API timeout: disabled"),
    ])
    [text] = files.values()
    assert parse_shard(text)[0].heading == (
        "Observed on 2 days: API timeout is not 60s anymore; disabled the API timeout entirely for the long exports")
    assert sections(text)[0] == [("2026-03-13", "f13-1"), ("2026-03-15", "f15-1")]


def test_a_new_value_for_the_same_key_on_a_later_day_supersedes():
    files, _ = dream([frag(1, 1, "Limits", "max parallel jobs: 4"), frag(3, 1, "Limits", "max parallel jobs: 8")])
    assert headings(files) == {"limits": "Mentioned once: Max parallel jobs is not 4 anymore; max parallel jobs: 8"}


def test_a_status_that_flips_back_is_an_update_each_time():
    files, _ = dream([frag(1, 1, "Heartbeat", "heartbeat: ok"), frag(2, 1, "Heartbeat", "heartbeat: failed (gateway timeout)"),
                      frag(3, 1, "Heartbeat", "heartbeat: ok"), frag(4, 1, "Heartbeat", "heartbeat: ok")])
    # A status is a reading (`claims.readings`): its newer value is the belief, with no guard;
    # back to "ok", the first day's "ok" counts again and only the failed day is superseded.
    assert headings(files) == {"heartbeat": "Consistently (3 days): heartbeat: ok"}
    assert sections(files["heartbeat"])[1] == [("2026-03-02", "f02-1")]


# --- strength from real support ----------------------------------------------------------------

def test_a_replacing_claim_starts_at_its_own_support_and_superseded_days_never_count():
    old = topic_shard("Always (8 days): The release is cut every Tuesday at 14:00.", [f"2026-03-{d:02d}#r{d}" for d in range(1, 9)])
    files, _ = dream([frag(10, 1, "release", "the release train has moved: releases are cut every Thursday at 14:00"),
                      frag(12, 1, "release", "releases are cut every Thursday at 14:00")], {"release": old})
    assert headings(files)["release"] == (
        "Observed on 2 days: The release is not cut every Tuesday at 14:00 anymore; "
        "the release train has moved: releases are cut every Thursday at 14:00")


def test_an_observed_belief_reinforced_to_three_days_is_reworded_not_stacked():
    llm = topic_shard("The user has been observed treating the e2e-checkout CI job as flaky and rerunning it once.",
                      ["2026-03-01#c1", "2026-03-04#c2"], tags=("ci",))
    files, _ = dream([frag(9, 1, "CI flakiness", "The e2e-checkout CI job flaked again; one rerun passed.")],
                     {"ci-flakiness": llm})
    assert headings(files)["ci-flakiness"] == (
        "The user consistently treats the e2e-checkout CI job as flaky and reruns it once")


# --- unicode -----------------------------------------------------------------------------------

def test_non_latin_headings_get_readable_slugs_within_typeclaws_rule():
    files, _ = dream([
        frag(1, 1, "하트비트", "하트비트: 정상"),
        frag(1, 2, "1. 今日工作", "修复了登录页面的问题"),
        frag(1, 3, "2. 问题", "支付回调偶尔超时"),
        frag(1, 4, "1", "见面会"),
    ])
    slugs = sorted(files)
    assert "hateubiteu" in slugs
    for slug in slugs:
        assert SLUG_REGEX.fullmatch(slug) and not slug.startswith("untitled-")
        assert not slug.replace("-", "").isdigit()
    assert len(slugs) == 4


def test_headings_sharing_only_a_number_stay_apart():
    files, _ = dream([frag(1, 1, "1. 今日工作", "修复了登录页面的问题"), frag(2, 1, "1. 问题", "支付回调偶尔超时"),
                      frag(3, 1, "1. 计划", "下周发布新版本")])
    assert len(files) == 3 and all(len(sections(t)[0]) == 1 for t in files.values())


def test_chinese_restatements_reinforce_one_belief():
    files, _ = dream([
        frag(1, 1, "规则", "永远不要直接推送到 main 分支，先开 PR 等待审查。"),
        frag(4, 1, "规则", "**永远不要**直接推送到 main 分支！先开 PR 等待审查。"),
        frag(9, 1, "规则", "再次提醒：永远不要直接推送到 main 分支，先开 PR 等待审查"),
    ])
    assert list(headings(files).values()) == ["Consistently (3 days): 永远不要直接推送到 main 分支，先开 PR 等待审查"]


# --- what the run gets back ---------------------------------------------------------------------

def test_the_outcome_names_each_changed_shard_in_one_line():
    old = topic_shard("Mentioned once: max parallel jobs: 4.", ["2026-03-01#a"])
    _, outcome = dream([frag(3, 1, "Limits", "max parallel jobs: 8"), frag(3, 2, "Today", "fixed the checkout bug")],
                       {"limits": old})
    assert outcome.changes == {
        "limits": "superseded 'max parallel jobs: 4' by 'max parallel jobs: 8'",
        "today": "new claim",
    }


def test_a_key_that_takes_a_new_value_every_day_is_a_log_not_a_setting():
    # A value that is no reading (a measurement or a status takes its newer value instead,
    # `test_claims_readings`).
    files, outcome = dream([frag(d, 1, "Stats", f"build tag: b{100 + d * 7}") for d in range(1, 6)])
    assert outcome.contradictions == []
    assert len(files) == 5 and all(not sections(t)[1] for t in files.values())


def test_a_new_claim_never_takes_a_pinned_slug():
    scratch = DreamScratch({}, pinned=frozenset({"heartbeat"}))
    outcome = OfflineDreamer().dream(DreamInput(TODAY, [frag(2, 1, "Heartbeat", "heartbeat: ok")], "",
                                                pinned=frozenset({"heartbeat"})), scratch)
    assert list(scratch.files) == ["heartbeat-2"] and outcome.questions == []


# --- a measured value: the same subject and value is one claim ------------------------------------

def test_a_rule_restated_with_the_same_subject_and_value_reinforces_its_belief():
    files, outcome = dream([
        frag(4, 1, "Rules", "Keep replies in Slack under five sentences."),
        frag(12, 1, "Hard", "Slack replies stay short: five sentences at most."),
    ])
    assert list(headings(files).values()) == ["Observed on 2 days: Keep replies in Slack under five sentences"]
    assert outcome.contradictions == []


def test_opposite_verbs_on_the_same_measured_subject_stay_two_claims():
    files, outcome = dream([
        frag(4, 1, "Retention", "keep logs 30 days"),
        frag(12, 1, "Retention", "delete logs after 30 days"),
    ])
    assert sorted(headings(files).values()) == ["Mentioned once: delete logs after 30 days", "Mentioned once: keep logs 30 days"]
    assert outcome.contradictions == []


def test_a_new_number_for_the_same_measured_subject_supersedes_the_old_one():
    files, outcome = dream([
        frag(4, 1, "Rules", "Keep Slack replies under five sentences."),
        frag(12, 1, "Rules", "Slack replies stay short: three sentences at most."),
    ])
    [(slug, text)] = files.items()
    assert sections(text) == ([("2026-03-12", "f12-1")], [("2026-03-04", "f04-1")])
    assert len(outcome.contradictions) == 1


def test_a_bare_link_restated_on_another_day_reinforces_its_belief():
    files, _ = dream([frag(2, 1, "Links", "https://grafana.acme.dev/d/api-latency"),
                      frag(3, 1, "Links", "[status page](https://status.acme.dev)"),
                      frag(4, 1, "Links", "https://grafana.acme.dev/d/api-latency")])
    assert sorted(headings(files).values()) == [
        "Mentioned once: [status page](https://status.acme.dev)", "Observed on 2 days: https://grafana.acme.dev/d/api-latency"]


def test_a_status_that_flips_back_in_daily_dreams_is_still_an_update():
    files: dict = {}
    for day, status in ((2, "ok"), (3, "failed"), (4, "ok")):
        files, _ = dream([frag(day, 1, "Heartbeat", f"heartbeat: {status}")], files)
    [text] = files.values()
    assert sections(text)[0] == [("2026-03-04", "f04-1")]


def test_a_table_row_that_flips_back_to_a_stopword_value_in_daily_dreams_is_still_an_update():
    files: dict = {}
    for day, status in ((2, "up"), (3, "degraded"), (4, "up")):
        files, _ = dream([frag(day, 1, "Services", f"| worker | {status} |")], files)
    [text] = files.values()
    assert sections(text)[0] == [("2026-03-04", "f04-1")]


def test_restating_a_changed_value_in_daily_dreams_does_not_make_its_key_a_log():
    files: dict = {}
    for day, value in ((2, "4"), (3, "8"), (4, "8"), (5, "4")):
        files, outcome = dream([frag(day, 1, "Settings", f"max parallel jobs: {value}")], files)
    assert len(files) == 1 and len(outcome.contradictions) == 1
    [text] = files.values()
    assert sections(text)[0] == [("2026-03-05", "f05-1")]


# --- daily dreaming: a log line is an observation from its first change --------------------------

def _daily(lines: list[tuple[int, str, str]]) -> tuple[dict, list[int]]:
    """Dream one fragment (or a day's fragments) per run, as the watcher does."""
    files: dict = {}
    flagged = []
    for day in sorted({d for d, _, _ in lines}):
        todays = [frag(day, n, topic, body) for n, (topic, body) in enumerate((t, b) for d, t, b in lines if d == day)]
        files, outcome = dream(todays, files)
        flagged.append(len(outcome.contradictions))
    return files, flagged


def _superseded(files) -> list:
    return [k for t in files.values() for k in sections(t)[1]]


def test_a_key_naming_a_day_is_a_log_from_its_first_change():
    files, flagged = _daily([(2, "Status", "- cost today: $7.29"), (3, "Status", "- cost today: $5.10"),
                             (2, "状态", "- 今日成本：$7.29"), (3, "状态", "- 今日成本：$5.10")])
    assert flagged == [0, 0] and _superseded(files) == [] and len(files) == 4


def test_a_key_reporting_an_event_is_a_log_from_its_first_change():
    files, flagged = _daily([
        (2, "Log", "- PR merged: https://github.com/acme/api/pull/733 (fix the retry loop)"),
        (3, "Log", "- PR merged: https://github.com/acme/api/pull/740 (fix the retry loop)"),
        (2, "日志", "- 合并了 PR：https://github.com/acme/api/pull/660（修复重试循环）"),
        (3, "日志", "- 合并了 PR：https://github.com/acme/api/pull/671（修复重试循环）"),
    ])
    assert flagged == [0, 0] and _superseded(files) == [] and len(files) == 4


def test_rows_of_a_table_whose_header_names_the_last_run_are_a_log_from_their_first_change():
    lines = []
    for day, time in ((2, "03:41"), (3, "03:16"), (4, "03:55")):
        lines += [(day, "Jobs", "| job | last run | result |"), (day, "Jobs", f"| reindex | {time} | ok |")]
    files, flagged = _daily(lines)
    assert flagged == [0, 0, 0] and _superseded(files) == []


def test_a_setting_changed_unannounced_on_two_dreams_in_a_row_supersedes_both_times():
    files, flagged = _daily([(2, "Settings", "max parallel jobs: 4"), (3, "Settings", "max parallel jobs: 8"),
                             (4, "Settings", "max parallel jobs: 16")])
    assert flagged == [0, 1, 1]
    [text] = files.values()
    assert sections(text) == ([("2026-03-04", "f04-0")], [("2026-03-02", "f02-0"), ("2026-03-03", "f03-0")])


def test_a_setting_changed_twice_unannounced_within_one_dream_supersedes_both_times():
    files, outcome = dream([frag(d, 1, "Settings", f"preferred editor: {v}")
                            for d, v in ((2, "vim"), (3, "emacs"), (4, "helix"))])
    assert len(outcome.contradictions) == 2
    [text] = files.values()
    assert sections(text)[0] == [("2026-03-04", "f04-1")]


# --- tables of jobs and checkbox marks ---------------------------------------------------------------

def test_each_job_of_a_last_run_table_is_one_shard_whose_belief_is_its_latest_row():
    lines = []
    for day, times in ((2, ("02:25", "03:41")), (3, ("02:57", "03:16")), (4, ("02:20", "03:55"))):
        lines += [(day, "Jobs", "| job | last run | result |"),
                  (day, "Jobs", f"| nightly-export | {times[0]} | ok |"), (day, "Jobs", f"| reindex | {times[1]} | ok |")]
    files, flagged = _daily(lines)
    shown = {h for h in headings(files).values() if "export" in h or "reindex" in h}
    assert shown == {"Consistently (3 days): nightly-export: last run 02:20, result ok",
                     "Consistently (3 days): reindex: last run 03:55, result ok"}
    assert flagged == [0, 0, 0] and _superseded(files) == []


def test_a_last_run_tables_header_is_cited_by_its_jobs_beliefs_never_a_belief_of_its_own():
    """The header's labels are read into every row's belief ("reindex: last run 03:16, result ok"),
    so the header row is evidence of those beliefs: cited by each, never a shard of its own."""
    lines = []
    for day, times in ((2, ("02:20", "03:41")), (3, ("02:30", "03:16"))):
        lines += [(day, "Jobs", "| job | last run | result |"), (day, "Jobs", f"| nightly-export | {times[0]} | ok |"),
                  (day, "Jobs", f"| reindex | {times[1]} | ok |")]
    files, flagged = _daily(lines)
    assert sorted(headings(files).values()) == ["Observed on 2 days: nightly-export: last run 02:30, result ok",
                                                "Observed on 2 days: reindex: last run 03:16, result ok"]
    headers = {("2026-03-02", "f02-0"), ("2026-03-03", "f03-0")}
    for text in files.values():  # each day's header beside that day's row, in every job's belief
        assert headers <= set(sections(text)[0])
    assert cited(files) == {(f"2026-03-0{d}", f"f0{d}-{n}") for d in (2, 3) for n in range(3)}
    assert flagged == [0, 0]


def test_a_header_row_with_no_row_under_it_is_still_dreamed():
    files, _ = dream([frag(2, 0, "Jobs", "| job | last run | result |"), frag(2, 1, "Jobs", "Backups ran at night.")])
    assert cited(files) == {("2026-03-02", "f02-0"), ("2026-03-02", "f02-1")}


def test_a_checkbox_mark_is_the_state_of_its_task_not_its_text():
    files, _ = dream([frag(2, 1, "Todo", "- [ ] update the on-call handbook"),
                      frag(2, 2, "Todo", "- [x] update the changelog"),
                      frag(3, 1, "待办", "- [ ] 更新值班手册")])
    assert sorted(headings(files).values()) == [
        "Mentioned once: Done: update the changelog", "Mentioned once: To do: update the on-call handbook",
        "Mentioned once: 待办：更新值班手册"]


def test_a_task_ticked_on_a_later_day_replaces_its_open_belief():
    files, flagged = _daily([(2, "Todo", "- [ ] update the on-call handbook"), (3, "Todo", "- [ ] update the on-call handbook"),
                             (4, "Todo", "- [x] update the on-call handbook")])
    [text] = files.values()
    assert parse_shard(text)[0].heading == "Mentioned once: Done: update the on-call handbook"
    assert sections(text) == ([("2026-03-04", "f04-0")], [("2026-03-02", "f02-0"), ("2026-03-03", "f03-0")])
    assert flagged == [0, 0, 0]  # a tick is an update, not a conflict for a person to judge


@pytest.mark.parametrize(("open_line", "done_line", "belief"), [
    ("TODO: write the INC-88 postmortem", "- [x] write the INC-88 postmortem", "Done: write the INC-88 postmortem"),
    ("TODO：预约周三体检", "- [x] 预约周三体检", "已完成：预约周三体检"),
])
def test_a_todo_line_is_an_open_task_that_its_ticked_checkbox_closes(open_line, done_line, belief):
    files, flagged = _daily([(2, "Todo", open_line), (3, "Todo", open_line), (4, "Todo", done_line)])
    [text] = files.values()
    assert parse_shard(text)[0].heading == f"Mentioned once: {belief}"
    assert flagged == [0, 0, 0]


def test_a_ticked_task_is_not_a_flagged_contradiction_and_asks_no_question():
    files, _ = dream([frag(2, 1, "Todo", "- [ ] update the on-call handbook")])
    files, outcome = dream([frag(4, 1, "Todo", "- [x] update the on-call handbook")], files)
    [(slug, text)] = files.items()
    assert parse_shard(text)[0].heading == "Mentioned once: Done: update the on-call handbook"
    assert sections(text) == ([("2026-03-04", "f04-1")], [("2026-03-02", "f02-1")])
    assert (outcome.contradictions, outcome.questions) == ([], [])
    assert outcome.changes == {slug: "task done"}
    assert outcome.summary == "1 fragment: 0 new topics, 0 reinforced, 0 contradictions, 1 task done"


def test_a_changed_value_beside_a_ticked_task_is_still_a_flagged_contradiction():
    files, _ = dream([frag(2, 1, "Todo", "- [ ] update the on-call handbook"), frag(2, 2, "Deploys", "deploy window: Tuesday")])
    files, outcome = dream([frag(4, 1, "Todo", "- [x] update the on-call handbook"),
                            frag(4, 2, "Deploys", "deploy window: Thursday")], files)
    assert len(outcome.contradictions) == 1 and "deploy window" in outcome.contradictions[0]
    assert len(outcome.questions) == 1 and "Thursday" in outcome.questions[0]


def test_a_task_reopened_after_it_was_done_is_still_flagged():
    files, _ = dream([frag(2, 1, "Todo", "- [x] update the on-call handbook")])
    files, outcome = dream([frag(4, 1, "Todo", "- [ ] update the on-call handbook")], files)
    assert len(outcome.contradictions) == 1
