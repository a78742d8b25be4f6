"""Readable names for Chinese headings (issue 11): Han text is named in full pinyin (pypinyin,
imported only when Han text is named), within TypeClaw's slug rule and MAX_SLUG, and a claim's
hash is added only where two claims would otherwise share a name."""
from __future__ import annotations

import subprocess
import sys

import pytest

from dreamdeck.core.claims.extract import extract
from dreamdeck.core.claims.naming import MAX_NAME, claim_slug
from dreamdeck.core.formats.slugs import MAX_SLUG, SLUG_REGEX


@pytest.mark.parametrize(("heading", "slug"), [
    ("心跳", "xintiao"),
    ("用户偏好使用飞书通知", "yonghu-pianhao-shiyong-feishu-tongzhi"),  # word by word, not one 33-letter run
    ("1. 今日工作", "jinri-gongzuo"),
    ("每日站会时间", "meiri-zhanhui-shijian"),
    ("银行", "yinhang"),  # a phrase's reading, not each character's most common one ("yinxing")
    ("绿色", "lvse"),
    ("Deploy 部署", "deploy-bushu"),
])
def test_a_chinese_heading_is_named_in_full_pinyin(heading, slug):
    assert claim_slug(heading, extract("x")) == slug


def test_a_long_chinese_heading_stays_within_typeclaws_slug_rule():
    slug = claim_slug("这是一个非常非常长的中文标题用来测试名字的长度限制是否仍然有效而且不会超过", extract("x"))
    assert SLUG_REGEX.fullmatch(slug) and len(slug) <= MAX_SLUG
    assert slug.startswith("zheshi-yige")


def test_a_chinese_claims_slug_is_at_most_forty_characters_cut_at_a_word():
    taken = {"jinri-gongzuo"}
    slug = claim_slug("今日工作", extract("修复了登录页面在移动端偶尔白屏的问题，原因是缓存策略配置错误"), taken)
    assert slug == "jinri-gongzuo-xiufu-denglu-yemian-yidong"  # 40 characters, six words
    slug = claim_slug("用户偏好与沟通习惯", extract("用户偏好使用飞书通知而不是邮件，周末不要打扰"), {"yonghu-pianhao-goutong-xiguan"})
    assert len(slug) <= MAX_NAME and not slug.endswith("-") and slug.startswith("yonghu-pianhao-goutong-xiguan-")


def test_grammar_characters_never_shift_how_han_characters_are_paired():
    assert claim_slug("x", extract("x"), set()) == "x"
    assert claim_slug("和产品经理讨论了下个版本的需求", extract("x")) == "chanpin-jingli-taolun-xiage-banben-xuqiu"


def test_two_chinese_claims_that_would_share_a_name_get_the_hash_only_then():
    first = claim_slug("心跳", extract("心跳：正常"))
    second = claim_slug("心跳", extract("心跳：正常"), {first})
    assert first == "xintiao"
    assert second.startswith("xintiao-") and second != first and SLUG_REGEX.fullmatch(second)
    third = claim_slug("心跳", extract("检查了网关"), {first, second})
    assert third not in (first, second) and SLUG_REGEX.fullmatch(third)


def test_pinyin_is_imported_only_when_han_text_is_named():
    code = ("import sys\nfrom dreamdeck.core.claims.naming import claim_slug\nfrom dreamdeck.core.claims.extract import extract\n"
            "claim_slug('Deploy process', extract('deploys on Fridays'))\nassert 'pypinyin' not in sys.modules\n"
            "claim_slug('心跳', extract('正常'))\nassert 'pypinyin' in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(("text", "slug"), [
    ('me: "sure, I\'ll update the invite"', "work-log-sure-update-invite"),
    ("we're moving the standup, don't panic", "work-log-2"),
])
def test_a_contraction_leaves_no_debris_in_a_slug(text, slug):
    assert claim_slug("Work log", extract(text), {"work-log"}) == slug


def test_a_claim_that_opens_with_its_topic_label_does_not_name_it_twice():
    slug = claim_slug("用户偏好", extract("用户偏好用微信语音，不喜欢长文字"), {"yonghu-pianhao"})
    assert slug.startswith("yonghu-pianhao-") and slug.count("yonghu-pianhao") == 1


def test_a_topic_label_with_terminal_control_sequences_names_its_shard_by_its_words_alone():
    assert claim_slug("\x1b[1mbold evil\x1b[31m red\x1b[0m", extract("x")) == "bold-evil-red"
