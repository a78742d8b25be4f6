"""Secret detection and redaction: the one detector every ingest path and the LLM egress use.

It covers every family TypeClaw's `detectSecrets` refuses (anything TypeClaw would refuse, this
refuses too) and more: JWTs, credentials in URLs, `password=`-style assignments, AWS secret keys,
private key blocks and header-less key bodies, npm, GitLab, Bearer/Basic tokens, Brave,
Telegram, Slack webhooks, Stripe, Google, Hugging Face and Discord. A fragment carrying one is
refused on ingest; any text bound for an LLM is redacted first.

Two rules keep it useful:
- Distinctive prefixes (`ghp_`, `AKIA`, `glpat-`, `xoxb-` ...) match even glued to a word
  character (`key_AKIA…`, `xghp_…`) or right after a literal `\\n` (an escaped log line).
  Prefixes that also occur inside words (`sk-`, `BSA`) need a non-alphanumeric character or a
  literal escape before them.
- Shapes that are not distinctive (an assignment, a Bearer value, a base64 block) must also
  look like a credential: a placeholder, a variable reference or a plain word is not one.
"""
from __future__ import annotations

import base64
import binascii
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from dreamdeck.core.formats.lazy_re import lazy_re
from dreamdeck.core.formats.secret_disguises import encoded_runs, fold, joined_runs, may_hide

REDACTED = "[REDACTED:{family}]"

# What may not come right before a prefix that also occurs inside words (a literal \n, \t or
# \r may): checked in Python, since a leading lookbehind costs the regex its fast literal scan.
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_B64 = _ALNUM | frozenset("+/")
_UPPER_DIGITS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_DIGITS = frozenset("0123456789")


@dataclass(frozen=True)
class SecretRule:
    family: str
    pattern: re.Pattern[str]
    hints: tuple[str, ...] = ()  # lower-case substrings a match must contain: skip the regex without one
    accept: Callable[[re.Match[str]], bool] | None = None  # a further check of the shape
    generic: bool = False  # a specific family's finding on the same span is the one reported
    edge: frozenset[str] = frozenset()  # characters that may not precede a match
    gate: re.Pattern[str] | None = None  # a cheap search of the lower-cased text, needed before the pattern runs


def _edge_ok(text: str, i: int, edge: frozenset[str]) -> bool:
    if i == 0 or text[i - 1] not in edge:
        return True
    return i >= 2 and text[i - 2] == "\\" and text[i - 1] in "ntr"


@dataclass(frozen=True)
class SecretFinding:
    family: str
    start: int
    end: int
    generic: bool = False


def _span(m: re.Match[str]) -> tuple[int, int]:
    """The part to redact: the `value` group when the rule has one (keeps `password=`,
    `https://user:` and `Bearer ` readable), else the whole match."""
    for name in ("value", "dq", "sq"):
        if name in m.re.groupindex and m.group(name) is not None:
            return m.span(name)
    return m.span()


# --- checks for shapes that are not distinctive on their own --------------------------------
_PLACEHOLDER_WORDS = frozenset(
    "none null nil true false undefined empty redacted required optional string str int bool "
    "hidden secret secrets password passwd token tokens pass changeme todo tbd unknown n/a".split()
)
_PLACEHOLDER_PARTS = ("example", "placeholder", "your_", "your-", "yourpass", "xxxx", "****", "redacted", "dummy")
_KEY_STEMS = ("pass", "pwd", "secret", "token", "key", "cred", "auth")
_CODE_REF = lazy_re(r"^[A-Za-z_$][\w$]*(?:(?:\??\.|::|->)[A-Za-z_$][\w$]*)+$|^[\w.$?]+[(\[]")
_PLAIN_WORD = lazy_re(r"^(?:[a-z]+|[A-Z][a-z]+|[a-z]+(?:_[a-z]+)+)$")
_IDENTIFIER = lazy_re(r"^[A-Za-z_][A-Za-z_]*$")
_ENV_NAME = lazy_re(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")


def _looks_random(value: str) -> bool:
    """Credential-like: letters with digits, mixed case at length, or letters with symbols; a
    slug or a date (`release-2026-05-20`: each part all lower-case letters or all digits) is not."""
    if all(part.isdigit() or (part.isalpha() and part.islower()) for part in re.split(r"[-_.:/]+", value) if part):
        return False
    letters = any(c.isalpha() for c in value)
    if letters and any(c.isdigit() for c in value):
        return True
    if len(value) >= 16 and any(c.isupper() for c in value) and any(c.islower() for c in value):
        return True
    return letters and any(c in "+/=!@#%^&*~?" for c in value)


def _is_placeholder(value: str) -> bool:
    low = value.lower()
    if low in _PLACEHOLDER_WORDS or any(part in low for part in _PLACEHOLDER_PARTS):
        return True
    if value[0] in "$<{%[(" or value.startswith("...") or "${" in value or "{{" in value:
        return True
    return set(value) <= set("*xX.•…-_#?0 ")


def _value_of(m: re.Match[str]) -> str:
    start, end = _span(m)
    return m.string[start:end]


def _assignment_is_secret(m: re.Match[str]) -> bool:
    """`password=hunter2` is; `password=`, `password: str`, `token=self.token`,
    `api_key = os.environ["API_KEY"]`, `max_tokens: 8000` and `password: ask Jane` are not."""
    value = _value_of(m).strip().rstrip(".,;:)]}*")
    if not value or _is_placeholder(value) or _CODE_REF.search(value) or _ENV_NAME.match(value):
        return False
    if _IDENTIFIER.match(value.lstrip("+-!&*@")) and any(stem in value.lower() for stem in _KEY_STEMS):
        return False  # a variable named after the key: `db_password`, `dbPassword`, `++tokenSeq`
    if m.group("pw") is not None:  # password family: any non-trivial value
        if m.group("dq") is None and m.group("sq") is None and _PLAIN_WORD.match(value):
            return False
        if " " in value and (len(value.split()) > 5 or value.endswith((".", "!", "?", ":"))):
            return False  # a quoted sentence, not a passphrase
        return len(value) >= 4 and not (value.isdigit() and len(value) < 8)
    return len(value) >= 8 and " " not in value and _looks_random(value)


def _url_password_is_secret(m: re.Match[str]) -> bool:
    value = m.group("value")
    return not _is_placeholder(value) and value.lower() not in ("password", "pass")


def _bearer_is_secret(m: re.Match[str]) -> bool:
    value = m.group("value")
    return not _is_placeholder(value) and _looks_random(value)


def _b64_lines(text: str) -> list[str]:
    return [ln.strip() for ln in re.split(r"\r?\n|\\r\\n|\\n", text) if ln.strip()]


_PUBLIC_HEADER = lazy_re(r"-----BEGIN (?!.*PRIVATE)[A-Z0-9 ]+-----[ \t]*$")


def _block_is_key_material(m: re.Match[str]) -> bool:
    """Each full line mixes upper case, lower case and digits, as encoded key bytes do; the body
    of a certificate or public key under its own header is public."""
    before = _b64_lines(m.string[max(0, m.start() - 200):m.start()])
    if before and _PUBLIC_HEADER.search(before[-1]):
        return False
    full = [ln for ln in _b64_lines(m.group()) if len(ln) >= 40]
    return len(full) >= 2 and all(
        any(c.isupper() for c in ln) and any(c.islower() for c in ln) and any(c.isdigit() for c in ln)
        for ln in full
    )


def _is_der_private_key(m: re.Match[str]) -> bool:
    """An ASN.1 SEQUENCE whose first element is a small version INTEGER (0 or 1): how PKCS#1,
    PKCS#8 and SEC1 private keys start. Certificates and public keys start differently."""
    try:
        head = base64.b64decode(m.group()[:12])
    except (binascii.Error, ValueError):
        return False
    if len(head) < 6 or head[0] != 0x30:
        return False
    i = 2 + (head[1] & 0x7F if head[1] & 0x80 else 0)
    return head[i:i + 2] == b"\x02\x01" and len(head) > i + 2 and head[i + 2] in (0, 1)


# --- the rules ------------------------------------------------------------------------------
_PW_KEYS = r"password|passwd|passwort|passphrase|pwd|密码|口令|비밀번호"
_TOKEN_KEYS = (
    r"secret|token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key|"
    r"client[_-]?secret|credentials?"
)
_ASSIGNMENT = (
    r"(?i:(?P<pw>" + _PW_KEYS + r")|(?:" + _TOKEN_KEYS + r"))"  # the key ends here: `db_password`, `GH_TOKEN`
    r"(?![A-Za-z0-9])[\"'`*\]]*[ \t]*(?:=>|:=|=|:|：)[ \t]*[*`]*[ \t]*"
    r"(?:\"(?P<dq>[^\"\n]{1,200})\"|'(?P<sq>[^'\n]{1,200})'|(?P<value>(?:[^\s\"'`,;\\&]|\\(?![ntr\"'\\])|&(?![A-Za-z_][A-Za-z0-9_]*=)){1,400}))"
)
# The same, lower-cased and without the value: a case-insensitive alternation is slow to scan
# for, so this runs first on the lower-cased text (most long shards have no assignment at all).
_ASSIGNMENT_GATE = (r"(?:" + _PW_KEYS + "|" + _TOKEN_KEYS + r")(?![a-z0-9])[\"'`*\]]*[ \t]*(?:=>|:=|=|:|：)")
_B64_LINE = r"[ \t]*[A-Za-z0-9+/]{40,}={0,2}"
_B64_SEP = r"(?:\r?\n|\\r\\n|\\n)"
# Two or more full lines of base64 and a short last one: a key body without its header.
_B64_BLOCK = (_B64_LINE + r"(?:" + _B64_SEP + _B64_LINE + r")+"
              r"(?:" + _B64_SEP + r"[ \t]*[A-Za-z0-9+/]{1,39}={0,2})?(?![A-Za-z0-9+/=])")
# What follows a key header without its END marker: base64 lines, `Proc-Type:` headers, blanks.
_PEM_LINE_END = r"(?=\r?\n|\\r|\\n|$)"
_PEM_FILLED_LINE = r"(?:[ \t]*[A-Za-z0-9+/=]+[ \t]*|[A-Za-z-]+: [^\r\n\\]*)" + _PEM_LINE_END
_PEM_BODY = (r"(?:(?:" + _B64_SEP + r"(?:" + _PEM_FILLED_LINE + r"|[ \t]*" + _PEM_LINE_END + r"))*"
             + _B64_SEP + _PEM_FILLED_LINE + r")?")  # ends on its last filled line

_AWS_PREFIXES = ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "ANPA", "ANVA", "APKA", "AROA", "ASCA")
_GITLAB_PREFIXES = ("glpat", "gldt", "glrt", "glptt", "glcbt", "glft", "glimt", "gloas", "glsoat", "glagent")


def _rule(family: str, pattern: str, hints: tuple[str, ...] = (), accept=None, generic: bool = False,
          flags: int = 0, edge: frozenset[str] = frozenset(), gate: str | None = None) -> SecretRule:
    return SecretRule(family, lazy_re(pattern, flags), tuple(h.lower() for h in hints), accept, generic,
                      edge, lazy_re(gate) if gate else None)


def _telegram_id_before(m: re.Match[str]) -> bool:
    """8 to 10 digits (the bot id) right before the colon, and no more."""
    text, i = m.string, m.start()
    j = i
    while j > 0 and text[j - 1] in _DIGITS:
        j -= 1
    return 8 <= i - j <= 10


def _scheme_before(m: re.Match[str]) -> bool:
    return _SCHEME_END.search(m.string, max(0, m.start() - 40), m.start()) is not None


_SCHEME_END = lazy_re(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*\Z")

SECRET_RULES: tuple[SecretRule, ...] = (
    _rule("private key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
          r"(?:(?:(?!-----BEGIN ).){0,20000}?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|" + _PEM_BODY + ")",
          ("PRIVATE KEY",), flags=re.S),
    _rule("private key", r"M[A-Za-z0-9+/]{40,}={0,2}", accept=_is_der_private_key, edge=_B64),
    _rule("private key", r"b3BlbnNzaC1rZXktdjE[A-Za-z0-9+/]{20,}={0,2}", ("b3BlbnNzaC1rZXktdjE",), edge=_B64),
    _rule("private key", r"(?m)^" + _B64_BLOCK, accept=_block_is_key_material),
    _rule("private key", r"\\n(?P<value>" + _B64_BLOCK + ")", ("\\n",), _block_is_key_material),
    _rule("github token", r"gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,}",
          ("ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_")),
    _rule("anthropic key", r"sk-ant-[A-Za-z0-9_\-]{20,}", ("sk-ant-",), edge=_ALNUM),
    _rule("openai key", r"sk-(?!ant-)(?:proj-|svcacct-|admin-|live-|test-|or-v1-)?[A-Za-z0-9_\-]{20,}", ("sk-",),
          edge=_ALNUM),
    _rule("slack token", r"xox[abposre]-[A-Za-z0-9-]{10,}", ("xox",)),
    _rule("slack token", r"xapp-[A-Za-z0-9-]{20,}", ("xapp-",), edge=_ALNUM),
    _rule("slack webhook", r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{16,}",
          ("hooks.slack.com/",)),
    _rule("discord webhook", r"discord(?:app)?\.com/api/webhooks/[0-9]{5,}/[A-Za-z0-9_-]{20,}", ("/api/webhooks/",)),
    _rule("discord token", r"[MN][A-Za-z0-9]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}", edge=_ALNUM,
          gate=r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}"),
    _rule("aws access key", r"(?:" + "|".join(_AWS_PREFIXES) + r")[0-9A-Z]{16}(?![0-9A-Z])", _AWS_PREFIXES,
          edge=_UPPER_DIGITS),
    _rule("aws secret key", r"(?i:aws_?secret(?:_?access)?_?key)[\"'`]*[ \t]*(?:=|:)[ \t]*[\"'`]?"
          r"(?P<value>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])", ("secret",)),
    _rule("google api key", r"AIza[0-9A-Za-z_\-]{35}", ("AIza",)),
    _rule("google oauth", r"GOCSPX-[A-Za-z0-9_-]{20,}", ("GOCSPX-",)),
    _rule("google oauth", r"ya29\.[A-Za-z0-9_-]{20,}", ("ya29.",), edge=_ALNUM),
    _rule("stripe key", r"(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}|whsec_[A-Za-z0-9]{24,}",
          ("_live_", "_test_", "whsec_")),
    _rule("npm token", r"npm_[A-Za-z0-9]{36,}", ("npm_",)),
    _rule("gitlab token", r"(?:" + "|".join(_GITLAB_PREFIXES) + r")-[A-Za-z0-9_-]{20,}",
          tuple(p + "-" for p in _GITLAB_PREFIXES)),
    _rule("hugging face token", r"hf_[A-Za-z0-9]{34,}", ("hf_",)),
    _rule("brave key", r"BSA[A-Za-z0-9_-]{24,}", ("BSA",), edge=_ALNUM),
    # `<bot id>:<secret>`: the secret is redacted, the bot id (public) stays readable.
    _rule("telegram bot token", r":(?P<value>[A-Za-z0-9_-]{35})(?![A-Za-z0-9_-])", (":",), _telegram_id_before),
    _rule("jwt", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*", ("eyJ",)),
    _rule("url credentials", r"://[^\s:/?#@\[\]\"'<>]*:(?P<value>[^\s/?#@\"'<>]+)@[A-Za-z0-9\[]", ("://",),
          lambda m: _scheme_before(m) and _url_password_is_secret(m)),
    _rule("bearer token", r"(?i:\b(?:bearer|basic))[ \t]+(?P<value>[A-Za-z0-9._~+/-]{16,}=*)", ("bearer", "basic"),
          _bearer_is_secret, generic=True),
    _rule("secret assignment", _ASSIGNMENT, ("pass", "pwd", "secret", "token", "key", "cred", "密码", "口令", "비밀번호"),
          _assignment_is_secret, generic=True, gate=_ASSIGNMENT_GATE),
)

FAMILIES: tuple[str, ...] = tuple(dict.fromkeys(rule.family for rule in SECRET_RULES))


def _matches(rule: SecretRule, text: str):
    """The rule's matches that start on an edge. A match refused for its edge is searched again
    from the next place an edge allows, so `risk-…-sk-proj-…` still finds the key inside."""
    pos = 0
    while (m := rule.pattern.search(text, pos)) is not None:
        if not rule.edge or _edge_ok(text, m.start(), rule.edge):
            yield m
            pos = max(m.end(), m.start() + 1)
            continue
        pos = m.start() + 1
        while pos < len(text) and not _edge_ok(text, pos, rule.edge):
            pos += 1


def _raw_findings(text: str) -> list[SecretFinding]:
    """The rules' findings in `text` and its folded form, and in what its encoded runs (base64,
    hex, %-encoding, escapes, spelled out) decode to, folded too (the whole run is the finding)."""
    if not may_hide(text):  # plain ASCII with no long token run nor escape: nothing can be disguised
        return _literal_findings(text)
    found = _unfolded_findings(text)
    runs = list(encoded_runs(text))
    if runs:
        found += _run_findings(runs)
    return sorted(found, key=lambda f: (f.start, -f.end))


def _run_findings(runs: list[tuple[int, int, str]]) -> list[SecretFinding]:
    """One finding per encoded run whose decoded text holds a secret (the run is redacted
    whole). The decoded texts are searched as one (`joined_runs`): escaped JSON or a page of
    base64 has hundreds of short runs, and each search has a fixed cost."""
    joined, starts = joined_runs(runs)
    inner: dict[int, list[SecretFinding]] = {}
    for f in _unfolded_findings(joined):
        for i in range(bisect_right(starts, f.start) - 1, bisect_right(starts, f.end - 1)):
            inner.setdefault(i, []).append(f)
    return [SecretFinding(min(fs, key=lambda f: f.start).family, runs[i][0], runs[i][1], all(f.generic for f in fs))
            for i, fs in inner.items()]


def _unfolded_findings(text: str) -> list[SecretFinding]:
    """The rules' findings in `text` and in its folded form (look-alike and invisible characters,
    mapped back to their span here)."""
    found = _literal_findings(text)
    folded = fold(text)
    if folded is not None:
        view, where = folded
        seen = {(f.start, f.end) for f in found}
        for f in _literal_findings(view):
            start, end = where[f.start], where[f.end - 1] + 1
            if (start, end) not in seen:
                found.append(SecretFinding(f.family, start, end, f.generic))
    return found


def _literal_findings(text: str) -> list[SecretFinding]:
    found = []
    low = text.lower()
    for rule in SECRET_RULES:
        if rule.hints and not any(h in low for h in rule.hints):
            continue
        if rule.gate is not None and rule.gate.search(low) is None:
            continue
        for m in _matches(rule, text):
            if rule.accept is None or rule.accept(m):
                start, end = _span(m)
                if end > start:
                    found.append(SecretFinding(rule.family, start, end, rule.generic))
    return sorted(found, key=lambda f: (f.start, -f.end))


def _overlap(a: SecretFinding, b: SecretFinding) -> bool:
    return a.start < b.end and b.start < a.end


def detect_secrets(text: str) -> list[SecretFinding]:
    """Every credential-shaped span in `text`, in order of appearance. One finding per span: a
    family's second match of the same bytes, and a generic shape (assignment, Bearer) over a
    specific family's span, are left out."""
    if not text:
        return []
    raw = _raw_findings(text)
    specific = [f for f in raw if not f.generic]
    kept: list[SecretFinding] = []
    for f in raw:
        if f.generic and any(_overlap(f, s) for s in specific):
            continue
        if any(_overlap(f, k) and k.family == f.family for k in kept):
            continue
        kept.append(f)
    return kept


def secret_families(text: str) -> list[str]:
    """The distinct families found in `text`, in order of appearance (for refusal messages:
    they name the kind of secret, never the secret)."""
    return list(dict.fromkeys(f.family for f in detect_secrets(text)))


def redact_secrets(text: str) -> str:
    """`text` with each secret replaced by a marker naming its family. Overlapping spans are
    merged, so no tail of a longer match survives."""
    if not text:
        return text
    out: list[str] = []
    pos = 0
    for finding in _raw_findings(text):
        if finding.start < pos:
            pos = max(pos, finding.end)
            continue
        out.append(text[pos:finding.start])
        out.append(REDACTED.format(family=finding.family))
        pos = finding.end
    out.append(text[pos:])
    return "".join(out)


def secret_values(*texts: str | None) -> set[str]:
    """The exact secret strings `texts` hold (to tell a secret a file already had from a new one)."""
    return {t[f.start:f.end] for t in texts if t for f in detect_secrets(t)}


def new_secret_families(text: str, before: Iterable[str | None]) -> list[str]:
    """Families of the secrets in `text` that none of `before` (the texts it replaces) holds: a
    change may keep a secret a file already had (a pin or a recompute of an old shard), never
    bring in a new one. `before` is only read when `text` holds a secret at all."""
    found = detect_secrets(text)
    if not found:
        return []
    known = secret_values(*before)
    return list(dict.fromkeys(f.family for f in found if text[f.start:f.end] not in known))
