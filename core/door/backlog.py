"""The compactions that waited (invariant 8): which backlog days are due, and a change that does
them when nothing else is coming (a dream with nothing to dream, `doctor --fix`). Any other
change through the door does them too, in its own collection step (`finish`).
"""
from __future__ import annotations

from datetime import UTC, datetime

from dreamdeck.core.door.changeset import ApplyResult, ChangeSet, Commit
from dreamdeck.core.door.compaction import waiting_reasons
from dreamdeck.core.formats.counts import counted
from dreamdeck.core.store.compaction_backlog import load_backlog
from dreamdeck.core.workspace import Workspace


def backlog_status(ws: Workspace) -> tuple[list[str], dict[str, str], str | None]:
    """(the backlog days due now, day -> why each other one waits, a problem with the file)."""
    backlog, problem = load_backlog(ws)
    waiting = waiting_reasons(ws, backlog, ws.today()) if backlog else {}
    return sorted(d for d in backlog if d not in waiting), waiting, problem


def compact_backlog(ws: Workspace, *, actor: str, trigger: str) -> ApplyResult | None:
    """Compact every backlog day that is due, as its own change; None when none is."""
    from dreamdeck.core.door.apply import apply_changeset  # here: reading the backlog never pays the door's imports
    due, _waiting, _problem = backlog_status(ws)
    if not due:
        return None
    days = ", ".join(due)

    def audit(result: ApplyResult) -> None:
        from dreamdeck.core.store.audit import AuditEntry  # here: a read-only doctor never pays the audit log's imports
        done = result.compaction
        summary = (f"compacted {counted(len(done.files), 'stream file')} whose compaction had waited ({days}): "
                   f"{counted(done.watermarks_dropped, 'watermark')}, {counted(len(done.fragments_dropped), 'fragment line')}")
        result.audit.append(AuditEntry.at(datetime.now(UTC), "EDIT", "memory/streams", actor, "auto", summary))

    cs = ChangeSet(
        Commit("compact", actor, "auto", trigger, f"compact the stream days that waited ({days})",
               subject="memory: compact deferred stream days"),
        before_commit=audit,
    )
    return apply_changeset(ws, cs)
