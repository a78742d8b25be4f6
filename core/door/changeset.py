"""What a mutation of memory is: a ChangeSet, in small named parts, each stated by its caller.

The door (`door.apply`) acts on what a ChangeSet says and on nothing else: it keeps no table
of callers. A caller names the commit and its reference (with the reference's kind), the verb of
the audit lines for the files it edits, and every evidence operation it wants.

    ChangeSet(
        Commit("pin", actor, "approved", "pin", "pin topic a", subject="memory: pin a"),
        Writes([FileEdit("vault/a.md", None, text)], allow_vault=True),
        audit=Audit(file_verb="PIN"),
    )
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from dreamdeck.core.door.compaction import CompactionResult
from dreamdeck.core.formats.citations import Key
from dreamdeck.core.formats.counts import counted
from dreamdeck.core.index.evidence import ShardReads
from dreamdeck.core.store.tombstones import Tombstone

# path under memory/ -> (its content now, its content after the change); None: no such file
Plan = dict[str, tuple[str | None, str | None]]


@dataclass
class FileEdit:
    path: str  # relative to memory/, e.g. "topics/pnpm.md"
    base: str | None  # content the change was made against (None: the file did not exist)
    new: str | None  # None deletes the file
    recompute: bool = True  # runtime-owned frontmatter (off only for verbatim restores)


@dataclass(frozen=True)
class Reference:
    """What the commit refers to, as its trailer `<kind>: <id>` (e.g. `Proposal: p-3`)."""
    kind: str  # Reflection | Proposal | Reverts
    id: str


@dataclass
class Commit:
    """The one git commit and who stands behind the change (also every audit line's actor and approval)."""
    action: str  # what the change is, in a word people read (dream, approve, pin, forget …)
    actor: str
    approval: str  # auto | approved | partial | rejected | pending | —
    trigger: str
    summary: str
    subject: str | None = None  # None: `memory: <summary>`
    dream_subject: bool = False  # with no subject, TypeClaw's `dream: N fragments 🌙`; the summary is the body
    ref: Reference | None = None
    # A dream run's N (the fragments it saw), so the subject agrees with its receipt; None:
    # TypeClaw's own count (every fragment of each staged stream file).
    dream_fragments: int | None = None


@dataclass(frozen=True)
class CollectionRecord:
    """Where a change's record says what its collection took and why: `file`, a JSON record among
    the change's meta files, gets `"collected": {"DATE#ID": why}` in the object found by
    following `at` (keys and list indices) from its top, and under `dropped` (when named) the
    same keys, sorted. Written by the door after its GC, from the journal, so a change finished
    after a kill records the same bytes (invariant 7); the door is its one writer (a record the
    GC does not read is not written before it either)."""
    file: str  # under memory/meta/, a key of `Writes.meta_files`
    at: tuple[str | int, ...] = ()
    dropped: str | None = None  # a dream's receipt: "fragments_dropped"
    # A dream's receipt also says what else its compaction did, under these keys (None: not said):
    watermarks: str | None = None  # how many watermark lines it removed ("watermarks_dropped")
    waiting: str | None = None  # day -> why its compaction waits ("compaction_waiting")
    said: str | None = None  # a sentence the door ends with `collection_said` ("message")


def collection_said(collected: int, waiting: dict[str, str]) -> str:
    """The meter as a receipt's sentence ends: how many fragments went, and which days wait."""
    parts = [f"{counted(collected, 'uncited fragment')} collected"]
    # Days that wait for the same kind of reason are one clause: a week of recent files is one
    # line, not seven ("written to 6 s ago (quiet period 300 s): …" each). The receipt keeps each.
    by_kind: dict[str, list[str]] = {}
    for day, why in sorted(waiting.items()):
        by_kind.setdefault(why.rsplit(": ", 1)[-1], []).append(day)
    for kind, days in by_kind.items():
        if len(days) == 1:
            parts.append(f"compaction of {days[0]} waits ({waiting[days[0]]})")
        else:
            kind = kind.replace("hold it open", "hold them open")
            parts.append(f"compaction of {counted(len(days), 'day')} waits ({days[0]} to {days[-1]}: {kind})")
    return ", ".join(parts)


@dataclass
class Writes:
    """What is written: shard files (checked and journaled) and memory/meta/* bookkeeping."""
    edits: list[FileEdit] = field(default_factory=list)
    meta_files: dict[str, str | None] = field(default_factory=dict)  # path under memory/meta/ -> text (None removes)
    allow_vault: bool = False  # pin / unpin / vault edit by a human
    collection_record: CollectionRecord | None = None  # which meta file records the collection (None: none)


@dataclass
class Evidence:
    """What happens to fragments: the dreamed ids, the streams and the tombstones."""
    advance: dict[str, set[str]] = field(default_factory=dict)  # day -> ids now dreamed
    release: dict[str, set[str]] = field(default_factory=dict)  # day -> ids back to the tail
    gc_days: set[str] = field(default_factory=set)  # days to compact (fragment GC when topics changed)
    purge: set[Key] = field(default_factory=set)  # hard forget: bytes leave the stream
    restore_lines: dict[str, list[str]] = field(default_factory=dict)  # day -> raw lines to re-append
    tombstones: list[tuple[str, Tombstone]] = field(default_factory=list)  # ("forget"|"unforget", stone)
    allow_drop: set[Key] = field(default_factory=set)  # citations an explicit, audited forget removes
    # Why a fragment this change leaves uncited may be collected, as the caller knows it
    # ("DATE#ID" -> "duplicate of streams/…" | "noise: …"): the GC's reasons (door.collection).
    gc_reasons: dict[str, str] = field(default_factory=dict)
    # A hard forget's verbatim text: scrubbed from memory/meta/audit.log and taken out of the
    # private search index (deleted, rebuilt from the files) in a journaled step of the change.
    # The journal holds it until the commit, as the stream line did until this change.
    scrub: list[str] = field(default_factory=list)
    # The timestamp for advanced/released days, when the caller fixed it earlier, and jobs that
    # already store the resulting state in git (`door.state.store_state_ahead`): the door waits
    # for them before its commit instead of starting its own.
    state_ts: str | None = None
    stored_ahead: list = field(default_factory=list, repr=False)
    # The shard files the caller read for this change (a dream: every topic and the vault), so
    # the GC's confirmation reads again only what changed since. Not journaled: a recovery reads.
    shard_reads: ShardReads | None = field(default=None, repr=False)


@dataclass
class Audit:
    """The audit.log lines beyond the door's own (the GC's line)."""
    file_verb: str | None = None  # ACTION of each edited file's line; None: CREATE, EDIT or DELETE
    extra: list[tuple[str, str, str]] = field(default_factory=list)  # (ACTION, FILE, SUMMARY)


@dataclass
class ApplyResult:
    sha: str | None = None
    written: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    rebased: list[str] = field(default_factory=list)
    compaction: CompactionResult = field(default_factory=CompactionResult)
    warnings: list[str] = field(default_factory=list)
    targets: dict[str, str | None] = field(default_factory=dict)
    commit_seconds: float = 0.0  # git's own share: the commit of memory/ (benchmarks report it)
    audit: list = field(default_factory=list)  # AuditEntry lines a `before_commit` hook adds to the door's
    reasons: dict[str, str] = field(default_factory=dict)  # "DATE#ID" collected -> why (door.collection)

    @property
    def collected(self) -> int:
        """The meter: fragments this apply's compaction took from the streams as dreamed and
        uncited, or purged by a hard forget."""
        return len(self.compaction.fragments_dropped)

    def meter(self) -> str:
        """One line for a person: what the compaction collected, and which days wait and why."""
        waits = "".join(f"; compaction of {day} waits ({why})" for day, why in sorted(self.compaction.deferred.items()))
        return f"{counted(self.collected, 'fragment')} collected from the streams" + waits


@dataclass
class ChangeSet:
    commit: Commit
    writes: Writes = field(default_factory=Writes)
    evidence: Evidence = field(default_factory=Evidence)
    audit: Audit = field(default_factory=Audit)
    # Bookkeeping that must land in the same commit but cannot be a whole-file text computed in
    # advance (e.g. a status rewrite in a file sub-agents append to). It runs after every file of
    # the change is written and before the audit, the journal removal and the commit. It is not
    # journaled: a caller must be able to run its decision again if a crash skipped it.
    before_commit: Callable[[ApplyResult], None] | None = field(default=None, repr=False)
