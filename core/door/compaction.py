"""Stream compaction: TypeClaw's watermark GC and gated fragment GC, plus hard forgets.

- Watermark GC (always): per source keep only the last watermark in file order.
- Fragment GC (only after a fresh citation judgment): drop a fragment that is dreamed AND
  not cited under the same date. `cited` must include every place that protects evidence:
  topics, vault, archive and pending reflections.
- Hard-forgotten fragments are dropped whatever else holds: exactly the meant line, by its
  content hash when one is given (`purge_hashes`), so a line sharing the id is kept.
Malformed and legacy lines are always kept; rewrites never lose a concurrent append.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from dreamdeck.core.formats.events import fragment_content_hash
from dreamdeck.core.store.state import DreamingState
from dreamdeck.core.formats.stream_lines import StreamLine
from dreamdeck.core.store.streams import read_path_for, rewrite_stream
from dreamdeck.core.workspace import Workspace

Key = tuple[str, str]


@dataclass
class CompactionResult:
    files: list[str] = field(default_factory=list)
    watermarks_dropped: int = 0
    fragment_lines_dropped: dict[Key, str] = field(default_factory=dict)  # key -> its exact line, in order

    @property
    def fragments_dropped(self) -> list[Key]:
        return list(self.fragment_lines_dropped)


def _keep_rule(
    lines: list[StreamLine], day: str, dreamed: set[str], cited: set[Key], fragment_gc: bool, purge: set[Key],
    purge_hashes: dict[Key, str],
):
    last_watermark: dict[str, str] = {}
    for ln in lines:
        if ln.kind == "watermark":
            last_watermark[ln.event["source"]] = ln.event["id"]  # type: ignore[index]

    def keep(ln: StreamLine) -> bool:
        if ln.kind == "watermark":
            return last_watermark.get(ln.event["source"]) == ln.event["id"]  # type: ignore[index]
        if ln.kind == "fragment":
            key = (day, ln.event["id"])  # type: ignore[index]
            if key in purge and (key not in purge_hashes or purge_hashes[key] == fragment_content_hash(
                    ln.event["topic"], ln.event["body"])):  # type: ignore[index]
                return False
            if fragment_gc and key[1] in dreamed and key not in cited:
                return False
        return True

    return keep


def compact_days(
    ws: Workspace,
    state: DreamingState,
    cited: set[Key],
    days: set[str] | list[str],
    *,
    fragment_gc: bool,
    purge: set[Key] = frozenset(),  # type: ignore[assignment]
    late: list | None = None,
    purge_hashes: dict[Key, str] | None = None,
) -> CompactionResult:
    """`late`: see `rewrite_stream` (the grace period watched in the background)."""
    result = CompactionResult()
    meant: dict[Key, str] = purge_hashes or {}
    for day in sorted(days):
        path = read_path_for(ws, day)
        if path is None:
            continue
        dreamed = state.dreamed_ids(day)
        rewritten = rewrite_stream(
            ws, path, keep_for=lambda lines, d=day: _keep_rule(lines, d, dreamed, cited, fragment_gc, purge, meant), late=late,
        )
        if rewritten.changed:
            result.files.append(ws.rel(path))
            for ln in rewritten.dropped:
                if ln.kind == "watermark":
                    result.watermarks_dropped += 1
                elif ln.kind == "fragment":
                    result.fragment_lines_dropped[(day, ln.event["id"])] = ln.raw.decode("utf-8")  # type: ignore[index]
    return result
