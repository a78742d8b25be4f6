"""What one offline dream run did, counted for its one-line summary."""
from __future__ import annotations

from dataclasses import dataclass

from dreamdeck.core.formats.counts import counted


@dataclass
class Tally:
    fragments: int = 0
    new_topics: int = 0
    reinforced: int = 0
    contradictions: int = 0
    same_day: int = 0
    already: int = 0
    tasks_done: int = 0
    readings: int = 0

    def summary(self) -> str:
        n = counted
        head = n(self.fragments, "fragment")
        if not self.fragments:
            return f"{head}: nothing to dream"
        parts = [n(self.new_topics, "new topic"), f"{self.reinforced} reinforced", n(self.contradictions, "contradiction")]
        if self.tasks_done:
            parts.append(n(self.tasks_done, "task") + " done")
        if self.readings:
            parts.append(n(self.readings, "reading") + " updated")
        if self.same_day:
            parts.append(f"{self.same_day} not cited (same day)")
        if self.already:
            parts.append(f"{self.already} already cited")
        return f"{head}: {', '.join(parts)}"
