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
