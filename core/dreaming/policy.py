"""Review policy: which proposed shard changes apply by themselves and which wait for a person.

`judgement` (default) auto-applies only *mechanical* changes: an existing shard whose belief,
tags, superseded list and prose are unchanged and which only gains citations under
`fragments:`. Everything else (new, rewritten, merged, deleted, superseding, pinned) waits.
A change to a pinned topic waits under every policy, `none` included (invariant 3).
"""
from __future__ import annotations

import re

from dreamdeck.core.formats.citations import CITATION_LINE, SECTION_HEADING, sectioned_citations
from dreamdeck.core.formats.shards import parse_loose_shard

POLICIES = ("none", "all", "judgement")


def _without_active_citations(body: str) -> str:
    """The body minus citation lines in the active section, blank runs collapsed."""
    out: list[str] = []
    section = "fragments"
    for line in body.split("\n"):
        m = SECTION_HEADING.match(line)
        if m:
            section = m.group(1).lower()
        elif CITATION_LINE.match(line) and section == "fragments":
            continue
        out.append(line.rstrip())
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()


def is_mechanical(before: str | None, after: str | None) -> bool:
    if before is None or after is None:
        return False
    b, a = parse_loose_shard(before), parse_loose_shard(after)
    if b.heading.strip() != a.heading.strip() or b.tags != a.tags:
        return False
    sb, sa = sectioned_citations(b.body), sectioned_citations(a.body)
    if sb.superseded_keys() != sa.superseded_keys():
        return False
    if not sb.active_keys() <= sa.active_keys():
        return False
    return _without_active_citations(b.body) == _without_active_citations(a.body)


def needs_review(policy: str, before: str | None, after: str | None, pinned: bool) -> bool:
    if pinned:  # invariant 3: a dream that touches a pinned topic is never auto-applied, whatever the policy
        return True
    if policy == "none":
        return False
    if policy == "all":
        return True
    return not is_mechanical(before, after)
