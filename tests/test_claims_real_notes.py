"""Lines real agents keep (links, quoted chat, ticket references, Chinese reports of what was
done) read as the claims they are: no false contradiction, no link debris in a belief or slug."""
from __future__ import annotations

from dreamdeck.core.claims.cleaning import clean
from dreamdeck.core.claims.contradiction import contradicts
from dreamdeck.core.claims.extract import extract
from dreamdeck.core.claims.measures import measure
from dreamdeck.core.claims.naming import claim_slug
from dreamdeck.core.claims.sameness import same_claim
from dreamdeck.core.claims.tokens import terms, values


def test_a_link_is_a_value_never_words_of_the_claim():
    assert terms("read https://example.com/blog/postgres-vacuum and took notes") == terms("read and took notes")
    assert values("see https://grafana.acme.dev/d/api-latency") == {"https://grafana.acme.dev/d/api-latency"}


def test_a_link_is_no_key_value_line_and_two_links_do_not_contradict():
    assert extract("https://grafana.acme.dev/d/api-latency").subject is None
    assert not contradicts("https://grafana.acme.dev/d/api-latency", "[status page](https://status.acme.dev)", same_topic=True)
    assert extract("design doc: https://docs.acme.dev/search-v2").subject == {"design", "doc"}


def test_a_slug_never_carries_link_debris():
    slug = claim_slug("Links", extract("read https://example.com/blog/postgres-vacuum and took notes"), {"links"})
    assert "https" not in slug.split("-") and "com" not in slug.split("-")


def test_a_quoted_chat_line_loses_its_quote_marker():
    assert clean("> Dana: can we ship Friday?") == "Dana: can we ship Friday?"


def test_a_parenthetical_reference_is_no_part_of_the_value():
    a, b = "the CSV export timeout is back (ticket PLAT-151)", "the CSV export timeout is back (ticket PLAT-367)"
    assert not contradicts(a, b, same_topic=True)
    assert same_claim(extract(a), extract(b), same_topic=True)
    assert contradicts("heartbeat: ok", "heartbeat: failed (gateway timeout at 18:40)", same_topic=True)


def test_a_chinese_report_of_what_was_done_is_an_event_not_a_setting():
    assert extract("回复了8个工单").event and extract("2026-03-04的备份已验证").event
    assert not contradicts("回复了8个工单", "回复了11个工单", same_topic=True)
    assert not contradicts("✅ 2026-03-02的备份已验证", "✅ 2026-03-04的备份已验证", same_topic=True)
    assert not extract("用户 @spam_bot 已被永久封禁，不要解封。").event  # a state, not a report
    assert not extract("为了稳定，备份时间：04:30").event


def test_a_link_is_measured_as_a_link_not_a_time():
    assert measure("design doc: https://docs.acme.dev/search-v2").values == {("link", "https://docs.acme.dev/search-v2")}


def test_a_trailing_counter_is_bookkeeping_not_a_value():
    """A logger's running number after a line ("… (3)", "… [#12]") says which line it was, not a
    value: the same statement with another counter is the same claim, never a contradiction."""
    assert clean("User prefers pnpm over bun for this repo (3)") == "User prefers pnpm over bun for this repo"
    assert clean("部署前必须跑冒烟测试（12）") == "部署前必须跑冒烟测试"
    assert clean("Release cut is Thursday 16:00 CET [#7]") == "Release cut is Thursday 16:00 CET"
    a, b = "User prefers pnpm over bun for this repo (3)", "User prefers pnpm over bun for this repo (11)"
    assert not contradicts(a, b, same_topic=True)
    assert same_claim(extract(a), extract(b), same_topic=True)
    assert not contradicts("数据库迁移在周二晚上十点之后进行 (15)", "数据库迁移在周二晚上十点之后进行 (17)", same_topic=True)
    # what is not a counter stays: a year, a value in a key line, a changed time
    assert clean("the office opened (2019)") == "the office opened (2019)"
    assert contradicts("retry limit: 3", "retry limit: 5", same_topic=True)
    assert contradicts("Release cut is Thursday 16:00 CET (3)", "Release cut is Thursday 17:00 CET (4)", same_topic=True)


def test_a_counter_with_its_word_is_bookkeeping_too():
    """A logger's running number spelled with its word ("(note 37)", "(entry #4)", "（第37条）",
    "(第 12 条)", "(#12)") is the same bookkeeping: a week of such lines gave 'Not 37 anymore; …'
    beliefs and Chinese guards written into the sentence ('用户总不再是…')."""
    assert clean("API errors return RFC 9457 problem+json (note 37)") == "API errors return RFC 9457 problem+json"
    assert clean("Deploys go through staging first (entry #4)") == "Deploys go through staging first"
    assert clean("数据库每天凌晨三点自动备份（第36条）") == "数据库每天凌晨三点自动备份"
    assert clean("值班表每周一更新 (第 12 条)") == "值班表每周一更新"
    assert clean("Use pnpm, never bun (#12)") == "Use pnpm, never bun"
    a, b = "数据库每天凌晨三点自动备份（第30条）", "数据库每天凌晨三点自动备份（第36条）"
    assert not contradicts(a, b, same_topic=True) and same_claim(extract(a), extract(b), same_topic=True)
    a, b = "API errors return RFC 9457 problem+json (note 31)", "API errors return RFC 9457 problem+json (note 37)"
    assert not contradicts(a, b, same_topic=True) and same_claim(extract(a), extract(b), same_topic=True)
    # a value with its word stays what it says
    assert clean("the retry limit is 5 (max 8)") == "the retry limit is 5 (max 8)"
    assert clean("backups kept (30 days)") == "backups kept (30 days)"
    assert clean("see section (chapter 3)") == "see section (chapter 3)"


def test_a_question_announces_no_change():
    asked = extract('> Dana: "can we move standup to 10?"')
    assert not asked.marker and not asked.rejected
    assert not contradicts('> Dana: "can we move standup to 10?"', "standup moved to 10:00 (Dana asked)", same_topic=True)
    assert not contradicts("把早报改到七点吗？", "早报改成 07:00 了", same_topic=True)


def test_what_a_person_reported_under_their_name_is_no_setting_of_theirs():
    assert not contradicts('> Dana: "can we move standup to 10?"', "Dana: weekly report sent at 16:20", same_topic=True)
    assert not contradicts("Dana: weekly report sent at 16:20", "Dana: backups verified at 09:00", same_topic=True)
    assert extract("Dana: weekly report sent at 16:20").event


def test_a_setting_moved_twice_overturns_its_announced_move():
    # The change verb announces the move and the aside says why: neither is part of the subject.
    assert contradicts("moved the backup cron from 02:00 to 03:00 (db load at 2am)", "backup cron now at 04:30",
                       same_topic=True)
    assert contradicts("raised the API timeout to 60s", "API timeout now 90s", same_topic=True)
    assert not contradicts("keep logs 30 days", "delete logs after 45 days", same_topic=True)


def test_a_preference_restated_as_a_rule_is_one_claim():
    a = extract("Dana prefers short Slack replies — five sentences at most.")
    b = extract("Dana said: keep Slack replies short, no more than 5 sentences.")
    assert same_claim(a, b, same_topic=True) and not contradicts(a, b, same_topic=True)
    assert contradicts(a, extract("Dana wants Slack replies of three sentences at most."), same_topic=True)
    assert not same_claim(a, extract("Dana hates Slack replies of five sentences."), same_topic=True)


def test_a_time_after_an_emphasis_label_is_what_the_line_says_not_its_timestamp():
    assert clean("IMPORTANT: 22:00 is the cutoff") == "22:00 is the cutoff"
    assert clean("重要：22:00 以后不要打扰用户") == "22:00 以后不要打扰用户"
    assert clean("- 09:12 Reminder: standup moved to the big room") == "standup moved to the big room"
    assert clean("[09:12] - IMPORTANT: 10:00 deploy freeze") == "10:00 deploy freeze"


def test_a_rule_restated_with_a_short_second_sentence_is_the_same_claim_but_a_claim_after_it_is_not():
    rule = extract("never push directly to main")
    assert same_claim(extract("NEVER push to main. PRs only."), rule)
    assert not same_claim(extract("never push to release branches"), rule)
    assert not same_claim(extract("never push to main; hotfixes go through the release branch"), rule)


def test_a_new_time_for_the_backup_supersedes_whether_or_not_its_cron_is_named():
    assert contradicts("backup cron runs at 03:00", "backup now at 04:30", same_topic=True)
    assert same_claim(extract("backup cron runs at 03:00"), extract("the backup runs at 03:00"))
    assert not contradicts("backup prune runs at 05:00", "backup now at 04:30", same_topic=True)


def test_two_bans_on_other_weekdays_are_two_rules_but_a_moved_day_or_a_changed_bound_is_an_update():
    # A setting holds one day at a time; a ban can hold many.
    assert not contradicts("never deploy on Fridays", "never deploy on Mondays")
    assert not contradicts("No deploys on Friday", "No deploys on Monday")
    assert not contradicts("不要在周五部署", "不要在周一部署")
    # A change marker, a day that is a setting, or a bound under a ban still update.
    assert contradicts("never deploy on Fridays", "we now never deploy on Mondays instead")
    assert contradicts("standup on Mondays", "standup on Tuesdays")
    assert contradicts("never run more than 4 workers", "never run more than 8 workers")
    assert contradicts("never deploy after 18:00", "never deploy after 16:00")
