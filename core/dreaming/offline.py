"""The `offline` dreamer: deterministic consolidation without a model or a network.

Its rules (the claim rules themselves live in `core.claims`):
- **One belief per claim.** A fragment states one or more claims (`claims.statements`: each
  sentence of a paragraph line, each line of a note, a list under its header as one), each read
  as a claim (`claims.extract`) and cited by the belief it supports; a later statement whose
  words a belief the fragment supports already holds adds nothing ("Never push to main. Open a
  PR." after "never push to main, open a PR"). Each is compared only
  with the shards sharing a rare term, a subject or its topic label (`matching`, over an index
  of the shards' beliefs kept between processes in the run's private folder,
  `offline_projection`, used only for a belief whose heading it was computed from). The topic
  label is a hint that loosens sameness, never an identity.
- **A measured value decides** (`claims.measures`): the same noun-phrase subject with the same
  quantity, time or duration is the same claim however worded; another value of that kind is a
  contradiction; any verb but keep/stay is part of the subject ("keep logs 30 days" and
  "delete logs after 30 days" are two claims).
- **Contradiction** (the same subject with another value, `claims.contradiction`): the newer
  claim wins; the overturned ids move to `superseded:` and the new belief keeps a guard ("X is
  not Y anymore; …"). A fragment older than the belief's newest evidence loses: it is cited
  under `superseded:` and the belief stays.
- **A log is not a setting**: a key naming its moment or event ("cost today", "last run", "PR
  merged", "今日成本", "合并了 PR": `claims.logs.is_log_key`) is a log from its first line;
  so is a key taking a new value nearly every time within one run (four values or more, never
  announced: "tokens used: …"). Its lines are separate observations, never a contradiction. A
  setting changed unannounced, however often, still supersedes.
- **Tables**: the first of a run of table rows under one topic on one day is the header. Under
  a header naming a moment ("| job | last run | result |"), each job is one shard: every row
  is cited and the belief is the latest row read with the header's labels ("reindex: last run
  03:16, result ok"), and the header row is cited by each job's belief, not a belief of its own
  (dreamed as any line when no row follows it). Other tables' rows are `key: value` lines (a status table's new value
  is an update).
- **Checkboxes**: "- [ ] …" / "- [x] …" is a task's state, worded "To do:" / "Done:" (待办 /
  已完成, 할 일 / 완료), never part of its text; the task ticked on a later day replaces the open one
  with no question: the newer state wins, nothing for a person to judge ("task done"; a task
  reopened is still a flagged contradiction).
- **Readings** (`claims.readings`): a key whose value is a measurement or a status ("disk: 61%
  used", "queue depth: 14", "heartbeat: ok at 09:00") takes its newer value the same way, no
  guard and no question ("reading updated"); a setting (a bound or configured key, a clock
  time, a duration, an announced change: "backup cron: 03:00") still asks. A reading back to a
  value it had regains that value's superseded days (`flip_back`): no new claim from zero.
- **Reinforcement**: the same claim seen again, however labelled, is cited. At most one pure
  reinforcement per claim per day: a near duplicate of what the claim already cites that day
  is folded, and `outcome.folded` names the citation it duplicates; anything else is cited.
- **New claim**: a new shard (`claims.naming.claim_slug`) whose belief is the statement's first
  sentence, cleaned. Nothing distinct is left uncited, and no statement is left out of a belief.
  A fragment is folded only when every statement it makes is a same-day duplicate.
- **Strength**: the ladder word counts the distinct days of the belief's active citations;
  superseded evidence never raises it; one tier word, replaced, never stacked (`index.ladder`).
- Shards a person or an LLM wrote without a ladder prefix summarize a topic: a fragment under
  the same topic label that shares a content word with the belief supports it and is cited.
- Shards it cannot model (unparseable, or a free-form body) are matched by the topic label's
  slug only and only gain citation lines, with a question. No citation is ever dropped.
Same input, same writes, byte for byte: no clock, no randomness, nothing in hash order.
"""
from __future__ import annotations

from dataclasses import replace
from functools import partial

from dreamdeck.core.claims.contradiction import contradiction_reason
from dreamdeck.core.claims.extract import Claim, extract
from dreamdeck.core.claims.naming import claim_slug
from dreamdeck.core.claims.sameness import near_duplicate
from dreamdeck.core.claims.statements import statements
from dreamdeck.core.dreaming import offline_projection
from dreamdeck.core.dreaming.beliefs import (
    Belief,
    Key,
    bare,
    claim_sentence,
    dedupe,
    finish_claim,
    guarded,
    parse_belief,
    when_written,
)
from dreamdeck.core.dreaming.flip_back import Evidence, regain
from dreamdeck.core.dreaming.matching import ShardMatcher, volatile_subjects
from dreamdeck.core.dreaming.offline_tables import TableRows
from dreamdeck.core.dreaming.offline_tally import Tally
from dreamdeck.core.dreaming.protocol import DreamInput, DreamOutcome, DreamScratch, UndreamedFragment
from dreamdeck.core.formats.citations import CITATION, citation_keys
from dreamdeck.core.formats.counts import counted
from dreamdeck.core.formats.shards import (
    ShardParseError,
    add_citation_lines,
    first_belief_sentence,
    parse_loose_shard,
    parse_shard,
)
from dreamdeck.core.index.ladder import ladder_sentence
from dreamdeck.core.io.gc_pause import paused_gc

__all__ = ["Belief", "OfflineDreamer", "ladder_sentence", "parse_belief"]

class OfflineDreamer:
    """Deterministic dreamer; see the module docstring for every rule it applies."""

    name = "offline"
    reads_strength_table = False  # reads shards through its claim index; the table is for LLM dreamers

    def dream(self, inp: DreamInput, scratch: DreamScratch) -> DreamOutcome:
        # A run builds an index of every shard's belief (10,000 entries of sets) and makes no
        # cycle that must be freed before it ends: the collector walking that index at each
        # allocation threshold was a sixth of a first run's CPU (`io.gc_pause`).
        with paused_gc():
            _Run(inp, scratch).go()
        return scratch.outcome


class _Run:
    def __init__(self, inp: DreamInput, scratch: DreamScratch):
        self.inp = inp
        self.scratch = scratch
        self.files: dict[str, str] = dict(scratch.files)
        self.cited: set[Key] = {(m.group(2), m.group(3)) for text in self.files.values() for m in CITATION.finditer(text)}
        self.tally = Tally(fragments=len(inp.fragments))
        self.questions: list[str] = []
        self.contradictions: list[str] = []
        self.folded: dict[str, str] = {}
        self.changes: dict[str, list[str]] = {}
        self.beliefs: dict[str, Belief | None] = {}  # parsed on first use; None: cite-only
        self.dirty: set[str] = set()
        self.cite_only_added: dict[str, list[Key]] = {}
        self.cite_only_why: dict[str, str] = {}
        self.seen: dict[Key, list[Claim]] = {}  # this run's fragments, by key: the claims each states
        self.citing: dict[Key, set[str]] = {}  # fragment -> the beliefs citing it for this run's statements
        self.evidence = Evidence(self.seen, inp.evidence)  # what superseded citations said (`flip_back`)
        self.rows = TableRows()
        # A log table's header row, held until the rows under it are dreamed: their beliefs are read
        # with its labels, so it is their evidence (cited by each), never a belief of its own.
        self.header: UndreamedFragment | None = None
        self.header_cited = False
        # A new claim never takes a slug in use, nor one a person pinned in the vault.
        self.taken_lower = {slug.lower() for slug in (*self.files, *inp.pinned, *scratch.pinned)}
        self.match = ShardMatcher(self.files, lambda slug: self.belief(slug) is not None,
                                  volatile_subjects(inp.fragments), offline_projection.load(inp.cache_dir))

    def go(self) -> None:
        for frag in self.inp.fragments:
            self.dream_one(frag)
        self.release_header()
        self.write_back()
        self.scratch.outcome.folded = dict(self.folded)  # before finish: a fold accounts for its fragment
        self.scratch.finish(
            summary=self.tally.summary(), questions=self.questions,
            contradictions=self.contradictions, archive=[],
        )
        self.scratch.outcome.changes = {slug: "; ".join(dict.fromkeys(notes)) for slug, notes in sorted(self.changes.items())}
        if self.inp.cache_dir is not None:
            self.scratch.outcome.settle = partial(offline_projection.keep_all, self.inp.cache_dir, self.match)

    def ask(self, question: str) -> None:
        if question not in self.questions:
            self.questions.append(question)

    def note(self, slug: str, text: str) -> None:
        self.changes.setdefault(slug, []).append(text)

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
        said = statements(frag.body)
        self.seen[key] = [self.rows.read(frag, extract(text)) for text in said]
        if self.header is not None and self.rows.log_table() != (self.header.date, self.header.topic):
            self.release_header()  # its table ended
        if self.rows.log_table() is not None and self.rows.head == key:
            self.header, self.header_cited = frag, False  # dreamed with its rows (`cite_header`)
            return
        self.dream_said(frag, said)
        if self.header is not None:
            self.cite_header(key)

    def dream_said(self, frag: UndreamedFragment, said: list[str]) -> None:
        key = (frag.date, frag.id)
        for text, claim in zip(said, self.seen[key], strict=True):
            if not self.said_already(key, claim):
                text = self.rows.sentence.get(key, text)
                self.dream_statement(frag if text == frag.body else replace(frag, body=text), claim)
        if key in self.citing and self.folded.pop(f"{key[0]}#{key[1]}", None) is not None:
            self.tally.same_day -= 1  # one statement repeated a citation, another says something new
        self.cited.add(key)

    def cite_header(self, row: Key) -> None:
        """The held header is cited by every belief the row under it supports."""
        assert self.header is not None
        key = (self.header.date, self.header.id)
        for slug in sorted(self.citing.get(row, ())):
            belief = self.beliefs.get(slug)
            if belief is None or key in belief.keys():
                continue
            belief.active.append(key)
            self.supports(key, slug)
            self.dirty.add(slug)
            if not self.header_cited:
                self.tally.reinforced += 1
            self.header_cited = True

    def release_header(self) -> None:
        """The held header's table ended: cited by its rows' beliefs, or dreamed as any line."""
        header, self.header = self.header, None
        if header is None:
            return
        if self.header_cited:
            self.cited.add((header.date, header.id))
        else:
            self.dream_said(header, statements(header.body))

    def dream_statement(self, frag: UndreamedFragment, claim: Claim) -> None:
        choice = self.match.choose(claim, frag.topic)
        if choice is None:
            self.new_claim(frag, claim)
        elif choice.kind == "cite_only":
            self.cite_only(choice.slug, frag, claim)
        elif choice.kind in ("contradict", "reading"):
            self.contradict(choice.slug, frag, claim, reading=choice.kind == "reading")
        else:
            self.reinforce(choice.slug, frag, claim)

    def said_already(self, key: Key, claim: Claim) -> bool:
        """A belief this fragment supports already holds every word of `claim`."""
        for slug in self.citing.get(key, ()):
            held = self.match.claim_of(slug)
            if held is not None and claim.terms and claim.terms <= held.terms:
                return True
        return False

    def supports(self, key: Key, slug: str) -> None:
        self.citing.setdefault(key, set()).add(slug)

    def repeats(self, claim: Claim, key: Key) -> bool:
        """Is `claim` a near duplicate of a claim fragment `key` states (a fragment of this run)?"""
        return any(near_duplicate(claim, said) for said in self.seen.get(key, ()))

    # --- what a fragment does to a shard ---------------------------------------------------
    def new_claim(self, frag: UndreamedFragment, claim: Claim) -> None:
        slug = claim_slug(frag.topic, claim, self.taken_lower)
        belief = Belief(claim_sentence(frag.body, frag.topic), [(frag.date, frag.id)])
        self.files[slug] = ""
        self.taken_lower.add(slug.lower())
        self.beliefs[slug] = belief
        self.match.remember(slug, bare(belief.claim))
        self.dirty.add(slug)
        self.supports((frag.date, frag.id), slug)
        self.tally.new_topics += 1
        self.note(slug, "new claim")

    def reinforce(self, slug: str, frag: UndreamedFragment, claim: Claim) -> None:
        belief = self.belief(slug)
        assert belief is not None
        key = (frag.date, frag.id)
        if key in belief.keys():
            return  # another statement of the same fragment supports this belief already
        same_day = [k for k in belief.active if k[0] == frag.date]
        duplicate = self.duplicate_of(claim, same_day, belief) if same_day else None
        if duplicate is not None:
            self.fold(key, duplicate)
            return
        newest = max((when_written(k) for k in belief.active), default=("", ""))
        belief.active.append(key)
        self.supports(key, slug)
        self.dirty.add(slug)
        self.tally.reinforced += 1
        self.note(slug, "reinforced")
        if claim.series and when_written(key) >= newest:  # a job's belief shows its latest run
            belief.claim = claim_sentence(frag.body, frag.topic)
            belief.inline = False
            self.match.remember(slug, bare(belief.claim))

    def duplicate_of(self, claim: Claim, same_day: list[Key], belief: Belief) -> Key | None:
        """The same-day citation this claim only repeats: a near duplicate of its text, or, for a
        citation made by an earlier run (text unknown here), of the belief it supports."""
        for k in same_day:
            if self.repeats(claim, k):
                return k
        earlier = [k for k in same_day if k not in self.seen]
        if earlier and near_duplicate(claim, extract(bare(belief.claim))):
            return earlier[0]
        return None

    def fold(self, key: Key, duplicate: Key) -> None:
        self.folded[f"{key[0]}#{key[1]}"] = f"{duplicate[0]}#{duplicate[1]}"
        self.tally.same_day += 1

    def contradict(self, slug: str, frag: UndreamedFragment, claim: Claim, *, reading: bool = False) -> None:
        """`claim` overturns the belief; a newer `reading` does so mechanically, with no question."""
        belief = self.belief(slug)
        old = self.match.claim_of(slug)
        assert belief is not None and old is not None
        key = (frag.date, frag.id)
        if key in belief.keys():
            return  # one fragment does not overturn what it states itself
        self.supports(key, slug)
        new_text = claim_sentence(frag.body, frag.topic)
        newest = max((when_written(k) for k in belief.active), default=("", ""))
        self.dirty.add(slug)
        if when_written(key) < newest:  # the shard's evidence is newer: the fragment is overturned evidence
            belief.superseded.append(key)
            if reading:
                self.tally.readings += 1
                self.note(slug, "older reading kept under superseded")
                return
            self.tally.contradictions += 1
            self.contradictions.append(
                f"{slug}: '{bare(new_text)}' ({frag.citation}) is older than '{bare(belief.claim)}' and was kept under superseded:")
            self.note(slug, "older evidence kept under superseded")
            return
        old_text = belief.claim
        belief.superseded = dedupe(belief.superseded + belief.active)
        belief.active = [key]
        # A reading's value says what it replaces: no "X is not Y anymore" guard.
        belief.claim = new_text if reading else finish_claim(guarded(old, claim, bare(new_text)))
        belief.inline = False
        self.match.remember(slug, bare(belief.claim))
        if reading:  # "disk: 64% used" after "disk: 61% used": the newer reading wins, nothing to judge
            regain(belief, self.evidence, old, claim)
            self.tally.readings += 1
            self.note(slug, "reading updated")
            return
        if old.state == "open" and claim.state == "done":  # a ticked task: the newer state wins, nothing to judge
            self.tally.tasks_done += 1
            self.note(slug, "task done")
            return
        self.tally.contradictions += 1
        self.contradictions.append(f"{slug}: '{bare(old_text)}' superseded by '{bare(new_text)}' ({frag.citation})")
        self.ask(f"Is '{bare(new_text)}' right, replacing '{bare(old_text)}'?")
        self.note(slug, f"superseded '{bare(old_text)}' by '{bare(new_text)}'")

    def cite_only(self, slug: str, frag: UndreamedFragment, claim: Claim) -> None:
        """A shard we cannot model: add a citation line, touch nothing else."""
        text = self.files[slug]
        key = (frag.date, frag.id)
        if key in citation_keys(text):
            return  # cited already, for another statement of the fragment
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
            duplicate = next((k for k in same_day if self.repeats(claim, k)), None)
            if duplicate is None and same_day and old_text and near_duplicate(claim, extract(old_text)):
                duplicate = sorted(same_day)[0]
            if duplicate is not None:
                self.fold(key, duplicate)
                return
            self.tally.reinforced += 1
        self.files[slug] = add_citation_lines(text, [key], self.inp.today)
        self.supports(key, slug)
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
            self.ask(f"Topic {slug} {self.cite_only_why[slug]}: {counted(len(keys), 'citation')} added without rewriting it — review it")
        pinned = self.inp.pinned | self.scratch.pinned
        for slug in sorted(self.files):
            if self.files[slug] != self.scratch.files.get(slug):
                self.scratch.write_shard(slug, self.files[slug])
                if slug in pinned:
                    self.ask(f"Pinned topic {slug} would change — review before applying")
