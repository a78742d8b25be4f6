"""Claims: tokens (Latin, CJK, Hangul), what a note says, sameness, and the one contradiction rule."""
from __future__ import annotations

import pytest

from dreamdeck.core.claims.contradiction import contradiction_reason, contradicts
from dreamdeck.core.claims.extract import clean, extract
from dreamdeck.core.claims.sameness import near_duplicate, same_claim
from dreamdeck.core.claims.tokens import terms, values

# --- tokens -------------------------------------------------------------------------------------

def test_bare_digits_dates_and_times_are_values_never_terms():
    assert terms("backup at 02:00 on 2026-03-02, 60s, v2.3, $50, 1") == {"backup"}
    assert values("backup at 02:00 on 2026-03-02, 60s, v2.3, $50") == {"02:00", "2026-03-02", "60s", "v2.3", "$50"}


def test_identifiers_with_digits_stay_whole_terms():
    assert {"plat-412", "spam_bot_42", "e2e-checkout"} <= terms("PLAT-412 by @spam_bot_42 on e2e-checkout")


def test_chinese_is_read_in_bigrams_without_grammar_characters():
    assert terms("修复了登录页面") == {"修复", "登录", "录页", "页面"}


def test_korean_words_lose_their_particle_before_bigrams():
    assert terms("백업 시간을") == terms("백업 시간") == {"백업", "시간"}


def test_emphasis_and_bookkeeping_words_are_no_evidence():
    assert terms("IMPORTANT: always ask Dana (again)!") == terms("ask Dana")


def test_weekdays_and_months_are_values():
    assert values("deploys on Friday, not in March") == {"fri", "mar"}
    assert terms("you may push") == {"push"}  # "may" without a capital is a verb


# --- extract ------------------------------------------------------------------------------------

def test_cleaning_drops_bullets_stamps_emphasis_emoji_and_prefixes():
    assert clean("- [09:12] ⚠️ **Reminder:** never push to `main`!") == "never push to main!"
    assert clean("再次提醒：永远不要直接推送到 main 分支") == "永远不要直接推送到 main 分支"
    assert clean("다시 알림: main 브랜치에 직접 푸시하지 마세요") == "main 브랜치에 직접 푸시하지 마세요"


@pytest.mark.parametrize(("text", "subject", "value"), [
    ("heartbeat: ok", {"heartbeat"}, {"ok"}),
    ("| worker | degraded |", {"worker"}, {"degrad"}),
    ("心跳：正常", {"心跳"}, {"正常"}),
    ("백업 시간: 02:00", {"백업", "시간"}, {"02:00"}),
    ("moved the backup cron from 02:00 to 04:30 (disk contention)", {"backup", "cron"}, {"04:30"}),
    ("raised the API timeout to 60s after the 504s", {"api", "timeout"}, {"60s"}),
    ("disabled the API timeout", {"api", "timeout"}, {"disabl"}),
    ("备份时间从 02:00 改为 04:30", {"备份", "份时", "时间"}, {"04:30"}),
    ("백업 시간을 02:00에서 04:30으로 변경", {"백업", "시간"}, {"04:30"}),
    ("The deadline is March 15", {"deadlin"}, {"mar", "15"}),
    ("deploy window is Thursday afternoon now, not Tuesday anymore", {"deploy", "window"}, {"thu", "afternoon"}),
])
def test_a_subject_with_a_value(text, subject, value):
    claim = extract(text)
    assert (claim.predicate, claim.subject, claim.value) == ("=", frozenset(subject), frozenset(value))


def test_a_time_is_never_read_as_a_key():
    claim = extract("daily report goes out at 09:00")
    assert (claim.predicate, claim.subject, claim.value) == ("go", {"daily", "report"}, {"out", "09:00"})


def test_bookkeeping_keys_are_not_subjects():
    assert extract("Rule: never push to main").predicate != "="
    assert extract("Note: the lockfile is v9").subject == {"lockfil"}


@pytest.mark.parametrize(("text", "ruled_out"), [
    ("We use pnpm for everything, not npm.", {"npm"}),
    ("we use pnpm for everything (not npm)", {"npm"}),
    ("daily report now goes out at 09:00 instead of 08:00", {"08:00"}),
    ("no longer using Notion; the notes live in Obsidian now", {"notion"}),
    ("不再使用 Notion，笔记改用 Obsidian", {"notion"}),
    ("switched the test runner from Jest to Vitest", {"jest"}),
])
def test_what_a_claim_rules_out(text, ruled_out):
    assert extract(text).rejected == ruled_out


def test_a_guard_names_the_subject_and_what_it_was():
    claim = extract("API timeout is not 30s anymore; raised the API timeout to 60s.")
    assert (claim.subject, claim.value, claim.rejected) == ({"api", "timeout"}, {"60s"}, {"30s"})


def test_past_tense_reports_are_events():
    assert extract("Deployed v2.3 to prod.").event and extract("Met with Dana about the roadmap").event
    assert not extract("uses Node 18").event


# --- sameness -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("a", "b"), [
    ("Never push directly to main; open a PR and wait for review.",
     "**NEVER** push directly to main — open a PR and wait for review."),
    ("Never push directly to main; open a PR and wait for review.",
     "Reminder: never push directly to main, open a PR and wait for review!"),
    ("User @spam_bot_42 is permanently banned from the Discord server.",
     "@spam_bot_42 is PERMANENTLY banned from the Discord server — do not unban."),
    ("heartbeat: ok", "Heartbeat: OK ✅"),
    ("Deploys go to staging first, then to prod after the smoke tests pass.",
     "Deploys: staging first, then prod after the smoke tests pass."),
    ("永远不要直接推送到 main 分支，先开 PR 等待审查。", "**永远不要**直接推送到 main 分支！先开 PR 等待审查。"),
    ("main 브랜치에 직접 푸시하지 마세요. PR을 열고 리뷰를 기다리세요.",
     "**절대** main 브랜치에 직접 푸시하지 마세요! PR을 열고 리뷰를 기다리세요."),
])
def test_restatements_are_the_same_claim(a, b):
    assert same_claim(extract(a), extract(b))


@pytest.mark.parametrize(("a", "b"), [
    ("fixed the checkout bug", "reviewed the checkout PR"),  # siblings sharing a word
    ("Alice: frontend", "Bob: backend"),
    ("| api | up |", "| db | up |"),
    ("Answered 12 support tickets.", "Answered 7 support tickets."),  # two observations
    ("Never push directly to main.", "Never force-push to shared branches."),
    ("Never push directly to main.", "Pushed directly to main by mistake."),
    ("修复了登录页面的问题", "审查了搜索服务的代码"),
])
def test_different_claims_are_not_the_same(a, b):
    assert not same_claim(extract(a), extract(b), same_topic=True)


def test_a_near_duplicate_adds_nothing_but_emphasis():
    assert near_duplicate(extract("Uses pnpm."), extract("Uses pnpm again."))
    assert near_duplicate(extract("heartbeat: ok"), extract("Heartbeat: OK ✅"))
    assert not near_duplicate(extract("Deploys happen on Fridays."), extract("Deploys happen on Fridays after 15:00."))
    assert not near_duplicate(extract("Answered 12 tickets."), extract("Answered 7 tickets."))


# --- contradiction ------------------------------------------------------------------------------

@pytest.mark.parametrize(("old", "new", "reason"), [
    ("backup cron: 02:00 daily", "moved the backup cron from 02:00 to 04:30", "value"),
    ("test runner: Jest", "switched the test runner from Jest to Vitest", "value"),
    ("API timeout: 30s", "raised the API timeout to 60s after the 504s", "value"),
    ("API timeout: 60s", "disabled the API timeout entirely for the long exports", "value"),
    ("notes app: Notion", "no longer using Notion; the notes live in Obsidian now", "negation"),
    ("daily report goes out at 08:00", "daily report now goes out at 09:00 instead of 08:00", "value"),
    ("deploy window: Tuesday afternoon", "deploy window is Thursday afternoon now, not Tuesday anymore", "value"),
    ("max parallel jobs: 4", "max parallel jobs: 8", "value"),
    ("heartbeat: ok", "heartbeat: failed (gateway timeout)", "value"),
    ("| zeus | Bob | blocked |", "| zeus | Bob | in progress |", "value"),
    ("备份时间：02:00", "备份时间从 02:00 改为 04:30", "value"),
    ("笔记工具：Notion", "不再使用 Notion，笔记改用 Obsidian", "value"),
    ("백업 시간: 02:00", "백업 시간을 02:00에서 04:30으로 변경", "value"),
    ("보고서 시간: 오전 8시", "보고서 시간: 오전 9시", "value"),
    ("The team cuts a release every Tuesday at 14:00 CET",
     "the release train has moved: releases are cut every Thursday at 14:00 CET", "correction"),
])
def test_the_same_subject_with_another_value_contradicts(old, new, reason):
    assert contradiction_reason(old, new, same_topic=True) == reason


@pytest.mark.parametrize(("old", "new"), [
    # a temporal word alone
    ("The user always wants small PRs under 400 lines", "Dana said the team now prefers Vitest snapshots"),
    ("Uses pnpm for installs", "Now runs the linter before every push"),
    # siblings and table rows about different subjects
    ("Alice: frontend", "Bob: backend"),
    ("| api | up |", "| worker | degraded |"),
    ("heartbeat: ok", "cost alerts: none"),
    ("Never push directly to main.", "Never force-push to shared branches."),
    ("fixed the login redirect bug", "reviewed the login redirect PR"),
    # restatements with emphasis, and events
    ("Never push directly to main; open a PR.", "**NEVER** push directly to main — open a PR!"),
    ("Deployed v2.1 to prod.", "Deployed v2.2 to prod."),
    ("Answered 12 support tickets.", "Answered 7 support tickets."),
    ("Dana: approved the budget", "Dana: out sick today"),
    ("User @spam_bot_42 is permanently banned.", "@spam_bot_42 is PERMANENTLY banned — do not unban."),
    ("心跳：正常", "成本警报：无"),
    ("永远不要直接推送到 main 分支", "不要在周五执行数据库迁移"),
])
def test_no_contradiction_without_the_same_subject_and_another_value(old, new):
    assert not contradicts(old, new, same_topic=True)


def test_an_explicit_move_corrects_a_topic_summary_that_names_the_old_place():
    old, new = "The user mentioned living in Berlin", "User moved to Lisbon and works in Lisbon time now"
    assert contradiction_reason(old, new, same_topic=True, old_is_summary=True) == "correction"
    assert not contradicts(old, new, same_topic=True)  # one claim against another needs the same subject
    assert not contradicts(old, "User works in Lisbon time now", same_topic=True, old_is_summary=True)  # no change marker


def test_a_key_whose_value_is_a_statement_is_no_setting():
    assert not contradicts("Dana: will review the PR tomorrow", "Dana: out sick today", same_topic=True)
    assert not contradicts("Next step: ask Dana about the budget", "Next step: ship the release notes", same_topic=True)
    assert contradicts("deploy window: Tuesday afternoon", "deploy window: Thursday afternoon", same_topic=True)


def test_a_chinese_negation_that_rules_nothing_out_is_no_rejection():
    assert extract("这不是问题，明天再看").rejected == frozenset()
    assert extract("不用担心部署").rejected == frozenset()


def test_a_statement_negated_whole_contradicts_it():
    assert contradiction_reason("User edits with vim", "User no longer edits with vim", same_topic=False) == "negation"
    assert not contradicts("User edits with vim", "User edits with vim in the terminal", same_topic=False)


def test_a_one_word_key_names_the_same_setting_only_within_one_topic():
    assert not contradicts("Bob: backend", "Bob: out sick, back Thursday", same_topic=False)
    assert contradicts("heartbeat: ok", "heartbeat: failed", same_topic=True)
    assert contradicts("backup cron: 02:00", "backup cron: 04:30", same_topic=False)


def test_a_report_of_an_event_is_not_the_statement_it_resembles():
    assert not same_claim(extract("reviewed the billing PR"), extract("Dana: will review the billing PR"), same_topic=True)


def test_a_long_unbroken_body_is_read_in_one_pass_not_once_per_character():
    """A pasted log or blob of 300,000 characters without a space: the Korean rejection pattern
    scanned from every character made this take tens of minutes (a 10 MB line hung the dream)."""
    claim = extract("x" * 300_000)
    assert claim.rejected == frozenset()


@pytest.mark.parametrize("text", ["npm 대신 pnpm을 쓴다", "npm대신 pnpm을 쓴다", "이제 npm 대신 pnpm"])
def test_a_korean_rejection_still_rules_out_the_word_before_daesin(text):
    assert extract(text).rejected == frozenset({"npm"})


def test_a_channel_or_handle_is_one_name_so_ruling_one_out_spares_its_sibling():
    assert {"ops-alerts", "ops-pager", "spam_bot_42"} <= terms("#ops-alerts or #ops-pager, @spam_bot_42")
    guard = "Alerts go to #ops-pager now, not #ops-alerts anymore"
    assert not contradicts(guard, "Alerts go to #ops-pager.", same_topic=True)
    assert same_claim(extract(guard), extract("Alerts go to #ops-pager."), same_topic=True)
    assert contradiction_reason("Alerts go to #ops-alerts.", guard, same_topic=True) is not None


@pytest.mark.parametrize("key, log", [
    ("cost today", True), ("last run", True), ("PR merged", True), ("tickets answered", True),
    ("今日成本", True), ("合并了 PR", True), ("上次运行", True), ("오늘 비용", True),
    ("preferred editor", False), ("max allowed size", False), ("last name", False), ("heartbeat", False),
    ("the release train has moved", False), ("backup time", False), ("dark mode enabled", False),
])
def test_a_key_naming_a_moment_or_an_event_is_a_log_key(key, log):
    from dreamdeck.core.claims.logs import is_log_key
    assert is_log_key(key) is log


def test_a_log_line_with_a_new_value_contradicts_nothing():
    assert contradiction_reason("cost today: $7.29", "cost today: $5.10") is None
    assert contradiction_reason("max parallel jobs: 4", "max parallel jobs: 8") == "value"


def test_a_checkbox_is_the_task_state_and_its_change_is_a_contradiction():
    open_, done = extract("- [ ] update the on-call handbook"), extract("- [x] update the on-call handbook")
    assert (open_.text, open_.state, done.state) == ("update the on-call handbook", "open", "done")
    assert contradiction_reason(open_, done) == "state"
    assert contradiction_reason(open_, extract("- [x] update the changelog")) is None
    assert not same_claim(open_, done) and not near_duplicate(open_, done)
    assert extract("To do: update the on-call handbook").state == "open"
