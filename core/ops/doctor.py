"""`dreamdeck doctor`: what would hurt the agent, and `--fix` for what needs no judgement.

Findings: an interrupted apply (journal), shards TypeClaw cannot parse (their citations then
protect nothing from TypeClaw's GC), stale runtime-owned frontmatter, malformed stream lines,
citations whose fragment is gone, protected fragments TypeClaw's GC collected (held by a
reflection, cited by the vault or the archive), a pinned topic changed outside dreamdeck, a
corrupt state file, stray temp files of ours, symbolic links, hard-linked files, FIFOs, sockets and
devices (a stream day too big to read is one problem line of its file), stream compactions that waited
for writers and are due, an unreadable compaction backlog, fragments that left the streams with
no recorded reason, and those another writer removed that a dreamdeck commit recorded, until they
are restored or accepted (`ops.unrecorded_loss`).
--fix puts protected fragments back from git history (`ops.protected`), finishes an interrupted
apply, does the due compactions (a fresh citation judgment; lines written to a replaced stream
inode carried over first), recomputes frontmatter to TypeClaw's exact bytes (through the one
door, so nothing cited can be lost), and removes the temp files dreamdeck's own writers name
(through the door: one audit line each, one commit). An unreadable backlog is written again
with the purges of hard forgets whose bytes may remain. It never guesses, never follows a link
(a link is only reported: dreamdeck reads and writes nothing through one), never writes a file
another name shares (a hard link: its frontmatter is left as it is), and leaves any other `*.tmp`
alone.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from dreamdeck.core.door.backlog import backlog_status, compact_backlog
from dreamdeck.core.door.changeset import Audit, ChangeSet, Commit, FileEdit, Writes
from dreamdeck.core.door.journal import JOURNAL
from dreamdeck.core.errors import Refused
from dreamdeck.core.formats.counts import counted
from dreamdeck.core.formats.shards import recompute_shard_text
from dreamdeck.core.git.runner import busy_reason
from dreamdeck.core.index.evidence import shard_area_files
from dreamdeck.core.io.atomic import remove_file
from dreamdeck.core.io.no_links import LinkRefused, read_bytes_nofollow
from dreamdeck.core.ops.doctor_memory import examine_memory
from dreamdeck.core.ops.protected import missing_protected, pinned_drift, restore_missing
from dreamdeck.core.ops.unrecorded_loss import KIND as LOSS
from dreamdeck.core.ops.unrecorded_loss import OUTSIDE, outside_loss_findings, unrecorded_losses
from dreamdeck.core.store.compaction_backlog import BACKLOG, DayWork, save_backlog
from dreamdeck.core.store.memory_scan import hard_links_under, links_under, own_temp_files, special_files_under
from dreamdeck.core.store.streams import impossible_stream_days, read_path_for
from dreamdeck.core.store.tombstones import load_tombstones
from dreamdeck.core.workspace import Workspace


@dataclass
class Finding:
    kind: str  # journal | unparseable | stale-frontmatter | malformed-line | missing-fragment | corrupt-state | temp-file
    #          | link | hard-link | special-file | compaction-due | compaction-backlog | pinned-changed | unrecorded-loss
    #          | outside-loss | git-busy | stream-name
    where: str
    detail: str
    fixable: bool

    def __str__(self) -> str:
        return f"{self.kind}: {self.where}: {self.detail}"


@dataclass
class DoctorReport:
    findings: list[Finding] = field(default_factory=list)
    fixed: list[str] = field(default_factory=list)
    unfixed: list[str] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return not self.findings

    def to_json(self) -> dict:
        return {
            "healthy": self.healthy,
            "findings": [f.__dict__ for f in self.findings],
            "fixed": self.fixed, "unfixed": self.unfixed,
        }


class _Walks:
    """The walks of memory/ that need nothing from doctor's record, done once: while its worker
    reads the streams, when there is one (this process would only wait for it otherwise)."""

    def __init__(self, ws: Workspace):
        self.ws = ws
        self.done = False

    def run(self) -> None:
        if not self.done:
            ws = self.ws
            self.links, self.hard_links = links_under(ws), hard_links_under(ws)
            self.special, self.temps = special_files_under(ws), own_temp_files(ws)
            self.done = True


def examine(ws: Workspace) -> DoctorReport:
    report = DoctorReport()
    add = report.findings.append
    interrupted = (ws.memory / JOURNAL).exists()
    if interrupted:
        add(Finding("journal", f"memory/{JOURNAL}", "a change was interrupted before it finished", True))
    busy = busy_reason(ws.root)  # every change refuses until it is gone: say so before one is tried
    if busy:
        add(Finding("git-busy", "git", busy + ("; `doctor --fix` removes a lock the interrupted change left"
                                               if interrupted else ""), False))
    walks = _Walks(ws)
    try:
        memory = examine_memory(ws, meanwhile=walks.run)  # only changed files are read again
    except LinkRefused:
        memory = []  # a linked folder: reported below, and nothing behind it is read
    walks.run()
    for rel, target in walks.links:
        add(Finding("link", rel, f"a symbolic link (to {target}): dreamdeck reads and writes nothing through it; "
                                 "replace it with the real file or folder", False))
    _hard_link_findings(walks.hard_links, add)
    for rel, kind in walks.special:
        add(Finding("special-file", rel, f"{kind}, not a file: TypeClaw's read of it would wait forever and dreamdeck "
                                         "reads nothing from it; remove it or move it out of memory/", False))
    for kind, where, detail, fixable in memory:
        add(Finding(kind, where, detail, bool(fixable)))
    for path in impossible_stream_days(ws):
        add(Finding("stream-name", ws.rel(path), "named for a day that does not exist: dreamdeck neither dreams "
                                                 "nor shows it (TypeClaw reads it as a later day); rename it to the day it means", False))
    for tmp in walks.temps:
        add(Finding("temp-file", ws.rel(tmp), "left by an interrupted write", True))
    _protection_findings(ws, add)  # read from git, the vault and reflections each time
    report.findings += [Finding(LOSS, where, detail, False) for where, detail in unrecorded_losses(ws)]
    report.findings += [Finding(OUTSIDE, where, detail, False) for where, detail in outside_loss_findings(ws)]
    due, _waiting, backlog_problem = backlog_status(ws)  # a day still being written is no finding
    if backlog_problem:
        add(Finding("compaction-backlog", f"memory/{BACKLOG}", backlog_problem, True))
    for day in due:
        add(Finding("compaction-due", f"memory/streams/{day}.jsonl",
                    "its compaction waited while a writer might hold it open, and can be done now", True))
    return report


def _hard_link_findings(hard_links: list[tuple[str, int]], add) -> None:
    """Files under memory/ that share their bytes with another name (one outside the folder would
    carry a write out, or its bytes into git): listed, never written (issue 10 item 7)."""
    for rel, names in hard_links:
        add(Finding("hard-link", rel, f"has {names} hard links: another name shares its bytes, so dreamdeck never "
                                      "writes it; replace it with a copy of its own (cp, then mv over it)", False))


def _protection_findings(ws: Workspace, add) -> None:
    """What TypeClaw's own dreaming may have done to what dreamdeck protects outside topics/."""
    for (day, fid), where in sorted(missing_protected(ws).items()):
        if where.startswith("memory/meta/reflections"):
            add(Finding("missing-fragment", where, f"holds streams/{day}#{fid} for a decision, which no stream "
                        "holds (collected outside dreamdeck?); --fix restores it from git history", True))
    for drift in pinned_drift(ws):
        add(Finding("pinned-changed", f"memory/topics/{drift.slug}.md",
                    f"pinned, but changed outside dreamdeck ({drift.why}): `dreamdeck pin {drift.slug} --restore` "
                    f"puts the vault copy back, `dreamdeck pin {drift.slug} --refresh` accepts the change", False))


def fix(ws: Workspace) -> DoctorReport:
    """Repair what needs no judgement; then examine again and report what is left."""
    from dreamdeck.core.door.apply import recover_journal  # here: a read-only doctor never pays the door's imports
    fixed: list[str] = []
    done = recover_journal(ws)
    if done:
        fixed.append(done)
    if backlog_status(ws)[2]:
        save_backlog(ws, _purges_that_may_remain(ws))
        fixed.append(f"wrote memory/{BACKLOG} again")
    compacted = compact_backlog(ws, actor="system:doctor", trigger="doctor --fix")
    if compacted is not None:
        fixed.extend(f"compacted {f} (its compaction had waited)" for f in compacted.compaction.files)
        if not compacted.compaction.files:
            fixed.append("cleared the compaction backlog (nothing was left to remove)")
    try:
        _restored, restored_keys, _unfound = restore_missing(ws)
        if restored_keys:
            fixed.append(f"restored {counted(len(restored_keys), 'protected fragment')} from git history")
    except Refused as exc:
        fixed.append(f"protected fragments not restored: {exc}")
    fixed.extend(_remove_own_temp_files(ws))
    try:
        _recompute_frontmatter(ws, fixed)
    except LinkRefused as exc:
        fixed.append(f"frontmatter not recomputed: {exc}")
    report = examine(ws)
    report.fixed = fixed
    report.unfixed = [str(f) for f in report.findings]
    return report


def _remove_own_temp_files(ws: Workspace) -> list[str]:
    """Remove our temp files in one door commit, one DELETE audit line each."""
    from dreamdeck.core.door.apply import apply_changeset  # here: a read-only doctor never pays the door's imports
    temps = [ws.rel(p) for p in own_temp_files(ws)]
    if not temps:
        return []
    why = "removed a temp file left by an interrupted write"
    cs = ChangeSet(
        Commit("edit", "system:doctor", "auto", "doctor --fix", f"removed {counted(len(temps), 'temp file')}",
               subject="memory: doctor --fix temp files"),
        audit=Audit(extra=[("DELETE", rel, why) for rel in temps]),
        before_commit=lambda _result: _remove_all(ws, temps),
    )
    try:
        apply_changeset(ws, cs)
    except Refused as exc:
        return [f"temp files not removed: {exc}"]
    return [f"removed {rel}" for rel in temps]


def _remove_all(ws: Workspace, rels: list[str]) -> None:
    for rel in rels:
        remove_file(ws.root / rel)


def _recompute_frontmatter(ws: Workspace, fixed: list[str]) -> None:
    from dreamdeck.core.door.apply import apply_changeset  # here: a read-only doctor never pays the door's imports
    today = ws.today()
    edits = []
    shared = dict(hard_links_under(ws))  # reported; never written
    for rel, path in shard_area_files(ws, ("topics", "archive")):
        if f"memory/{rel}" in shared:
            fixed.append(f"frontmatter not recomputed: memory/{rel} has {shared[f'memory/{rel}']} hard links")
            continue
        text = read_bytes_nofollow(path).decode("utf-8", "replace")
        new = recompute_shard_text(text, path.stem, today)[0]
        if new != text:
            edits.append(FileEdit(rel, text, new))
    if edits:
        cs = ChangeSet(
            Commit("edit", "system:doctor", "auto", "doctor --fix", f"recomputed frontmatter of {counted(len(edits), 'shard')}",
                   subject="memory: doctor --fix frontmatter"),
            Writes(edits),
        )
        try:
            apply_changeset(ws, cs)
            fixed.extend(f"recomputed frontmatter of memory/{e.path}" for e in edits)
        except Refused as exc:
            fixed.append(f"frontmatter not recomputed: {exc}")


def _purges_that_may_remain(ws: Workspace) -> dict[str, DayWork]:
    """A backlog holding every hard forget's purge on a day whose stream is still there (a purge
    already done finds nothing to remove)."""
    out: dict[str, DayWork] = {}
    for (day, fid), stone in load_tombstones(ws).items():
        if stone.hard and read_path_for(ws, day) is not None:
            out.setdefault(day, DayWork()).purge.add(fid)
    return out
