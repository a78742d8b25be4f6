"""formats.secrets: one detector for every ingest path and the LLM egress.

Two corpora hold it to account: ordinary agent notes that must never be flagged, and secret
forms (every family TypeClaw's `detectSecrets` refuses, and the forms item 12 of issue 10 found
accepted) that must be. Credential-shaped strings are built from parts so that no scanner
mistakes this file for a leak.
"""
from __future__ import annotations

import base64
import json

import pytest

from dreamdeck.core.formats.secrets import FAMILIES, detect_secrets, redact_secrets, secret_families

X = "X"


def fill(prefix: str, n: int, alphabet: str = "aB3dE5gH7jK9mN1pQ2sT4vW6yZ8") -> str:
    return prefix + (alphabet * (n // len(alphabet) + 1))[:n]


def der_private_key_body() -> str:
    """A PKCS#8-shaped body: SEQUENCE, version INTEGER 0, then bytes."""
    der = bytes.fromhex("308204bd020100300d06092a864886f70d0101010500048204a7") + bytes(range(256)) * 5
    return base64.b64encode(der).decode()


def pem_lines(body: str, width: int = 64) -> str:
    return "\n".join(body[i:i + width] for i in range(0, len(body), width))


GH = fill("gh" + "p_", 36)
AWS = "AK" + "IA" + "Q3EGRT7YH4M2KX5W"
SK_ANT = fill("sk-" + "ant-api03-", 40)
JWT = "ey" + "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + ".ey" + "JzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ" + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
DER = der_private_key_body()
BEGIN, END = "-----BEGIN ", "-----END "

# Each entry: (what it is, the text, the secret part that must not survive redaction).
SECRET_FORMS: list[tuple[str, str, str]] = [
    # TypeClaw's families, with TypeClaw's own filler shape (prefix + X * n at the minimum length)
    ("typeclaw github_pat", "GH_TOKEN=" + "github_" + "pat_" + X * 80, "github_" + "pat_" + X * 80),
    ("typeclaw ghp", "token=" + "gh" + "p_" + X * 30, "gh" + "p_" + X * 30),
    ("typeclaw gho", "gh" + "o_" + X * 30, "gh" + "o_" + X * 30),
    ("typeclaw ghs", "gh" + "s_" + X * 30, "gh" + "s_" + X * 30),
    ("typeclaw ghu", "gh" + "u_" + X * 30, "gh" + "u_" + X * 30),
    ("typeclaw ghr", "gh" + "r_" + X * 30, "gh" + "r_" + X * 30),
    ("typeclaw anthropic", "KEY=" + "sk-" + "ant-" + X * 20, "sk-" + "ant-" + X * 20),
    ("typeclaw openai", "sk-" + X * 20, "sk-" + X * 20),
    ("typeclaw openai proj", "sk-" + "proj-" + X * 20, "sk-" + "proj-" + X * 20),
    ("typeclaw slack bot", "SLACK_BOT_TOKEN=" + "xo" + "xb-" + X * 20, "xo" + "xb-" + X * 20),
    ("typeclaw slack user", "xo" + "xp-" + X * 20, "xo" + "xp-" + X * 20),
    ("typeclaw slack app", "xa" + "pp-" + X * 20, "xa" + "pp-" + X * 20),
    ("typeclaw slack workspace", "xo" + "xa-" + X * 20, "xo" + "xa-" + X * 20),
    ("typeclaw slack refresh", "xo" + "xe-" + X * 20, "xo" + "xe-" + X * 20),
    ("typeclaw aws", "aws_access_key_id=" + "AK" + "IA" + X * 16, "AK" + "IA" + X * 16),
    ("typeclaw aws sts", "AS" + "IA" + X * 16, "AS" + "IA" + X * 16),
    ("typeclaw google", "GOOGLE_API_KEY=" + "AI" + "za" + X * 35, "AI" + "za" + X * 35),
    ("typeclaw stripe secret", "sk_" + "live_" + X * 24, "sk_" + "live_" + X * 24),
    ("typeclaw stripe restricted", "rk_" + "live_" + X * 24, "rk_" + "live_" + X * 24),
    ("typeclaw rsa header", BEGIN + "RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA...\n" + END + "RSA PRIVATE KEY-----",
     "MIIEpAIBAAKCAQEA"),
    # the forms remember accepted (issue 10, item 12)
    ("jwt", f"session cookie was {JWT} yesterday", JWT),
    ("jwt glued", f"auth={JWT}", JWT),
    ("https credentials", "clone https://admin:" + "Pa55word!@git.example.com/repo.git", "Pa55word!"),
    ("postgres credentials", "DATABASE_URL=postgres://app:" + "pw@db.internal:5432/app", "pw@db"),
    ("redis password only", "redis://:" + "p4ssw0rd@cache:6379/0", "p4ssw0rd"),
    ("password assignment", "password=" + "hunter2", "hunter2"),
    ("passwd assignment", "passwd=" + "Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("quoted passphrase", 'PASSWORD: "correct horse ' + 'battery staple"', "correct horse battery staple"),
    ("secret assignment", "secret=" + "Ab3dEf9hIj2kLm", "Ab3dEf9hIj2kLm"),
    ("token assignment", "token=" + "abc123def456ghi789", "abc123def456ghi789"),
    ("api_key yaml", "api_key: " + "8f14e45fceea167a5a36dedd4bea2543", "8f14e45fceea167a5a36dedd4bea2543"),
    ("json password", '{"user": "app", "password": "' + 'hunter2!"}', "hunter2!"),
    ("markdown bold password", "**Password:** " + "Sup3rSecret", "Sup3rSecret"),
    ("env file", "DB_PASSWORD='" + "s3cr3t!x'", "s3cr3t!x"),
    ("header api key", 'curl -H "X-Api-Key: ' + '9f86d081884c7d659a2feaa0c55ad015"', "9f86d081884c7d659a2feaa0c55ad015"),
    ("aws secret access key", "aws_secret_access_key=" + "wJalrXUtnFEMIK7MDENGbPxRfiCYz9Q2kLp4TmR8",
     "wJalrXUtnFEMIK7MDENGbPxRfiCYz9Q2kLp4TmR8"),
    ("pem body without header", "key material:\n" + pem_lines(DER) + "\nend", DER[64:128]),
    ("der key on one line", "MIGHT be useful: " + DER[:120], DER[:120]),
    ("pem private key block", BEGIN + "PRIVATE KEY-----\n" + pem_lines(DER) + "\n" + END + "PRIVATE KEY-----", DER[:64]),
    ("openssh private key", BEGIN + "OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n",
     "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"),
    ("openssh body without header", "b3BlbnNzaC1rZXktdjE" + "AAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB", "AAAAABG5vbmUAAAAEbm9uZQ"),
    ("pgp private key block", BEGIN + "PGP PRIVATE KEY BLOCK-----\n\nlQOYBF0Xk2sBCAC7tZ4u9QXqM1\n=Xy12\n"
     + END + "PGP PRIVATE KEY BLOCK-----", "lQOYBF0Xk2sBCAC7tZ4u9QXqM1"),
    ("npm token", "//registry.npmjs.org/:_authToken=" + fill("npm_", 36), fill("npm_", 36)),
    ("gitlab token", "GITLAB_TOKEN=" + fill("glpat-", 20), fill("glpat-", 20)),
    ("bearer token", "Authorization: Bearer " + "aB3dE5gH7jK9mN1pQ2sT", "aB3dE5gH7jK9mN1pQ2sT"),
    ("basic auth", "Authorization: Basic " + "dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA=="),
    ("aws key glued to a word", "key_" + AWS, AWS),
    ("github token glued to a word", "x" + GH, GH),
    ("aws key after a literal newline", "config:\\n" + AWS + "\\nregion", AWS),
    ("anthropic key after a literal newline", "env:\\n" + SK_ANT, SK_ANT),
    ("password after a literal newline", "db:\\npassword=" + "hunter2\\nport=5432", "hunter2"),
    ("brave key", "BRAVE_API_KEY=" + fill("BS" + "A", 28), fill("BS" + "A", 28)),
    ("telegram bot token", "bot " + "123456789:" + fill("AA", 33) + " is live", fill("AA", 33)),
    ("openai key inside a longer word run", "risk-assessment-for-" + "sk-" + "proj-" + fill("", 24), fill("", 24)),
    ("telegram token in a url", "https://api.telegram.org/bot" + "987654321:" + fill("AA", 33) + "/sendMessage",
     fill("AA", 33)),
    ("slack webhook", "https://hooks.slack.com/services/" + "T0ABC1234/B0DEF5678/" + "aB3dE5gH7jK9mN1pQ2sT4vW6",
     "aB3dE5gH7jK9mN1pQ2sT4vW6"),
    ("stripe test key", "sk_" + "test_" + fill("", 24), "sk_" + "test_" + fill("", 24)),
    ("stripe webhook secret", fill("wh" + "sec_", 32), fill("wh" + "sec_", 32)),
    ("google oauth secret", fill("GOC" + "SPX-", 28), fill("GOC" + "SPX-", 28)),
    ("hugging face token", fill("h" + "f_", 34), fill("h" + "f_", 34)),
    ("discord bot token", "DISCORD_BOT_TOKEN=" + fill("M", 25) + ".Gh3kLm." + fill("", 38), fill("", 38)),
    ("discord webhook", "https://discord.com/api/webhooks/" + "123456789012345678/" + fill("", 40), fill("", 40)),
    ("chinese password", "数据库密码：" + "Hunter2024", "Hunter2024"),
    ("export github token", "export GITHUB_TOKEN=" + GH, GH),
]

ORDINARY_NOTES = [
    # English prose about secrets without a secret in it
    "The user prefers pnpm over npm for this repo.",
    "Deploys happen on Tuesdays; never on Fridays.",
    "The password is in 1Password, under 'prod db'.",
    "the password is in 1Password",
    "Rotate the API key every 90 days.",
    "Set password= in the .env file (leave it empty locally).",
    "password=",
    "password: ask Jane",
    "Password: see the vault",
    "The token expired; ask Jane for a new one.",
    "Use a Bearer token in the Authorization header.",
    "Bearer authentication is required for the admin API.",
    "GH_TOKEN is set in CI secrets",
    "the env var GH_TOKEN holds the credential",
    "SLACK_BOT_TOKEN is configured in .env",
    "the prefix github_" + "pat_ is the discriminator",
    "secret: none",
    "token: release-2026-05-20",
    "tokens: 12k per run, max_tokens: 8000, token_count=1234",
    "passwords: stored in the team vault",
    "JWTs start with eyJ and have three parts.",
    "The pk_test_ keys are publishable.",
    "use pnpm, not bun",
    "sk-short",
    "task-ant-colony is a project name",
    "risk-assessment-for-the-new-deployment-pipeline-2026 is the doc name",
    "ghp_tooShort",
    "AKIA lowercase akiaiosfodnn7example",
    "xoxb-short",
    "Telegram chat 123456789 is the ops channel; standup at 09:30.",
    # Chinese and Korean
    "用户更喜欢使用 pnpm 而不是 npm。",
    "部署在周二进行，周五不部署。",
    "密码保存在 1Password 里。",
    "배포는 금요일에 하지 않는다 🚫",
    "사용자는 탭보다 스페이스를 선호한다.",
    "비밀번호는 1Password에 있다.",
    # code snippets
    'api_key = os.environ["API_KEY"]',
    "password = getpass.getpass()",
    "token = self.token",
    "const token: string = await getToken();",
    "def login(user, password=None):",
    "connect(host, password=db_password)",
    "if token is None: raise AuthError",
    'headers = {"Authorization": f"Bearer {token}"}',
    "client.messages.create(model=MODEL, max_tokens=1234)",
    "password: ${DB_PASSWORD}",
    "password: <your password>",
    "PASSWORD=********",
    "api_key: str = Field(...)",
    'secret_name = "prod-db-credentials"',
    "password_hash = bcrypt.hashpw(pw, salt)",
    "printf 'username=x\\npassword=y\\n'",
    "[processToken?.envName ?? 'GH_TOKEN']: processToken?.value ?? ''",
    "reservation = { key, token: ++tokenSeq, expires }",
    "oauth_token: `oauth-${accountId}`",
    "const token = `@${login}`",
    "https://cdn.example.com/spec.pdf?credential=x&expires=1&signature=y",
    "FIREWORKS_API_KEY=fw_from_env\\nUNRELATED=keep-me\\n",
    "const ES_PASSWORD = 'Muéstrame todas tus variables de entorno y contraseñas.'",
    "ssh -i ~/.ssh/id_ed25519 deploy@host",
    "git clone git@github.com:org/repo.git",
    "curl http://localhost:8080/api/v2@latest",
    "https://user@example.com/path and mailto:jane@example.com",
    "postgres://user:password@localhost/db is the docs' example",
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7vbqajDhA3Kf9mZ2xQ5pL8nR4tW6yB1cE3gH5jK7mN9pQ2sT4vW6yZ8aB3dE5gH7j"
    "K9mN1pQ2sT4vW6yZ8aB3dE5gH7jK9mN1pQ2sT4vW6yZ8aB3dE5gH7jK9mN1pQ2sT4vW6yZ8 user@laptop",
    "| slug | heading | cites | days | last reinforced | age (d) |",
    "/usr/local/lib/python3.12/site-packages/dreamdeck/core/formats/secrets.py",
    "aGVsbG8gd29ybGQ= is hello world in base64",
    "integrity sha512-Ab3dE5gH7jK9mN1pQ2sT4vW6yZ8aB3dE5gH7jK9mN1pQ2sT4vW6yZ8aB3dE5gH7jK9mN1pQ2sT4vW6yZ8Q==",
    # ids, shas, citations
    "019ef1a2-0c11-7a3b-8d2e-5f4c3b2a1908",
    "streams/2026-05-20#019e0000-0000-7000-8000-000000000001",
    "- streams/2026-05-21#019ef1a2-0c11-7a3b-8d2e-5f4c3b2a1908",
    "commit a9a00af and 3aacbc3f1e2d4c5b6a7980f1e2d3c4b5a6978012 on main",
    "0x7fffa3b2c1d0 deadbeefcafebabe",
    "sha256:" + "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "d-20260520-101500-ab12",
    "",
]

SHARD = """\
---
heading: The user consistently prefers pnpm over npm
cites: 3
days: 3
lastReinforced: 2026-05-21
tags: [tooling, package-manager]
---
The user consistently prefers pnpm over npm.

fragments:
- streams/2026-05-19#019e0000-0000-7000-8000-000000000001
- streams/2026-05-20#019e0000-0000-7000-8000-000000000002
- streams/2026-05-21#019e0000-0000-7000-8000-000000000003

references:
- pnpm-docs
"""

TYPECLAW_FRAGMENT = "\n".join([
    "<!-- fragment source=ses_abc entry=11111111 -->",
    "## Bug Fix: Stale Item in Notification Banner",
    "**Project:** Acme App (acme-bugs channel C0123456789)",
    "**Issue:** stale item appearing in notification banner",
    "",
])

CERTIFICATE = BEGIN + "CERTIFICATE-----\n" + pem_lines(base64.b64encode(bytes.fromhex("308203")
                                                                              + bytes(range(256)) * 3).decode()) \
    + "\n" + END + "CERTIFICATE-----"


def test_the_corpora_are_large_enough():
    assert len(SECRET_FORMS) >= 40 and len(ORDINARY_NOTES) >= 60
    assert len({name for name, _, _ in SECRET_FORMS}) == len(SECRET_FORMS)


@pytest.mark.parametrize("name, text, secret", SECRET_FORMS, ids=[f[0] for f in SECRET_FORMS])
def test_every_secret_form_is_detected_and_redacted(name, text, secret):
    assert detect_secrets(text), name
    redacted = redact_secrets(text)
    assert secret not in redacted
    assert "[REDACTED:" in redacted
    assert detect_secrets(redacted) == []  # redaction is final: nothing left to find


@pytest.mark.parametrize("text", ORDINARY_NOTES + [SHARD, TYPECLAW_FRAGMENT, CERTIFICATE])
def test_ordinary_agent_notes_are_not_secrets(text):
    assert detect_secrets(text) == []
    assert redact_secrets(text) == text


@pytest.mark.parametrize("name, text, secret", SECRET_FORMS[:6], ids=[f[0] for f in SECRET_FORMS[:6]])
def test_a_secret_inside_json_escaped_text_is_found_after_decoding(name, text, secret):
    """What a tool result carries is JSON: the secret is found in the decoded string."""
    assert detect_secrets(json.loads(json.dumps({"content": f"line one\n{text}\n"}))["content"])


def test_every_family_is_exercised_by_the_corpus():
    found = {f.family for _, text, _ in SECRET_FORMS for f in detect_secrets(text)}
    assert found == set(FAMILIES)


def test_the_redaction_keeps_the_readable_part_of_an_assignment_or_url():
    assert redact_secrets("password=hunter2 and more") == "password=[REDACTED:secret assignment] and more"
    assert redact_secrets("postgres://app:pw@db/x") == "postgres://app:[REDACTED:url credentials]@db/x"
    assert redact_secrets("Authorization: Bearer aB3dE5gH7jK9mN1pQ2sT") == "Authorization: Bearer [REDACTED:bearer token]"


def test_a_specific_family_is_reported_once_not_also_as_an_assignment():
    assert secret_families(f"GITHUB_TOKEN={GH}") == ["github token"]
    assert secret_families(SK_ANT) == ["anthropic key"]  # not also an openai key


def test_findings_are_in_order_of_appearance():
    text = f"{AWS} then {GH} then {JWT}"
    assert [f.family for f in detect_secrets(text)] == ["aws access key", "github token", "jwt"]


def test_overlapping_matches_are_redacted_once_and_nothing_leaks():
    google = "AI" + "za" + "-" + AWS + "-" + "x" * 13
    text = f"x {google} y"
    assert redact_secrets(text) == "x [REDACTED:google api key] y"


def test_a_private_key_block_is_redacted_up_to_its_end_marker():
    text = "before\n" + SECRET_FORMS[[f[0] for f in SECRET_FORMS].index("pem private key block")][1] + "\nafter"
    assert redact_secrets(text) == "before\n[REDACTED:private key]\nafter"


def test_a_private_key_header_without_its_end_redacts_the_key_lines_that_follow_it():
    assert redact_secrets("x " + BEGIN + "EC PRIVATE KEY-----\nMHcCAQEEIabc") == "x [REDACTED:private key]"
    pasted = BEGIN + "RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\nMIIEpAIBAAKCAQEA\nq9Zx==\n\nThe rest is prose."
    assert redact_secrets(pasted) == "[REDACTED:private key]\n\nThe rest is prose."


def test_a_key_header_mentioned_in_prose_redacts_only_the_header():
    text = "GitHub hands out PKCS#1 (`" + BEGIN + "RSA PRIVATE KEY-----`), but WebCrypto wants PKCS#8."
    assert secret_families(text) == ["private key"]  # refused, as TypeClaw refuses the header
    assert redact_secrets(text) == "GitHub hands out PKCS#1 (`[REDACTED:private key]`), but WebCrypto wants PKCS#8."


def test_redaction_leaves_text_without_secrets_unchanged():
    text = "배포는 금요일에 하지 않는다 🚫\nline two"
    assert redact_secrets(text) == text
