"""`dreamdeck doctor`: what would hurt the agent, and `--fix` for what needs no judgement.

Findings: an interrupted apply (journal), shards TypeClaw cannot parse (their citations then
protect nothing from TypeClaw's GC), stale runtime-owned frontmatter, malformed stream lines,
citations whose fragment is gone, a corrupt state file, stray temp files.
--fix finishes an interrupted apply, recomputes frontmatter to TypeClaw's exact bytes (through
the one door, so nothing cited can be lost), and removes temp files. It never guesses.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from dreamdeck.core.door.apply import apply_changeset, recover_journal
from dreamdeck.core.door.changeset import ChangeSet, Commit, FileEdit, Writes
from dreamdeck.core.door.journal import JOURNAL
from dreamdeck.core.errors import Refused
from dreamdeck.core.formats.citations import citation_keys
from dreamdeck.core.index.evidence import shard_area_files
from dreamdeck.core.index.fragment_index import FragmentIndex
from dreamdeck.core.formats.shards import ShardParseError, parse_shard, recompute_shard_text
from dreamdeck.core.store.state import load_state
from dreamdeck.core.store.streams import all_problems
from dreamdeck.core.store.tombstones import tombstoned_keys
from dreamdeck.core.workspace import Workspace


@dataclass
class Finding:
    kind: str  # journal | unparseable | stale-frontmatter | malformed-line | missing-fragment | corrupt-state | temp-file
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


def examine(ws: Workspace) -> DoctorReport:
    report = DoctorReport()
    add = report.findings.append
    if (ws.memory / JOURNAL).exists():
        add(Finding("journal", f"memory/{JOURNAL}", "a change was interrupted before it finished", True))
    today = ws.today()
    index = FragmentIndex(ws)
    stones = tombstoned_keys(ws)
    for rel, path in shard_area_files(ws):
        text = path.read_bytes().decode("utf-8", "replace")
        slug = path.stem
        try:
            parse_shard(text)
            if recompute_shard_text(text, slug, today)[0] != text:
                add(Finding("stale-frontmatter", f"memory/{rel}", "cites/days/lastReinforced disagree with the body", True))
        except ShardParseError as exc:
            add(Finding("unparseable", f"memory/{rel}",
                        f"TypeClaw cannot parse it ({exc}); its citations do not protect their fragments", True))
        for day, fid in sorted(citation_keys(text)):
            if (day, fid) not in stones and not index.exists(day, fid):
                add(Finding("missing-fragment", f"memory/{rel}", f"cites streams/{day}#{fid}, which no stream holds", False))
    for problem in all_problems(ws):
        add(Finding("malformed-line", f"{problem.path}:{problem.lineno}", problem.reason, False))
    _state, state_problem = load_state(ws.state_path)
    if state_problem:
        add(Finding("corrupt-state", "memory/.dreaming-state.json", state_problem, False))
    if ws.memory.is_dir():
        for tmp in ws.memory.rglob("*.tmp"):
            add(Finding("temp-file", ws.rel(tmp), "left by an interrupted write", True))
    return report


def fix(ws: Workspace) -> DoctorReport:
    """Repair what needs no judgement; then examine again and report what is left."""
    fixed: list[str] = []
    done = recover_journal(ws)
    if done:
        fixed.append(done)
    if ws.memory.is_dir():
        for tmp in ws.memory.rglob("*.tmp"):
            tmp.unlink(missing_ok=True)
            fixed.append(f"removed {ws.rel(tmp)}")
    today = ws.today()
    edits = []
    for rel, path in shard_area_files(ws, ("topics", "archive")):
        text = path.read_bytes().decode("utf-8", "replace")
        new = recompute_shard_text(text, path.stem, today)[0]
        if new != text:
            edits.append(FileEdit(rel, text, new))
    if edits:
        cs = ChangeSet(
            Commit("edit", "system:doctor", "auto", "doctor --fix", f"recomputed frontmatter of {len(edits)} shard(s)",
                   subject="memory: doctor --fix frontmatter"),
            Writes(edits),
        )
        try:
            apply_changeset(ws, cs)
            fixed.extend(f"recomputed frontmatter of memory/{e.path}" for e in edits)
        except Refused as exc:
            fixed.append(f"frontmatter not recomputed: {exc}")
    report = examine(ws)
    report.fixed = fixed
    report.unfixed = [str(f) for f in report.findings]
    return report
