"""Does a new claim contradict an old one? A small, documented, deterministic heuristic.

The offline dreamer calls `contradicts(old, new)` for two claims about the same topic (the
fragments were already grouped by topic, so a shared word is enough to call it the same
subject). It answers True when one of three rules fires, and `contradiction_reason` names it:

1. **negation** — a negated term of one claim is affirmed by the other. A negation marker
   ("not", "no", "never", "no longer", "instead of", "rather than", "stopped", "…n't") opens a
   scope of up to three content words that ends at punctuation or at "and"/"but"/"so".
   "use pnpm, not bun" vs "uses bun": `bun` is negated by the new claim and affirmed by the
   old one. Light verbs ("use", "prefer", "like", …) never count as negated terms, so
   "never use bun" restates "use pnpm, not bun" instead of contradicting it.
2. **correction** — the new claim carries a correction marker the old one lacks ("now",
   "instead", "actually", "switched", "changed", "moved", "migrated", "replaced", "anymore",
   "correction", "nowadays"), shares a subject word with the old one, and says something new
   (a word or value the old claim does not have). "now prefers tabs" after "prefers tabs"
   is a restatement.
3. **value** — both claims carry values (numbers, dates, versions, capitalized names not at
   the start of a sentence), each has a value the other lacks, and they share a plain subject
   word: "deadline is March 15" vs "deadline is March 30", "uses Node 18" vs "uses Node 20".

Additive markers ("also", "too", "additionally", "as well") in the new claim silence rules 2
and 3: "also uses Node 20" adds a fact. Plain restatements and additions ("prefers tabs" vs
"prefers tabs in Go files") fire no rule. Words are lowercased and lightly stemmed
("uses"/"using"/"use" -> "us"); stopwords (articles, pronouns, auxiliaries, "user", the
wording-ladder words) are ignored. It knows no synonyms and no sarcasm; the dreamer's
reviewer sees every contradiction it reports.
"""
from __future__ import annotations

import re

__all__ = [
    "STOPWORDS", "contradicts", "contradiction_reason", "content_words", "stem",
]

STOPWORDS = frozenset("""
a an the and or but of for to in on at by with from into onto as is are was were be been being
am it its it's this that these those there here i we you he she they them me him my our your
his her their do does did has have had will would should can could may might must shall so then
if about user users said says say told tells mentioned once observed consistently always days
day very just still all any some each every which who whom what when where why how s t also too
again than via per
""".split())

# Negation markers open a scope of negated words; "n't" endings count too.
_NEGATIONS = frozenset({"not", "no", "never", "nor", "stopped", "stop", "stops", "cannot"})
_NEGATION_PHRASES = (("no", "longer"), ("instead", "of"), ("rather", "than"))
_CORRECTIONS = frozenset({
    "now", "instead", "actually", "switched", "switch", "switches", "changed", "change",
    "moved", "migrated", "replaced", "anymore", "correction", "nowadays",
})
_ADDITIVE = frozenset({"also", "too", "additionally", "plus"})
_ADDITIVE_PHRASES = (("as", "well"), ("in", "addition"))
_SCOPE_END = frozenset({"and", "but", "so", "because", "while", "though", "although", "yet"})
_LIGHT_VERBS = frozenset({
    "use", "prefer", "like", "love", "want", "need", "run", "work", "write", "make", "get",
    "keep", "choose", "pick", "install", "longer",
})
_MARKER_WORDS = _NEGATIONS | _CORRECTIONS | {"longer", "rather", "instead"}
_SCOPE_WORDS = 3

_TOKEN = re.compile(r"\d{4}-\d{2}-\d{2}|[^\W_]+(?:['.][^\W_]+)*|[,;:.!?()\"“”«»\[\]]")
_PUNCT = frozenset(",;:.!?()\"“”«»[]")
_OPENERS = frozenset(".!?:\"“«([")


def stem(word: str) -> str:
    """A deliberately tiny stemmer: both sides of a comparison go through it, so only
    consistency matters ("uses", "using", "use" -> "us"; "tabs" -> "tab")."""
    w = word.lower()
    if any(c.isdigit() for c in w):
        return w
    for suffix in ("ing", "ed", "es", "s"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 2 and not (suffix == "s" and w.endswith("ss")):
            w = w[: -len(suffix)]
            if len(w) >= 3 and w[-1] == w[-2] and w[-1] not in "aeiouls":
                w = w[:-1]  # "stopped" -> "stopp" -> "stop"
            break
    if len(w) >= 3 and w.endswith("e"):
        w = w[:-1]
    return w


_LIGHT_STEMS = frozenset(stem(v) for v in _LIGHT_VERBS)


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.replace("’", "'").replace("‘", "'"))


def content_words(text: str) -> set[str]:
    """Stemmed, lowercased words that are not stopwords (numbers kept as written)."""
    return {
        stem(t) for t in _tokens(text)
        if t not in _PUNCT and t.lower() not in STOPWORDS
    }


class _Claim:
    """A claim split into what it affirms, what it negates, its values and its markers."""

    def __init__(self, text: str):
        toks = _tokens(text)
        lower = [t.lower() for t in toks]
        self.words: set[str] = set()  # content words, proper names included, numbers not
        self.plain: set[str] = set()  # content words without proper names
        self.values: set[str] = set()  # numbers, dates, versions, proper names
        self.negated: set[str] = set()
        self.affirmed: set[str] = set()
        self.markers: set[str] = set()
        self.additive = any(t in _ADDITIVE for t in lower) or any(
            lower[i:i + len(p)] == list(p) for p in _ADDITIVE_PHRASES for i in range(len(lower))
        )
        first_word = True
        scope_left = 0
        prev = ""
        i = 0
        while i < len(toks):
            tok, low = toks[i], lower[i]
            if tok in _PUNCT:
                scope_left = 0
                prev = tok
                i += 1
                continue
            phrase = next((p for p in _NEGATION_PHRASES if tuple(lower[i:i + len(p)]) == p), None)
            if phrase or low in _NEGATIONS or low.endswith("n't"):
                self.markers.add(" ".join(phrase) if phrase else ("n't" if low.endswith("n't") else low))
                if phrase and phrase[0] in _CORRECTIONS:
                    self.markers.add(phrase[0])
                scope_left = _SCOPE_WORDS
                first_word = False
                prev = tok
                i += len(phrase) if phrase else 1
                continue
            if low in _CORRECTIONS:
                self.markers.add(low)
            if low in _SCOPE_END:
                scope_left = 0
            is_number = any(c.isdigit() for c in tok)
            is_proper = (
                not is_number and not first_word and tok[0].isupper() and len(tok) > 1
                and prev not in _OPENERS and low not in STOPWORDS
            )
            first_word = False
            prev = tok
            i += 1
            if is_number:
                self.values.add(low)
                continue
            if low in STOPWORDS or low in _MARKER_WORDS or low in _SCOPE_END:
                continue
            key = stem(low)
            self.words.add(key)
            if is_proper:
                self.values.add(key)
            else:
                self.plain.add(key)
            if scope_left > 0:
                if key not in _LIGHT_STEMS:
                    self.negated.add(key)
                scope_left -= 1
            else:
                self.affirmed.add(key)


def contradiction_reason(old_claim: str, new_claim: str) -> str | None:
    """'negation', 'correction' or 'value' when `new_claim` overturns `old_claim`, else None."""
    old, new = _Claim(old_claim), _Claim(new_claim)
    if not (old.words & new.words):
        return None  # not the same subject
    if (new.negated & (old.affirmed - old.negated)) or (old.negated & (new.affirmed - new.negated)):
        return "negation"
    if new.additive:
        return None
    fresh = (new.words - old.words) or (new.values - old.values)
    corrections = (new.markers & _CORRECTIONS) - old.markers
    if corrections and fresh:
        return "correction"
    if (
        old.values and new.values and (old.values - new.values) and (new.values - old.values)
        and (old.plain & new.plain)
    ):
        return "value"
    return None


def contradicts(old_claim: str, new_claim: str) -> bool:
    """True when the newer claim corrects or overturns the older one (see the module doc)."""
    return contradiction_reason(old_claim, new_claim) is not None
