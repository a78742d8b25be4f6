"""A reading back to a value it had is no new claim from zero (issue 11: strength from real support).

"heartbeat: ok" on 4 days, "failed" on one, "ok" on 3 more: the belief is "Always (7 days):
heartbeat: ok", and only the failed day stays under `superseded:`. When a newer reading replaces
a belief (`offline`), `regain` makes the belief's superseded evidence of the new value active
again: newest first, past the evidence of the value it replaces, back to the first citation
stating a third value (or whose text is gone), `LOOKBACK` citations at most, so a reading that
flaps daily for a year never reads a year of fragments at each flip. A setting's change is a
person's call and starts from its own support; this is for readings (`claims.readings`) only.
"""
from __future__ import annotations

from collections.abc import Callable

from dreamdeck.core.claims.extract import Claim, extract
from dreamdeck.core.claims.sameness import same_claim
from dreamdeck.core.claims.statements import statements
from dreamdeck.core.dreaming.beliefs import Belief, Key, when_written

__all__ = ["LOOKBACK", "Evidence", "regain"]

LOOKBACK = 64


class Evidence:
    """The claims a cited fragment states: this run's as the run read them, an earlier run's read
    back from its stream (`DreamInput.evidence`; none when it cannot be read), each once."""

    def __init__(self, seen: dict[Key, list[Claim]], read: Callable[[str, str], str | None] | None) -> None:
        self.seen = seen
        self.read = read
        self.recalled: dict[Key, list[Claim]] = {}

    def said_by(self, key: Key) -> list[Claim]:
        if key in self.seen:
            return self.seen[key]
        if key not in self.recalled:
            body = self.read(*key) if self.read is not None else None
            self.recalled[key] = [extract(text) for text in statements(body)] if body else []
        return self.recalled[key]


def _same_reading(said: Claim, reading: Claim) -> bool:
    return said.subject == reading.subject and same_claim(said, reading, same_topic=True)


def regain(belief: Belief, evidence: Evidence, replaced: Claim, reading: Claim) -> None:
    """`reading` just replaced `replaced` as the belief: its superseded evidence of the same
    value is active again (see the module doc)."""
    back = []
    for key in sorted(belief.superseded, key=when_written, reverse=True)[:LOOKBACK]:
        said = evidence.said_by(key)
        if any(_same_reading(c, reading) for c in said):
            back.append(key)
        elif not any(_same_reading(c, replaced) for c in said):
            break
    if back:
        regained = set(back)
        belief.superseded = [k for k in belief.superseded if k not in regained]
        belief.active = sorted(belief.active + back, key=when_written)
