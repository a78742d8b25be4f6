"""A reflection read claim by claim: what each held change does to its claim, in one line, and
which changes are *mechanical* (`dreamdeck review r-N`, `approve r-N --mechanical` and the app's
Reflections screen all use this module).

A topic shard states one claim (one belief sentence), so a reflection's hunks group by the shard
they change. What a change does is read from the bytes (the base and the proposed text), never
from the dreamer's word, so it holds for any dreamer:
- NEW: a new shard — `new claim: "<belief>"`;
- REINFORCED: the same belief seen again — `reinforced: "<belief>" (+N citations, D days)`;
- SUPERSEDED: the belief changed and the old evidence moved under `superseded:` —
  `superseded "<old>" by "<new>"`;
- TASK_DONE: an open task ("To do: X") ticked: the belief is the same task done ("Done: X"),
  only the open task's evidence moved under `superseded:` — `task done: "X"`;
- READING: a reading ("disk: 61% used", `claims.readings`) replaced by a newer reading of the
  same key, only the old reading's evidence moved under `superseded:` — `reading updated: "<new>"`;
  or a reading kept while earlier readings of its key went under `superseded:` (one that
  flipped back within the run, "ok" → "failed" → "ok", or an older one dreamed late) —
  `reading kept: "<belief>" (N earlier readings under superseded)`. What each moved citation
  says is read from the fragments the reflection records as shown to the dream (dreamdeck
  wrote them from the streams, not the dreamer), and each must be older than the belief's
  newest active citation: a buried newer value, another key or an unknown text is not this;
- KEPT_OLDER: older contradicting evidence filed under `superseded:`, the belief unchanged;
- DELETED, and REWRITTEN for anything else (a belief or its prose edited in place).
A folded duplicate changes no shard (it has no hunk): it is named under the claim that cites the
fragment it duplicates (`duplicate folded: D#X = D#Y`), from the run's receipt.

**Mechanical**, precisely: the hunks of a held file are mechanical when the file is not pinned
and its change is either
(a) a pure reinforcement: an existing shard whose tags and `superseded:` citations are unchanged,
    whose active citations only grow (at least one added), whose belief is the old belief
    re-worded by the strength ladder for its new count of active days (or unchanged), and whose
    body, besides that sentence and the active citation lines, is unchanged; or
(b) a new claim with no contradiction: a new shard with no `superseded:` citation whose slug no
    flagged contradiction of the reflection names; or
(c) a task done or a reading updated (TASK_DONE, READING above): the newer state or value wins,
    there is nothing for a person to judge.
Folded duplicates are mechanical by nature and need no approval: folding writes nothing.
Approving the mechanical hunks is a partial approval like `--hunk`: the others are not applied.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from dreamdeck.core.claims.cleaning import task_state
from dreamdeck.core.claims.contradiction import contradiction_reason
from dreamdeck.core.claims.extract import extract
from dreamdeck.core.claims.readings import is_reading, newer_reading
from dreamdeck.core.formats.citations import (
    Key,
    Sections,
    citation_keys,
    sectioned_citations,
    strip_citation_lines,
    without_active_citations,
)
from dreamdeck.core.formats.counts import counted
from dreamdeck.core.formats.ids import is_uuid
from dreamdeck.core.formats.shards import LooseShard, parse_loose_shard
from dreamdeck.core.index.ladder import ladder_sentence, strip_prefix
from dreamdeck.core.store.reflections import ProposedFile, Reflection

__all__ = ["NEW", "REINFORCED", "SUPERSEDED", "TASK_DONE", "READING", "KEPT_OLDER", "DELETED", "REWRITTEN", "ClaimChange",
           "ClaimReview", "claim_review", "mechanical_hunks", "what_an_approval_applies"]

NEW, REINFORCED, SUPERSEDED, TASK_DONE, READING, KEPT_OLDER, DELETED, REWRITTEN = (
    "new", "reinforced", "superseded", "task-done", "reading", "kept-older", "deleted", "rewritten")
_QUOTE_LIMIT = 80


@dataclass(frozen=True)
class ClaimChange:
    """One held file: what it does to its claim, its hunks, and the duplicates folded into it."""
    path: str
    kind: str
    line: str  # the one summary line
    hunks: tuple[str, ...]
    mechanical: bool
    folded: tuple[tuple[str, str], ...] = ()  # ("DATE#ID" folded, "DATE#ID" it duplicates)

    def to_json(self) -> dict:
        return {"path": self.path, "kind": self.kind, "summary": self.line, "hunks": list(self.hunks),
                "mechanical": self.mechanical, "folded": [{"fragment": f, "duplicates": d} for f, d in self.folded]}


@dataclass(frozen=True)
class ClaimReview:
    rid: str
    claims: list[ClaimChange]
    folded_elsewhere: list[tuple[str, str]] = field(default_factory=list)  # folds into claims not held here
    contradictions: int = 0  # flagged by the dream

    @property
    def mechanical_hunks(self) -> list[str]:
        return [h for c in self.claims if c.mechanical for h in c.hunks]

    @property
    def hunks(self) -> int:
        return sum(len(c.hunks) for c in self.claims)

    def to_json(self) -> dict:
        return {"id": self.rid, "claims": [c.to_json() for c in self.claims],
                "mechanical_hunks": self.mechanical_hunks,
                "folded_elsewhere": [{"fragment": f, "duplicates": d} for f, d in self.folded_elsewhere],
                "contradictions": self.contradictions}


def _quote(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > _QUOTE_LIMIT:  # cut between words where there is one
        cut = text[: _QUOTE_LIMIT - 1]
        text = (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(",;:") + "…"
    return '"' + text + '"'


def _belief(heading: str) -> str:
    """The belief without its ladder prefix, as quoted in a summary line."""
    return strip_prefix(heading)[0]


def _reworded_only(old: str, new: str, days: int) -> bool:
    """`new` is `old` re-worded by the ladder for `days` (or the same sentence)."""
    if old.strip() == new.strip():
        return True
    claim, had_prefix = strip_prefix(old)
    return ladder_sentence(claim, days, False if had_prefix else None).strip() == new.strip()


def _classify(f: ProposedFile, shown: dict[Key, str]) -> tuple[str, str, bool]:
    """(kind, summary line, whether the change is a pure reinforcement or a clean new claim)."""
    if f.proposed is None:
        return DELETED, f"deleted: {_quote(_belief(parse_loose_shard(f.base or '').heading))}", False
    a = parse_loose_shard(f.proposed)
    sa = sectioned_citations(a.body)
    if f.base is None:
        clean = not sa.superseded_keys()
        line = f"new claim: {_quote(_belief(a.heading))}"
        return NEW, line if clean else line + f" (supersedes {counted(len(sa.superseded_keys()), 'citation')})", clean
    b = parse_loose_shard(f.base)
    sb = sectioned_citations(b.body)
    added = sa.active_keys() - sb.active_keys()
    days = len({d for d, _ in sa.active_keys()})
    reworded = _reworded_only(b.heading, a.heading, days)
    if sa.superseded_keys() - sb.superseded_keys():
        if _ticked(b, a, sb, sa):
            return TASK_DONE, f"task done: {_quote(task_state(_belief(a.heading))[1])}", True
        if _newer_reading(b, a, sb, sa):
            return READING, f"reading updated: {_quote(_belief(a.heading))}", True
        if not reworded:
            return SUPERSEDED, f"superseded {_quote(_belief(b.heading))} by {_quote(_belief(a.heading))}", False
        moved = len(sa.superseded_keys() - sb.superseded_keys())
        if _earlier_readings(b, a, sb, sa, shown):
            return READING, (f"reading kept: {_quote(_belief(a.heading))} "
                             f"({counted(moved, 'earlier reading')} under superseded)"), True
        return KEPT_OLDER, (f"older contradicting evidence kept under superseded: {_quote(_belief(a.heading))} "
                            f"({counted(moved, 'citation')})"), False
    pure = (reworded and added and sb.active_keys() <= sa.active_keys() and b.tags == a.tags
            and sb.superseded_keys() == sa.superseded_keys()
            and without_active_citations(b.body).replace(b.heading.strip(), "")
            == without_active_citations(a.body).replace(a.heading.strip(), ""))
    if pure:
        return REINFORCED, f"reinforced: {_quote(_belief(a.heading))} (+{counted(len(added), 'citation')}, " \
                           f"{counted(days, 'day')})", True
    return REWRITTEN, f"rewritten: {_quote(_belief(b.heading))} → {_quote(_belief(a.heading))}", False


def _ticked(b: LooseShard, a: LooseShard, sb: Sections, sa: Sections) -> bool:
    """The belief went from an open task to the same task done, only the open task's evidence
    moved under `superseded:`, and nothing else changed (tags, prose)."""
    old, new = extract(_belief(b.heading)), extract(_belief(a.heading))
    moved = sa.superseded_keys() - sb.superseded_keys()
    return (old.state == "open" and new.state == "done" and contradiction_reason(old, new) == "state"
            and sb.superseded_keys() <= sa.superseded_keys() and moved <= sb.active_keys() and b.tags == a.tags
            and strip_citation_lines(b.body).replace(b.heading.strip(), "")
            == strip_citation_lines(a.body).replace(a.heading.strip(), ""))


def _newer_reading(b: LooseShard, a: LooseShard, sb: Sections, sa: Sections) -> bool:
    """The belief went from a reading to a newer reading of the same key, only the old reading's
    evidence moved under `superseded:`, and nothing else changed (tags, prose)."""
    moved = sa.superseded_keys() - sb.superseded_keys()
    return (newer_reading(extract(_belief(b.heading)), extract(_belief(a.heading)))
            and sb.superseded_keys() <= sa.superseded_keys() and moved <= sb.active_keys() and b.tags == a.tags
            and strip_citation_lines(b.body).replace(b.heading.strip(), "")
            == strip_citation_lines(a.body).replace(a.heading.strip(), ""))


def _time_of(key: Key) -> tuple[str, int] | None:
    """When a fragment was written as far as its key tells (the day, and a UUIDv7's time)."""
    date, fid = key
    if is_uuid(fid) and fid[14] == "7":
        return date, int(fid.replace("-", "")[:12], 16)
    return None


def _older(key: Key, than: Key) -> bool:
    if key[0] != than[0]:
        return key[0] < than[0]
    a, b = _time_of(key), _time_of(than)
    return a is not None and b is not None and a < b


def _earlier_readings(b: LooseShard, a: LooseShard, sb: Sections, sa: Sections, shown: dict[Key, str]) -> bool:
    """The belief, a reading, stayed (re-worded by the ladder at most); what went under
    `superseded:` is the base's own active evidence or shown fragments that read the same key;
    each is older than the newest active citation; nothing else changed (tags, prose)."""
    belief = extract(_belief(a.heading))
    moved = sa.superseded_keys() - sb.superseded_keys()
    if not (is_reading(belief) and sa.active_keys() and sb.superseded_keys() <= sa.superseded_keys() and b.tags == a.tags
            and strip_citation_lines(b.body).replace(b.heading.strip(), "")
            == strip_citation_lines(a.body).replace(a.heading.strip(), "")):
        return False
    newest = max(sa.active_keys(), key=lambda k: (k[0], (_time_of(k) or (k[0], -1))[1]))
    for key in moved:
        if key not in sb.active_keys():
            said = shown.get(key)
            claim = extract(said) if said is not None else None
            if claim is None or claim.subject != belief.subject or not is_reading(claim):
                return False
        if not _older(key, newest):
            return False
    return True


def _shown(r: Reflection) -> dict[Key, str]:
    """The fragments the reflection records as shown to its dream: (date, id) -> body."""
    out: dict[Key, str] = {}
    for f in r.fragments:
        if isinstance(f, dict) and all(isinstance(f.get(k), str) for k in ("date", "id", "body")):
            out[(f["date"], f["id"])] = f["body"]
    return out


def _names_slug(contradictions: list[str], slug: str) -> bool:
    pattern = re.compile(rf"(?<![\w-]){re.escape(slug)}(?![\w-])")
    return any(pattern.search(c) for c in contradictions)


def _folded_pairs(r: Reflection) -> list[tuple[str, str]]:
    folded = r.receipt.get("folded") or {}
    return sorted((str(k), str(v)) for k, v in folded.items()) if isinstance(folded, dict) else []


def claim_review(r: Reflection) -> ClaimReview:
    """Each held file of `r` as a claim change, in the reflection's order (see the module doc)."""
    folds = _folded_pairs(r)
    shown = _shown(r)
    placed: set[tuple[str, str]] = set()
    claims: list[ClaimChange] = []
    for f, diff in r.hunks():
        kind, line, clean = _classify(f, shown)
        slug = f.path.rsplit("/", 1)[-1].removesuffix(".md")
        mechanical = clean and not f.pinned and not (kind == NEW and _names_slug(r.contradictions, slug))
        cited: set[Key] = citation_keys(f.proposed or f.base or "")
        mine = tuple(p for p in folds if tuple(p[1].split("#", 1)) in cited)
        placed.update(mine)
        if mine:
            line += f"; {counted(len(mine), 'duplicate')} folded"
        claims.append(ClaimChange(f.path, kind, line, tuple(h.id for h in diff.hunks), mechanical, mine))
    return ClaimReview(r.id, claims, [p for p in folds if p not in placed], len(r.contradictions))


def mechanical_hunks(r: Reflection) -> list[str]:
    """The hunk ids `approve --mechanical` applies (see the module doc for the definition)."""
    return claim_review(r).mechanical_hunks


_CLAIM_WORDS = {NEW: "new claim", REINFORCED: "reinforced", SUPERSEDED: "superseded", TASK_DONE: "task done",
                READING: "reading updated", KEPT_OLDER: "older evidence kept", DELETED: "deleted",
                REWRITTEN: "rewritten"}


def what_an_approval_applies(r: Reflection, paths: list[str], chosen: dict[str, set[str]],
                             edited: dict[str, str | None] | None, picked: int, total: int) -> str:
    """An approval's summary (its audit lines): what it applies to `paths`, claim by claim
    ("1 of 3 hunks applied (1 new claim)"). The reflection's own summary is the whole dream's
    ("1 new topic, 3 reinforced · 2 applied already"), true of no partial approval."""
    kinds = {c.path: c for c in claim_review(r).claims}
    words: dict[str, int] = {}
    for path in paths:
        claim = kinds.get(path)
        word = ("edited" if edited and path in edited else
                _CLAIM_WORDS.get(claim.kind, claim.kind) if claim else "changed")
        if claim and word != "edited" and chosen.get(path, set()) < set(claim.hunks):
            word += " in part"
        words[word] = words.get(word, 0) + 1
    said = ", ".join(f"{n} {word}" for word, n in words.items())
    return f"{picked} of {counted(total, 'hunk')} applied" + (f" ({said})" if said else "")
