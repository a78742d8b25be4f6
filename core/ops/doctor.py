"""`dreamdeck doctor`: what would hurt the agent, and `--fix` for what needs no judgement.

Findings: an interrupted apply (journal), shards TypeClaw cannot parse (their citations then
protect nothing from TypeClaw's GC), stale runtime-owned frontmatter, malformed stream lines,
citations whose fragment is gone, a corrupt state file, stray temp files of ours, symbolic links.
--fix finishes an interrupted apply, recomputes frontmatter to TypeClaw's exact bytes (through
the one door, so nothing cited can be lost), and removes the temp files dreamdeck's own writers
name (through the door: one audit line each, one commit). It never guesses, never follows a link
(a link is only reported: dreamdeck reads and writes nothing through one), and leaves any other
`*.tmp` alone.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from dreamdeck.core.door.apply import apply_changeset, recover_journal
from dreamdeck.core.door.changeset import Audit, ChangeSet, Commit, FileEdit, Writes
from dreamdeck.core.door.journal import JOURNAL
from dreamdeck.core.errors import Refused
from dreamdeck.core.io.atomic import remove_file
from dreamdeck.core.io.no_links import LinkRefused, read_bytes_nofollow
from dreamdeck.core.formats.citations import citation_keys
from dreamdeck.core.ops import doctor_memo
from dreamdeck.core.index.evidence import shard_area_files
from dreamdeck.core.index.fragment_index import FragmentIndex
from dreamdeck.core.formats.shards import ShardParseError, parse_shard, recompute_shard_text
from dreamdeck.core.store.memory_scan import links_under, own_temp_files
from dreamdeck.core.store.state import load_state
from dreamdeck.core.store.streams import all_problems
from dreamdeck.core.store.tombstones import tombstoned_keys
from dreamdeck.core.workspace import Workspace


@dataclass
class Finding:
    kind: str  # journal | unparseable | stale-frontmatter | malformed-line | missing-fragment | corrupt-state | temp-file
    #          | link
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
    for rel, target in links_under(ws):
        add(Finding("link", rel, f"a symbolic link (to {target}): dreamdeck reads and writes nothing through it; "
                                 "replace it with the real file or folder", False))
    try:
        _examine_memory_once(ws, add)
    except LinkRefused:
        pass  # a linked folder: reported above, and nothing behind it is read
    for tmp in own_temp_files(ws):
        add(Finding("temp-file", ws.rel(tmp), "left by an interrupted write", True))
    return report


def _examine_memory_once(ws: Workspace, add) -> None:
    """`_examine_memory`, or what it found last time when nothing it reads has changed since."""
    signature, stable = doctor_memo.memory_signature(ws)
    rows = doctor_memo.recall(ws, signature)
    if rows is None:
        found: list[Finding] = []
        _examine_memory(ws, found.append)
        rows = [[f.kind, f.where, f.detail, f.fixable] for f in found]
        if stable:
            doctor_memo.remember(ws, signature, rows)
    for kind, where, detail, fixable in rows:
        add(Finding(kind, where, detail, bool(fixable)))


def _examine_memory(ws: Workspace, add) -> None:
    today = ws.today()
    stones = tombstoned_keys(ws)
    cited: dict[str, dict[str, list[str]]] = {}  # day -> id -> the shards citing it
    for rel, path in shard_area_files(ws):
        text = read_bytes_nofollow(path).decode("utf-8", "replace")
        slug = path.stem
        try:
            parse_shard(text)
            if recompute_shard_text(text, slug, today)[0] != text:
                add(Finding("stale-frontmatter", f"memory/{rel}", "cites/days/lastReinforced disagree with the body", True))
        except ShardParseError as exc:
            add(Finding("unparseable", f"memory/{rel}",
                        f"TypeClaw cannot parse it ({exc}); its citations do not protect their fragments", True))
        for day, fid in citation_keys(text):
            cited.setdefault(day, {}).setdefault(fid, []).append(rel)
    _missing_fragments(ws, cited, stones, add)
    for problem in all_problems(ws):
        add(Finding("malformed-line", f"{problem.path}:{problem.lineno}", problem.reason, False))
    _state, state_problem = load_state(ws.state_path)
    if state_problem:
        add(Finding("corrupt-state", "memory/.dreaming-state.json", state_problem, False))


def _missing_fragments(ws: Workspace, cited: dict[str, dict[str, list[str]]], stones, add) -> None:
    """Citations no stream holds: each stream file indexed once, day by day (looking citations up
    shard by shard re-indexed a year of streams over and over)."""
    index = FragmentIndex(ws)
    missing = []
    for day, ids in cited.items():
        held = index.ids(day)
        missing += [(rel, day, fid) for fid, rels in ids.items()
                    if fid not in held and (day, fid) not in stones for rel in rels]
    for rel, day, fid in sorted(missing):
        add(Finding("missing-fragment", f"memory/{rel}", f"cites streams/{day}#{fid}, which no stream holds", False))


def fix(ws: Workspace) -> DoctorReport:
    """Repair what needs no judgement; then examine again and report what is left."""
    fixed: list[str] = []
    done = recover_journal(ws)
    if done:
        fixed.append(done)
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
    temps = [ws.rel(p) for p in own_temp_files(ws)]
    if not temps:
        return []
    why = "removed a temp file left by an interrupted write"
    cs = ChangeSet(
        Commit("edit", "system:doctor", "auto", "doctor --fix", f"removed {len(temps)} temp file(s)",
               subject="memory: doctor --fix temp files"),
        audit=Audit(extra=[("DELETE", rel, why) for rel in temps]),
        before_commit=lambda _result: [remove_file(ws.root / rel) for rel in temps],
    )
    try:
        apply_changeset(ws, cs)
    except Refused as exc:
        return [f"temp files not removed: {exc}"]
    return [f"removed {rel}" for rel in temps]


def _recompute_frontmatter(ws: Workspace, fixed: list[str]) -> None:
    today = ws.today()
    edits = []
    for rel, path in shard_area_files(ws, ("topics", "archive")):
        text = read_bytes_nofollow(path).decode("utf-8", "replace")
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
