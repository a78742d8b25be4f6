"""Words of a note, normalized for comparing claims: Latin, CJK and Hangul alike.

`tokenize(text)` returns `Token`s in order, each with its surface text, its normal form and a
kind:
- `word`: a Latin word, lowercased and lightly stemmed ("uses"/"using"/"used" -> "us"); an
  identifier with digits stays whole ("PLAT-412", "spam_bot_42", "e2e"), and so does a channel
  or handle, without its sign ("#ops-alerts" -> "ops-alerts", "@dana" -> "dana");
- `cjk`: a Han/kana run in character bigrams (one character alone stays a unigram; a lone
  grammar character, "在", none), cut first at its negations and weekdays, which are tokens of
  their own ("不要在周五部署", "周五禁止部署", "周五不部署": {部署}, negated, on 周五), and a
  Hangul word without its trailing particle in bigrams ("시간을" -> "시간"), so restatements
  that differ in grammar still share most of their terms;
- `value`: a number, time, date, version, amount, month or weekday ("02:00", "60s", "v2.3",
  "$50", "March", "Friday", "周五", "9시"), a number word ("five" -> "5"; not "one") and a Han
  numeral before a measure word ("五句" -> "5句"), and a link ("https://…": it says *which*
  page, like a number). Values say *what* a setting is, never *that* two
  notes speak of the same thing: bare digits and dates are not evidence of sameness;
- `neg`: a negation ("not", "never", "n't", 不要, 하지 마);
- `stop`: stopwords, ladder words and emphasis fillers ("reminder", "again", "important", 再次,
  다시): kept so a caller can see the sentence, never used as evidence.
`terms(text)` is the set of `word`/`cjk` normal forms; `values(text)` the set of values.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import NamedTuple

__all__ = ["CHANGE_VERBS", "STATE_VERBS", "STOPWORDS", "Token", "is_past", "lemma", "names", "negated", "piece_terms", "stem", "terms", "term_pieces", "tokenize", "values"]

STOPWORDS = frozenset("""
a an the and or but of for to in on at by with from into onto as is are was were be been being
am it its it's this that these those there here i we you he she they them me him my our your
his her their do does did has have had will would should can could may might must shall so then
if about user users said says say told tells mentioned once observed consistently always days
very just still all any some each every which who whom what when where why how s t also too
again than via per let lets please agent until since during while over under
between through across then
""".split())
# Emphasis and bookkeeping words: a restatement with "IMPORTANT:" or "(again)" says the same.
FILLERS = frozenset("""
reminder remind important importantly note nb fyi again confirmed confirm usual still really
indeed warning heads up stays stay remains remain
""".split()) | frozenset({"再次", "提醒", "强调", "注意", "重要", "다시", "알림", "주의", "중요", "절대"})
# Verbs that announce a change ("moved to", "raised from … to") or name a state ("disabled").
CHANGE_VERBS = (
    "moved|move|moves|switched|switch|switches|changed|change|changes|migrated|migrate|raised|raise|"
    "lowered|lower|increased|increase|decreased|decrease|bumped|bump|reduced|reduce|upgraded|"
    "upgrade|downgraded|downgrade|shifted|shift|extended|extend|shortened|shorten|updated|"
    "rescheduled|reschedule|set|replaced|replace|pushed back|pulled in"
)
STATE_VERBS = "disabled|enabled|turned off|turned on|paused|resumed|deprecated|retired|abandoned"
_NEGATIONS = frozenset({"not", "no", "never", "nor", "cannot", "without"})
_MONTHS = frozenset("""
january february march april may june july august september october november december
jan feb mar apr jun jul aug sep sept oct nov dec
""".split())
_WEEKDAYS = frozenset("""
monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun
mondays tuesdays wednesdays thursdays fridays saturdays sundays weekday weekdays weekend weekends
""".split())
_DAY_NAMES = frozenset({"mon", "tue", "wed", "thu", "fri", "sat", "sun"})
_IRREGULAR_PAST = {
    "ran": "run", "went": "go", "met": "meet", "took": "take", "made": "make", "wrote": "write",
    "sent": "send", "got": "get", "gave": "give", "saw": "see", "began": "begin", "chose": "choose",
    "found": "find", "kept": "keep", "left": "leave", "paid": "pay", "spent": "spend", "built": "build",
    "broke": "break", "brought": "bring", "bought": "buy", "caught": "catch", "drew": "draw", "fell": "fall",
    "felt": "feel", "forgot": "forget", "grew": "grow", "heard": "hear", "held": "hold", "knew": "know",
    "led": "lead", "lost": "lose", "meant": "mean", "rose": "rise", "sold": "sell", "shook": "shake",
    "spoke": "speak", "stood": "stand", "taught": "teach", "thought": "think", "threw": "throw",
    "understood": "understand", "woke": "wake", "won": "win", "flew": "fly", "drove": "drive",
}
_NOT_PAST = frozenset({"need", "feed", "seed", "speed", "bleed", "breed", "shed", "bed", "red", "shred",
                       "embed", "proceed", "succeed", "exceed", "ted", "led", "wed", "fed"})

# A Han numeral counts only before a measure word ("五句", "三个"): "一直", "统一" are words.
_ZH_DIGITS = "零一二两三四五六七八九十百千"
_ZH_MEASURE = "小时|分钟|个|次|条|句|天|秒|周|人|篇|份|遍|行|字|页|台|项|名|位|点"
_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HANGUL = r"\uac00-\ud7a3"
_TOKEN = re.compile(
    r"(?P<url>\b(?:https?://|www\.)[^\s<>()\[\]（）]*[^\s<>()\[\]（）.,;:!?。，；：！？])"
    r"|(?P<date>\d{4}-\d{2}-\d{2})"
    r"|(?P<time>\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]\.?m\.?)?)"
    r"|(?P<money>[$€£¥]\s?\d+(?:[.,]\d+)?[kmb]?)"
    r"|(?P<version>\bv\d+(?:\.\d+)*\b)"
    rf"|(?P<number>\d+(?:[.,]\d+)*(?:%|[a-z]{{1,3}}\b|[秒分时天个次号시분초일개월년]|点|小时|分钟)?)"
    rf"|(?P<zhnum>[{_ZH_DIGITS}]+(?:{_ZH_MEASURE}))"
    r"|(?P<handle>(?<![\w#@])[#@][^\W\d_][\w\-]*(?<=[^\W_]))"
    r"|(?P<neg>\b(?:n't|not|never|no|nor|cannot|without)\b)"
    rf"|(?P<cjk>(?:(?![{_ZH_DIGITS}]+(?:{_ZH_MEASURE}))[{_CJK}])+)"
    rf"|(?P<hangul>[{_HANGUL}]+)"
    rf"|(?P<word>[^\W\d_{_CJK}{_HANGUL}][^\W{_CJK}{_HANGUL}]*(?:['’.\-][^\W{_CJK}{_HANGUL}]+)*)",
    re.IGNORECASE,
)
_DIGIT = re.compile(r"\d")
# Number words are numbers ("five sentences" says what "5 sentences" says); "one" is left out,
# it is as often a pronoun or part of a word ("one-off", "no one") as a count.
NUMBER_WORDS = {w: n for n, w in enumerate(
    "_ _ two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split()) if n >= 2} | {
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90, "hundred": 100, "thousand": 1000}
_ZH_VALUE = {ch: i for i, ch in enumerate("零一二三四五六七八九")} | {"两": 2}
_ZH_UNIT = {"十": 10, "百": 100, "千": 1000}


def zh_number(text: str) -> int:
    """A Han numeral's value: "五" 5, "十五" 15, "二十" 20, "一百零五" 105."""
    total, digit = 0, 0
    for ch in text:
        if ch in _ZH_UNIT:
            total += (digit or 1) * _ZH_UNIT[ch]
            digit = 0
        else:
            digit = _ZH_VALUE[ch]
    return total + digit
_JOINERS = re.compile(r"['.\-_]+")
# Longest first; a bare 不 negates a verb, never in a word of its own (不错 "good", 不过 "but")
# nor in a bound (不超过 "at most", 不到 "under": `measures.BOUNDS`).
_ZH_NEG = re.compile(
    r"永远不要|永远不|从来不|从不|不要|不能|不得|不准|不许|不再|禁止|(?<![特区分类级识告性个派差离])别|勿"
    r"|不(?!错|过|同|少|断|仅|但|管|久|如|然|足|用谢|论|止|光|料|妨|免|便|时|满|安|良|幸|超过|多于|少于|低于|高于|大于|小于|到)")
_KO_NEG = re.compile(r"하지\s?마|하지\s?말|않|금지|못\s")
_ZH_WEEKDAY = re.compile(r"^(?:周|星期|礼拜)[一二三四五六日天]$")
# A weekday inside a run ("不要在周五部署"), never a count ("一周一次": once a week).
_ZH_WEEKDAY_IN = re.compile(r"(?<![零一二两三四五六七八九十几])(?:周|星期|礼拜)[一二三四五六日天]")
_KO_WEEKDAY = re.compile(r"^[월화수목금토일]요일$")
_KO_PARTICLES = ("에서", "으로", "에게", "하고", "부터", "까지", "을", "를", "이", "가", "은", "는", "에", "로", "의", "도", "와", "과")
# Han characters that carry grammar, not meaning: a bigram through them is no evidence.
_ZH_FUNCTION = frozenset("的了是在和有也就都而及与或把被让给对着过吗呢吧啊")


class Token(NamedTuple):  # a tuple: tokenizing thousands of shards makes millions of these
    surface: str
    norm: str
    kind: str  # word | cjk | value | neg | stop


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A deliberately tiny stemmer: both sides of a comparison go through it, so only
    consistency matters ("uses", "using", "use" -> "us"; "tabs" -> "tab")."""
    w = word.lower()
    if w in _IRREGULAR_PAST:
        w = _IRREGULAR_PAST[w]
    if not w.isalpha() and any(c.isdigit() for c in w):  # a letter is never a digit
        return w
    for suffix in ("ing", "ed", "es", "s"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 2 and not (suffix == "s" and w.endswith("ss")):
            w = w[: -len(suffix)]
            if len(w) >= 3 and w[-1] == w[-2] and w[-1] not in "aeiouls":
                w = w[:-1]  # "stopped" -> "stopp" -> "stop"
            break
    if len(w) >= 3 and w.endswith("e"):
        w = w[:-1]
    if len(w) >= 4 and w.endswith("i"):
        w = w[:-1] + "y"  # "flakies"/"flaky" alike
    return w


def lemma(word: str) -> str:
    """The word's stem, with irregular past forms mapped to their base first ("ran" -> "run")."""
    return stem(_IRREGULAR_PAST.get(word.lower(), word))


def is_past(word: str) -> bool:
    """An English past-tense form ("fixed", "met", "wrote"): the sentence reports an event."""
    w = word.lower()
    return w in _IRREGULAR_PAST or (len(w) > 4 and w.endswith("ed") and w not in _NOT_PAST)


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    grams = [run[i:i + 2] for i in range(len(run) - 1)]
    kept = [g for g in grams if not (set(g) & _ZH_FUNCTION)]
    return kept or grams


def _strip_particle(word: str) -> str:
    for p in _KO_PARTICLES:
        if word.endswith(p) and len(word) > len(p):
            return word[: -len(p)]
    return word


def _value_norm(text: str) -> str:
    return re.sub(r"\s+", "", text.lower()).replace(",", "")


# A token crosses a space only in a time or an amount ("9:00 am", "$ 50"); any other text is
# tokenized a whitespace-separated piece at a time, and a piece ("prefers", "the", "02:00")
# recurs across thousands of shard headings, so its tokens are kept once for all of them.
_CROSSES_SPACE = re.compile(r"\d\s+[ap]|[$€£¥]\s")


@lru_cache(maxsize=65536)
def tokenize(text: str) -> tuple[Token, ...]:
    text = unicodedata.normalize("NFKC", text).replace("’", "'")
    if _CROSSES_SPACE.search(text):
        return _tokens_of(text)
    pieces = text.split()
    if len(pieces) == 1:
        return _piece_tokens(pieces[0])
    out: list[Token] = []
    for piece in pieces:
        out += _piece_tokens(piece)
    return tuple(out)


@lru_cache(maxsize=65536)
def _piece_tokens(piece: str) -> tuple[Token, ...]:
    return _tokens_of(piece)


def _tokens_of(text: str) -> tuple[Token, ...]:
    out: list[Token] = []
    for m in _TOKEN.finditer(text):
        kind, surface = m.lastgroup or "", m.group(0)
        if kind == "url":
            out.append(Token(surface, surface.lower(), "value"))
        elif kind in ("date", "time", "money", "version", "number"):
            out.append(Token(surface, _value_norm(surface), "value"))
        elif kind == "zhnum":
            digits = surface.rstrip("".join(set(_ZH_MEASURE) - {"|"}))
            out.append(Token(surface, f"{zh_number(digits)}{surface[len(digits):]}", "value"))
        elif kind == "neg":
            out.append(Token(surface, surface.lower(), "neg"))
        elif kind == "handle":  # a channel or a handle is one name: "#ops-alerts" is not "ops", "alerts"
            out.append(Token(surface, surface[1:].lower(), "word"))
        elif kind == "word":
            out.extend(_word_tokens(surface))
        elif kind == "cjk":
            out.extend(_cjk_tokens(surface))
        elif kind == "hangul":
            out.extend(_hangul_tokens(surface))
    return tuple(out)


@lru_cache(maxsize=65536)
def _word_tokens(surface: str) -> tuple[Token, ...]:
    low = surface.lower()
    if low.endswith("n't"):
        base = low[:-3]
        return (Token(surface[:-3], base, "stop"), Token("n't", "n't", "neg"))
    if not low.isalpha() and _DIGIT.search(low):
        return (Token(surface, low, "word"),)  # an identifier: PLAT-412, spam_bot_42, e2e
    if low in _WEEKDAYS and (len(low) > 4 or surface[0].isupper()):
        return (Token(surface, low[:3] if low[:3] in _DAY_NAMES else low.rstrip("s"), "value"),)
    if low in NUMBER_WORDS:
        return (Token(surface, str(NUMBER_WORDS[low]), "value"),)
    if low in _MONTHS and surface[0].isupper():  # "may", "march": only a capital makes a month
        return (Token(surface, low[:3], "value"),)
    out = []
    for part in (_JOINERS.split(surface) if not surface.isalpha() else (surface,)):
        p = part.lower()
        if not p or p == "s":
            continue
        if p in STOPWORDS or p in FILLERS or len(p) == 1:
            out.append(Token(part, p, "stop"))
        elif p in _NEGATIONS:
            out.append(Token(part, p, "neg"))
        else:
            out.append(Token(part, stem(p), "word"))
    return tuple(out)


def _cjk_tokens(run: str) -> list[Token]:
    """A Han/kana run in its normal form: fillers dropped, negations and weekdays taken out as
    tokens of their own, and the words between them in bigrams, so that "不要在周五部署",
    "周五禁止部署" and "周五不部署" all say {部署}, negated, on 周五 (a bigram across a negation
    or a day, "五不", "止部", is no word)."""
    if _ZH_WEEKDAY.match(run):
        return [Token(run, run, "value")]
    out: list[Token] = []
    for filler in sorted((f for f in FILLERS if f in run), key=len, reverse=True):
        run = run.replace(filler, " ")
    for piece in run.split():
        start = 0
        for m in _ZH_CUT.finditer(piece):
            out.extend(_grams(piece[start:m.start()]))
            out.append(Token(m.group(), m.group(), "value" if m.lastgroup == "day" else "neg"))
            start = m.end()
        out.extend(_grams(piece[start:]))
    return out


_ZH_CUT = re.compile(f"(?P<day>{_ZH_WEEKDAY_IN.pattern})|(?P<neg>{_ZH_NEG.pattern})")


def _grams(piece: str) -> list[Token]:
    """A piece's bigrams; a lone grammar character ("在", "的") is no term."""
    if not piece or (len(piece) == 1 and piece in _ZH_FUNCTION):
        return []
    return [Token(g, g, "cjk") for g in _bigrams(piece)]


def _hangul_tokens(word: str) -> list[Token]:
    if _KO_WEEKDAY.match(word):
        return [Token(word, word, "value")]
    if word in FILLERS:
        return [Token(word, word, "stop")]
    out = [Token(word, word, "neg")] if _KO_NEG.search(word + " ") else []
    stem_ = _strip_particle(word)
    out.extend(Token(g, g, "cjk") for g in _bigrams(stem_))
    return out


@lru_cache(maxsize=65536)
def terms(text: str) -> frozenset[str]:
    """The evidence of sameness: content words and CJK/Hangul bigrams, never values."""
    pieces = term_pieces(text)
    if pieces is not None:
        # Exactly what `tokenize` yields for such a text (NFKC leaves ASCII alone, and it is
        # tokenized a piece at a time), without building its tokens: the union of its pieces'
        # terms, each piece's kept once for every text (a first dream reads 10,000 headings).
        return frozenset().union(*map(piece_terms, pieces))
    return frozenset(t.norm for t in tokenize(text) if t.kind in ("word", "cjk"))


@lru_cache(maxsize=65536)
def piece_terms(piece: str) -> frozenset[str]:
    """One whitespace piece's terms (`term_pieces`)."""
    return frozenset(t.norm for t in _piece_tokens(piece) if t.kind in ("word", "cjk"))


def term_pieces(text: str) -> list[str] | None:
    """The whitespace pieces whose `piece_terms` together are exactly `terms(text)`, or None
    for a text that is not read a piece at a time (not ASCII, or a value across a space): an
    index can then find which texts hold a term from their distinct pieces alone."""
    if text.isascii() and not _CROSSES_SPACE.search(text):
        return text.split()
    return None


def values(text: str) -> frozenset[str]:
    return frozenset(t.norm for t in tokenize(text) if t.kind == "value")


def names(text: str) -> frozenset[str]:
    """Capitalized words inside a sentence ("moved to Lisbon", "uses Vitest"): proper names,
    which like numbers say *which* place, tool or person, lowercased."""
    out = set()
    for m in re.finditer(r"(?<![.!?:;]\s)(?<!^)\b([A-Z][a-z]+)\b", text.strip()):
        word = m.group(1).lower()
        if word not in STOPWORDS and word not in FILLERS and m.start() > 0:
            out.add(word)
    return frozenset(out)


def negated(text: str) -> bool:
    """A negation anywhere in the text (English, Chinese or Korean)."""
    return any(t.kind == "neg" for t in tokenize(text)) or bool(_KO_NEG.search(text))
