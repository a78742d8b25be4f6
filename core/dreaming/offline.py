"""The `offline` dreamer: deterministic consolidation without a model or a network.

Same input, same writes, byte for byte: no clock, no randomness, nothing iterated in hash
order. It speaks the same protocol as the LLM dreamers (it only calls `write_shard` and
`finish` on the scratch), and it follows the dreaming prompt's rules as far as plain code
can:

- **Group** the undreamed fragments by topic, normalized (lowercase; runs of whitespace and
  punctuation collapse to one space), in order of first appearance.
- **Match** each group to a shard: the slug `heading_to_slug(topic)` first; else the best word
  overlap (stemmed, stopwords dropped) between the topic and a strictly-parsed shard's slug
  words, heading words, or both: Jaccard >= 1/2, ties to the first slug in sorted order.
  Shards that fail the strict parse are matched by slug only. No match: a new shard at
  `heading_to_slug(topic, taken=existing slugs)`.
- **Reinforce**: cite `- streams/DATE#ID` under `fragments:`, at most one pure reinforcement
  per shard per day (a shard that already cites the date, or a date added earlier in this
  run, leaves the fragment uncited: TypeClaw GCs it as dreamed-and-uncited). A fragment
  already cited by any shard is left alone.
- **Contradict** (`core.dreaming.contradiction`): the newest fragment wins. The belief is
  rewritten from it, every active citation moves to `superseded:`, the fragment becomes the
  active citation. A fragment older than the shard's newest active citation loses instead:
  it is cited under `superseded:` and the belief stays.
- **Create**: the belief is the fragment body's first sentence, whitespace collapsed, cut at
  280 characters on a word boundary, ending in exactly one period.
- **Wording ladder** by `days` (distinct citation dates, both sections): "Mentioned once:",
  "Observed on 2 days:", "Consistently (N days):", "Always (N days):". A known prefix is
  stripped before a new one is put on, so prefixes never stack. The frontmatter `heading` is
  the belief sentence without its final period.
- **Layout**: sentence, blank line, `fragments:` list, then (if any) a blank line and
  `references:`, then (if any) a blank line and `superseded:`, final newline; counts from
  `strength_of` on that body; tags kept.

Shards it cannot model are never rewritten, only given citation lines under `fragments:`
(with a question for the reviewer): shards that fail the strict parse (their bytes are kept
as they are; the runtime recompute fixes the counts), and strictly-parsed shards whose body
is not "one paragraph + citation sections" (proposal shards, `## Heading` prose, several
paragraphs, inline citations; their frontmatter counts are recomputed). Every rewrite is
checked against the shard's previous citations; if one would go missing the shard falls back
to the citations-only mode, so no citation is ever dropped.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from fractions import Fraction

from dreamdeck.core.formats.citations import (
    CITATION,
    CITATION_LINE,
    REFERENCES_HEADING,
    SECTION_HEADING,
    citation_keys,
    parse_citations,
)
from dreamdeck.core.claims.contradiction import STOPWORDS, contradicts, stem
from dreamdeck.core.dreaming.protocol import DreamInput, DreamOutcome, DreamScratch, UndreamedFragment
from dreamdeck.core.formats.shards import (
    ShardMeta,
    ShardParseError,
    add_citation_lines,
    first_belief_sentence,
    parse_loose_shard,
    parse_shard,
    render_shard,
    strength_of,
)
from dreamdeck.core.formats.slugs import heading_to_slug
from dreamdeck.core.index.strength import ladder_tier

Key = tuple[str, str]  # (date, id)

MAX_CLAIM_CHARS = 280
MATCH_THRESHOLD = Fraction(1, 2)

# Known ladder prefixes, ours and close variants; stripped repeatedly so they never stack.
_PREFIX = re.compile(
    r"^\s*(?:mentioned once|observed on \d+ days?|consistently \(\d+ days?\)|always \(\d+ days?\))\s*:\s*",
    re.I,
)
_REFERENCE_ITEM = re.compile(r"^\s*-\s+(\S+)\s*$")
_TRAILING = ".!?;:,…。！？ \t"
_LADDER_WORDS = frozenset({"mentioned", "once", "observed", "consistently", "always", "days", "day"})


# --- small text helpers --------------------------------------------------------------

def normalize_topic(topic: str) -> str:
    """Lowercase; each run of whitespace/punctuation becomes one space; trimmed."""
    return re.sub(r"[\W_]+", " ", topic.lower()).strip()


def strip_ladder_prefix(sentence: str) -> str:
    out = sentence.strip()
    while True:
        m = _PREFIX.match(out)
        if not m:
            return out
        out = out[m.end():].strip()


def finish_claim(text: str) -> str:
    """One line, no control characters, no citation syntax, no ladder prefix, one final period."""
    text = "".join(" " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in text)
    text = re.sub(r"\s+", " ", text).strip()
    # A claim must never carry a citation: it would count (and be dropped on a rewrite).
    text = CITATION.sub(lambda m: f"{m.group(1)}/{m.group(2)} #{m.group(3)}", text)
    text = strip_ladder_prefix(text)
    if len(text) > MAX_CLAIM_CHARS:
        cut = text[:MAX_CLAIM_CHARS]
        text = cut.rsplit(" ", 1)[0] if " " in cut else cut
    text = text.rstrip(_TRAILING)
    return f"{text}." if text else ""


def claim_of(fragment: UndreamedFragment) -> str:
    """The fragment's belief: its body's first sentence (the topic if the body has none)."""
    return (
        finish_claim(first_belief_sentence(fragment.body))
        or finish_claim(fragment.topic)
        or "(empty fragment)."
    )


# A belief already worded on the ladder ("The user always runs…", "…consistently deploys…")
# keeps its own sentence: the adverb is moved to the new tier instead of stacking a prefix.
_INLINE_ADVERB = re.compile(r"\b(always|consistently)\b")
_INLINE_WORD = {"mentioned": re.compile(r"\bmentioned\b"), "observed": re.compile(r"\bobserved\b")}


def _inline_ladder(claim: str, tier: str) -> str | None:
    if tier in ("always", "consistently") and _INLINE_ADVERB.search(claim):
        return _INLINE_ADVERB.sub(tier, claim, count=1)
    if tier in _INLINE_WORD and _INLINE_WORD[tier].search(claim) and not _INLINE_ADVERB.search(claim):
        return claim
    return None


def ladder_sentence(claim: str, days: int) -> str:
    tier = ladder_tier(days)
    inline = _inline_ladder(claim, tier)
    if inline is not None:
        return inline
    if tier == "always":
        prefix = f"Always ({days} days)"
    elif tier == "consistently":
        prefix = f"Consistently ({days} days)"
    elif tier == "observed":
        prefix = "Observed on 2 days"
    else:
        prefix = "Mentioned once"
    return f"{prefix}: {claim}"


def heading_of(sentence: str) -> str:
    return sentence[:-1] if sentence.endswith(".") else sentence


def _bare(claim: str) -> str:
    return claim[:-1] if claim.endswith(".") else claim


def _match_words(text: str) -> set[str]:
    return {
        stem(w) for w in normalize_topic(text).split()
        if w not in STOPWORDS and w not in _LADDER_WORDS
    }


def _dedupe(keys: list[Key]) -> list[Key]:
    seen: set[Key] = set()
    out = []
    for k in keys:
        if k not in seen:
            seen.add(k)
            out.append(k)
    return out


def _cite(key: Key) -> str:
    return f"- streams/{key[0]}#{key[1]}"


# --- the two shard models --------------------------------------------------------------

@dataclass
class Belief:
    """A shard in the reference layout: one belief, cited evidence, references, tags."""

    claim: str  # without ladder prefix, ends with "."
    active: list[Key] = field(default_factory=list)
    superseded: list[Key] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    tags: tuple[str, ...] | None = None

    def keys(self) -> set[Key]:
        return set(self.active) | set(self.superseded)

    def dates(self) -> set[str]:
        return {d for d, _ in self.keys()}

    def body(self) -> str:
        days = len(self.dates())
        lines = [ladder_sentence(self.claim, days), "", "fragments:", *map(_cite, self.active)]
        if self.references:
            lines += ["", "references:", *(f"- {r}" for r in self.references)]
        if self.superseded:
            lines += ["", "superseded:", *map(_cite, self.superseded)]
        return "\n".join(lines) + "\n"

    def render(self, today: str) -> str:
        body = self.body()
        sentence = body.split("\n", 1)[0]
        cites, days, last = strength_of(body, today)
        return render_shard(ShardMeta(heading_of(sentence), cites, days, last, self.tags), body)


def parse_belief(text: str) -> Belief | None:
    """The shard as a `Belief`, or None when it fails the strict parse or its body is more
    than one paragraph of prose plus citation sections (then it is only ever cited)."""
    try:
        meta, body = parse_shard(text)
    except ShardParseError:
        return None
    if CITATION.search(meta.heading):
        return None
    prose: list[str] = []
    active: list[Key] = []
    superseded: list[Key] = []
    refs: list[str] = []
    cite_section = "fragments"  # citations before any heading are active
    block = "prose"  # what a non-citation line may be: prose, references, or nothing
    gap = False
    for raw in body.split("\n"):
        line = raw.rstrip()
        if not line.strip():
            if block == "prose" and prose:
                gap = True
            continue
        heading = SECTION_HEADING.match(line)
        if heading:
            cite_section, block = heading.group(1).lower(), "cites"
            continue
        if REFERENCES_HEADING.match(line):
            block = "references"  # `references:` does not switch the citation section
            continue
        cite = CITATION_LINE.match(line)
        if cite:
            (active if cite_section == "fragments" else superseded).append((cite.group(2), cite.group(3)))
            if block == "prose" and prose:
                gap = True
            continue
        if block == "references" and _REFERENCE_ITEM.match(line):
            refs.append(_REFERENCE_ITEM.match(line).group(1))  # type: ignore[union-attr]
            continue
        if block != "prose" or gap or CITATION.search(line):
            return None
        if line.lstrip().startswith(("#", "-", "*", ">", "|", "proposal:")):
            return None
        prose.append(line.strip())
    active = _dedupe(active)
    live = set(active)
    superseded = [k for k in _dedupe(superseded) if k not in live]
    claim = finish_claim(" ".join(prose)) or finish_claim(meta.heading)
    if not claim:
        return None
    return Belief(claim, active, superseded, list(dict.fromkeys(refs)), meta.tags)


# --- the dreamer -----------------------------------------------------------------------

@dataclass
class _Tally:
    fragments: int = 0
    new_topics: int = 0
    reinforced: int = 0
    contradictions: int = 0
    same_day: int = 0
    already: int = 0

    def summary(self) -> str:
        def n(count: int, word: str, plural: str | None = None) -> str:
            return f"{count} {word if count == 1 else (plural or word + 's')}"

        head = n(self.fragments, "fragment")
        if not self.fragments:
            return f"{head}: nothing to dream"
        parts = [
            n(self.new_topics, "new topic"),
            f"{self.reinforced} reinforced",
            n(self.contradictions, "contradiction"),
        ]
        if self.same_day:
            parts.append(f"{self.same_day} not cited (same day)")
        if self.already:
            parts.append(f"{self.already} already cited")
        return f"{head}: {', '.join(parts)}"


class OfflineDreamer:
    """Deterministic dreamer; see the module docstring for every rule it applies."""

    name = "offline"
    reads_strength_table = False  # groups by topic; the table is for LLM dreamers

    def dream(self, inp: DreamInput, scratch: DreamScratch) -> DreamOutcome:
        run = _Run(inp, scratch)
        run.go()
        return scratch.outcome


class _Run:
    def __init__(self, inp: DreamInput, scratch: DreamScratch):
        self.inp = inp
        self.scratch = scratch
        self.files: dict[str, str] = dict(scratch.files)
        self.cited: set[Key] = set()
        for text in self.files.values():
            self.cited |= citation_keys(text)
        self.tally = _Tally(fragments=len(inp.fragments))
        self.questions: list[str] = []
        self.contradictions: list[str] = []

    def go(self) -> None:
        groups: dict[str, list[UndreamedFragment]] = {}
        seen: set[Key] = set()
        for frag in self.inp.fragments:
            if (frag.date, frag.id) in seen:
                self.tally.already += 1  # the same fragment listed twice
                continue
            seen.add((frag.date, frag.id))
            groups.setdefault(normalize_topic(frag.topic), []).append(frag)
        for topic, frags in groups.items():
            self.dream_group(topic, frags)

        pinned = self.inp.pinned | self.scratch.pinned
        for slug in sorted(self.files):
            if self.files[slug] != self.scratch.files.get(slug):
                self.scratch.write_shard(slug, self.files[slug])
                if slug in pinned:
                    self.ask(f"Pinned topic {slug} would change — review before applying")
        self.scratch.finish(
            summary=self.tally.summary(), questions=self.questions,
            contradictions=self.contradictions, archive=[],
        )

    def ask(self, question: str) -> None:
        if question not in self.questions:
            self.questions.append(question)

    # --- matching ----------------------------------------------------------------------
    def match(self, topic: str) -> str | None:
        exact = heading_to_slug(topic)
        if exact in self.files:
            return exact
        want = _match_words(topic)
        if not want:
            return None
        best: tuple[Fraction, str] | None = None
        for slug in sorted(self.files):
            try:
                meta, _ = parse_shard(self.files[slug])
            except ShardParseError:
                continue  # unparseable shards are matched by slug only
            slug_words = _match_words(slug)
            heading_words = _match_words(strip_ladder_prefix(meta.heading))
            score = max(
                _jaccard(want, slug_words), _jaccard(want, heading_words),
                _jaccard(want, slug_words | heading_words),
            )
            if score >= MATCH_THRESHOLD and (best is None or score > best[0]):
                best = (score, slug)
        return best[1] if best else None

    # --- one topic -----------------------------------------------------------------------
    def dream_group(self, topic: str, frags: list[UndreamedFragment]) -> None:
        fresh = [f for f in frags if (f.date, f.id) not in self.cited]
        self.tally.already += len(frags) - len(fresh)
        if not fresh:
            return
        slug = self.match(topic)
        if slug is None:
            slug = heading_to_slug(topic, taken=set(self.files))
            first = fresh[0]
            belief = Belief(claim_of(first), active=[(first.date, first.id)])
            self.tally.new_topics += 1
            self.cited.add((first.date, first.id))
            self.apply(slug, belief, fresh[1:], before="")
            return
        before = self.files[slug]
        belief = parse_belief(before)
        if belief is None:
            self.cite_only(slug, before, fresh)
        else:
            self.apply(slug, belief, fresh, before)

    def apply(self, slug: str, belief: Belief, frags: list[UndreamedFragment], before: str) -> None:
        tally_before = (self.tally.reinforced, self.tally.contradictions, self.tally.same_day)
        events: list[tuple[str, str]] = []  # (kind, text) committed only if the rewrite holds
        added: list[Key] = []
        for frag in frags:
            key = (frag.date, frag.id)
            claim = claim_of(frag)
            if contradicts(_bare(belief.claim), _bare(claim)):
                newest = max((d for d, _ in belief.active), default="")
                if frag.date < newest:
                    # The shard's evidence is newer: the fragment is overturned evidence.
                    belief.superseded.append(key)
                    events.append(("contradiction", (
                        f"{slug}: '{_bare(claim)}' ({frag.citation}) is older than "
                        f"'{_bare(belief.claim)}' and was kept under superseded:"
                    )))
                else:
                    old = belief.claim
                    belief.superseded = _dedupe(belief.superseded + belief.active)
                    belief.active = [key]
                    belief.claim = claim
                    events.append(("contradiction", (
                        f"{slug}: '{_bare(old)}' superseded by '{_bare(claim)}' ({frag.citation})"
                    )))
                    events.append(("question", f"Is '{_bare(claim)}' right, replacing '{_bare(old)}'?"))
                self.tally.contradictions += 1
                added.append(key)
                continue
            if frag.date in belief.dates():
                self.tally.same_day += 1  # one pure reinforcement per shard per day
                continue
            belief.active.append(key)
            self.tally.reinforced += 1
            added.append(key)
        after = belief.render(self.inp.today)
        if not citation_keys(before) <= citation_keys(after):
            # Never reached by construction; kept so a bug can never drop a citation.
            self.tally.reinforced, self.tally.contradictions, self.tally.same_day = tally_before
            self.cite_only(slug, before, frags)
            return
        for kind, text in events:
            (self.contradictions if kind == "contradiction" else self.questions).append(text)
        self.cited.update(added)
        self.files[slug] = after

    def cite_only(self, slug: str, before: str, frags: list[UndreamedFragment]) -> None:
        """A shard we cannot model: add citation lines, touch nothing else."""
        dates = set(parse_citations(before))
        try:
            meta, body = parse_shard(before)
            heading, why = meta.heading, "has a free-form body"
        except ShardParseError as err:
            loose = parse_loose_shard(before)
            body, heading, why = loose.body, loose.heading, f"could not be parsed ({err})"
        old_claim = heading or first_belief_sentence(body)  # the heading is the belief sentence
        keys: list[Key] = []
        for frag in frags:
            key = (frag.date, frag.id)
            claim = claim_of(frag)
            if old_claim and contradicts(old_claim, _bare(claim)):
                self.ask(
                    f"Topic {slug} {why} and was not rewritten: does '{_bare(claim)}' "
                    f"({frag.citation}) replace '{_bare(finish_claim(old_claim))}'?"
                )
                self.tally.contradictions += 1
            elif frag.date in dates:
                self.tally.same_day += 1
                continue
            else:
                self.tally.reinforced += 1
            keys.append(key)
            dates.add(frag.date)
        if not keys:
            return
        self.ask(f"Topic {slug} {why}: {len(keys)} citation(s) added without rewriting it — review it")
        self.cited.update(keys)
        self.files[slug] = add_citation_lines(before, keys, self.inp.today)


def _jaccard(a: set[str], b: set[str]) -> Fraction:
    union = a | b
    return Fraction(len(a & b), len(union)) if union else Fraction(0)
