"""Which shard a new claim bears on, and how: the offline dreamer's matching.

`ShardMatcher` holds, for one run, an index of the shards' beliefs (`claims.index`: each
shard's heading read cheaply for its subject and label words, its terms found from its
whitespace pieces and listed only for the terms the run looks up (`offline_pieces`), the whole
claim extracted only for the few shards a fragment is compared with) and answers
`choose(claim, topic label)`:
- the candidates are the shards sharing rare terms (a claim of values only, such as a bare
  link: its values) or a subject with the claim, and the shards
  named for its topic label that share a rare term with it (or any of them when the claim
  announces a change: a summary may name the old place, tool or person only);
- each is related by the claim rules: a contradiction (`claims.contradiction`), the same claim
  (`claims.sameness`), or, for a topic summary a person or an LLM wrote (no ladder prefix), a
  note under its topic label that shares a content word (support);
- the most related wins: the same subject first, then a strong likeness, then the same topic
  label, then the likeness itself; ties go to the first slug;
- a shard that cannot be rewritten (unparseable, free-form) is related only through the topic
  label's own slug, and only gains a citation line.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache

from dreamdeck.core.claims.codec import claim_from_json, claim_to_json
from dreamdeck.core.claims.contradiction import contradiction_reason
from dreamdeck.core.claims.extract import Claim, extract, subject_terms
from dreamdeck.core.claims.index import ClaimIndex
from dreamdeck.core.claims.logs import is_log_key
from dreamdeck.core.claims.naming import name_of, slug_words
from dreamdeck.core.claims.readings import newer_reading
from dreamdeck.core.claims.sameness import SAME_STATEMENT, jaccard, same_claim, same_slot, subjects_match, supports_topic
from dreamdeck.core.claims.tokens import STOPWORDS, stem, terms, values
from dreamdeck.core.dreaming.offline_pieces import HeadingPieces
from dreamdeck.core.dreaming.protocol import UndreamedFragment
from dreamdeck.core.index.ladder import strip_prefix

__all__ = ["Match", "ShardEntry", "ShardMatcher", "label_slug", "label_words", "shard_entry", "volatile_subjects"]

_HEADING = re.compile(r"^heading:[ \t]*(.*?)[ \t]*$", re.MULTILINE)
_HASH_WORD = re.compile(r"^[0-9a-f]{6}$")
_SLUG_LIKE = re.compile(r"^[a-z0-9-]+$")
# A key seen with this many values in one run, nearly all different, may be a log, not a setting
# (a setting changed twice in a week, unannounced, has three: it still supersedes).
VOLATILE_VALUES = 4


@lru_cache(maxsize=65536)
def label_words(text: str) -> frozenset[str]:
    """A topic label's (or a slug's) words, stemmed, without stopwords or name hashes."""
    words = text.split("-") if _SLUG_LIKE.match(text) else slug_words(text)[0]
    return frozenset(w for w in map(_label_word, words) if w)


@lru_cache(maxsize=65536)
def _label_word(word: str) -> str:
    """One word of a label, stemmed ("" when it is no label word); kept per word, since
    10,000 slugs share a few hundred label words."""
    if not word or word in STOPWORDS or (_HASH_WORD.match(word) and any(c.isdigit() for c in word)):
        return ""
    return stem(word)


def label_slug(label: str) -> str:
    """The slug a topic label's first claim takes (`claims.naming.claim_slug`)."""
    return name_of(slug_words(label)[0])


def heading_of(text: str) -> str | None:
    """The frontmatter heading, read without parsing the shard (None: no frontmatter): the
    first line of the frontmatter opening with "heading:" (found with `str.find`; the regex
    reads only that line)."""
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---", 4)
    end = end if end > 0 else len(text)
    start = 4 if text.startswith("heading:", 4) else text.find("\nheading:", 4, end) + 1
    if start <= 0 or start >= end:
        return None
    line_end = text.find("\n", start, end)
    m = _HEADING.match(text, start, line_end if line_end >= 0 else end)
    return m.group(1) if m else None


def volatile_subjects(fragments: list[UndreamedFragment]) -> set[frozenset[str]]:
    """Keys that take a new value nearly every time they are written within the run ("tokens
    used: …" every day), and whose change is never announced ("raised …", "moved … to"): each
    line is its own observation and a new value supersedes nothing. A setting keeps its value
    for a while, or its change is announced. A key that names its moment or event ("cost
    today", "last run", "PR merged") is a log from its first line, in any run
    (`claims.logs.is_log_key`)."""
    lines: dict[frozenset[str], list[frozenset[str]]] = {}
    announced: list[frozenset[str]] = []
    for f in fragments:
        claim = extract(f.body)
        if claim.keyed and claim.subject:
            lines.setdefault(claim.subject, []).append(claim.value)
        elif claim.predicate == "=" and claim.subject and claim.marker:
            announced.append(claim.subject)
    return {
        subject for subject, values in lines.items()
        if len(set(values)) >= VOLATILE_VALUES and len(set(values)) >= 0.8 * len(values)
        and not any(subjects_match(subject, other) for other in announced)
    }


def _lookup(claim_terms: frozenset[str], text: str) -> frozenset[str]:
    """What indexes a claim: its terms; a claim of values only (a bare link, "02:00") by its
    values, marked so that a value never meets a word."""
    return claim_terms or frozenset("=" + v for v in values(text))


@dataclass(frozen=True)
class ShardEntry:
    """What the index holds for one shard: a function of its slug and frontmatter `heading` alone
    (so an entry is valid for a shard exactly when the shard's heading is this one)."""
    heading: str  # as written in the frontmatter, ladder prefix included
    text: str  # the belief without its ladder prefix
    prefixed: bool
    terms: frozenset[str]
    lookup: frozenset[str]  # what fetches it (`_lookup`)
    subject: frozenset[str]
    labels: frozenset[str]  # the slug's words (`label_words`)
    claim: str | None = None  # the belief's whole claim (`claims.codec`), once a run extracted it


def shard_entry(slug: str, heading: str) -> ShardEntry:
    text, prefixed = strip_prefix(heading)
    words = terms(text)
    return ShardEntry(heading, text, prefixed, words, _lookup(words, text), subject_terms(text), label_words(slug))


@dataclass
class Match:
    kind: str  # "contradict" | "reading" | "same" | "cite_only"
    slug: str
    rank: tuple


class ShardMatcher:
    """The run's view of the shards' beliefs, kept current as the run writes new ones."""

    def __init__(self, files: dict[str, str], modelable: Callable[[str], bool],
                 volatile: set[frozenset[str]] | None = None, known: dict[str, ShardEntry] | None = None) -> None:
        """`known`: entries kept from an earlier run (`offline_projection`); one is used only for
        a shard whose heading is still the one it was computed from."""
        self.files = files  # the run's live slug -> text (new shards appear as the run adds them)
        self.modelable = modelable  # can the dreamer rewrite this shard (else: cite only)?
        self.volatile = volatile or set()
        # A heading's terms are found from its whitespace pieces, and a term's postings built
        # only when the run looks it up (`offline_pieces`): a first run no longer indexes 10,000
        # headings for the few thousand terms its fragments hold.
        self.pieces = HeadingPieces()
        self.index = ClaimIndex(pending=self.pieces.slugs)
        self.headings: dict[str, str] = {}
        self.terms: dict[str, frozenset[str]] = {}  # of kept entries and of beliefs this run wrote (`holds_any`)
        self.claims: dict[str, Claim] = {}
        self.prefixed: dict[str, bool] = {}  # the belief carries a ladder prefix: one claim
        self.by_topic: dict[str, list[str]] = {}  # topic label -> the shards named for it
        self.rewritten: set[str] = set()  # beliefs this run wrote
        self.labels_by_word: dict[str, set[str]] = {}
        self.original: dict[str, str] = {}  # slug -> its frontmatter heading as the run began
        self.entries: dict[str, ShardEntry] = {}  # entries of those headings, kept or computed (`entry`)
        self.recomputed: set[str] = set()  # entries this run computed (`known` held none for the heading)
        self.claimed: set[str] = set()  # entries whose claim this run extracted
        known = known or {}
        for slug in sorted(files):
            heading = heading_of(files[slug])
            if not heading:
                continue
            self.original[slug] = heading
            entry = known.get(slug)
            if entry is not None and entry.heading == heading:
                self.entries[slug] = entry
                self.prefixed[slug], self.headings[slug], self.terms[slug] = entry.prefixed, entry.text, entry.terms
                self.index.add(slug, entry.lookup, entry.subject, entry.labels)
                continue
            text, self.prefixed[slug] = strip_prefix(heading)
            self.headings[slug] = text
            lookup = frozenset() if self.pieces.add(slug, text) else self.entry(slug).lookup
            self.index.add(slug, lookup, subject_terms(text), label_words(slug))

    def entry(self, slug: str) -> ShardEntry:
        """The index entry of a shard's heading as the run began: kept, or computed now."""
        entry = self.entries.get(slug)
        if entry is None:
            entry = self.entries[slug] = shard_entry(slug, self.original[slug])
            self.recomputed.add(slug)
        return entry

    def all_entries(self) -> dict[str, ShardEntry]:
        """Every shard's entry as the run began (those it never needed computed now)."""
        for slug in self.original:
            self.entry(slug)
        return self.entries

    def holds_any(self, slug: str, words: frozenset[str], listed: set[str]) -> bool:
        """The shard's belief, as the run knows it now, holds one of `words`; `listed` is the
        union of the index's lists of those words, which answers for a heading the run has not
        rewritten (no heading's own term set is built, `offline_pieces`)."""
        held = self.terms.get(slug)
        return slug in listed if held is None else not words.isdisjoint(held)

    def claim_of(self, slug: str) -> Claim | None:
        """The claim a shard's belief states (its heading, without the ladder prefix); a belief
        the run has not rewritten (`remember` sets those) is its entry's."""
        if slug not in self.claims:
            if slug not in self.headings:
                return None
            entry = self.entries.get(slug)
            kept = claim_from_json(entry.claim) if entry is not None and entry.claim is not None else None
            if kept is None:
                kept = extract(self.headings[slug])
                if slug in self.original:
                    self.entries[slug] = replace(self.entry(slug), claim=claim_to_json(kept))
                    self.claimed.add(slug)
            self.claims[slug] = kept
        return self.claims[slug]

    def entries_to_keep(self) -> set[str]:
        """The entries this run computed, in whole or in part (`offline_projection.save`)."""
        return self.recomputed | self.claimed

    def remember(self, slug: str, sentence: str) -> None:
        """(Re)index a belief the run wrote: one claim with a ladder prefix."""
        claim = extract(sentence)
        self.headings[slug], self.claims[slug], self.terms[slug] = sentence, claim, claim.terms
        self.rewritten.add(slug)
        self.prefixed[slug] = True
        for label in sorted(set().union(*(self.labels_by_word.get(w, ()) for w in label_words(slug)))):
            slugs = self.by_topic[label]
            if slug not in slugs and self.same_topic(slug, label_words(label), label_slug(label)):
                slugs.append(slug)
        self.index.add(slug, _lookup(claim.terms, claim.text), claim.subject or frozenset(), label_words(slug))

    def choose(self, claim: Claim, label: str) -> Match | None:
        lwords, lslug = label_words(label), label_slug(label)
        slugs = set(self.index.candidates(_lookup(claim.terms, claim.text), claim.subject or frozenset(),
                                          loose=bool(claim.rejected)))
        rare = self.index.rare(claim.terms)
        listed = set().union(*(self.index.keys(word) or () for word in rare))
        slugs |= {s for s in self.topic_slugs(label) if claim.marker or self.holds_any(s, rare, listed)}
        if lslug in self.files:
            slugs.add(lslug)
        best: Match | None = None
        for slug in sorted(slugs):
            found = self.relate(claim, slug, lwords, lslug)
            if found and (best is None or found.rank > best.rank):
                best = found
        return best

    def topic_slugs(self, label: str) -> list[str]:
        """The shards named for this topic label (kept up to date as the run adds shards)."""
        if label not in self.by_topic:
            lwords, lslug = label_words(label), label_slug(label)
            self.by_topic[label] = [s for s in sorted(self.index.by_label(lwords)) if self.same_topic(s, lwords, lslug)]
            for word in lwords:
                self.labels_by_word.setdefault(word, set()).add(label)
        return self.by_topic[label]

    def same_topic(self, slug: str, lwords: frozenset[str], lslug: str) -> bool:
        """The shard was named for this topic label (or its words match the label's)."""
        if slug == lslug or (bool(lslug) and slug.startswith(lslug + "-")):
            return True
        entry = self.entries.get(slug)
        return jaccard(lwords, entry.labels if entry is not None else label_words(slug)) >= 0.5

    def relate(self, claim: Claim, slug: str, lwords: frozenset[str], lslug: str) -> Match | None:
        """How `claim` bears on shard `slug`, judged on its belief first; whether the shard can
        be rewritten is asked only when it is related (it costs a parse)."""
        topic = self.same_topic(slug, lwords, lslug)
        other = self.claim_of(slug)
        found = self._relation(claim, slug, other, topic) if other is not None else None
        if (found or slug == lslug) and not self.modelable(slug):
            return Match("cite_only", slug, (False, False, True, -1.0)) if slug == lslug else None
        return found

    def _relation(self, claim: Claim, slug: str, other: Claim, topic: bool) -> Match | None:
        slot = same_slot(claim, other, topic)
        score = jaccard(claim.terms, other.terms)
        rank = (slot, score >= SAME_STATEMENT, topic, score)
        summary = not self.prefixed.get(slug, False)
        reason = contradiction_reason(other, claim, same_topic=topic, old_is_summary=summary)
        if reason in ("value", None) and not summary and newer_reading(other, claim, same_topic=topic) and not is_log_key(claim.subject_text):
            # "disk: 64% used" after "disk: 61% used": no question, however often it changed
            # in the run (a reading logged daily and dreamed weekly is still one reading).
            return Match("reading", slug, rank)
        if claim.subject in self.volatile and reason == "value":
            reason = None  # a log line ("tokens used: 114k"), not a setting that changed
        if reason:
            return Match("contradict", slug, rank)
        if claim.series and topic and other.keyed and other.subject == claim.subject and not summary:
            return Match("same", slug, rank)  # another run of the same job
        if same_claim(claim, other, same_topic=topic):
            return Match("same", slug, rank)
        if topic and summary and supports_topic(claim, other):
            return Match("same", slug, rank)
        return None
