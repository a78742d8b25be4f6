r"""A topic's document in TypeClaw's keyword lane, whole or fast (v0.45.1, spec §4.4).

TypeClaw matches a prompt against `slug\nheading\nbody\n` + the provenance of the fragments the
topic cites actively (`provenance-index.ts` `lexicalTextForTopic`: each citation, then its who,
time and where — or "unresolved citation"). Built whole, that reads every cited fragment (a year
of streams), and its citation lines are most of its bytes.

The fast document replaces each citation line of the usual shape (a UUID id) and each provenance
line by a line holding "\0". That changes no match as long as no piece of the prompt (a line of
it, or one of its words) could occur inside such a line — checked against the line's exact shape
(`_touches_citation`), the ISO time's characters, "unresolved citation" and every who/where value
in the streams (`_touches_provenance`) — and the prompt holds no "\0": then those lines can take
part in no match, and a "\0" line in none either (a line of the prompt between two of its line
breaks must equal a whole line of the document). Any other prompt gets the whole documents.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from dreamdeck.core.formats.js_text import JS_WHITESPACE
from dreamdeck.core.formats.jscompat import locale_compare_key
from dreamdeck.core.formats.lazy_re import lazy_re
from dreamdeck.core.formats.tc_text import citation_in_line, format_citation, is_section_heading
from dreamdeck.core.index.tc_memory import TcDay, TcShard
from dreamdeck.core.index.tc_people import Registry, child_parts
from dreamdeck.core.index.tc_provenance import DayProvenance, day_provenance

UNRESOLVED_CITATION = "unresolved citation"

_WS = re.escape(JS_WHITESPACE)
# A citation line of the usual shape: a UUID id (what a fast document replaces).
_CANONICAL_LINE = lazy_re(
    rf"[{_WS}-]*(streams|memory)/([0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}})#"
    rf"([0-9a-f]{{8}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{12}})[{_WS}]*",
    re.I | re.A,
)
_UUID = lazy_re(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I | re.A)


# --- per-topic facts, computed once per shard version -----------------------------------------
@dataclass(frozen=True)
class TopicFacts:
    """What the keyword lane needs of a shard. Kept as text (`index.tc_projection` stores it per
    file stamp, so a fresh process does not parse 10,000 shards again); the sets and pairs are
    derived from the text when first used."""

    cited: str  # the active citations "date#id", sorted by citation (`compareChildren`), "\n"-joined
    superseded: str  # ids cited only as superseded, "\n"-joined
    fast_doc: str  # lowercased; canonical citation and provenance lines as "\0"
    memory_prefix: bool  # a replaced line used the legacy `memory/` prefix

    @cached_property
    def active(self) -> tuple[tuple[str, str], ...]:
        return tuple(tuple(c.split("#", 1)) for c in self.cited.split("\n")) if self.cited else ()  # type: ignore[misc]

    @cached_property
    def dates(self) -> frozenset[str]:
        return frozenset(c[:10] for c in self.cited.split("\n")) if self.cited else frozenset()

    @cached_property
    def active_ids(self) -> frozenset[str]:
        return frozenset(i for _, i in self.active)

    @cached_property
    def superseded_ids(self) -> frozenset[str]:
        return frozenset(self.superseded.split("\n")) if self.superseded else frozenset()


_FACTS: dict[str, tuple[TcShard, TopicFacts]] = {}


def topic_facts(shard: TcShard) -> TopicFacts:
    hit = _FACTS.get(shard.path)
    if hit is not None and hit[0] is shard:  # the same parse of the same file version
        return hit[1]
    facts = _compute_facts(shard)
    _FACTS[shard.path] = (shard, facts)
    return facts


def remember_facts(shard: TcShard, facts: TopicFacts) -> None:
    """Take facts computed by an earlier process (`index.tc_projection`) for this parse."""
    _FACTS[shard.path] = (shard, facts)


def _compute_facts(shard: TcShard) -> TopicFacts:
    return _plain_facts(shard) or facts_line_by_line(shard)


# A citation line of the commonest shape: "- streams/DATE#UUID", lower-case, nothing around it
# (a `_CANONICAL_LINE` always). Searched after a "\n" so the literal prefix is found at C speed.
_PLAIN_LINE = lazy_re(
    r"\n- streams/([0-9]{4}-[0-9]{2}-[0-9]{2}#[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?=\n|\Z)",
    re.A,
)
_OTHER_LINE = lazy_re(r"^(?!\0$).+$", re.M)  # a line of the body that was not a plain citation


def _plain_facts(shard: TcShard) -> TopicFacts | None:
    """`facts_line_by_line` in a few C-speed passes, for a body whose citation lines of a usual
    shape are all plain ones (None otherwise: the caller reads it line by line). The plain lines
    become "\0" lines; only the few other lines are read one by one, and each one's place among
    the "\0" lines says which section the plain citations around it belong to."""
    body = shard.body
    if "\0" in body:
        return None
    pieces = _PLAIN_LINE.split("\n" + body)  # text between plain lines, and each plain line's citation
    plain = pieces[1::2]
    rest = "\n\0".join(pieces[::2])[1:]
    sections: dict[str, list[str]] = {"active": [], "superseded": []}
    current, rank, at = "active", 0, 0
    extra = False  # a citation found in a line that is not a plain one
    for m in _OTHER_LINE.finditer(rest):
        line = m.group()
        if _CANONICAL_LINE.fullmatch(line):
            return None
        now = rank + rest.count("\0", at, m.start())
        sections[current] += plain[rank:now]
        rank, at = now, m.end()
        heading = is_section_heading(line)
        if heading is not None:
            current = "superseded" if heading == "superseded" else "active"
            continue
        found = citation_in_line(line)
        if found is not None:
            sections[current].append(f"{found[0]}#{found[1]}")
            extra = True
    sections[current] += plain[rank:]
    cited = list(dict.fromkeys(sections["active"]))
    if extra and not _PLAIN_CITATIONS.fullmatch("".join(cited)):  # a plain line's citation always is
        return None  # `_sorted_children` would need the locale's order
    cited.sort()
    sup: dict[str, None] = {}
    if sections["superseded"]:
        active_ids = {c[11:] for c in cited}
        sup = dict.fromkeys(c[11:] for c in dict.fromkeys(sections["superseded"]) if c[11:] not in active_ids)
    lex = ([f"streams/{c}\n\0" if not _UUID.fullmatch(c[11:]) else "\0\n\0" for c in cited] if extra
           else ["\0\n\0"] * len(cited))  # every citation from a plain line: a UUID id
    fast = f"{shard.slug}\n{shard.heading}".lower() + "\n" + rest.lower() + "\n" + "\n".join(lex)
    return TopicFacts("\n".join(cited), "\n".join(sup), fast, False)


def facts_line_by_line(shard: TcShard) -> TopicFacts:
    """citations.ts `splitCitationRefsBySection` and the fast document, in one pass."""
    active: dict[str, tuple[str, str]] = {}
    superseded: dict[str, tuple[str, str]] = {}
    current, lines, memory_prefix = active, [], False
    found: tuple[str, str] | None
    for line in shard.body.split("\n"):
        canon = _CANONICAL_LINE.fullmatch(line)
        if canon is not None:  # a citation line TypeClaw's regex reads the same way
            found = (canon.group(2), canon.group(3))
            memory_prefix |= canon.group(1).lower() == "memory"
            lines.append("\0")
        else:
            lines.append(line.lower())
            heading = is_section_heading(line)
            if heading is not None:
                current = superseded if heading == "superseded" else active
                continue
            found = citation_in_line(line)
            if found is None:
                continue
        current[format_citation(*found)] = found
    active_ids = frozenset(i for _, i in active.values())
    children = _sorted_children(list(active.values()))
    # each child: its citation line (replaced when of the usual shape), then its provenance
    lex = ["\0\n\0" if _UUID.fullmatch(i) else f"{format_citation(d, i).lower()}\n\0" for d, i in children]
    fast = f"{shard.slug}\n{shard.heading}".lower() + "\n" + "\n".join(lines) + "\n" + "\n".join(lex)
    sup = "\n".join(dict.fromkeys(i for _, i in superseded.values() if i not in active_ids))
    return TopicFacts("\n".join(f"{d}#{i}" for d, i in children), sup, fast, memory_prefix)


_PLAIN_CITATIONS = lazy_re(r"[a-z0-9/#-]*")


def _sorted_children(children: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """provenance-index.ts `compareChildren` (`localeCompare` of the citations). For lowercase
    letters, digits and "/#-" ICU's order is the code units' order, and a plain sort is exact."""
    cites = [format_citation(d, i) for d, i in children]
    if _PLAIN_CITATIONS.fullmatch("".join(cites)):
        return [c for _, c in sorted(zip(cites, children, strict=True))]
    return [c for _, c in sorted(zip(cites, children, strict=True), key=lambda p: locale_compare_key(p[0]))]


# --- which prompts need the whole documents ---------------------------------------------------
_W_CLASS = frozenset(JS_WHITESPACE) | {"-"}
_S_CLASS = frozenset(JS_WHITESPACE)
_DIGIT = frozenset("0123456789")
_HEX = frozenset("0123456789abcdef")
_TS_CHARS = frozenset("0123456789-:.tz")


def _template(prefix: str) -> list[frozenset[str]]:
    """The characters of `PREFIX/YYYY-MM-DD#UUID`, lowercased, position by position."""
    shape = prefix + "/dddd-dd-dd#hhhhhhhh-hhhh-hhhh-hhhh-hhhhhhhhhhhh"
    return [_DIGIT if c == "d" and i > len(prefix) else _HEX if c == "h" else frozenset(c) for i, c in enumerate(shape)]


_TEMPLATES = {"streams": _template("streams"), "memory": _template("memory")}


def _non_alnum_possible(cls: frozenset[str]) -> bool:
    return any(not (c.isascii() and c.isalnum()) for c in cls)


def _touches_citation(piece: str, template: list[frozenset[str]], boundary: bool) -> bool:
    """Could `piece` occur inside `[\\s-]*TEMPLATE\\s*` (on alphanumeric boundaries, for a word)?"""
    alphabet = _W_CLASS.union(*template)
    if not set(piece) <= alphabet:
        return False
    n, size = len(piece), len(template)
    for start in range(-n, size + 1):
        if all(ch in (_W_CLASS if p < 0 else template[p] if p < size else _S_CLASS)
               for ch, p in zip(piece, range(start, start + n), strict=True)):
            left, right = start - 1, start + n
            if boundary and ((0 <= left < size and not _non_alnum_possible(template[left]))
                             or (0 <= right < size and not _non_alnum_possible(template[right]))):
                continue
            return True
    return False


def _touches_provenance(piece: str, boundary: bool, vocab: set[str]) -> bool:
    if any(piece in v for v in vocab) or piece in UNRESOLVED_CITATION:
        return True
    if set(piece) <= _TS_CHARS:  # a piece of an ISO time, 2026-07-16t03:00:00.000z
        return not (boundary and piece.isdigit() and len(piece) not in (2, 4))  # digit runs there are 2 or 4 long
    return False


def fast_docs_exact(prompt: str, tokens: list[str], templates: list[str], vocab: set[str]) -> bool:
    """True when replacing citation and provenance lines by "\\0" changes no match."""
    if "\0" in prompt:
        return False
    probes = [(p, False) for p in prompt.lower().split("\n") if p] + [(t, t.isascii()) for t in tokens]
    for piece, boundary in probes:
        if _touches_provenance(piece, boundary, vocab):
            return False
        if any(_touches_citation(piece, _TEMPLATES[t], boundary) for t in templates):
            return False
    return True


def stream_documents(days: list[TcDay], reg: Registry) -> dict[str, str]:
    """citation -> a fragment's document: topic, body and its own provenance (`streamDocuments`)."""
    docs = {}
    for day in days:
        for ev in day.events:
            if ev["type"] == "fragment":
                citation = format_citation(day.date, ev["id"])
                docs[citation] = f"{ev['topic']}\n{ev['body']}\n" + "\n".join(child_parts(citation, ev, reg))
    return docs


def whole_documents(shards: list[TcShard], facts: list[TopicFacts], files: list[tuple[str, str]],
                    reg: Registry, store: Path | None = None) -> list[str]:
    """TypeClaw's topic documents whole (`topicDocuments`), lowercased: each cited fragment's
    who, time and where, from the day records (`index.tc_provenance`, kept per file stamp)."""
    wanted = {d for f in facts for d in f.dates}
    days: dict[str, DayProvenance] = {}
    for date, path in files:
        if date in wanted:
            days[date] = day_provenance(path, store)
    none = DayProvenance({}, {})
    docs = []
    for shard, f in zip(shards, facts, strict=True):
        parts: list[str] = []
        for cite in f.cited.split("\n") if f.cited else ():
            d, _, i = cite.partition("#")
            day = days.get(d, none)
            ts = day.times.get(i)
            if ts is not None and i not in day.people:  # most fragments: no who, no where
                parts += ("streams/" + cite, ts)  # formatCitation
            else:
                parts += child_parts(format_citation(d, i), day.event(i), reg)
        docs.append(f"{shard.slug}\n{shard.heading}\n{shard.body}\n" + "\n".join(parts))
    return [d.lower() for d in docs]
