"""Fragments that left the streams with no reason dreamdeck recorded (issue 10, items 1 and 6):
`doctor`'s "unrecorded-loss" and "outside-loss" findings, and what a person does about them.

"unrecorded-loss": the working stream files against dreamdeck's last commit
(`door.outside_losses`): removed by hand or by TypeClaw's own GC since, and not committed yet.
"outside-loss": what the door found the same way before one of its commits and recorded
(`store.outside_losses`), so the commit did not absorb it: reported until the fragment is back
in a stream (`doctor --fix` restores the protected ones, `restore_outside_losses` any, from git
history) or a person accepts the loss (`accept_outside_losses`). Both go through the door: one
commit, one audit line.
"""
from __future__ import annotations

from dreamdeck.core.door.changeset import ApplyResult, Audit, ChangeSet, Commit, Evidence, Writes
from dreamdeck.core.door.outside_losses import find_outside_losses
from dreamdeck.core.errors import Refused
from dreamdeck.core.formats.citations import Key, summarize_missing
from dreamdeck.core.formats.counts import counted
from dreamdeck.core.ops.doctor_memory import held_in_streams
from dreamdeck.core.ops.protected import lines_from_history
from dreamdeck.core.store.outside_losses import RECORD, Losses, load_outside_losses, render_outside_losses
from dreamdeck.core.store.tombstones import tombstoned_keys
from dreamdeck.core.workspace import Workspace

KIND = "unrecorded-loss"
OUTSIDE = "outside-loss"
RECORD_FILE = RECORD.removeprefix("meta/")  # its name among a ChangeSet's meta files
WHAT_TO_DO = ("`dreamdeck doctor --restore-losses` puts them back from git history, "
              "`dreamdeck doctor --accept-losses` accepts the loss")


def unrecorded_losses(ws: Workspace) -> list[tuple[str, str]]:
    """(stream file, what left it with no recorded reason), one per stream file."""
    found = find_outside_losses(ws)
    base = found.base
    out = []
    for rel, lost in sorted(found.lines.items()):
        day = rel[len("memory/streams/"):-len(".jsonl")]
        keys = sorted((day, fid) for fid in lost)
        out.append((rel, f"{counted(len(keys), 'fragment')} left this stream with no recorded reason since dreamdeck's "
                         f"commit {base[:10]} (removed by hand, or by TypeClaw's own GC?): {summarize_missing(keys)}; "
                         f"`git show {base[:10]}:{rel}` still holds them"))
    return out


def open_outside_losses(ws: Workspace) -> tuple[Losses, str | None]:
    """The recorded outside losses no stream holds again and no forget explains, and the
    record's problem (None: it reads)."""
    losses, problem = load_outside_losses(ws)
    if not losses:
        return {}, problem
    held = held_in_streams(ws, losses)
    stones = tombstoned_keys(ws)
    return {k: c for k, c in losses.items() if k not in held and k not in stones}, problem


def outside_loss_findings(ws: Workspace) -> list[tuple[str, str]]:
    """(where, detail) of each stream file with open outside losses, and of an unreadable record."""
    losses, problem = open_outside_losses(ws)
    out = []
    if problem is not None:
        out.append((f"memory/{RECORD}", f"{problem}; the door does not write over it: "
                                        "`dreamdeck doctor --accept-losses` writes it again"))
    by_day: dict[str, list[Key]] = {}
    for key in sorted(losses):
        by_day.setdefault(key[0], []).append(key)
    for day, keys in by_day.items():
        commit = losses[keys[0]][:10]
        out.append((f"memory/streams/{day}.jsonl",
                    f"{counted(len(keys), 'fragment')} left this stream by another writer (TypeClaw's GC, or by hand), "
                    f"recorded when dreamdeck committed it (`git show {commit}:memory/streams/{day}.jsonl` holds "
                    f"them): {summarize_missing(keys)}; {WHAT_TO_DO}"))
    return out


def accept_outside_losses(ws: Workspace, actor: str = "human:cli") -> ApplyResult | None:
    """A person accepts every open outside loss: they leave the record, in one audited commit
    that names them (None: nothing to accept)."""
    losses, problem = open_outside_losses(ws)
    if not losses and problem is None:
        return None
    keys = sorted(losses)
    summary = (f"accepted the loss of {counted(len(keys), 'fragment')} another writer removed: {summarize_missing(keys, 20)}"
               if keys else f"wrote memory/{RECORD} again ({problem})")
    return _settle(ws, {}, summary, actor, "doctor --accept-losses", "ACK")


def restore_outside_losses(ws: Workspace, actor: str = "human:cli") -> tuple[ApplyResult | None, list[Key]]:
    """Put every open outside loss back from git history, in one audited commit; the keys git
    holds nowhere stay recorded. Returns (result or None, keys not found)."""
    losses, problem = open_outside_losses(ws)
    if problem is not None:
        raise Refused(f"refused: {problem}; `dreamdeck doctor --accept-losses` writes it again")
    lines, unfound = lines_from_history(ws, losses)
    if not lines:
        return None, unfound
    restored = sorted(k for k in losses if k not in unfound)
    summary = f"restored {counted(len(restored), 'fragment')} another writer removed, from git history: {summarize_missing(restored, 20)}"
    left = {k: c for k, c in losses.items() if k in unfound}
    return _settle(ws, left, summary, actor, "doctor --restore-losses", "APPEND", lines), unfound


def _settle(ws: Workspace, left: Losses, summary: str, actor: str, trigger: str, verb: str,
            lines: dict[str, list[str]] | None = None) -> ApplyResult:
    cs = ChangeSet(
        Commit("edit", actor, "approved", trigger, summary, subject=f"memory: {trigger.removeprefix('doctor ')}"),
        Writes(meta_files={RECORD_FILE: render_outside_losses(left)}),
        evidence=Evidence(restore_lines=lines or {}),
        audit=Audit(extra=[(verb, "memory/streams" if lines else f"memory/{RECORD}", summary)]),
    )
    from dreamdeck.core.door.apply import apply_changeset  # here: a read-only doctor never pays the door's imports
    return apply_changeset(ws, cs)
