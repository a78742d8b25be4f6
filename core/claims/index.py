"""An in-memory index of claims by term, subject and label word, built once per dream run.

The dreamer compares a new fragment only with the shards that could hold the same claim or
contradict it, never with every shard, so a run costs in proportion to its new fragments:
- shards whose subject (a `key: value` key, a guard's subject) includes its subject or is
  included in it;
- shards sharing at least `MIN_SHARED` of its terms (one is enough when the fragment has one
  term, or rules something out: "not bun" needs only "bun");
- shards whose slug shares a word with its topic label (the caller checks the label really
  matches).
Only the claim's `RARE_TERMS` rarest terms fetch candidates, and a term in more than `COMMON`
shards fetches none: such a word is no evidence of sameness on its own.
A term's keys may also come from `pending` (the keys whose text holds it, asked once, at the
term's first lookup), so a run builds the lists only of the terms its claims look up.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

__all__ = ["ClaimIndex"]

COMMON = 400
RARE_TERMS = 8
MIN_SHARED = 2
MAX_CANDIDATES = 48


class ClaimIndex:
    def __init__(self, pending: Callable[[str], Iterable[str]] | None = None) -> None:
        """`pending(term)`: keys holding `term` that were never `add`ed with it."""
        self._pending = pending
        self._looked_up: set[str] = set()
        self._by_term: dict[str, set[str]] = {}
        self._by_subject: dict[str, set[str]] = {}
        self._subjects: dict[str, frozenset[str]] = {}
        self._by_label: dict[str, set[str]] = {}

    def add(self, key: str, terms: frozenset[str], subject: frozenset[str] = frozenset(),
            label_words: frozenset[str] = frozenset()) -> None:
        """Index (or re-index) `key`; words a replaced claim no longer has may still fetch it,
        which only costs a comparison."""
        for term in terms:
            self._by_term.setdefault(term, set()).add(key)
        for term in subject:
            self._by_subject.setdefault(term, set()).add(key)
        if subject:
            self._subjects[key] = subject
        for word in label_words:
            self._by_label.setdefault(word, set()).add(key)

    def keys(self, term: str) -> set[str] | None:
        """The keys holding `term` (None: none), the pending ones joined at its first lookup."""
        if self._pending is not None and term not in self._looked_up:
            self._looked_up.add(term)
            keys = self._pending(term)
            if keys:
                self._by_term.setdefault(term, set()).update(keys)
        return self._by_term.get(term)

    def rare(self, terms: frozenset[str]) -> frozenset[str]:
        """The terms that are evidence on their own: in no more than `COMMON` shards."""
        return frozenset(t for t in terms if len(self.keys(t) or ()) <= COMMON)

    def by_label(self, words: frozenset[str]) -> set[str]:
        out: set[str] = set()
        for word in words:
            out |= self._by_label.get(word, set())
        return out

    def candidates(self, terms: frozenset[str], subject: frozenset[str] = frozenset(), *, loose: bool = False) -> list[str]:
        """Keys that may hold the same claim, most shared terms first (then by key)."""
        looked = sorted((t for t in terms if self.keys(t)), key=lambda t: (len(self._by_term[t]), t))
        shared: Counter[str] = Counter()
        for term in looked[:RARE_TERMS]:
            posting = self._by_term[term]
            if len(posting) <= COMMON:
                shared.update(posting)
        need = 1 if loose else min(MIN_SHARED, len(terms))
        keys = {key for key, n in shared.items() if n >= need}
        near: set[str] = set()
        for term in subject:
            near |= self._by_subject.get(term, set())
        keys |= {k for k in near if self._subjects[k] <= subject or subject <= self._subjects[k]}
        ranked = sorted(keys, key=lambda k: (-shared.get(k, 0), k))
        return ranked[:MAX_CANDIDATES]
