"""Secret detection and redaction: the same families TypeClaw's `detectSecrets` refuses.

A fragment carrying a credential is refused on ingest; any text bound for an LLM is
redacted first, so a secret that slipped in by hand never leaves the machine.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# One pattern per family; names appear in refusal messages (never the secret itself).
SECRET_PATTERNS: dict[str, re.Pattern[str]] = {
    "github token": re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
    "anthropic key": re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
    "openai key": re.compile(r"\bsk-(?!ant-)(?:proj-|svcacct-)?[A-Za-z0-9_\-]{20,}"),
    "slack token": re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    "aws access key": re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    "google api key": re.compile(r"\bAIza[0-9A-Za-z_\-]{35}"),
    "stripe key": re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}"),
    "private key": re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----"),
}

REDACTED = "[REDACTED:{family}]"


@dataclass(frozen=True)
class SecretFinding:
    family: str
    start: int
    end: int


def detect_secrets(text: str) -> list[SecretFinding]:
    """Every credential-shaped span in `text`, in order of appearance."""
    found = [
        SecretFinding(family, m.start(), m.end())
        for family, pattern in SECRET_PATTERNS.items()
        for m in pattern.finditer(text)
    ]
    return sorted(found, key=lambda f: (f.start, f.end))


def redact_secrets(text: str) -> str:
    """`text` with each secret replaced by a marker naming its family."""
    out: list[str] = []
    pos = 0
    for finding in detect_secrets(text):
        if finding.start < pos:  # overlapping matches of two families: first one wins
            continue
        out.append(text[pos:finding.start])
        out.append(REDACTED.format(family=finding.family))
        pos = finding.end
    out.append(text[pos:])
    return "".join(out)
