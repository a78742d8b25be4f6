"""core.secrets: the credential families TypeClaw's `detectSecrets` refuses, and redaction."""
from __future__ import annotations

import pytest

from dreamdeck.core.formats.secrets import SECRET_PATTERNS, detect_secrets, redact_secrets

# Built from parts so no literal credential-shaped string sits in the repository.
SAMPLES = {
    "github token": "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "anthropic key": "sk-ant-" + "api03-" + "x" * 30,
    "openai key": "sk-" + "proj-" + "Ab1" * 10,
    "slack token": "xoxb-" + "1234567890-abcdefghij",
    "aws access key": "AKIA" + "IOSFODNN7EXAMPLE",
    "google api key": "AIza" + "S" * 35,
    "stripe key": "sk_" + "live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "private key": "-----BEGIN " + "RSA PRIVATE KEY-----",
}


def test_every_family_has_a_sample():
    assert set(SAMPLES) == set(SECRET_PATTERNS)


@pytest.mark.parametrize("family", sorted(SAMPLES))
def test_each_family_is_detected_inside_prose(family):
    text = f"the value is {SAMPLES[family]} and that's it"
    (found,) = detect_secrets(text)
    assert found.family == family
    assert text[found.start:found.end] == SAMPLES[family]


def test_more_github_token_shapes_are_detected():
    for token in ("gho_" + "a" * 36, "ghs_" + "b" * 40, "github_pat_" + "c" * 30):
        assert [f.family for f in detect_secrets(token)] == ["github token"]


def test_an_openssh_private_key_header_is_detected():
    assert [f.family for f in detect_secrets("-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn")] == ["private key"]
    assert [f.family for f in detect_secrets("-----BEGIN PRIVATE KEY-----")] == ["private key"]


@pytest.mark.parametrize(
    "text",
    [
        "use pnpm, not bun",
        "sk-short",
        "task-ant-colony is a project name",
        "ghp_tooShort",
        "AKIA lowercase akiaiosfodnn7example",
        "-----BEGIN PUBLIC KEY-----",
        "-----BEGIN CERTIFICATE-----",
        "xoxb-short",
        "pk_test_short",
        "streams/2026-05-21#019ef1a2-0c11-7a3b-8d2e-5f4c3b2a1908",
        "",
    ],
)
def test_ordinary_text_is_not_a_secret(text):
    assert detect_secrets(text) == []


def test_an_anthropic_key_is_not_also_reported_as_an_openai_key():
    assert [f.family for f in detect_secrets(SAMPLES["anthropic key"])] == ["anthropic key"]


def test_findings_are_in_order_of_appearance():
    text = f"{SAMPLES['aws access key']} then {SAMPLES['github token']} then {SAMPLES['slack token']}"
    assert [f.family for f in detect_secrets(text)] == ["aws access key", "github token", "slack token"]


def test_redaction_replaces_each_secret_with_its_family():
    text = f"key={SAMPLES['github token']}; aws={SAMPLES['aws access key']}."
    assert redact_secrets(text) == "key=[REDACTED:github token]; aws=[REDACTED:aws access key]."


def test_redaction_leaves_text_without_secrets_unchanged():
    text = "배포는 금요일에 하지 않는다 🚫\nline two"
    assert redact_secrets(text) == text


def test_redacted_text_has_no_secret_left():
    text = " ".join(SAMPLES.values())
    redacted = redact_secrets(text)
    assert detect_secrets(redacted) == []
    for value in SAMPLES.values():
        assert value not in redacted


def test_overlapping_matches_are_redacted_once():
    # A google-shaped key with an aws-shaped key inside it: one marker, nothing leaks.
    google = "AIza" + "-" + SAMPLES["aws access key"] + "-" + "x" * 13
    text = f"x {google} y"
    assert [f.family for f in detect_secrets(text)] == ["google api key", "aws access key"]
    assert redact_secrets(text) == "x [REDACTED:google api key] y"
