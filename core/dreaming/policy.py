"""Review policy: which proposed shard changes apply by themselves and which wait for a person.

`judgement` (default) auto-applies only *mechanical* changes: an existing shard whose belief,
tags, superseded list and prose are unchanged and which only gains citations under
`fragments:`. Everything else (new, rewritten, merged, deleted, superseding, pinned) waits.
A change to a pinned topic waits under every policy, `none` included (invariant 3).
"""
from __future__ import annotations

from dreamdeck.core.formats.citations import sectioned_citations, without_active_citations
from dreamdeck.core.formats.shards import parse_loose_shard

POLICIES = ("none", "all", "judgement")


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
    return without_active_citations(b.body) == without_active_citations(a.body)


def needs_review(policy: str, before: str | None, after: str | None, pinned: bool) -> bool:
    if pinned:  # invariant 3: a dream that touches a pinned topic is never auto-applied, whatever the policy
        return True
    if policy == "none":
        return False
    if policy == "all":
        return True
    return not is_mechanical(before, after)
