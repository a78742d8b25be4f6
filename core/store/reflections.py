"""Reflections on disk: `memory/meta/reflections/r-N.json`, what a dream proposes that waits for
a person. A reflection records, per file, the base it was made against and the proposed content;
hunks are recomputed from those two with git (stable ids), so nothing derived is stored.
Decisions (approve, reject, expiry) are `ops.reflections`.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from dreamdeck.core.errors import BadFile, BadInput, Refused
from dreamdeck.core.formats.citations import Key
from dreamdeck.core.formats.json_data import dump_json_record, load_json
from dreamdeck.core.git.diff import FileDiff, diff_many, diff_texts
from dreamdeck.core.io.no_links import read_bytes_nofollow, real_folder
from dreamdeck.core.workspace import Workspace

OPEN = ("pending",)


_RID = re.compile(r"^r-(\d+)$")


class ReflectionError(BadInput):
    pass


def reflections_dir(ws: Workspace) -> Path:
    return ws.meta_dir / "reflections"


@dataclass
class ProposedFile:
    path: str  # relative to memory/
    base: str | None
    proposed: str | None
    pinned: bool = False

    @property
    def base_sha(self) -> str | None:
        return None if self.base is None else hashlib.sha256(self.base.encode()).hexdigest()

    def diff(self) -> FileDiff:
        # Memoized: base and proposed never change after the reflection is made, and each diff
        # is a git process (a 50-shard approval asked for 150 of them).
        known = self.known_diff()
        if known is None:
            known = diff_texts(self.path, self.base, self.proposed)
            self.remember_diff(known)
        return known

    def known_diff(self) -> FileDiff | None:
        cached = self.__dict__.get("_diff")
        return cached[1] if cached is not None and cached[0] == (self.base, self.proposed) else None

    def remember_diff(self, diff: FileDiff) -> None:
        self.__dict__["_diff"] = ((self.base, self.proposed), diff)


@dataclass
class Reflection:
    id: str
    created: str  # ISO UTC
    status: str = "pending"  # pending | approved | partial | rejected | stale
    dreamer: str = ""
    trigger: str = ""
    summary: str = ""
    questions: list[str] = field(default_factory=list)
    contradictions: list[str] = field(default_factory=list)
    archive: list[str] = field(default_factory=list)
    fragments: list[dict] = field(default_factory=list)  # {"date","id","topic","body"} shown to the dream
    files: list[ProposedFile] = field(default_factory=list)
    receipt: dict = field(default_factory=dict)
    decisions: list[dict] = field(default_factory=list)
    # "date#id" of the shown fragments dreamdeck holds for this reflection: left undreamed in
    # `.dreaming-state.json` (so TypeClaw's GC, which collects dreamed-and-uncited, never takes
    # them) and kept from dreamdeck's own dreamer by this record until a person decides.
    held: list[str] = field(default_factory=list)

    @property
    def number(self) -> int:
        return int(self.id[2:])

    def shown_keys(self) -> set[Key]:
        return {(f["date"], f["id"]) for f in self.fragments}

    def held_keys(self) -> set[Key]:
        return {tuple(k.split("#", 1)) for k in self.held}  # type: ignore[misc]

    def applied_files(self) -> set[str]:
        """The files a person's approvals of it wrote (each approval records them; an older whole
        approval without the record wrote every file it proposed)."""
        out: set[str] = set()
        for d in self.decisions:
            if d.get("decision") in ("approved", "partial"):
                files = d.get("files")
                out |= set(files) if isinstance(files, list) else (
                    {f.path for f in self.files} if d.get("decision") == "approved" else set())
        return out

    @property
    def released(self) -> bool:
        return any(d.get("released") for d in self.decisions)

    @property
    def holds(self) -> bool:
        """Does it still hold its fragments? Open, or decided without releasing what it left out
        (rejected hunks, or the rest of an edited approval): kept until released or forgotten."""
        return bool(self.held) and (self.status in (*OPEN, "stale") or
                                    (self.status in ("rejected", "partial") and not self.released))

    def to_json(self) -> str:
        data = {
            "version": 1, "id": self.id, "created": self.created, "status": self.status,
            "dreamer": self.dreamer, "trigger": self.trigger, "summary": self.summary,
            "questions": self.questions, "contradictions": self.contradictions, "archive": self.archive,
            "fragments": self.fragments,
            "files": [
                {"path": f.path, "base_sha256": f.base_sha, "base": f.base, "proposed": f.proposed, "pinned": f.pinned}
                for f in self.files
            ],
            "receipt": self.receipt, "decisions": self.decisions,
        }
        if self.held:
            data["held"] = self.held
        return dump_json_record(data)

    @classmethod
    def from_json(cls, text: str) -> Reflection:
        d = load_json(text)
        _check_types(d)
        return cls(
            id=d["id"], created=d["created"], status=d.get("status", "pending"), dreamer=d.get("dreamer", ""),
            trigger=d.get("trigger", ""), summary=d.get("summary", ""), questions=list(d.get("questions", [])),
            contradictions=list(d.get("contradictions", [])), archive=list(d.get("archive", [])),
            fragments=list(d.get("fragments", [])),
            files=[ProposedFile(f["path"], f.get("base"), f.get("proposed"), bool(f.get("pinned"))) for f in d.get("files", [])],
            receipt=dict(d.get("receipt", {})), decisions=list(d.get("decisions", [])),
            held=[k for k in d.get("held", []) if isinstance(k, str) and "#" in k],
        )

    def age_days(self, now: datetime | None = None) -> int:
        now = now or datetime.now(UTC)
        created = datetime.fromisoformat(self.created)
        if created.tzinfo is None:  # a hand-written time without a zone: read as UTC
            created = created.replace(tzinfo=UTC)
        return max(0, (now - created).days)

    def hunks(self) -> list[tuple[ProposedFile, FileDiff]]:
        # The diffs not yet known come from one git process for all files, not one per file.
        todo = [f for f in self.files if f.known_diff() is None]
        if len(todo) > 1:
            for f, diff in zip(todo, diff_many([(f.path, f.base, f.proposed) for f in todo])):
                f.remember_diff(diff)
        return [(f, f.diff()) for f in self.files]


def _check_types(d: object) -> None:
    """ValueError naming the first field of the wrong type: a hand-edited or damaged reflection is
    refused as unreadable, never half-read (one bad file must not break the queue's other items)."""
    def need(ok: bool, what: str) -> None:
        if not ok:
            raise ValueError(f"{what} has the wrong type")

    need(isinstance(d, dict), "the file")
    assert isinstance(d, dict)
    need(isinstance(d.get("id"), str) and bool(_RID.match(d["id"])), "id")
    need(isinstance(d.get("created"), str), "created")
    try:
        datetime.fromisoformat(d["created"])
    except ValueError:
        raise ValueError("created is not an ISO date and time") from None
    for key in ("status", "dreamer", "trigger", "summary"):
        need(isinstance(d.get(key, ""), str), key)
    for key in ("questions", "contradictions", "archive"):
        need(isinstance(d.get(key, []), list) and all(isinstance(v, str) for v in d.get(key, [])), key)
    for key in ("fragments", "files", "decisions"):
        need(isinstance(d.get(key, []), list) and all(isinstance(v, dict) for v in d.get(key, [])), key)
    need(all(isinstance(f.get("date"), str) and isinstance(f.get("id"), str) for f in d.get("fragments", [])),
         "fragments (date, id)")
    need(all(isinstance(f.get("path"), str) and all(isinstance(f.get(k), (str, type(None))) for k in ("base", "proposed"))
             for f in d.get("files", [])), "files (path, base, proposed)")
    need(isinstance(d.get("receipt", {}), dict), "receipt")


# --- storage --------------------------------------------------------------------------------
def _read(path: Path) -> str:
    """A reflection file's text: never through a link, never waiting on a FIFO (BadFile, Refused)."""
    return read_bytes_nofollow(path).decode("utf-8")


def load_reflection(ws: Workspace, rid: str) -> Reflection:
    if not _RID.match(rid or ""):
        raise ReflectionError(f"{rid!r} is not a reflection id (r-N)")
    path = reflections_dir(ws) / f"{rid}.json"
    try:
        return Reflection.from_json(_read(path))
    except FileNotFoundError:
        raise ReflectionError(f"no reflection {rid}") from None
    except (json.JSONDecodeError, KeyError, TypeError, ValueError, RecursionError, BadFile, Refused) as exc:
        raise ReflectionError(f"memory/meta/reflections/{rid}.json is unreadable: {exc}") from None


def list_reflections(ws: Workspace, *, include_decided: bool = False) -> tuple[list[Reflection], list[str]]:
    """(reflections oldest first, problems with unreadable files)."""
    out, problems = [], []
    folder = reflections_dir(ws)
    if not real_folder(folder):  # a link from memory/ down is refused, one line naming it
        return [], []
    for path in sorted(folder.glob("r-*.json"), key=lambda p: int(p.stem[2:]) if p.stem[2:].isdigit() else 0):
        if not include_decided and peek_status(path) not in (None, *OPEN):
            continue  # decided: months of them would otherwise be parsed whole on every apply
        try:
            r = Reflection.from_json(_read(path))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError, RecursionError, BadFile, Refused) as exc:
            problems.append(f"{ws.rel(path)}: unreadable ({exc})")
            continue
        if include_decided or r.status in OPEN:
            out.append(r)
    return out, problems


# The head `to_json` writes: scalar top-level fields, in this order, before anything nested.
_HEAD = re.compile(r'\{\s*"version": 1,\s*"id": "r-\d+",\s*"created": "[^"\\]*",\s*"status": "([a-z]+)"')


def peek_status(path) -> str | None:
    """A reflection's status from the first bytes of its file, as `to_json` lays them out; None
    when the head is laid out otherwise (hand-edited, foreign) and only a full parse can tell."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)  # a FIFO: no wait
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None  # the full read names it
        head = os.read(fd, 512).decode("utf-8", "replace")
    finally:
        os.close(fd)
    m = _HEAD.match(head)
    return m.group(1) if m else None


def next_reflection_id(ws: Workspace) -> str:
    numbers = [int(m.group(1)) for p in reflections_dir(ws).glob("r-*.json") if (m := _RID.match(p.stem))]
    return f"r-{max(numbers, default=0) + 1}"


def held_keys(ws: Workspace) -> set[Key]:
    """Every fragment a reflection holds (see `Reflection.holds`): dreamdeck's own record of
    what its dreamer must not be shown again, while TypeClaw's state keeps them undreamed."""
    keys: set[Key] = set()
    folder = reflections_dir(ws)
    if not folder.is_dir():
        return keys
    for path in folder.glob("r-*.json"):
        if peek_status(path) == "approved":
            continue  # an approval leaves nothing held
        try:
            r = Reflection.from_json(_read(path))
        except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError, BadFile, Refused):
            continue  # an unreadable reflection is reported by `review` and `doctor`
        if r.holds:
            keys |= r.held_keys()
    return keys
