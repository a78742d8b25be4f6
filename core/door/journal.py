"""The journal: what an apply will do, written before its first shard write (memory/meta/.journal.json).

A kill anywhere after that leaves the journal, and `door.apply.recover_journal` (the next apply,
the next dream, `doctor --fix`) finishes the change from it (invariant 7). The file holds the
target of every shard file, what each was before, and every journaled part of the ChangeSet.

The journal stays until the change's commit is made (invariant 7): a change applied but not
committed is always found and committed under its own trailers, never swept into the next
change's commit. Its `change_id` goes into the commit (`Change-Id:`), so a recovery that finds it
committed already only removes the journal; the lines the GC took are kept in the journal before
the commit (`gc_lines`), so the rollback note is written even when a kill came between the two.

Version 2 adds `file_verb`, `change_id` and `gc_lines`; later, without a version change (older
readers ignore them), `gc_reasons_taken` (why each of `gc_lines` went, kept with them so a
recovery still records it) and `deferral` (the audit line of a compaction that waits, journaled
before the backlog it describes is written, so a kill between the two cannot lose it) and
`collection_record` (where the change's record says what was collected: the finish writes it
from the journal, so a recovered change commits the record a normal one does) and
`outside_lines`/`outside_base` (fragments another writer removed, found before the commit and
recorded with it: `door.outside_losses`). A version-1 journal (written before the
ChangeSet stated the verb of its file lines) is still finished: its verb is read from its action,
as version 1 did.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from datetime import datetime

from dreamdeck.core.door.changeset import (
    Audit,
    ChangeSet,
    CollectionRecord,
    Commit,
    Evidence,
    Plan,
    Reference,
    collection_said,
)
from dreamdeck.core.door.checks import validate_path
from dreamdeck.core.errors import Refused
from dreamdeck.core.formats.json_data import dump_json_record, load_json
from dreamdeck.core.io.atomic import atomic_write_text, fsync_dir, remove_file
from dreamdeck.core.io.no_links import read_bytes_nofollow, refuse_links
from dreamdeck.core.store.tombstones import Tombstone
from dreamdeck.core.workspace import Workspace, local_datetime_iso

JOURNAL = "meta/.journal.json"
VERSION = 2

# Version 1 only: the verb of the file lines by the change's action (CREATE/EDIT/DELETE otherwise).
_V1_FILE_VERB = {"PIN": "PIN", "UNPIN": "UNPIN", "FORGET": "ARCHIVE", "UNFORGET": "UNFORGET", "REVERT": "REVERT"}


class TornJournal(Exception):
    """The journal is not JSON: the crash hit while it was being written, before any shard was."""


@dataclass
class Journal:
    today: str
    now: str  # ISO time of the change: every audit line's timestamp
    state_ts: str | None  # the advanced days' timestamp, fixed up front (None: an old journal)
    targets: dict[str, str | None]  # path under memory/ -> content after (None: deleted)
    originals: dict[str, str | None]  # path under memory/ -> content before
    commit: Commit
    evidence: Evidence  # without allow_drop (checked before the journal) and the live jobs
    meta_files: dict[str, str | None]
    audit: Audit
    topics_changed: bool  # a topic file changes: the compaction may collect fragments
    audited: bool = False  # the audit lines are appended (a recovery must not append them twice)
    change_id: str = ""  # the commit's Change-Id trailer ("" for a version-1 journal)
    gc_lines: list[tuple[str, str]] | None = None  # (day, raw line) the GC took, once it has run
    gc_reasons_taken: dict[str, str] | None = None  # "day#id" -> why, for each of gc_lines
    deferral: str | None = None  # the audit summary of the compaction this change leaves waiting
    collection_record: CollectionRecord | None = None  # the meta record that gets what was collected
    # (day, raw line) of fragments that left the stream files by another writer since dreamdeck's
    # last commit (`outside_base`), found before this change's commit (None: not looked yet)
    outside_lines: list[tuple[str, str]] | None = None
    outside_base: str = ""
    # watermark lines the compaction removed, summed over attempts (a replay finds them gone),
    # and the days it compacted (a replay does not take them for days still being written to)
    watermarks_dropped: int | None = None
    compacted_days: list[str] | None = None

    @classmethod
    def of(cls, cs: ChangeSet, plan: Plan, today: str, now: datetime, parent: str | None) -> Journal:
        journal = cls(
            today=today, now=now.isoformat(),
            # One timestamp for the advanced days: the state git stores ahead of the commit and
            # the state written later must be the same bytes.
            state_ts=cs.evidence.state_ts or local_datetime_iso(),
            targets={p: t for p, (_, t) in plan.items()},
            originals={p: c for p, (c, _) in plan.items()},
            commit=cs.commit, evidence=cs.evidence, meta_files=cs.writes.meta_files, audit=cs.audit,
            topics_changed=any(p.startswith("topics/") and c != t for p, (c, t) in plan.items()),
            collection_record=cs.writes.collection_record,
        )
        journal.record_text({})  # a record that cannot take the list is a bug: found before any write
        journal.change_id = journal.identity(parent)
        return journal

    def record_text(self, reasons: dict[str, str], waiting: dict[str, str] | None = None) -> str | None:
        """The collection record's text with `reasons` as its `collected` list (and, where the
        record names them, the journaled watermark count, the days that wait and the sentence);
        None: no record. From the journal's own copy of the file, so every attempt writes the
        same bytes."""
        rec = self.collection_record
        if rec is None:
            return None
        text = self.meta_files.get(rec.file)
        if text is None:
            raise ValueError(f"the collection record {rec.file} is not among the change's meta files")
        data = load_json(text)
        target = data
        for key in rec.at:
            target = target[key]
        if not isinstance(target, dict):
            raise ValueError(f"the collection record {rec.file} has no object at {list(rec.at)}")
        target["collected"] = dict(sorted(reasons.items()))
        if rec.dropped:
            target[rec.dropped] = sorted(reasons)
        if rec.watermarks:
            target[rec.watermarks] = self.watermarks_dropped or 0
        if rec.waiting:
            target[rec.waiting] = dict(sorted((waiting or {}).items()))
        if rec.said:
            start = target.get(rec.said)
            end = collection_said(len(reasons), waiting or {})
            target[rec.said] = f"{start}, {end}" if isinstance(start, str) and start else end
        return dump_json_record(data)

    def identity(self, parent: str | None) -> str:
        """The change's id: a hash of what it writes, its trailers and the commit it builds on.

        Derived, not random: two runs of the same change on the same history get the same commit
        (reproducible history, stable tests), while any other parent or content is another id.
        The time is left out on purpose: it is not part of what the change is.
        """
        data = self.to_json()
        data.pop("now"), data.pop("state_ts"), data.pop("change_id"), data.pop("audited"), data.pop("gc_lines")
        data.pop("gc_reasons_taken", None), data.pop("deferral", None)
        data.pop("outside_lines", None), data.pop("outside_base", None), data.pop("watermarks_dropped", None)
        data.pop("compacted_days", None)
        blob = json.dumps({"parent": parent, "change": data}, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:16]

    def to_json(self) -> dict:
        c, e = self.commit, self.evidence
        return {
            "version": VERSION, "today": self.today, "now": self.now, "state_ts": self.state_ts,
            "targets": self.targets, "originals": self.originals,
            "changeset": {
                "action": c.action, "actor": c.actor, "approval": c.approval, "trigger": c.trigger,
                "summary": c.summary, "ref": c.ref.id if c.ref else "", "ref_kind": c.ref.kind if c.ref else "",
                "subject": c.subject, "dream_subject": c.dream_subject, "dream_fragments": c.dream_fragments,
                "advance": {d: sorted(ids) for d, ids in e.advance.items()},
                "release": {d: sorted(ids) for d, ids in e.release.items()},
                "gc_days": sorted(e.gc_days),
                "purge": sorted(e.purge),
                **({"gc_reasons": e.gc_reasons} if e.gc_reasons else {}),  # (older journals' ids unchanged)
                **({"scrub": e.scrub} if e.scrub else {}),
                **({"collection_record": _collection_record_json(self.collection_record)} if self.collection_record else {}),
                "restore_lines": e.restore_lines,
                "tombstones": [[op, stone.__dict__] for op, stone in e.tombstones],
                "meta_files": self.meta_files,
                "file_verb": self.audit.file_verb,
                "audit": self.audit.extra,
                "topics_changed": self.topics_changed,
            },
            "audited": self.audited,
            "change_id": self.change_id,
            "gc_lines": None if self.gc_lines is None else [list(p) for p in self.gc_lines],
            **({"gc_reasons_taken": self.gc_reasons_taken} if self.gc_reasons_taken else {}),
            **({"deferral": self.deferral} if self.deferral else {}),
            **({"outside_lines": [list(p) for p in self.outside_lines], "outside_base": self.outside_base}
               if self.outside_lines is not None else {}),
            **({"watermarks_dropped": self.watermarks_dropped} if self.watermarks_dropped is not None else {}),
            **({"compacted_days": self.compacted_days} if self.compacted_days is not None else {}),
        }

    @classmethod
    def from_json(cls, data: dict) -> Journal:
        c = data["changeset"]
        _contained(data["targets"], data["originals"], c["meta_files"])
        file_verb = c.get("file_verb") if data.get("version", 1) >= 2 else _V1_FILE_VERB.get(c["action"])
        return cls(
            today=data["today"], now=data["now"], state_ts=data.get("state_ts"),
            targets=data["targets"], originals=data["originals"],
            commit=Commit(
                c["action"], c["actor"], c["approval"], c["trigger"], c["summary"], subject=c["subject"],
                dream_subject=c["dream_subject"], ref=Reference(c["ref_kind"], c["ref"]) if c["ref"] else None,
                dream_fragments=c.get("dream_fragments"),
            ),
            evidence=Evidence(
                advance={d: set(ids) for d, ids in c["advance"].items()},
                release={d: set(ids) for d, ids in c["release"].items()},
                gc_days=set(c["gc_days"]),
                purge={(d, i) for d, i in c["purge"]},
                gc_reasons={str(k): str(v) for k, v in (c.get("gc_reasons") or {}).items()},
                scrub=[str(p) for p in c.get("scrub") or []],
                restore_lines=c["restore_lines"],
                tombstones=[(op, Tombstone(**stone)) for op, stone in c["tombstones"]],
            ),
            meta_files=c["meta_files"],
            audit=Audit(file_verb, [(a, f, s) for a, f, s in c["audit"]]),
            topics_changed=bool(c["topics_changed"]),
            audited=bool(data.get("audited")),
            change_id=str(data.get("change_id") or ""),
            gc_lines=None if data.get("gc_lines") is None else [(d, line) for d, line in data["gc_lines"]],
            gc_reasons_taken={str(k): str(v) for k, v in (data.get("gc_reasons_taken") or {}).items()} or None,
            deferral=str(data["deferral"]) if data.get("deferral") else None,
            collection_record=_collection_record(c.get("collection_record")),
            outside_lines=_outside_lines(data.get("outside_lines")),
            outside_base=str(data.get("outside_base") or ""),
            watermarks_dropped=_count(data.get("watermarks_dropped")),
            compacted_days=_days(data.get("compacted_days")),
        )


def _contained(targets: dict, originals: dict, meta_files: dict) -> None:
    """The journal is a file under memory/ that anyone who can write there can plant: every path
    it names must stay where the door writes (a shard path, or a file under memory/meta/), or it
    is not a journal (ValueError), and nothing of it is replayed (issue 10 item 7)."""
    for rel in [*targets, *originals]:
        try:
            validate_path(rel, allow_vault=True)
        except Refused:
            raise ValueError(f"the journal names {rel!r}, not a shard path") from None
    for rel in meta_files:
        parts = rel.split("/") if isinstance(rel, str) else [""]
        if any(p in ("", ".", "..") or "\\" in p or "\0" in p for p in parts):
            raise ValueError(f"the journal names {rel!r}, not a file under memory/meta/")


def _collection_record(data: object) -> CollectionRecord | None:
    if data is None:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("file"), str) or not isinstance(data.get("at"), list):
        raise TypeError("not a collection record")
    if not all(isinstance(k, str | int) and not isinstance(k, bool) for k in data["at"]):
        raise TypeError("not a collection record")
    named = {key: data.get(key) for key in _RECORD_KEYS}
    if not all(v is None or isinstance(v, str) for v in named.values()):
        raise TypeError("not a collection record")
    return CollectionRecord(data["file"], tuple(data["at"]), **named)


_RECORD_KEYS = ("dropped", "watermarks", "waiting", "said")  # the keys a record names, each optional


def _count(data: object) -> int | None:
    if data is None:
        return None
    if not isinstance(data, int) or isinstance(data, bool) or data < 0:
        raise TypeError("not a count")
    return data


def _days(data: object) -> list[str] | None:
    if data is None:
        return None
    if not isinstance(data, list) or not all(isinstance(d, str) for d in data):
        raise TypeError("not a list of days")
    return data


def _outside_lines(data: object) -> list[tuple[str, str]] | None:
    if data is None:
        return None
    if not isinstance(data, list) or not all(isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p)
                                             for p in data):
        raise TypeError("not a list of (day, line)")
    return [(d, line) for d, line in data]


def _collection_record_json(rec: CollectionRecord) -> dict:
    return {"file": rec.file, "at": list(rec.at),
            **{key: getattr(rec, key) for key in _RECORD_KEYS if getattr(rec, key)}}


def write_journal(ws: Workspace, journal: Journal) -> None:
    atomic_write_text(ws.memory / JOURNAL, json.dumps(journal.to_json(), ensure_ascii=False))


def read_journal(ws: Workspace) -> Journal | None:
    """The journal an interrupted apply left, or None; TornJournal when it is not JSON."""
    try:
        data = load_json(read_bytes_nofollow(ws.memory / JOURNAL, sole_name=False).decode("utf-8"))
    except FileNotFoundError:
        return None
    except (json.JSONDecodeError, UnicodeDecodeError, OSError, RecursionError):
        raise TornJournal() from None
    try:
        journal = Journal.from_json(data)
        journal.record_text({})  # a collection record the finish could not write: not a journal either
        return journal
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):  # JSON, but not a journal
        raise TornJournal() from None


def keep_journal_aside(ws: Workspace) -> str:
    """Rename an unreadable journal beside itself (`.journal.json.torn-<ns>`); its path under memory/."""
    refuse_links(ws.memory / JOURNAL)
    aside = f"{JOURNAL}.torn-{time.time_ns()}"
    os.replace(ws.memory / JOURNAL, ws.memory / aside)
    fsync_dir((ws.memory / JOURNAL).parent)
    return aside


def remove_journal(ws: Workspace) -> None:
    remove_file(ws.memory / JOURNAL)
