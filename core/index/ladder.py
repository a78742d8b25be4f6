"""The strength ladder in a belief's words: one tier word, never two.

`ladder_sentence(claim, days, inline)` words a belief for `days` distinct days of active
support (TypeClaw's tiers: 1 "mentioned", 2 "observed", 3+ "consistently", 7+ "always"):
- a claim the offline dreamer wrote from a fragment carries the tier as a prefix, replaced
  whole at each change: "Mentioned once: …", "Observed on 2 days: …", "Consistently (N days):
  …", "Always (N days): …"; the claim's own words are content ("Always ask Dana …" stays);
- a belief that words its strength itself (written by a person or an LLM: "The user always
  runs …", "… has been observed treating …", "Priya mentioned that …") is reworded in place:
  the adverb is swapped, "has been observed V-ing" becomes "consistently V-s", "mentioned V-ing"
  becomes "has been observed V-ing"; where no inline form fits, the old tier word is replaced by
  a neutral one ("mentioned that" -> "noted that") and the prefix carries the tier.
"""
from __future__ import annotations

import re

from dreamdeck.core.index.strength import ladder_tier

__all__ = ["has_inline_tier", "ladder_sentence", "same_claim", "strip_prefix", "third_person"]

PREFIX = re.compile(
    r"^\s*(?:mentioned once|observed on \d+ days?|consistently \(\d+ days?\)|always \(\d+ days?\))\s*:\s*",
    re.IGNORECASE)
_ADVERB = re.compile(r"\b(always|consistently)\b")
_OBSERVED = re.compile(r"\b(has|have|was|were) been observed (\w+ing)\b|\b(was|were) observed (\w+ing)\b")
_OBSERVED_ANY = re.compile(r"\b(?:has|have|had) been observed\b|\b(?:was|were) observed\b")
_MENTIONED = re.compile(r"\bmentioned\b")
_MENTIONED_ING = re.compile(r"\bmentioned (\w+ing)\b")
_AND_ING = re.compile(r"\b(and|then|or) (\w+ing)\b")
_IRREGULAR = {
    "being": "is", "having": "has", "doing": "does", "going": "goes", "seeing": "sees", "using": "uses",
    "making": "makes", "taking": "takes", "giving": "gives", "writing": "writes", "coming": "comes",
    "merging": "merges", "changing": "changes", "naming": "names", "gating": "gates", "rotating": "rotates",
    "promoting": "promotes", "moving": "moves", "closing": "closes", "choosing": "chooses", "saving": "saves",
    "living": "lives", "serving": "serves", "leaving": "leaves", "timing": "times", "releasing": "releases",
    "creating": "creates", "updating": "updates", "deleting": "deletes", "scheduling": "schedules",
    "preferring": "prefers", "referring": "refers", "opening": "opens", "visiting": "visits",
    "editing": "edits", "listening": "listens", "happening": "happens", "offering": "offers",
    "ordering": "orders", "entering": "enters", "targeting": "targets", "limiting": "limits",
}


def strip_prefix(sentence: str) -> tuple[str, bool]:
    """(the sentence without any ladder prefix, whether it had one); stacked prefixes all go."""
    out, had = sentence.strip(), False
    while (m := PREFIX.match(out)):
        out, had = out[m.end():].strip(), True
    return out, had


_TIER_DAYS = (1, 2, 3, 7)  # a day count in each tier: "mentioned", "observed", "consistently", "always"


def same_claim(old: str, new: str) -> bool:
    """`new` states the claim `old` states, its strength words aside: the same sentence under
    another ladder prefix, or `old` re-worded in place by the ladder for any tier ("has been
    observed running" -> "consistently runs", "always" -> "consistently"). A reinforcement
    re-words a belief this way; anything else changes the claim's text."""
    claim, had_prefix = strip_prefix(old)
    target = _plain(strip_prefix(new)[0])
    if _plain(claim) == target:
        return True
    if had_prefix:  # the prefix carried the tier: the claim's own words are content
        return False
    return any(_plain(strip_prefix(ladder_sentence(claim, days))[0]) == target for days in _TIER_DAYS)


def _plain(sentence: str) -> str:
    return " ".join(sentence.split()).rstrip(".")


def has_inline_tier(sentence: str, *, adverbs: bool = True) -> bool:
    """The sentence words a strength itself ("observed", "mentioned"; with `adverbs`, also
    "always", "consistently")."""
    if _OBSERVED_ANY.search(sentence) or _MENTIONED.search(sentence):
        return True
    return adverbs and bool(_ADVERB.search(sentence))


def third_person(gerund: str) -> str:
    """'treating' -> 'treats', 'running' -> 'runs', 'pushing' -> 'pushes' (a small rule set)."""
    g = gerund.lower()
    if g in _IRREGULAR:
        return _IRREGULAR[g]
    base = g[:-3]
    if len(base) >= 3 and base[-1] == base[-2] and base[-1] not in "lsz":
        base = base[:-1]  # running -> run
    elif base.endswith(("v", "c")) or re.search(r"(?:[rd]g|[^aeiou](?:at|ut|ot|id|iz)|[bdgkpt]l|uid)$", base):
        base += "e"  # solving, forcing, merging, rotating, deciding, handling
    elif len(base) <= 4 and re.search(r"[^aeiou][aeiou][bcdgkmnprtvz]$", base) and not base.endswith(("en", "er")):
        base += "e"  # coding -> code, voting -> vote
    elif len(base) <= 4 and re.search(r"[aeiou]s$", base):
        base += "e"  # closing -> close, raising -> raise
    if base.endswith(("s", "sh", "ch", "x", "z", "o")):
        return base + "es"
    if base.endswith("y") and base[-2:-1] not in ("a", "e", "i", "o", "u"):
        return base[:-1] + "ies"
    return base + "s"


def _prefix(tier: str, days: int) -> str:
    return {
        "always": f"Always ({days} days)", "consistently": f"Consistently ({days} days)",
        "observed": "Observed on 2 days", "mentioned": "Mentioned once",
    }[tier]


def _conjugated(sentence: str, m: re.Match, adverb: str) -> str:
    verb = m.group(2) or m.group(4)
    head = sentence[: m.start()] + f"{adverb} {third_person(verb)}"
    tail = _AND_ING.sub(lambda t: f"{t.group(1)} {third_person(t.group(2))}", sentence[m.end():])
    return head + tail


def _reword(sentence: str, tier: str) -> tuple[str, bool]:
    """(the sentence worded for `tier`, whether its own words now carry the tier)."""
    adverb = _ADVERB.search(sentence)
    if adverb:
        if tier in ("always", "consistently"):
            return _ADVERB.sub(tier, sentence, count=1), True
        return re.sub(r"\s{2,}", " ", _ADVERB.sub("", sentence, count=1)).strip(), False
    observed = _OBSERVED.search(sentence)
    if observed:
        if tier == "observed":
            return sentence, True
        if tier in ("always", "consistently"):
            return _conjugated(sentence, observed, tier), True
        return _OBSERVED.sub(lambda m: f"was seen {m.group(2) or m.group(4)}", sentence, count=1), False
    if _OBSERVED_ANY.search(sentence):
        return _OBSERVED_ANY.sub("was seen", sentence, count=1), False
    mentioned_ing = _MENTIONED_ING.search(sentence)
    if _MENTIONED.search(sentence):
        if tier == "mentioned":
            return sentence, True
        if mentioned_ing and tier == "observed":
            return _MENTIONED_ING.sub(lambda m: f"has been observed {m.group(1)}", sentence, count=1), True
        if mentioned_ing:
            return sentence[: mentioned_ing.start()] + f"{tier} {third_person(mentioned_ing.group(1))}" + _AND_ING.sub(
                lambda t: f"{t.group(1)} {third_person(t.group(2))}", sentence[mentioned_ing.end():]), True
        return _MENTIONED.sub("noted", sentence, count=1), False
    return sentence, False


def ladder_sentence(claim: str, days: int, inline: bool | None = None) -> str:
    """`claim` worded for `days` distinct days of active support (see the module doc).
    `inline` says whether the claim words its own strength; None: judge from its words."""
    tier = ladder_tier(days)
    if inline is None:
        inline = has_inline_tier(claim)
    if inline:
        worded, carries = _reword(claim, tier)
        if carries:
            return worded
        claim = worded
    return f"{_prefix(tier, days)}: {claim}"
