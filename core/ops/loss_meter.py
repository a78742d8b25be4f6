"""The loss meter of a reflection: what its proposed files drop, rewrite, delete and supersede."""
from __future__ import annotations

from dataclasses import dataclass, field

from dreamdeck.core.formats.citations import Key, citation_keys, sectioned_citations
from dreamdeck.core.formats.shards import parse_loose_shard
from dreamdeck.core.index.ladder import same_claim
from dreamdeck.core.store.reflections import ProposedFile


@dataclass
class LossMeter:
    citations_dropped: list[Key] = field(default_factory=list)
    beliefs_removed: list[str] = field(default_factory=list)  # paths whose claim's text changes (not its tier)
    shards_deleted: list[str] = field(default_factory=list)
    superseded_added: list[Key] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "citations_dropped": [f"{d}#{i}" for d, i in self.citations_dropped],
            "beliefs_removed": self.beliefs_removed, "shards_deleted": self.shards_deleted,
            "superseded_added": [f"{d}#{i}" for d, i in self.superseded_added],
        }


def loss_meter(files: list[ProposedFile]) -> LossMeter:
    meter = LossMeter()
    before: set[Key] = set()
    after: set[Key] = set()
    for f in files:
        before |= citation_keys(f.base or "")
        after |= citation_keys(f.proposed or "")
        if f.base is not None and f.proposed is None:
            meter.shards_deleted.append(f.path)
        if f.base is not None and f.proposed is not None:
            # a belief re-worded only by the strength ladder is reinforced, not rewritten
            if not same_claim(parse_loose_shard(f.base).heading, parse_loose_shard(f.proposed).heading):
                meter.beliefs_removed.append(f.path)
        old_sup = sectioned_citations(parse_loose_shard(f.base or "").body).superseded_keys()
        new_sup = sectioned_citations(parse_loose_shard(f.proposed or "").body).superseded_keys()
        meter.superseded_added.extend(sorted(new_sup - old_sup))
    meter.citations_dropped = sorted(before - after)
    return meter
