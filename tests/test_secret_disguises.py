"""Issue 10 item 12, disguised: a key written so a literal pattern does not see it.

Fullwidth letters (what an IME or a copy from a CJK page gives), a zero-width joiner, space or
soft hyphen inside the key (invisible when shown, kept by a copy), and the key encoded in base64
(a config blob, a Kubernetes secret): each is still the key, so each is refused on ingest and
redacted before an LLM sees it; the redaction covers the disguise whole. Text that only looks
unusual (CJK notes, fullwidth punctuation, base64 of plain words) stays untouched.
"""
from __future__ import annotations

import base64
import subprocess
import sys

import pytest

from dreamdeck.core.formats.secrets import detect_secrets, redact_secrets, secret_families

AWS = "AK" + "IA" + "Q3EGRT7YH4M2KX5W"
GH = "gh" + "p_" + "aB3dE5gH7jK9mN1pQ2sT4vW6yZ8aB3dE5gH7"
SK_ANT = "sk-" + "ant-api03-" + "aB3dE5gH7jK9mN1pQ2sT4vW6yZ8aB3dE5gH7jK9m"


def fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


DISGUISES = [
    ("fullwidth aws key", f"the key is {fullwidth(AWS)} for prod", fullwidth(AWS), "aws access key"),
    ("fullwidth github token", f"token {fullwidth(GH)}", fullwidth(GH), "github token"),
    ("zero-width joiner inside an aws key", f"key {AWS[:4]}\u200d{AWS[4:]} ok", AWS[4:], "aws access key"),
    ("zero-width space inside a github token", f"{GH[:3]}\u200b{GH[3:]}", GH[3:], "github token"),
    ("soft hyphen inside an anthropic key", f"use {SK_ANT[:10]}\u00ad{SK_ANT[10:]} now", SK_ANT[10:], "anthropic key"),
    ("word joiners between every character", "\u2060".join(AWS), "\u2060".join(AWS)[8:], "aws access key"),
    ("base64 of an aws key", f"AWS_BLOB: {b64(AWS)}", b64(AWS), "aws access key"),
    ("base64 of a github token", f"data {b64(GH)} end", b64(GH), "github token"),
    ("base64 of a password assignment", f"cfg={b64('password=Tr0ub4dor&3xK9q')}", b64("password=Tr0ub4dor&3xK9q"),
     "secret assignment"),
    ("base64url of an anthropic key without padding", base64.urlsafe_b64encode(SK_ANT.encode()).decode().rstrip("="),
     base64.urlsafe_b64encode(SK_ANT.encode()).decode().rstrip("=")[:30], "anthropic key"),
]

UNUSUAL_BUT_ORDINARY = [
    "用户更喜欢使用 pnpm 而不是 npm。",
    "ＣＰＵ使用率は８０％です（ピーク時）",
    "the deploy window：Ｔｕｅｓｄａｙ　１４：００",
    "a\u200dfamily emoji 👨\u200d👩\u200d👧 and a soft\u00adhyphen",
    "aGVsbG8gd29ybGQ= is hello world in base64",
    b64("the user prefers tea over coffee in the morning"),
    "integrity sha512-Ab3dE5gH7jK9mN1pQ2sT4vW6yZ8aB3dE5gH7jK9mN1pQ2sT4vW6yZ8aB3dE5gH7jK9mN1pQ2sT4vW6yZ8Q==",
]


@pytest.mark.parametrize("name, text, secret, family", DISGUISES, ids=[d[0] for d in DISGUISES])
def test_a_disguised_key_is_detected_and_redacted_whole(name, text, secret, family):
    assert_found_and_redacted_whole(name, text, secret, family)


def assert_found_and_redacted_whole(name: str, text: str, secret: str, family: str) -> None:
    assert family in secret_families(text), name
    redacted = redact_secrets(text)
    assert secret not in redacted
    assert f"[REDACTED:{family}]" in redacted
    assert detect_secrets(redacted) == []


@pytest.mark.parametrize("text", UNUSUAL_BUT_ORDINARY)
def test_unusual_but_ordinary_text_is_not_a_secret(text):
    assert detect_secrets(text) == []
    assert redact_secrets(text) == text


def test_the_span_of_a_disguised_key_is_in_the_original_text():
    text = f"x {fullwidth(AWS)} y"
    [finding] = detect_secrets(text)
    assert text[finding.start:finding.end] == fullwidth(AWS)


def test_remember_refuses_a_fullwidth_key_and_a_base64_key_and_writes_nothing(agent_dir):
    stream = agent_dir / "memory" / "streams" / "2026-05-22.jsonl"
    for body in (f"prod key {fullwidth(AWS)}", f"prod key {b64(GH)}", f"prod key {AWS[:4]}\u200d{AWS[4:]}"):
        proc = subprocess.run([sys.executable, "-m", "dreamdeck", "-w", str(agent_dir), "--today", "2026-05-22",
                               "remember", "--topic", "deploy", body], capture_output=True, text=True)
        assert proc.returncode == 2 and "contains a secret" in proc.stderr, proc.stderr
    assert not stream.exists()


# Look-alike letters of another script, keys spelled out with spaces, hex and %-encoding.
_CYRILLIC = str.maketrans("AKIEOPCXHMTBaeopcxy", "АКІЕОРСХНМТВаеорсху")
_GREEK = str.maketrans("AKIEOPXHMTBZNYo", "ΑΚΙΕΟΡΧΗΜΤΒΖΝΥο")
SK_PROJ = "sk-" + "proj-" + "aB3dE5gH7jK9mN1pQ2sT4vW6yZ8"

DISGUISES_MORE = [
    ("cyrillic look-alikes in an aws key", f"key {AWS.translate(_CYRILLIC)} ok", AWS.translate(_CYRILLIC), "aws access key"),
    ("greek look-alikes in an aws key", f"key {AWS.translate(_GREEK)} ok", AWS.translate(_GREEK), "aws access key"),
    ("a cyrillic p in a github token's prefix", f"t {GH[:3].translate(_CYRILLIC)}{GH[3:]} t",
     GH[3:], "github token"),
    ("cyrillic look-alikes in an openai key", f"use {SK_PROJ.translate(_CYRILLIC)}", SK_PROJ[6:], "openai key"),
    ("a github token spelled out with spaces", f"token: {' '.join(GH)} thanks", " ".join(GH), "github token"),
    ("an aws key spelled out with spaces", f"the key is {' '.join(AWS)}.", " ".join(AWS), "aws access key"),
    ("a hex-encoded aws key", f"blob {AWS.encode().hex()} end", AWS.encode().hex(), "aws access key"),
    ("an upper-case hex-encoded github token", f"x={GH.encode().hex().upper()}", GH.encode().hex().upper(),
     "github token"),
    ("a %-encoded github token", f"https://example.com/cb?t={''.join(f'%{b:02X}' for b in GH.encode())}",
     "".join(f"%{b:02X}" for b in GH.encode()), "github token"),
    ("a partly %-encoded openai key", f"q=sk%2D{SK_PROJ[3:]}", SK_PROJ[8:], "openai key"),
]

ORDINARY_MORE = [
    "commit 3f5e2a9c1b7d4e6f8a0b2c4d6e8f0a1b3c5d7e9f fixed the flaky test",
    "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 of the release tarball",
    "Сергей предпочитает чай, а Анна — кофе; встреча в среду в 14:00.",
    "Η ομάδα ΚΑΙ ο πελάτης συμφώνησαν στην ΑΠΟΦΑΣΗ για την Τρίτη.",
    "사용자는 아침에 차를 마시는 것을 좋아합니다. 회의는 화요일입니다.",
    "数据库迁移到法兰克福，周二上线。用户喜欢用 pnpm。",
    "the answer is a b c d e f g h i j k l m n o p q r s t",
    "search?q=caf%C3%A9%20near%20the%20station%20open%20late",
    "uuid 019e4d44-9200-7f80-8f80-000000124f80 and 0x7fffffffffffffff",
]


@pytest.mark.parametrize("name, text, secret, family", DISGUISES_MORE, ids=[d[0] for d in DISGUISES_MORE])
def test_a_key_in_look_alike_letters_spaced_out_or_hex_or_percent_encoded_is_found_and_redacted(
        name, text, secret, family):
    assert_found_and_redacted_whole(name, text, secret, family)


@pytest.mark.parametrize("text", ORDINARY_MORE)
def test_hashes_prose_in_other_scripts_and_ordinary_encodings_are_not_secrets(text):
    assert detect_secrets(text) == []
    assert redact_secrets(text) == text
