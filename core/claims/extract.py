"""What one note says: `extract(text)` reads a fragment body or a belief sentence as a `Claim`.

A claim is the same statement, or the same subject with a value. The forms it recognizes, in
order (the first that fits wins):
1. a guard the dreamer wrote, "X is not Y anymore; <claim>": subject X, Y ruled out;
2. a table row `| key | value | ... |` (the first cell is the key unless it is only a value);
3. a change: "<X> moved/switched/changed/raised/... [from Y] to Z", "disabled/enabled/paused X",
   "X 从 Y 改为 Z", "X 调整为 Z", "X을 Y에서 Z으로 변경": subject X, value Z, Y ruled out;
4. `key: value` (also `：`, `=`, `->`; never a link's "://"; a closing "(aside)" is no part of
   the value) with a short key that is not a bookkeeping word
   ("Reminder:", "Rule:", "Note:" are emphasis, not keys);
5. a copula "X is/are/was/stays Z" with a short subject;
6. a verb: "[subject] verb object", the first known verb of the first clause ("uses bun",
   "Dana promoted v2.14 to prod"); a past-tense verb marks an event, not a setting, and so
   does a Chinese verb with 了 or after 已 ("回复了8个工单", "备份已验证");
7. otherwise a plain statement (no subject).
Across every form: ", not Y", "(not Y)", "instead of Y", "rather than Y", "no longer Y",
"not Y anymore", "不再 Y", "而不是 Y" rule Y out; "no longer"/"instead"/"anymore"/"actually"/a
change verb is an explicit change marker, "now"/"currently" only a soft one; "also"/"too" make
the claim additive. Leading bullets, timestamps, emphasis (`**`, emoji) and bookkeeping prefixes
("Reminder:", "IMPORTANT:", "(again)", "再次提醒：", "다시 알림:") are cleaned away first; a
question ("can we move standup to 10?") announces no change.

Over ~400 lines on purpose: the forms share their word lists and helpers (the key check, value
words, verb forms), and the order in which they are tried is itself the rule; split apart, a
form would be read without the ones it must yield to.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from functools import lru_cache

from dreamdeck.core.claims.cleaning import clean, is_question, task_state
from dreamdeck.core.claims.logs import STATE_PARTICIPLES, ZH_PAST, is_log_key
from dreamdeck.core.claims.tokens import CHANGE_VERBS, STATE_VERBS, is_past, lemma, names, negated, terms, tokenize, values

__all__ = ["Claim", "clean", "extract", "first_clause", "subject_terms"]

_CLAUSE_END = r"(?=$|[,;(\[]|\s(?:after|because|since|for|due|so|until|when|while|but|and then)\b)"
_CHANGE_FROM = re.compile(
    rf"^(?P<subj>.*?)\b(?P<verb>{CHANGE_VERBS})\b(?P<obj>.*?)\bfrom\s+(?P<old>.+?)\s+to\s+(?P<new>.+?){_CLAUSE_END}",
    re.IGNORECASE)
_CHANGE_TO = re.compile(
    rf"^(?P<subj>.*?)\b(?P<verb>{CHANGE_VERBS})\b(?P<obj>.*?)\s+to\s+(?P<new>.+?){_CLAUSE_END}", re.IGNORECASE)
_REPLACED = re.compile(rf"^(?P<subj>.*?)\breplaced\s+(?P<old>.+?)\s+with\s+(?P<new>.+?){_CLAUSE_END}", re.IGNORECASE)
_CHANGE_WORD = re.compile(rf"\b(?:{CHANGE_VERBS}|{STATE_VERBS}|replaced)\b", re.IGNORECASE)
_STATE = re.compile(rf"^(?P<subj>.*?)\b(?P<verb>{STATE_VERBS})\s+(?P<obj>.+?){_CLAUSE_END}", re.IGNORECASE)
_ZH_CHANGE_FROM = re.compile(r"^(?P<subj>.+?)从\s*(?P<old>.+?)\s*(?:改为|改成|换成|调整为|调整到|变为|变成|切换到|迁移到|改到)\s*(?P<new>[^,;，；。(]+)")
_ZH_CHANGE_TO = re.compile(r"^(?P<subj>.+?)(?:改为|改成|换成|调整为|调整到|变为|变成|切换到|迁移到|改用|改到)\s*(?P<new>[^,;，；。(]+)")
_KO_CHANGE = re.compile(
    r"^(?P<subj>.+?)\s+(?P<old>\S+?)에서\s*(?P<new>\S+?)(?:으로|로)\s*(?:변경|바꿈|바꿨|바꾸|수정|옮김|옮겼|이동|조정)")
# A ":" between digits is a time, never the key separator ("goes out at 09:00").
# Nor is the ":" of a link ("https://…").
_KEY_VALUE = re.compile(r"^(?P<key>[^:=→]{1,48}?)\s*(?:(?<!\d):(?!//)|:(?!\d|//)|=|->|→)\s*(?P<value>\S.*)$")
_COPULA = re.compile(
    r"^(?P<subj>.{1,60}?)\s+(?:is|are|was|were|stays|stay|remains|remain|has become|became)\s+(?P<value>\S.*)$",
    re.IGNORECASE)
_COPULA_WORD = re.compile(r"\s(?:is|are|was|were|stays|stay|remains|remain|became|has become)\s", re.IGNORECASE)
_ZH_COPULA = re.compile(r"^(?P<subj>[^是]{1,16})是(?P<value>.+)$")
_GUARD = re.compile(r"^(?P<subj>.+?)\s+is not\s+(?P<old>.+?)\s+anymore;\s*(?P<rest>.+)$", re.IGNORECASE)
_GUARD_PLAIN = re.compile(r"^not\s+(?P<old>.+?)\s+anymore;\s*(?P<rest>.+)$", re.IGNORECASE)
_GUARD_ZH = re.compile(r"^(?P<subj>[^;；]+?)不再是(?P<old>[^;；]+?)[;；]\s*(?P<rest>.+)$")
_GUARD_KO = re.compile(r"^(?P<subj>[^;]+?): 더 이상 (?P<old>[^;]+?) 아님;\s*(?P<rest>.+)$")
_REJECTIONS = [
    re.compile(r"\bno longer\s+(?:using\s+|use\s+|uses\s+|used\s+|on\s+|in\s+)?(?P<old>[^;,.()]+)", re.IGNORECASE),
    re.compile(r"\bnot\s+(?P<old>[^;,.()]+?)\s+any\s?more\b", re.IGNORECASE),
    re.compile(r"\b(?:instead of|rather than)\s+(?P<old>[^;,.()]+)", re.IGNORECASE),
    re.compile(r"(?:,|\(|—|–|;)\s*(?:not|never)\s+(?P<old>[^;,.()]+)", re.IGNORECASE),
    re.compile(r"(?:不再|而不是)(?:使用|用)?\s*(?P<old>[^,;，；。()]+)"),
    re.compile(r"(?<!\S)(?P<old>\S+)\s*대신"),  # from a word's start only: a scan from every character was quadratic
]
_PREDICATE_NEGATIONS = (0, 1)  # "no longer X", "not X anymore": the claim itself is negated
_HARD_MARKERS = re.compile(
    rf"\b(?:no longer|instead|anymore|any more|actually|correction|{CHANGE_VERBS}|{STATE_VERBS})\b"
    r"|不再|改为|改成|换成|调整为|改用|切换到|迁移到|变更|变更为|대신|변경|바꿈|더 이상",
    re.IGNORECASE)
_SOFT_MARKERS = re.compile(r"\b(?:now|currently|nowadays|these days)\b|现在|目前|如今|이제|지금", re.IGNORECASE)
_ADDITIVE = re.compile(r"\b(?:also|too|additionally|as well|in addition)\b|也|还有|또한", re.IGNORECASE)
# The same markers as words, for the common case of a line with none of the phrases: a set
# lookup on its words is much cheaper than the regex (which stays for phrases and CJK).
_HARD_WORDS = frozenset(
    w for w in ["instead", "anymore", "actually", "correction", *CHANGE_VERBS.split("|"), *STATE_VERBS.split("|")]
    if " " not in w)
_SOFT_WORDS = frozenset({"now", "currently", "nowadays"})
_ADDITIVE_WORDS = frozenset({"also", "too", "additionally"})
_WORD_RE = re.compile(r"[a-z]+")


def _has(text: str, words: frozenset[str], pattern: re.Pattern[str]) -> bool:
    """Whether `pattern` finds a marker; for ASCII text without a two-word marker phrase, a
    word lookup decides without running the regex."""
    if text.isascii() and not _PHRASE.search(text):
        return not words.isdisjoint(_WORD_RE.findall(text.lower()))
    return bool(pattern.search(text))


_PHRASE = re.compile(r"\b(?:no longer|any more|these days|as well|in addition|turned o|pushed back|pulled in)", re.IGNORECASE)
_MARKER_WORDS = frozenset({"now", "currently", "nowaday", "anymore", "instead", "actually", "longer", "correction"})

# Keys that are bookkeeping, not subjects: "Rule: never push" is a rule, not a setting named "rule".
_GENERIC_KEYS = frozenset("""
rule rules note notes reminder todo fyi nb lesson lessons decision decisions idea ideas tip tips
warning important update updates q a ps log done today result results summary context next
action actions question questions answer issue issues problem problems cause reason goal goals
plan plans progress blocker blockers task tasks step steps outcome observation learning takeaway
""".split()) | frozenset({
    "next step", "next steps", "action item", "action items", "root cause", "follow up", "follow-up",
    "注意", "提醒", "备注", "规则", "重要", "问题", "原因", "结果", "计划", "进展", "下一步", "总结", "结论",
    "待办", "任务", "完成", "今天", "明天", "参考", "참고", "메모", "규칙", "알림", "문제", "원인", "결과",
    "계획", "진행", "다음", "요약", "할 일", "오늘",
})
_AUXILIARIES = frozenset({"will", "would", "should", "must", "can", "could", "shall"})
_VERBS = frozenset(lemma(v) for v in """
use prefer like love hate want need run work write make get keep choose pick install deploy ship
release go come happen start end finish live meet move switch change cut set send post push pull
merge review build publish schedule rotate reset promote gate name treat ask take give call open
close fix add remove drop track store sync check watch monitor answer reply host serve support
require expect allow block ban pair draft profile upgrade spend debug investigate rerun flake
pass fail prepare read see look show print return paste link batch land break wait avoid tell
agree propose decide plan announce confirm mention note hit stop reply commit rename create
edit code sleep eat drink speak travel visit study learn teach play listen join leave call
""".split())


@dataclass(frozen=True)
class Claim:
    """One note read as a claim; every set holds normal forms from `tokens`."""

    text: str  # the cleaned sentence, as a belief would state it
    terms: frozenset[str]  # evidence of sameness (never values)
    values: frozenset[str]
    negated: bool
    subject: frozenset[str] | None = None  # the setting or subject, when the form names one
    subject_text: str = ""
    predicate: str | None = None  # "=" for key/table/copula/change forms, else a verb, else None
    value: frozenset[str] = frozenset()  # what is said of the subject (terms and values)
    value_text: str = ""
    rejected: frozenset[str] = frozenset()  # what the claim rules out
    rejected_text: str = ""
    marker: bool = False  # an explicit change marker
    soft_marker: bool = False  # "now", "currently"
    additive: bool = False
    event: bool = False  # reported in the past tense: an event, not a setting
    keyed: bool = False  # a `key: value` line or a table row
    setting: bool = False  # a subject with a state for its value, not a sentence: it can change
    names: frozenset[str] = frozenset()  # capitalized names inside the sentence ("Lisbon")
    series: bool = False  # a row of a log table: one more observation of its first cell's job
    state: str | None = None  # a task's checkbox: "open" ("- [ ] …", "To do: …") or "done" ("- [x] …")

    @property
    def affirmed(self) -> frozenset[str]:
        """What the claim says is so (its value, or all of it), minus what it rules out."""
        if self.negated:
            return frozenset()
        return (self.value or (self.terms | self.values)) - self.rejected


def _content(text: str) -> frozenset[str]:
    return terms(text) - _MARKER_WORDS


def _words(text: str) -> frozenset[str]:
    return _content(text) | values(text)


def _value_words(text: str) -> frozenset[str]:
    """A value's words; a value of stopwords only ("on", "none") still says something."""
    return _words(text) or frozenset(t.norm for t in tokenize(text) if t.kind in ("stop", "neg"))


def _ruled_words(text: str) -> frozenset[str]:
    """What a ruled-out phrase rules out: its numbers, times or days when it has any ("not
    02:00 daily anymore" rules out 02:00, not "daily"), else its content words."""
    return values(text) or _content(text)


def _strip_to(text: str) -> str:
    return re.sub(r"^(?:the|a|an|our|my)\s+", "", text.strip(" .,:;!?'\""), flags=re.IGNORECASE)


def _rejections(text: str) -> tuple[frozenset[str], str, str]:
    """(ruled-out words, their text, the text without the ruled-out alternatives). A ruled-out
    verb phrase ("no longer prefers pnpm") rules out its object; its verb stays in the text,
    negated, so the claim still reads as "prefers pnpm", negated."""
    found: set[str] = set()
    shown: list[str] = []
    rest = text
    for i, pattern in enumerate(_REJECTIONS):
        for m in pattern.finditer(text):
            old = m.group("old").strip()
            words = _ruled_words(old)
            objects = frozenset(w for w in words if w not in _VERBS) or words
            if objects:
                found |= objects
                shown.append(old)
                if i not in _PREDICATE_NEGATIONS:
                    rest = rest.replace(m.group(0), " ")
    return frozenset(found), ", ".join(shown), re.sub(r"\s+", " ", rest).strip()


_CLAUSES = re.compile(r";|。|\.(?:\s|$)|!(?:\s|$)|\?(?:\s|$)|！|？|；|\s[—–-]\s|—|–")


def first_clause(text: str) -> str:
    """The first clause with any words in it ("no longer X; Y is Z" after X is cut: "Y is Z")."""
    for clause in _CLAUSES.split(text):
        if clause.strip(" ,，"):
            return clause.strip(" ,，")
    return ""


def _is_value_only(text: str) -> bool:
    return bool(values(text)) and not _content(text)


def _key_ok(key: str) -> bool:
    words = _content(key)
    if not words or len(words) > 6 or _is_value_only(key):
        return False
    low = key.strip().lower()
    return low not in _GENERIC_KEYS and not any(t.kind == "neg" for t in tokenize(key))


def _reports_an_event(value: str) -> bool:
    """ "approved the budget", "shipped v2.3": a past-tense verb with an object is an event, and
    so is a passive report, a noun then its past participle then more ("weekly report sent at
    16:20", "backups verified for May"); "failed (gateway timeout)", "disabled", "03:00,
    moved from 02:00" (a change verb) and "weekly, scheduled by cron" (a state) are not."""
    words = re.split(r"[\s(,;]+", value.strip(), maxsplit=2)
    if len(words) >= 2 and bool(words[1]) and is_past(words[0]) and not value.strip()[len(words[0]):].lstrip().startswith("("):
        return True
    head = value.split()[:5]
    return any(i > 0 and i < len(head) - 1 and head[i - 1][-1:].isalpha() and is_past(w) and w.lower() not in STATE_PARTICIPLES
               for i, w in enumerate(head))


# "no more than 5 sentences" bounds a value ("at most 5"), it negates nothing.
_BOUND_NEGATION = re.compile(r"\b(?:no|not)\s+(?:more|less|fewer|later|earlier|longer|shorter|greater)\s+than\b", re.IGNORECASE)


def _is_setting(value: str) -> bool:
    """A value that names a state ("04:30 daily", "Obsidian", "in progress", "disabled"), not a
    sentence ("will review the PR", "asks for a summary", "cut every Tuesday"): no verb in it
    other than a participle."""
    if _reports_an_event(value):
        return False
    return not any(
        t.kind in ("word", "stop") and not is_past(t.surface) and (lemma(t.surface) in _VERBS or t.norm in _AUXILIARIES)
        for t in tokenize(value)[:6]
    )


_ASIDE = re.compile(r"\s*\([^()]*\)\s*$")


def _slot(subj: str, val: str, **kw) -> dict:
    value = val.strip(" .,;:!?")
    value = _ASIDE.sub("", value) or value  # "back (ticket PLAT-151)": the aside is detail, not the value
    log = bool(kw.get("keyed")) and is_log_key(subj)
    return {"subject_text": subj.strip(" .,:;!?\x27\""), "value_text": value, "predicate": "=",
            "event": log or _reports_an_event(value), "setting": not log and _is_setting(value), **kw}


def _structure(text: str) -> dict:
    """The form of the claim's first clause (see the module doc), as Claim fields."""
    clause = first_clause(text)
    if clause.startswith("|"):
        cells = [c.strip() for c in clause.strip().strip("|").split("|")]
        cells = [c for c in cells if c]
        if len(cells) >= 2 and _key_ok(cells[0]):
            return _slot(cells[0], " | ".join(cells[1:]), keyed=True)
        return {}
    # The change forms are tried only when a change word is there at all (they are the slow ones),
    # and never in a question ("can we move standup to 10?" asks, it announces nothing).
    cjk = not clause.isascii()
    if (cjk or _CHANGE_WORD.search(clause)) and not is_question(text):
        found = _change(clause, cjk)
        if found:
            return found
    m = _KEY_VALUE.match(clause)
    if m and _key_ok(m.group("key")):
        return _slot(m.group("key"), m.group("value"), keyed=True)
    copulas = (_COPULA, _ZH_COPULA) if cjk else (_COPULA,) if _COPULA_WORD.search(clause) else ()
    for pattern in copulas:
        m = pattern.match(clause)
        if m and 0 < len(_content(m.group("subj"))) <= 5 and not _is_value_only(m.group("subj")):
            return _slot(m.group("subj"), m.group("value"))
    found = _verb_form(clause)
    if not found and cjk and ZH_PAST.search(clause):
        return {"event": True}
    return found


def _change(clause: str, cjk: bool) -> dict:
    for pattern in ((_CHANGE_FROM, _ZH_CHANGE_FROM, _KO_CHANGE, _REPLACED) if cjk else (_CHANGE_FROM, _REPLACED)):
        m = pattern.match(clause)
        if m:
            subj = " ".join(p for p in (m.group("subj"), m.groupdict().get("obj") or "") if p.strip())
            return _slot(subj, m.group("new"), old_text=m.group("old"))
    for pattern in (_CHANGE_TO, _ZH_CHANGE_TO) if cjk else (_CHANGE_TO,):
        m = pattern.match(clause)
        if m:
            subj = " ".join(p for p in (m.group("subj"), m.groupdict().get("obj") or "") if p.strip())
            if _content(subj):
                return _slot(subj, m.group("new"))
    m = _STATE.match(clause)
    if m and _content(m.group("obj")):
        return _slot(f"{m.group('subj')} {m.group('obj')}", m.group("verb").lower())
    return {}


def _verb_form(clause: str) -> dict:
    """The first known (or past-tense) verb among the clause's first five words."""
    words = [t for t in tokenize(clause) if t.kind == "word"]
    for i, tok in enumerate(words[:5]):
        base = lemma(tok.surface)
        if base in _VERBS or is_past(tok.surface):
            subject = frozenset(t.norm for t in words[:i]) - _MARKER_WORDS
            head = clause.find(tok.surface)
            return {
                "predicate": base, "event": is_past(tok.surface),
                "subject_text": clause[:head].strip(), "subject_set": subject,
                "value_text": clause[head + len(tok.surface):].strip(" .,;:!?"),
            }
    return {}


_KEY_MARK = re.compile(r"[|:=→]|->")  # what ends a key in `_CHEAP_KEY`
_CHEAP_KEY = re.compile(r"^\|?\s*(?P<key>[^|:=→;]{1,48}?)\s*(?:\||(?<!\d):(?!//)|:(?!\d|//)|=|->|→)")


_GUARD_WORDS = re.compile(r"anymore|不再是|더 이상", re.IGNORECASE)


@lru_cache(maxsize=65536)
def subject_terms(text: str) -> frozenset[str]:
    """The subject a guard, a table row or a `key: value` line names, read without the whole
    claim (what an index of thousands of shards can afford); empty when there is none."""
    text = text if text.isascii() else unicodedata.normalize("NFKC", text)
    guard = _GUARD_WORDS.search(text) and (_GUARD.match(text) or _GUARD_ZH.match(text) or _GUARD_KO.match(text))
    if guard:
        return _content(guard.group("subj"))
    m = _CHEAP_KEY.match(text) if _KEY_MARK.search(text) else None  # the key's regex is the slow part
    if m and _key_ok(m.group("key")):
        return _content(m.group("key"))
    return frozenset()


def _guarded_claim(cleaned: str, guard: re.Match[str]) -> Claim:
    """A belief the dreamer wrote with a guard: "X is not Y anymore; <claim>" is the claim,
    with X for its subject (kept across rewordings) and Y ruled out."""
    inner = extract(guard.group("rest"))
    old = _ruled_words(guard.group("old")) - inner.value - inner.values
    subj = guard.groupdict().get("subj")
    if subj is None:
        return replace(inner, text=cleaned, rejected=inner.rejected | old)
    subject = _content(subj)
    rejected = inner.rejected | old
    # The guard says what the subject is not; the rest says what it is now.
    if inner.predicate == "=" and inner.value:
        value = inner.value
    else:
        value = (inner.terms | inner.values) - subject - rejected
    return replace(
        inner, text=cleaned, subject=subject, subject_text=subj.strip(), predicate="=",
        value=value - rejected, value_text=inner.value_text or inner.text, rejected=rejected,
        rejected_text=guard.group("old"), marker=True, negated=False,
        setting=inner.setting or inner.predicate != "=",
    )


@lru_cache(maxsize=65536)
def extract(text: str) -> Claim:
    state, cleaned = task_state(clean(text))
    if state:
        return replace(extract(cleaned), state=state)
    guard = _GUARD.match(cleaned) or _GUARD_ZH.match(cleaned) or _GUARD_KO.match(cleaned) or _GUARD_PLAIN.match(cleaned)
    if guard:
        return _guarded_claim(cleaned, guard)
    rejected, rejected_text, rest = _rejections(cleaned)
    parts = _structure(rest or cleaned)
    subject: frozenset[str] | None = None
    value: frozenset[str] = frozenset()
    if parts.get("predicate") == "=":
        subject = _content(parts["subject_text"])
        value = _value_words(parts["value_text"]) - rejected
        if parts.get("old_text"):
            rejected |= _ruled_words(parts["old_text"]) - value
            rejected_text = rejected_text or parts["old_text"]
    elif parts.get("predicate"):
        subject = parts["subject_set"]
        value = _words(parts["value_text"]) - rejected
    return Claim(
        text=cleaned,
        terms=_content(cleaned),
        values=values(cleaned),
        negated=negated(_BOUND_NEGATION.sub(" ", first_clause(rest or cleaned))),
        subject=subject,
        subject_text=parts.get("subject_text", ""),
        predicate=parts.get("predicate"),
        value=value,
        value_text=parts.get("value_text", ""),
        rejected=rejected,
        rejected_text=rejected_text,
        marker=_has(cleaned, _HARD_WORDS, _HARD_MARKERS) and not is_question(cleaned),
        soft_marker=_has(cleaned, _SOFT_WORDS, _SOFT_MARKERS),
        additive=_has(cleaned, _ADDITIVE_WORDS, _ADDITIVE),
        event=bool(parts.get("event")),
        setting=bool(parts.get("setting")),
        keyed=bool(parts.get("keyed")),
        names=names(cleaned),
    )

