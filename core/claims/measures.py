"""A claim read as a subject with a measured value: "Keep Slack replies under five sentences".

`measure(text)` returns the claim's `Measure`, or None when it states no value (a value the
claim rules out, "09:00 instead of 08:00", or a guard's old value, is none of its values):
- **values**: each a (kind, normal form) pair: a quantity (a number or number word, Han
  numeral or digits, with the unit after it: `("count:sentenc", "5")`), a duration in seconds
  (`("duration", "2592000")` for "30 days", "720 hours", "30天", "30일"), a clock time, a date,
  a day, a month, an amount, a version, a link, or a bare number (`("number", "4")`);
- **subject**: the claim's noun phrase: its terms without the values and their units, without
  bound words ("under", "at most", "short", "最多", "不超过", "이내", "후") and without the
  verbs that only hold a state ("keep", "stay", "保持", "유지") or a wish for one ("prefers",
  "wants", "likes": "Dana prefers short replies" is the rule "keep replies short"), without the change verbs that
  announce a new value ("moved", "raised": "moved the backup cron to 03:00" and "backup cron
  now at 04:30" name one subject), "now", the words that name how a setting is scheduled
  rather than what it is (`_MECHANISM`: "cron", "job", "timer", "schedule", "time", and "runs"
  or "happens" before a time: "backup cron runs at 03:00" and "backup now at 04:30" both name
  {backup}; "backup prune runs at 05:00" names {backup, prune}, a sibling), and an aside in
  parentheses ("(db load at 2am)").
  Any other verb stays in it, so "keep logs 30 days" ({log}) and "delete logs after 30 days"
  ({delete, log}) name different subjects and are never one claim.
`measure_relation(a, b)` on the same subject (equal, non-empty): "same" (the same values, or
one set refining the other: "March 15" / "March 15, 2026"): one claim; "changed" (values of
the same kinds that differ: a new number or time for the same setting): a contradiction;
"other" (another kind of value): neither, and a `key: value` line keeps its own rule. Events,
additive claims and negation on one side only are left to `sameness` and `contradiction`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from dreamdeck.core.claims.extract import Claim
from dreamdeck.core.claims.tokens import CHANGE_VERBS, Token, stem, terms, tokenize

__all__ = ["BOUNDS", "Measure", "measure", "measure_relation", "only_days"]

# Seconds per unit: a duration is one kind whatever its unit ("60s" / "2 minutes").
_SECONDS = {
    "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1, "秒": 1, "초": 1,
    "m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60, "分钟": 60, "분": 60,
    "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600, "小时": 3600, "시간": 3600,
    "d": 86400, "day": 86400, "days": 86400, "天": 86400, "日": 86400, "일": 86400,
    "w": 604800, "wk": 604800, "week": 604800, "weeks": 604800, "周": 604800, "주": 604800,
    "month": 2592000, "months": 2592000, "个月": 2592000, "개월": 2592000,
}
_CLOCK = frozenset({"点", "시"})  # "8点", "9시": a time of day, not a duration
_NUMBER = re.compile(r"^(?P<n>\d+(?:[.,]\d+)*)(?P<unit>\D*)$")
BOUNDS = re.compile(  # words that bound a value: a setting's, never a reading's (`readings`)
    r"\b(?:under|over|below|above|within|at most|at least|no more than|no less than|up to|less than|"
    r"more than|fewer than|max|maximum|min|minimum|limit|limited|cap|capped|short|shorter|long|"
    r"longer|after|before|around|about|exactly|only|most|least|each|every|per)\b"
    r"|最多|至多|最少|至少|不超过|不多于|不少于|不到|以内|之内|以上|以下|以后|之后|以前|之前|上限|下限|左右|后|前|每"
    r"|이내|최대|최소|이하|이상|미만|초과|까지|후|전|매",
    re.IGNORECASE)
_HOLD_VERBS = frozenset(
    {stem(w) for w in "keep keeps kept keeping stay stays stayed remain remains hold holds".split()}
    | {stem(w) for w in "prefer prefers preferred want wants wanted like likes liked".split()}
    | {"保持", "维持", "유지"})
# How a setting is scheduled, not what it is: "backup cron runs at 03:00" is the backup's time.
_MECHANISM = frozenset({stem(w) for w in "cron crons job jobs timer schedule scheduled time runs run happens happen fires".split()}
                       | {"定时", "时间", "任务"})
_NOT_SUBJECT = _HOLD_VERBS | _MECHANISM | {stem(w) for w in CHANGE_VERBS.split("|") if " " not in w} | {"now"}
_ASIDE = re.compile(r"\s*\([^()]*\)")
_DAY_VALUES = frozenset("mon tue wed thu fri sat sun weekday weekend".split())
_MONTHS = frozenset("jan feb mar apr may jun jul aug sep oct nov dec".split())


@dataclass(frozen=True)
class Measure:
    subject: frozenset[str]
    values: frozenset[tuple[str, str]]

    @property
    def kinds(self) -> frozenset[str]:
        return frozenset(kind for kind, _ in self.values)


def _unit_after(tokens: tuple[Token, ...], i: int) -> Token | None:
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    if nxt is None or nxt.kind not in ("word", "cjk", "stop"):
        return None
    if nxt.kind == "stop" and nxt.norm not in _SECONDS:
        return None  # "30 of them", "5 at most": no unit
    return nxt


def _value(norm: str, unit: Token | None) -> tuple[str, str]:
    """A value token (and the word after it) as (kind, normal form)."""
    m = _NUMBER.match(norm)
    if not m:
        if norm.startswith(("http", "www.")):
            return "link", norm
        if re.match(r"^\d{4}-\d{2}-\d{2}$", norm):
            return "date", norm
        if ":" in norm:
            return "time", norm
        if norm in _DAY_VALUES or norm.rstrip("s") in _DAY_VALUES or not norm[:1].isdigit() and norm[:1] in "周星礼요":
            return "day", norm
        if norm in _MONTHS:
            return "month", norm
        if norm.startswith("v"):
            return "version", norm
        return ("money", norm) if norm[:1] in "$€£¥" else ("other", norm)
    number, own = m.group("n").replace(",", ""), m.group("unit")
    unit_word = own or (unit.surface.lower() if unit is not None else "")
    if unit_word in _SECONDS:
        return "duration", f"{float(number) * _SECONDS[unit_word]:.12g}"
    if own in _CLOCK:
        return "time", norm
    if own:
        return f"count:{own}", number
    return (f"count:{unit.norm}", number) if unit is not None else ("number", number)


# A guard the dreamer wrote ("X is not Y anymore; <claim>"): the claim is what follows it.
_GUARD_PREFIX = re.compile(r"^[^;]*\banymore;\s*|^[^;；]*不再是[^;；]*[;；]\s*|^[^;]*: 더 이상 [^;]* 아님;\s*", re.IGNORECASE)


@lru_cache(maxsize=65536)
def measure(text: str, ruled_out: frozenset[str] = frozenset()) -> Measure | None:
    """`text` read as a subject with values; values in `ruled_out` (token normal forms: what
    the claim says is no longer so) are not its values."""
    text = _GUARD_PREFIX.sub("", text)
    text = _ASIDE.sub("", text) if "(" in text else text
    tokens = tokenize(text)
    found: list[tuple[str, str]] = []
    units: set[str] = set()
    for i, tok in enumerate(tokens):
        if tok.kind != "value" or tok.norm in ruled_out:
            continue
        bare = _NUMBER.match(tok.norm)
        unit = _unit_after(tokens, i) if bare and not bare.group("unit") else None
        found.append(_value(tok.norm, unit))
        if unit is not None:
            units.add(unit.norm)
    if not found:
        return None
    subject = terms(BOUNDS.sub(" ", text)) - units - _NOT_SUBJECT
    return Measure(frozenset(subject), frozenset(found))


def _same_subject(a: Claim, b: Claim) -> tuple[Measure, Measure] | None:
    ma, mb = measure(a.text, a.rejected), measure(b.text, b.rejected)
    if ma is None or mb is None or not ma.subject or ma.subject != mb.subject:
        return None
    return ma, mb


def only_days(a: Claim, b: Claim) -> bool:
    """Both claims' values are weekdays and nothing else ("never deploy on Fridays")."""
    ma, mb = measure(a.text, a.rejected), measure(b.text, b.rejected)
    return ma is not None and mb is not None and ma.kinds == mb.kinds == {"day"}


def measure_relation(a: Claim, b: Claim) -> str | None:
    """How two measured claims on the same subject relate: "same" (the same values, or one
    refining the other),
    "changed" (values of the same kinds that differ) or "other" (values of other kinds);
    None when either states no value or their subjects differ."""
    pair = _same_subject(a, b)
    if pair is None:
        return None
    old, new = pair[0].values, pair[1].values
    if old <= new or new <= old:
        return "same"  # one refines the other ("March 15" / "March 15, 2026")
    return "changed" if pair[0].kinds == pair[1].kinds else "other"
