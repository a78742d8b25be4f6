"""Are two notes the same claim, a true duplicate, or evidence for a topic?

- `same_claim(a, b)`: the same noun-phrase subject with the same measured value, however
  worded (`measures`: "Keep Slack replies under five sentences" / "Slack replies stay short:
  five sentences at most"; never with another value); or the same subject with a compatible value (one value includes the other:
  "heartbeat: ok" / "heartbeat: ok (all green)"), or the same statement: Jaccard similarity of
  their terms (`tokens.terms`: words and CJK/Hangul bigrams, never bare numbers or dates) of at
  least `SAME_STATEMENT` (`SAME_STATEMENT_HINTED` when the topic labels agree), with the same
  polarity, no two different values ("answered 12 tickets" / "answered 7 tickets" are two
  observations), and, when both name a verb, the same verb unless they are nearly identical
  ("fixed the checkout bug" / "reviewed the checkout PR" are siblings).
- a restatement is the same claim too: the lead clauses (each claim's first sentence or clause)
  are the same statement, one's terms including the other's with Jaccard similarity of at least
  `SAME_STATEMENT`, the smaller lead holding two terms or more, and neither claim adding more
  than `RESTATED_TAIL` (2) terms after its lead: "NEVER push to main. PRs only." restates
  "never push directly to main" ({push, main} within {push, directly, main}, "PRs only" adds
  two terms); "never push to release branches" ({push, release, branch}) is another rule, and
  a lead followed by a claim of its own ("never push to main; hotfixes go through the release
  branch", three terms more) is not folded into the lead's belief.
- `near_duplicate(a, b)`: a restatement that adds nothing: same polarity, the same values, and
  terms with Jaccard similarity of at least `NEAR_DUPLICATE` (emphasis, emoji and bookkeeping
  words are already gone). Only a near duplicate seen on the same day may be folded.
- `supports_topic(a, topic)`: a note that a hand- or LLM-written topic belief (a summary, not
  one claim) can cite: it shares a content word with the belief that is not a light verb.
"""
from __future__ import annotations

from functools import lru_cache

from dreamdeck.core.claims.extract import Claim, first_clause
from dreamdeck.core.claims.measures import measure_relation
from dreamdeck.core.claims.tokens import stem, terms

__all__ = [
    "NEAR_DUPLICATE", "RESTATED_TAIL", "SAME_STATEMENT", "SAME_STATEMENT_HINTED", "SAME_SUBSTITUTED",
    "jaccard", "near_duplicate", "same_claim", "same_slot", "subjects_match", "supports_topic",
]

SAME_STATEMENT = 0.5
SAME_STATEMENT_HINTED = 0.4
SAME_SUBSTITUTED = 0.7  # when each has a term the other lacks
NEAR_DUPLICATE = 0.8
RESTATED_TAIL = 2  # terms a restatement may add after its lead clause ("PRs only")
_LIGHT = frozenset(stem(w) for w in "use run get make work ask need want go do have take give set".split())


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def subjects_match(a: frozenset[str] | None, b: frozenset[str] | None, same_topic: bool = False) -> bool:
    """Equal subjects; or one includes the other when the smaller has two words or the topic
    labels agree ("API timeout" / "the API timeout entirely"); agentless claims match."""
    if a is None or b is None:
        return False
    if a == b:
        return True
    small, big = (a, b) if len(a) <= len(b) else (b, a)
    return bool(small) and small <= big and (len(small) >= 2 or same_topic)


def _values_conflict(a: frozenset[str], b: frozenset[str]) -> bool:
    return bool(a) and bool(b) and not (a <= b or b <= a)


def same_slot(a: Claim, b: Claim, same_topic: bool = False) -> bool:
    return a.predicate == "=" and b.predicate == "=" and subjects_match(a.subject, b.subject, same_topic)


def same_claim(a: Claim, b: Claim, *, same_topic: bool = False) -> bool:
    if a.state != b.state:
        return False  # a task ticked off is an update of the open one, and a task is no plain note
    if a.text.casefold() == b.text.casefold():
        return True
    if not (a.event or b.event) and a.negated == b.negated:
        # A measured value decides: the same subject and value is the same claim however it is
        # worded; another value of the same kind is an update, never the same claim.
        measured = measure_relation(a, b)
        if measured is not None:
            return measured == "same"
    if a.predicate == "=" and b.predicate == "=" and a.subject and b.subject:
        # Two keys: the same claim only on the same key, with a compatible value.
        return (subjects_match(a.subject, b.subject, same_topic)
                and a.negated == b.negated and not _values_conflict(a.value, b.value))
    if a.negated != b.negated or a.event != b.event or _values_conflict(a.values, b.values):
        return False  # a report of what happened is not a statement of how things are
    if _restated(a, b):
        return True
    score = jaccard(a.terms, b.terms)
    if not (a.terms <= b.terms or b.terms <= a.terms):
        # Each says something the other does not ("wrote the checkout notes" / "wrote the
        # search notes"): a substitution, the same claim only when nearly everything is shared.
        return score >= SAME_SUBSTITUTED
    return score >= (SAME_STATEMENT_HINTED if same_topic else SAME_STATEMENT)


@lru_cache(maxsize=65536)
def _lead(text: str, claim_terms: frozenset[str]) -> frozenset[str]:
    """The terms of the claim's lead clause (kept: a claim is compared with many shards)."""
    return terms(first_clause(text)) & claim_terms


def _restated(a: Claim, b: Claim) -> bool:
    """The same lead clause, each adding at most `RESTATED_TAIL` terms after it (module doc)."""
    if a.terms.isdisjoint(b.terms):
        return False
    la, lb = _lead(a.text, a.terms), _lead(b.text, b.terms)
    if la == a.terms and lb == b.terms:
        return False  # one clause each: the whole-statement rule decides
    if len(a.terms - la) > RESTATED_TAIL or len(b.terms - lb) > RESTATED_TAIL:
        return False
    small, big = (la, lb) if len(la) <= len(lb) else (lb, la)
    return len(small) >= 2 and small <= big and jaccard(la, lb) >= SAME_STATEMENT


def near_duplicate(a: Claim, b: Claim) -> bool:
    if a.state != b.state:
        return False
    if a.text.casefold() == b.text.casefold():
        return True
    return a.negated == b.negated and a.values == b.values and jaccard(a.terms, b.terms) >= NEAR_DUPLICATE


def supports_topic(a: Claim, topic: Claim) -> bool:
    return bool((a.terms & topic.terms) - _LIGHT)
