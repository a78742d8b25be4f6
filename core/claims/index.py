"""An in-memory index of claims by term, built once per dream run.

The dreamer compares a new fragment only with the shards that share a rare term with it, a
subject, or a topic-label word, never with every shard: a run costs in proportion to its new
fragments. Terms shared by more than `COMMON` claims are no evidence of sameness on their own
and are not looked up (they still count when two candidates are compared).
"""
from __future__ import annotations

from collections import Counter

from dreamdeck.core.claims.extract import Claim

__all__ = ["ClaimIndex"]

COMMON = 400  # a term in more claims than this does not fetch candidates
RARE_TERMS = 8  # the rarest terms of a claim that fetch candidates
MAX_CANDIDATES = 48


class ClaimIndex:
    def __init__(self) -> None:
        self._claims: dict[str, Claim] = {}
        self._by_term: dict[str, set[str]] = {}
        self._by_label: dict[str, set[str]] = {}

    def __contains__(self, key: str) -> bool:
        return key in self._claims

    def claim(self, key: str) -> Claim | None:
        return self._claims.get(key)

    def add(self, key: str, claim: Claim, label_words: frozenset[str] = frozenset()) -> None:
        """Index (or re-index) `key`; terms a replaced claim no longer has may still fetch it,
        which only costs a comparison."""
        self._claims[key] = claim
        for term in claim.terms | (claim.subject or frozenset()):
            self._by_term.setdefault(term, set()).add(key)
        for word in label_words:
            self._by_label.setdefault(word, set()).add(key)

    def by_label(self, words: frozenset[str]) -> set[str]:
        out: set[str] = set()
        for word in words:
            out |= self._by_label.get(word, set())
        return out

    def candidates(self, claim: Claim) -> list[str]:
        """Keys sharing the claim's rarer terms, most shared first (then by key)."""
        looked = [t for t in claim.terms | (claim.subject or frozenset()) if t in self._by_term]
        looked.sort(key=lambda t: (len(self._by_term[t]), t))
        shared: Counter[str] = Counter()
        for term in looked[:RARE_TERMS]:
            posting = self._by_term[term]
            if len(posting) <= COMMON:
                shared.update(posting)
        ranked = sorted(shared.items(), key=lambda kv: (-kv[1], kv[0]))
        return [key for key, _ in ranked[:MAX_CANDIDATES]]
