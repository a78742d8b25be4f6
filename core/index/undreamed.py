"""The undreamed tail: fragments no dream has seen yet, and none a person forgot.

TypeClaw's "undreamed" is a fragment whose id is not in the day's `dreamedIds`; dreamdeck also
leaves out every forgotten fragment, by identity (`tombstones.forgotten`: its id under any date,
or its content), and the ones a reflection holds for a person (kept undreamed in TypeClaw's
state so its GC cannot collect them; `store.reflections.held_keys`). Most days of a year are fully dreamed, known from a projection
(`stream_scan.DreamedDays`) without parsing them.
"""
from __future__ import annotations

from dataclasses import dataclass

from dreamdeck.core.index.stream_scan import DreamedDays, fragment_ids
from dreamdeck.core.io.cache import clock
from dreamdeck.core.store.reflections import held_keys
from dreamdeck.core.store.streams import list_stream_days, read_stream_lines
from dreamdeck.core.store.tombstones import forgotten
from dreamdeck.core.workspace import Workspace


@dataclass(frozen=True)
class UndreamedFragment:
    """A fragment shown to this run, with the stream date it lives under."""

    date: str
    id: str
    topic: str
    body: str
    source: str = ""
    ts: str = ""
    who: str | None = None

    @property
    def citation(self) -> str:
        return f"streams/{self.date}#{self.id}"


def shared_digest(stones, held: set[tuple[str, str]]) -> str:
    """What a day's entry in `DreamedDays` depends on beside the day's dreamed-id list (the digest
    covers what decides "dreamed, forgotten or held"): the forgotten identities and the held keys."""
    return DreamedDays.digest(["#forgotten", *sorted(stones.ids), "#hashes", *sorted(stones.hashes),
                               "#loose", *sorted(stones.loose), "#held", *sorted(f"{d}#{i}" for d, i in held)])


def collect_undreamed(ws: Workspace, state) -> list[UndreamedFragment]:
    """Fragments not yet dreamed and not forgotten, oldest day first, file order within a day."""
    started = clock()
    stones = forgotten(ws)
    held = held_keys(ws)
    stones_digest = shared_digest(stones, held)
    known = DreamedDays(ws)
    out: list[UndreamedFragment] = []
    for day, path in list_stream_days(ws):
        digest = DreamedDays.digest([state.ids_digest(day), stones_digest])
        held_ids = {i for d, i in held if d == day}
        # Most days of a year are fully dreamed: known from the projection, else from a regex
        # scan of ids; only a day that still has undreamed fragments is parsed.
        if known.fully_dreamed(path, digest):
            continue
        dreamed = state.dreamed_ids(day)
        ids = fragment_ids(path)
        if dreamed.issuperset(ids) or all(fid in dreamed or fid in stones.ids or fid in held_ids for fid in ids):
            known.mark(path, digest, started)
            continue
        for ln in read_stream_lines(path):
            if ln.kind != "fragment":
                continue
            ev = ln.event
            if ev["id"] in dreamed or ev["id"] in held_ids or stones.holds_event(ev):  # type: ignore[index]
                continue
            out.append(UndreamedFragment(
                date=day, id=ev["id"], topic=ev["topic"], body=ev["body"],  # type: ignore[index]
                source=ev.get("source", ""), ts=ev.get("ts", ""), who=ev.get("who"),  # type: ignore[union-attr]
            ))
    known.save()
    return out
