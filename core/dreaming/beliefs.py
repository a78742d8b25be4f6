"""A shard the offline dreamer can rewrite: one belief sentence, its cited evidence, references.

`parse_belief(text)` reads a strictly-parsed shard whose body is one paragraph plus citation
sections (anything else is only ever given citation lines); `Belief.render(today)` writes it
back in the reference layout: sentence, blank line, `fragments:`, then `references:` and
`superseded:` when present, with TypeClaw's counts. The sentence is worded on the ladder by the
distinct days of its *active* citations: superseded evidence never raises a belief's strength.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from dreamdeck.core.claims.cleaning import task_state, with_state
from dreamdeck.core.claims.extract import Claim, clean
from dreamdeck.core.claims.statements import sentences
from dreamdeck.core.claims.tokens import tokenize
from dreamdeck.core.formats.citations import CITATION, CITATION_LINE, REFERENCES_HEADING, SECTION_HEADING
from dreamdeck.core.formats.shards import (
    ShardMeta,
    ShardParseError,
    parse_shard,
    render_shard,
    strength_of,
)
from dreamdeck.core.index.ladder import has_inline_tier, ladder_sentence, strip_prefix

Key = tuple[str, str]  # (date, id)

MAX_CLAIM_CHARS = 280
_REFERENCE_ITEM = re.compile(r"^\s*-\s+(\S+)\s*$")
_TRAILING = ".!?;:,…。！？ \t"
_HAN = re.compile(r"[\u3400-\u9fff]")
# After "X is not Y anymore;" a sentence goes on in lower case, unless it opens with a name.
_LOWER_AFTER_GUARD = frozenset({"The", "A", "An", "This", "That", "These", "Those", "It", "We", "They", "Our", "Its", "There"})
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_HEADING_HASHES = re.compile(r"^#{1,6}\s+")
_PRONOUNS = frozenset({"He", "She", "His", "Her", "Their", "Them", "Also", "But", "And", "So", "Then"})


def finish_claim(text: str) -> str:
    """One line, no control characters, no citation syntax, no ladder prefix, one final period."""
    if text.isascii():
        text = re.sub(r"[\x00-\x1f\x7f]", " ", text)
    else:
        text = "".join(" " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in text)
    text = re.sub(r"\s+", " ", text).strip()
    # A claim must never carry a citation: it would count (and be dropped on a rewrite).
    text = CITATION.sub(lambda m: f"{m.group(1)}/{m.group(2)} #{m.group(3)}", text)
    text = strip_prefix(text)[0]
    if len(text) > MAX_CLAIM_CHARS:
        cut = text[:MAX_CLAIM_CHARS]
        text = cut.rsplit(" ", 1)[0] if " " in cut else cut
    text = text.rstrip(_TRAILING)
    return f"{text}." if text else ""


def _table_row(text: str) -> str | None:
    """'| worker | degraded |' reads 'worker: degraded'."""
    if not text.strip().startswith("|"):
        return None
    cells = [c.strip() for c in text.strip().strip("|").split("|") if c.strip()]
    if len(cells) < 2:
        return " ".join(cells) or None
    return f"{cells[0]}: {', '.join(cells[1:])}"


def claim_sentence(body: str, topic: str) -> str:
    """The belief a statement makes (`claims.statements`): its sentences as one, joined by "; "
    (a sentence that leans on the one before stays in the belief: "…on the NAS; it is wiped on
    Sundays"), each cleaned of bullets, emphasis and bookkeeping prefixes (a table row as
    `key: value`); the topic if the body has none. Cut at MAX_CLAIM_CHARS by `finish_claim`."""
    parts = []
    for sentence in sentences(body):
        sentence = _HEADING_HASHES.sub("", sentence)
        row = _table_row(sentence)
        shown = (row if row is not None else clean(sentence, normalize=False) or sentence).rstrip(_TRAILING)
        state, text = task_state(shown)
        if state and text.strip():
            shown = with_state(state, text.strip())  # the checkbox as a word, never "[x]" in a belief
        if shown:
            parts.append(shown)
    return finish_claim(_one_sentence(parts)) or finish_claim(topic) or "(empty fragment)."


def _one_sentence(parts: list[str]) -> str:
    out = parts[0] if parts else ""
    for part in parts[1:]:
        first = part.split(" ", 1)[0]
        part = part[0].lower() + part[1:] if first in _LOWER_AFTER_GUARD | _PRONOUNS else part
        out += "；" + part if _HAN.search(out[-1:]) else "; " + part
    return out


def bare(claim: str) -> str:
    return claim[:-1] if claim.endswith(".") else claim


def guarded(old: Claim, new: Claim, sentence: str) -> str:
    """The replacing belief with its guard, TypeClaw's "X is not Y anymore; X is Z": X the old
    claim's subject and Y its value; for a claim without a subject, the numbers, times or days
    the new one drops ("Not Tuesday anymore; …"), unless the new sentence rules them out itself."""
    if old.state and new.state and old.state != new.state:
        return sentence  # "Done: update the handbook" says what it replaces
    first = sentence.split(" ", 1)[0]
    rest = sentence[0].lower() + sentence[1:] if first in _LOWER_AFTER_GUARD else sentence
    if old.subject and old.predicate == "=" and old.subject_text and old.value_text:
        subject, value = old.subject_text, _short(old.value_text)
        if _HAN.search(subject + value):
            return f"{subject}不再是{value}；{sentence}"
        if _HANGUL.search(subject + value):
            return f"{subject}: 더 이상 {value} 아님; {sentence}"
        return f"{subject[0].upper()}{subject[1:]} is not {value} anymore; {rest}"
    if new.rejected & old.affirmed:
        return sentence
    gone = (old.values | old.names) - (new.values | new.names)
    shown = [t.surface for t in tokenize(old.text) if t.norm in gone or t.surface.lower() in gone]
    if shown:
        return f"Not {', '.join(dict.fromkeys(shown))} anymore; {rest}"
    return sentence


def _short(text: str, limit: int = 48) -> str:
    text = bare(text.strip())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + "…"


_UUID7 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def when_written(key: Key) -> tuple[str, str]:
    """When a fragment was written, as far as its key tells: the day, and within a day the
    UUIDv7 id (its first 48 bits are the time); other ids only tell the day."""
    return key[0], key[1] if _UUID7.match(key[1]) else ""


def dedupe(keys: list[Key]) -> list[Key]:
    return list(dict.fromkeys(keys))


def cite_line(key: Key) -> str:
    return f"- streams/{key[0]}#{key[1]}"


@dataclass
class Belief:
    """A shard in the reference layout: one belief, cited evidence, references, tags."""

    claim: str  # without ladder prefix, ends with "."
    active: list[Key] = field(default_factory=list)
    superseded: list[Key] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    tags: tuple[str, ...] | None = None
    inline: bool = False  # the sentence words its own strength (written by a person or an LLM)

    def keys(self) -> set[Key]:
        return set(self.active) | set(self.superseded)

    def active_days(self) -> set[str]:
        return {d for d, _ in self.active}

    def sentence(self) -> str:
        return ladder_sentence(self.claim, len(self.active_days()), self.inline)

    def body(self) -> str:
        lines = [self.sentence(), "", "fragments:", *map(cite_line, self.active)]
        if self.references:
            lines += ["", "references:", *(f"- {r}" for r in self.references)]
        if self.superseded:
            lines += ["", "superseded:", *map(cite_line, self.superseded)]
        return "\n".join(lines) + "\n"

    def render(self, today: str) -> str:
        body = self.body()
        sentence = body.split("\n", 1)[0]
        cites, days, last = strength_of(body, today)
        return render_shard(ShardMeta(bare(sentence), cites, days, last, self.tags), body)


def _sections(body: str) -> tuple[list[str], list[Key], list[Key], list[str]] | None:
    """(prose lines, active, superseded, references), or None for a free-form body."""
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
            gap = gap or (block == "prose" and bool(prose))
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
            gap = gap or (block == "prose" and bool(prose))
            continue
        item = _REFERENCE_ITEM.match(line)
        if block == "references" and item:
            refs.append(item.group(1))
            continue
        if block != "prose" or gap or CITATION.search(line) or line.lstrip().startswith(("#", "-", "*", ">", "|", "proposal:")):
            return None
        prose.append(line.strip())
    return prose, active, superseded, refs


def parse_belief(text: str) -> Belief | None:
    """The shard as a `Belief`, or None when it fails the strict parse or its body is more
    than one paragraph of prose plus citation sections (then it is only ever cited)."""
    try:
        meta, body = parse_shard(text)
    except ShardParseError:
        return None
    if CITATION.search(meta.heading):
        return None
    parts = _sections(body)
    if parts is None:
        return None
    prose, active, superseded, refs = parts
    sentence = " ".join(prose) or meta.heading
    stripped, had_prefix = strip_prefix(sentence)
    # A prefix carries the tier and the rest is content; an inline "observed"/"mentioned" after
    # a prefix is a stacked tier word from before this rule, reworded in place from now on.
    inline = has_inline_tier(stripped, adverbs=not had_prefix)
    claim = finish_claim(stripped) or finish_claim(meta.heading)
    if not claim:
        return None
    active = dedupe(active)
    live = set(active)
    return Belief(claim, active, [k for k in dedupe(superseded) if k not in live], list(dict.fromkeys(refs)), meta.tags, inline)
