"""A claim with a measured value (a quantity, a time, a duration): the same subject with the
same value is one claim, with another value of the same kind a contradiction, and opposite
verbs, sibling bullets and table rows about different subjects are neither."""
from __future__ import annotations

import pytest

from dreamdeck.core.claims.contradiction import contradiction_reason, contradicts
from dreamdeck.core.claims.extract import extract
from dreamdeck.core.claims.measures import measure
from dreamdeck.core.claims.sameness import same_claim
from dreamdeck.core.claims.tokens import terms, values


def test_number_words_are_values_never_terms():
    assert values("Keep Slack replies under five sentences") == {"5"}
    assert "fiv" not in terms("Keep Slack replies under five sentences")
    assert values("每天最多回复五条消息") == {"5条"}


def test_a_measured_claim_names_its_subject_and_its_value():
    m = measure("Keep Slack replies under five sentences.")
    assert m is not None and m.subject == {"slack", "reply"}
    assert m.values == {("count:sentenc", "5")}
    assert measure("keep logs 30 days").values == measure("logs: 720 hours").values == {("duration", "2592000")}
    assert measure("Never push directly to main.") is None


@pytest.mark.parametrize(("a", "b"), [
    ("Keep Slack replies under five sentences.", "Slack replies stay short: five sentences at most."),
    ("Keep replies in Slack under five sentences.", "Slack replies stay short: five sentences at most."),
    ("keep logs 30 days", "logs: 30 days"),
    ("API timeout: 60s", "the API timeout stays at 60 seconds"),
    ("Slack 回复不超过五句", "Slack 回复最多五句"),
    ("슬랙 답장은 5문장 이내", "슬랙 답장: 최대 5문장"),
])
def test_the_same_subject_with_the_same_value_is_one_claim(a, b):
    assert same_claim(extract(a), extract(b))
    assert same_claim(extract(b), extract(a))
    assert not contradicts(a, b, same_topic=False)


@pytest.mark.parametrize(("old", "new"), [
    ("Keep Slack replies under five sentences.", "Slack replies stay short: three sentences at most."),
    ("keep logs 30 days", "keep logs 90 days"),
    ("API timeout: 60s", "the API timeout stays at 2 minutes"),
    ("Slack 回复不超过五句", "Slack 回复最多三句"),
    ("슬랙 답장은 5문장 이내", "슬랙 답장: 최대 3문장"),
])
def test_the_same_subject_with_another_value_of_the_same_kind_contradicts(old, new):
    assert contradiction_reason(old, new, same_topic=False) == "value"
    assert not same_claim(extract(old), extract(new), same_topic=True)


@pytest.mark.parametrize(("a", "b"), [
    ("keep logs 30 days", "delete logs after 30 days"),  # opposite verbs
    ("Keep logs for 30 days.", "Purge logs after 30 days."),
    ("日志保留30天", "日志30天后删除"),
    ("로그는 30일 보관", "로그는 30일 후 삭제"),
    ("Alice: 3 PRs open", "Bob: 3 PRs open"),  # sibling bullets
    ("| api | 30s |", "| worker | 30s |"),  # sibling table rows
    ("api timeout: 30s", "db timeout: 30s"),
    ("小王：3个PR", "小李：3个PR"),
    ("지수: 3개 PR", "민호: 3개 PR"),
    ("keep logs 30 days", "keep logs 30 MB"),  # another kind of value
])
def test_opposite_verbs_and_siblings_are_neither_the_same_claim_nor_a_contradiction(a, b):
    assert not same_claim(extract(a), extract(b), same_topic=True)
    assert not contradicts(a, b, same_topic=True)
    assert not contradicts(b, a, same_topic=True)


def test_reports_of_events_with_numbers_stay_observations():
    assert not contradicts("Answered 12 support tickets.", "Answered seven support tickets.", same_topic=True)
    assert not same_claim(extract("Answered 12 support tickets."), extract("Answered seven support tickets."))


def test_a_value_that_refines_the_other_is_the_same_claim():
    assert not contradicts("Project deadline is March 15", "Project deadline is March 15, 2026", same_topic=True)
    assert same_claim(extract("Project deadline is March 15"), extract("Project deadline is March 15, 2026"))


def test_a_key_given_another_kind_of_value_is_still_a_new_value_for_that_setting():
    assert contradiction_reason("deploy window: Tuesday", "deploy window: 14:00", same_topic=True) == "value"
    assert contradiction_reason("parallel jobs: 45 jobs", "parallel jobs: 150s", same_topic=True) == "value"


def test_a_value_the_claim_rules_out_is_none_of_its_values():
    guard = "Parallel jobs is not 40 jobs anymore; parallel jobs: 196s"
    assert contradiction_reason(guard, "parallel jobs: 40 jobs", same_topic=True) == "value"
    assert not same_claim(extract(guard), extract("parallel jobs: 40 jobs"), same_topic=True)
    assert measure("daily report goes out at 09:00 instead of 08:00", frozenset({"08:00"})).values == {("time", "09:00")}
