"""A shard's belief sentence and synthesized heading, as TypeClaw finds them.

TypeClaw's `firstBeliefSentence` (belief-sentence.ts) and `synthesizeHeadingFromBody`
(dreaming.ts): what names a shard that has no heading, and what a channel shows for one.
"""
from __future__ import annotations

from dreamdeck.core.formats.citations import REFERENCES_HEADING, strip_citation_lines
from dreamdeck.core.formats.jscompat import JS_LINE_BREAKS, JS_SPACE, js_trim
from dreamdeck.core.formats.lazy_re import lazy_re

# `firstSentenceOf`: a `.` ends a sentence only before whitespace or the end (3.5, v1.2 do not).
_SENTENCE_END = lazy_re(rf"[。！？؟।!?]|\.(?=[{JS_SPACE}]|\Z)")
_HEADING_HASHES = lazy_re(rf"#{{1,6}}[{JS_SPACE}]+")
# `/^##\s+(.+)$/m` with JavaScript's meaning: lines also end at CR, U+2028 and U+2029, and
# `\s+` may run across lines (so `### Three` and `##\n\nText` both match).
_DOUBLE_HASH_HEADING = lazy_re(
    rf"(?<![^{JS_LINE_BREAKS}])##[{JS_SPACE}]+([^{JS_LINE_BREAKS}]+)(?=[{JS_LINE_BREAKS}]|\Z)"
)


def first_belief_sentence(body: str) -> str:
    """TypeClaw's `firstBeliefSentence`: the first sentence of the first prose line ("" if none).

    Citation lines and section headings are stripped; a `references:` heading line is skipped
    (its items are not); a leading `#`..`######` is unwrapped."""
    for raw in strip_citation_lines(body).split("\n"):
        line = js_trim(raw)
        if not line or REFERENCES_HEADING.match(line):
            continue
        hashes = _HEADING_HASHES.match(line)
        if hashes:
            line = js_trim(line[hashes.end():])
        if line:
            end = _SENTENCE_END.search(line)
            return js_trim(line[: end.end()]) if end else line
    return ""


def synthesize_heading(body: str) -> str:
    """TypeClaw's `synthesizeHeadingFromBody`: the first `## ` heading, else the first sentence.

    A `## ` line of only spaces yields "" (TypeClaw then falls back to the slug, not a sentence)."""
    m = _DOUBLE_HASH_HEADING.search(body)
    return js_trim(m.group(1)) if m else first_belief_sentence(body)
