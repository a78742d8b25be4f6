"""A rollback's plan: what it restores, merges, deletes and recreates, what evidence comes back,
and its blast radius in plain lines (`rollback --preview`, the app's confirm modal)."""
from __future__ import annotations

from dataclasses import dataclass, field

from dreamdeck.core.door.changeset import FileEdit
from dreamdeck.core.formats.citations import Key
from dreamdeck.core.formats.counts import counted


@dataclass
class PlannedFile:
    path: str  # under memory/
    action: str  # restore | merge | delete | recreate
    overlap: bool = False  # later commits changed the same lines; the REV^ side wins
    later: list[str] = field(default_factory=list)  # short shas of later commits touching it
    lost: list[str] = field(default_factory=list)  # lines of later commits that go with the rollback
    pinned: bool = False

    def to_json(self) -> dict:
        return dict(self.__dict__)


@dataclass
class LaterCommit:
    sha: str
    subject: str
    files: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)  # "path: line" of its changes that go with it

    def to_json(self) -> dict:
        return dict(self.__dict__)


@dataclass
class RollbackPlan:
    kind: str  # rollback | restore
    rev: str
    short: str
    subject: str
    base: str | None  # the commit whose content is restored (REV^; None: the empty tree)
    files: list[PlannedFile] = field(default_factory=list)
    later_commits: list[LaterCommit] = field(default_factory=list)
    pins_affected: list[str] = field(default_factory=list)
    released: list[Key] = field(default_factory=list)  # back to the undreamed tail
    restored: list[Key] = field(default_factory=list)  # fragment lines put back into streams
    recited: list[Key] = field(default_factory=list)  # cited again and marked dreamed
    dropped: list[Key] = field(default_factory=list)  # citations the rollback removes
    would_lose: list[Key] = field(default_factory=list)  # cited at the base and lost: refused
    filtered: list[Key] = field(default_factory=list)  # forgotten: kept out of what is restored
    no_redream: bool = False
    edits: list[FileEdit] = field(default_factory=list, repr=False)
    restore_lines: dict[str, list[str]] = field(default_factory=dict, repr=False)

    @property
    def overlaps(self) -> list[str]:
        return [f.path for f in self.files if f.overlap]

    @property
    def empty(self) -> bool:
        return not self.edits and not self.restore_lines

    def describe(self) -> str:
        """The blast radius in plain lines, for `rollback --preview` and the app's confirm modal."""
        verb = "Roll back" if self.kind == "rollback" else "Restore memory to"
        out = [f"{verb} {self.short} ({self.subject})", ""]
        if self.empty:
            out.append("Nothing to change: memory already matches.")
        out += ["Files:"] + [
            f"  {f.action:8} memory/{f.path}" + ("  ⚠ overlaps later changes (the earlier side wins)" if f.overlap else "")
            + ("  📌 pinned" if f.pinned else "") for f in self.files
        ]
        if self.later_commits:
            out += ["", "Later commits touching the same files:"]
            for c in self.later_commits:
                out.append(f"  {c.sha[:10]} {c.subject}")
                out += [f"      goes with it: {line}" for line in c.lost[:5]]
                if len(c.lost) > 5:
                    out.append(f"      (+{len(c.lost) - 5} more lines)")
        for label, items in (("Pins affected", self.pins_affected),):
            if items:
                out += ["", f"{label}: " + ", ".join(items)]
        keys = lambda ks: ", ".join(f"{d}#{i}" for d, i in ks[:6]) + (f" (+{len(ks) - 6} more)" if len(ks) > 6 else "")  # noqa: E731
        for label, ks in (
            ("Fragments returned to the undreamed tail", [] if self.no_redream else self.released),
            ("Fragments restored into their streams", self.restored),
            ("Citations removed", self.dropped),
            ("Forgotten fragments kept out", self.filtered),
        ):
            if ks:
                out += ["", f"{label} ({len(ks)}): {keys(ks)}"]
        if self.would_lose:
            out += ["", f"REFUSED: would lose {counted(len(self.would_lose), 'citation')} present before: {keys(self.would_lose)}"]
        return "\n".join(out)

    def to_json(self) -> dict:
        keys = lambda ks: [f"{d}#{i}" for d, i in ks]  # noqa: E731
        return {
            "kind": self.kind, "rev": self.rev, "short": self.short, "subject": self.subject, "base": self.base,
            "files": [f.to_json() for f in self.files],
            "later_commits": [c.to_json() for c in self.later_commits],
            "pins_affected": self.pins_affected, "released": keys(self.released), "restored": keys(self.restored),
            "recited": keys(self.recited), "dropped": keys(self.dropped), "would_lose": keys(self.would_lose),
            "filtered": keys(self.filtered), "overlaps": self.overlaps, "no_redream": self.no_redream,
        }
