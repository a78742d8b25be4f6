"""The `offline` dreamer: deterministic consolidation without a model or a network.

Its rules (the claim rules themselves live in `core.claims`):
- **One belief per claim.** A fragment is read as a claim (`claims.extract`) and compared only
  with the shards sharing a rare term, a subject or a topic-label word with it (`claims.index`,
  built once per run). The topic label is a hint that loosens sameness, never an identity.
- **Contradiction** (the same subject with another value, `claims.contradiction`): the newer
  claim wins; the overturned ids move to `superseded:` and the new belief keeps a guard ("X is
  not Y anymore; …"). A fragment older than the belief's newest evidence loses: it is cited
  under `superseded:` and the belief stays.
  A key that takes a new value nearly every time within one run, never announced as a change,
  is a log ("tokens used: …"), not a setting: its lines are separate observations.
- **Reinforcement**: the same claim seen again, however labelled, is cited. At most one pure
  reinforcement per claim per day: a near duplicate of what the claim already cites that day
  is folded, and `outcome.folded` names the citation it duplicates; anything else is cited.
- **New claim**: a new shard (`claims.naming.claim_slug`) whose belief is the fragment's first
  sentence, cleaned. Nothing distinct is left uncited.
- **Strength**: the ladder word counts the distinct days of the belief's active citations;
  superseded evidence never raises it; one tier word, replaced, never stacked (`ladder`).
- Shards a person or an LLM wrote without a ladder prefix summarize a topic: a fragment under
  the same topic label that shares a content word with the belief supports it and is cited.
- Shards it cannot model (unparseable, or a free-form body) are matched by the topic label's
  slug only and only gain citation lines, with a question. No citation is ever dropped.
Same input, same writes, byte for byte: no clock, no randomness, nothing in hash order.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from dreamdeck.core.claims.contradiction import contradiction_reason
from dreamdeck.core.claims.extract import Claim, extract, subject_terms
from dreamdeck.core.claims.index import ClaimIndex
from dreamdeck.core.claims.naming import claim_slug, slug_words
from dreamdeck.core.claims.sameness import (
    SAME_STATEMENT,
    jaccard,
    near_duplicate,
    same_claim,
    same_slot,
    subjects_match,
    supports_topic,
)
from dreamdeck.core.claims.tokens import STOPWORDS, stem, terms
from dreamdeck.core.dreaming.beliefs import (
    Belief,
    Key,
    bare,
    claim_sentence,
    dedupe,
    finish_claim,
    guarded,
    parse_belief,
)
from dreamdeck.core.dreaming.ladder import ladder_sentence, strip_prefix
from dreamdeck.core.dreaming.protocol import DreamInput, DreamOutcome, DreamScratch, UndreamedFragment
from dreamdeck.core.formats.citations import CITATION, citation_keys
from dreamdeck.core.formats.shards import ShardParseError, add_citation_lines, first_belief_sentence, parse_loose_shard, parse_shard

__all__ = ["Belief", "OfflineDreamer", "ladder_sentence", "parse_belief"]

_HEADING = re.compile(r"^heading:[ \t]*(.*?)[ \t]*$", re.MULTILINE)
_HASH_WORD = re.compile(r"^[0-9a-f]{6}$")
_SLUG_LIKE = re.compile(r"^[a-z0-9-]+$")


@lru_cache(maxsize=65536)
def label_words(text: str) -> frozenset[str]:
    """A topic label's (or a slug's) words, stemmed, without stopwords or name hashes."""
    words = text.split("-") if _SLUG_LIKE.match(text) else slug_words(text)[0]
    return frozenset(stem(w) for w in words if w and w not in STOPWORDS and not (_HASH_WORD.match(w) and any(c.isdigit() for c in w)))


def _label_slug(label: str) -> str:
    return "-".join(slug_words(label)[0])


_UUID7 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def _when(key: Key) -> tuple[str, str]:
    """When a fragment was written, as far as its key tells: the day, and within a day the
    UUIDv7 id (its first 48 bits are the time); other ids only tell the day."""
    return key[0], key[1] if _UUID7.match(key[1]) else ""


def _heading_of(text: str) -> str | None:
    """The frontmatter heading, read without parsing the shard (None: no frontmatter)."""
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---", 4)
    m = _HEADING.search(text, 4, end if end > 0 else len(text))
    return m.group(1) if m else None


VOLATILE_VALUES = 3  # a key seen with this many values in one run is a log, not a setting


def _volatile_subjects(fragments: list[UndreamedFragment]) -> set[frozenset[str]]:
    """Keys that take a new value nearly every time they are written within the run ("tokens
    used: …" every day), and whose change is never announced ("raised …", "moved … to"): each
    line is its own observation and a new value supersedes nothing. A setting keeps its value
    for a while, or its change is announced."""
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


@dataclass
class _Tally:
    fragments: int = 0
    new_topics: int = 0
    reinforced: int = 0
    contradictions: int = 0
    same_day: int = 0
    already: int = 0

    def summary(self) -> str:
        def n(count: int, word: str) -> str:
            return f"{count} {word if count == 1 else word + 's'}"

        head = n(self.fragments, "fragment")
        if not self.fragments:
            return f"{head}: nothing to dream"
        parts = [n(self.new_topics, "new topic"), f"{self.reinforced} reinforced", n(self.contradictions, "contradiction")]
        if self.same_day:
            parts.append(f"{self.same_day} not cited (same day)")
        if self.already:
            parts.append(f"{self.already} already cited")
        return f"{head}: {', '.join(parts)}"


class OfflineDreamer:
    """Deterministic dreamer; see the module docstring for every rule it applies."""

    name = "offline"
    reads_strength_table = False  # reads shards through its claim index; the table is for LLM dreamers

    def dream(self, inp: DreamInput, scratch: DreamScratch) -> DreamOutcome:
        _Run(inp, scratch).go()
        return scratch.outcome


@dataclass
class _Choice:
    kind: str  # "contradict" | "same" | "cite_only"
    slug: str
    rank: tuple


class _Run:
    def __init__(self, inp: DreamInput, scratch: DreamScratch):
        self.inp = inp
        self.scratch = scratch
        self.files: dict[str, str] = dict(scratch.files)
        self.cited: set[Key] = {(m.group(2), m.group(3)) for text in self.files.values() for m in CITATION.finditer(text)}
        self.tally = _Tally(fragments=len(inp.fragments))
        self.questions: list[str] = []
        self.contradictions: list[str] = []
        self.folded: dict[str, str] = {}
        self.changes: dict[str, list[str]] = {}
        self.beliefs: dict[str, Belief | None] = {}  # parsed on first use; None: cite-only
        self.prefixed: dict[str, bool] = {}  # the belief carries a ladder prefix (one claim)
        self.dirty: set[str] = set()
        self.cite_only_added: dict[str, list[Key]] = {}
        self.cite_only_why: dict[str, str] = {}
        self.seen: dict[Key, Claim] = {}  # this run's fragments, by key
        self.volatile: set[frozenset[str]] = set()
        self.taken_lower = {slug.lower() for slug in self.files}
        # The index reads each shard's heading (its belief) cheaply: terms and subject only;
        # the whole claim is read for the few shards a fragment is compared with.
        self.index = ClaimIndex()
        self.headings: dict[str, str] = {}
        self.shard_terms: dict[str, frozenset[str]] = {}
        self.by_topic: dict[str, list[str]] = {}  # topic label -> the shards named for it
        self.labels_by_word: dict[str, set[str]] = {}
        self.claims: dict[str, Claim] = {}
        for slug in sorted(self.files):
            heading = _heading_of(self.files[slug])
            if heading:
                text, prefixed = strip_prefix(heading)
                self.prefixed[slug], self.headings[slug] = prefixed, text
                self.shard_terms[slug] = terms(text)
                self.index.add(slug, self.shard_terms[slug], subject_terms(text), label_words(slug))

    def go(self) -> None:
        self.volatile = _volatile_subjects(self.inp.fragments)
        for frag in self.inp.fragments:
            self.dream_one(frag)
        self.write_back()
        self.scratch.finish(
            summary=self.tally.summary(), questions=self.questions,
            contradictions=self.contradictions, archive=[],
        )
        self.scratch.outcome.folded = dict(self.folded)
        self.scratch.outcome.changes = {slug: "; ".join(dict.fromkeys(notes)) for slug, notes in sorted(self.changes.items())}

    def ask(self, question: str) -> None:
        if question not in self.questions:
            self.questions.append(question)

    def note(self, slug: str, text: str) -> None:
        self.changes.setdefault(slug, []).append(text)

    def claim_of(self, slug: str) -> Claim | None:
        """The claim a shard's belief states (its heading, without the ladder prefix)."""
        if slug not in self.claims:
            if slug not in self.headings:
                return None
            self.claims[slug] = extract(self.headings[slug])
        return self.claims[slug]

    def remember(self, slug: str, belief: Belief) -> None:
        """(Re)index a belief this run wrote."""
        text = bare(belief.claim)
        self.headings[slug], self.claims[slug] = text, extract(text)
        self.shard_terms[slug] = self.claims[slug].terms
        for label in sorted(set().union(*(self.labels_by_word.get(w, ()) for w in label_words(slug)))):
            slugs = self.by_topic[label]
            if slug not in slugs and self.same_topic(slug, label_words(label), _label_slug(label)):
                slugs.append(slug)
        self.index.add(slug, self.claims[slug].terms, self.claims[slug].subject or frozenset(), label_words(slug))

    def belief(self, slug: str) -> Belief | None:
        if slug not in self.beliefs:
            self.beliefs[slug] = parse_belief(self.files[slug])
        return self.beliefs[slug]

    # --- one fragment -----------------------------------------------------------------------
    def dream_one(self, frag: UndreamedFragment) -> None:
        key = (frag.date, frag.id)
        if key in self.seen or key in self.cited:
            self.tally.already += 1  # listed twice, or already cited by some shard
            return
        claim = extract(frag.body)
        self.seen[key] = claim
        choice = self.choose(claim, frag.topic)
        if choice is None:
            self.new_claim(frag, claim)
        elif choice.kind == "cite_only":
            self.cite_only(choice.slug, frag, claim)
        elif choice.kind == "contradict":
            self.contradict(choice.slug, frag, claim)
        else:
            self.reinforce(choice.slug, frag, claim)
        self.cited.add(key)

    def choose(self, claim: Claim, label: str) -> _Choice | None:
        """The most related shard and how: the same subject first, then a strong likeness,
        then the same topic label, then the likeness itself; ties to the first slug."""
        lwords, lslug = label_words(label), _label_slug(label)
        slugs = set(self.index.candidates(claim.terms, claim.subject or frozenset(), loose=bool(claim.rejected)))
        # A shard of the same topic with no word in common can only be the label's own shard,
        # or a topic summary an explicit change replaces ("moved to Lisbon").
        rare = self.index.rare(claim.terms)
        slugs |= {s for s in self.topic_slugs(label) if claim.marker or rare & self.shard_terms.get(s, frozenset())}
        if lslug in self.files:
            slugs.add(lslug)
        best: _Choice | None = None
        for slug in sorted(slugs):
            found = self.relate(claim, slug, lwords, lslug)
            if found and (best is None or found.rank > best.rank):
                best = found
        return best

    def topic_slugs(self, label: str) -> list[str]:
        """The shards named for this topic label (kept up to date as the run adds shards)."""
        if label not in self.by_topic:
            lwords, lslug = label_words(label), _label_slug(label)
            self.by_topic[label] = [s for s in sorted(self.index.by_label(lwords)) if self.same_topic(s, lwords, lslug)]
            for word in lwords:
                self.labels_by_word.setdefault(word, set()).add(label)
        return self.by_topic[label]

    @staticmethod
    def same_topic(slug: str, lwords: frozenset[str], lslug: str) -> bool:
        """The shard was named for this topic label (or its words match the label's)."""
        return slug == lslug or (bool(lslug) and slug.startswith(lslug + "-")) or jaccard(lwords, label_words(slug)) >= 0.5

    def relate(self, claim: Claim, slug: str, lwords: frozenset[str], lslug: str) -> _Choice | None:
        """How `claim` bears on shard `slug`, judged on its belief (the heading) first; the shard
        is parsed only when it is related. A shard that cannot be rewritten is related only
        through the topic label's own slug."""
        topic = self.same_topic(slug, lwords, lslug)
        other = self.claim_of(slug)
        found = self._relation(claim, slug, other, topic) if other is not None else None
        if (found or slug == lslug) and self.belief(slug) is None:
            return _Choice("cite_only", slug, (False, False, True, -1.0)) if slug == lslug else None
        return found

    def _relation(self, claim: Claim, slug: str, other: Claim, topic: bool) -> _Choice | None:
        slot = same_slot(claim, other, topic)
        score = jaccard(claim.terms, other.terms)
        rank = (slot, score >= SAME_STATEMENT, topic, score)
        summary = not self.prefixed.get(slug, False)
        reason = contradiction_reason(other, claim, same_topic=topic, old_is_summary=summary)
        if reason == "value" and claim.subject in self.volatile:
            reason = None  # a log line ("tokens used: 114k"), not a setting that changed
        if reason:
            return _Choice("contradict", slug, rank)
        if same_claim(claim, other, same_topic=topic):
            return _Choice("same", slug, rank)
        if topic and summary and supports_topic(claim, other):
            return _Choice("same", slug, rank)
        return None

    # --- what a fragment does to a shard ---------------------------------------------------
    def new_claim(self, frag: UndreamedFragment, claim: Claim) -> None:
        slug = claim_slug(frag.topic, claim, self.taken_lower)
        belief = Belief(claim_sentence(frag.body, frag.topic), [(frag.date, frag.id)])
        self.files[slug] = ""
        self.taken_lower.add(slug.lower())
        self.beliefs[slug], self.prefixed[slug] = belief, True
        self.remember(slug, belief)
        self.dirty.add(slug)
        self.tally.new_topics += 1
        self.note(slug, "new claim")

    def reinforce(self, slug: str, frag: UndreamedFragment, claim: Claim) -> None:
        belief = self.belief(slug)
        assert belief is not None
        key = (frag.date, frag.id)
        same_day = [k for k in belief.active if k[0] == frag.date]
        duplicate = self.duplicate_of(claim, same_day, belief) if same_day else None
        if duplicate is not None:
            self.fold(key, duplicate)
            return
        belief.active.append(key)
        self.dirty.add(slug)
        self.tally.reinforced += 1
        self.note(slug, "reinforced")

    def duplicate_of(self, claim: Claim, same_day: list[Key], belief: Belief) -> Key | None:
        """The same-day citation this claim only repeats: a near duplicate of its text, or, for a
        citation made by an earlier run (text unknown here), of the belief it supports."""
        for k in same_day:
            if k in self.seen and near_duplicate(claim, self.seen[k]):
                return k
        earlier = [k for k in same_day if k not in self.seen]
        if earlier and near_duplicate(claim, extract(bare(belief.claim))):
            return earlier[0]
        return None

    def fold(self, key: Key, duplicate: Key) -> None:
        self.folded[f"{key[0]}#{key[1]}"] = f"{duplicate[0]}#{duplicate[1]}"
        self.tally.same_day += 1

    def contradict(self, slug: str, frag: UndreamedFragment, claim: Claim) -> None:
        belief = self.belief(slug)
        old = self.claim_of(slug)
        assert belief is not None and old is not None
        key = (frag.date, frag.id)
        new_text = claim_sentence(frag.body, frag.topic)
        newest = max((_when(k) for k in belief.active), default=("", ""))
        self.tally.contradictions += 1
        self.dirty.add(slug)
        if _when(key) < newest:  # the shard's evidence is newer: the fragment is overturned evidence
            belief.superseded.append(key)
            self.contradictions.append(
                f"{slug}: '{bare(new_text)}' ({frag.citation}) is older than '{bare(belief.claim)}' and was kept under superseded:")
            self.note(slug, "older evidence kept under superseded")
            return
        old_text = belief.claim
        belief.superseded = dedupe(belief.superseded + belief.active)
        belief.active = [key]
        belief.claim = finish_claim(guarded(old, claim, bare(new_text)))
        belief.inline, self.prefixed[slug] = False, True
        self.remember(slug, belief)
        self.contradictions.append(f"{slug}: '{bare(old_text)}' superseded by '{bare(new_text)}' ({frag.citation})")
        self.ask(f"Is '{bare(new_text)}' right, replacing '{bare(old_text)}'?")
        self.note(slug, f"superseded '{bare(old_text)}' by '{bare(new_text)}'")

    def cite_only(self, slug: str, frag: UndreamedFragment, claim: Claim) -> None:
        """A shard we cannot model: add a citation line, touch nothing else."""
        text = self.files[slug]
        key = (frag.date, frag.id)
        try:
            meta, body = parse_shard(text)
            heading, why = meta.heading, "has a free-form body"
        except ShardParseError as err:
            loose = parse_loose_shard(text)
            body, heading, why = loose.body, loose.heading, f"could not be parsed ({err})"
        old_text = heading or first_belief_sentence(body)  # the heading is the belief sentence
        new_text = bare(claim_sentence(frag.body, frag.topic))
        if old_text and contradiction_reason(old_text, claim, same_topic=True):
            self.ask(
                f"Topic {slug} {why} and was not rewritten: does '{new_text}' "
                f"({frag.citation}) replace '{bare(finish_claim(old_text))}'?")
            self.tally.contradictions += 1
        else:
            same_day = [k for k in citation_keys(text) if k[0] == frag.date]
            duplicate = next((k for k in same_day if k in self.seen and near_duplicate(claim, self.seen[k])), None)
            if duplicate is None and same_day and old_text and near_duplicate(claim, extract(old_text)):
                duplicate = sorted(same_day)[0]
            if duplicate is not None:
                self.fold(key, duplicate)
                return
            self.tally.reinforced += 1
        self.files[slug] = add_citation_lines(text, [key], self.inp.today)
        self.cite_only_added.setdefault(slug, []).append(key)
        self.cite_only_why[slug] = why
        self.note(slug, f"cited without rewriting ({why})")

    # --- writing ----------------------------------------------------------------------------
    def write_back(self) -> None:
        for slug in sorted(self.dirty):
            belief = self.beliefs[slug]
            assert belief is not None
            before = self.scratch.files.get(slug, "")
            after = belief.render(self.inp.today)
            if not citation_keys(before) <= citation_keys(after):
                # Never reached by construction; kept so a bug can never drop a citation.
                keys = sorted(belief.keys() - citation_keys(before))
                self.files[slug] = add_citation_lines(before, keys, self.inp.today)
                continue
            self.files[slug] = after
        for slug, keys in self.cite_only_added.items():
            self.ask(f"Topic {slug} {self.cite_only_why[slug]}: {len(keys)} citation(s) added without rewriting it — review it")
        pinned = self.inp.pinned | self.scratch.pinned
        for slug in sorted(self.files):
            if self.files[slug] != self.scratch.files.get(slug):
                self.scratch.write_shard(slug, self.files[slug])
                if slug in pinned:
                    self.ask(f"Pinned topic {slug} would change — review before applying")
