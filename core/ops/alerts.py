"""Critical file alerts (Moltbot §12.5): checksum the files that define the agent, flag changes.

The baseline lives in `memory/meta/critical-baseline.json`:

    {"version": 1,
     "files":   {"SOUL.md": {"sha256": "...", "size": 812, "seen": "2026-02-05T10:00:00Z",
                             "text": "# Soul\n..."},              # the accepted text (small UTF-8 files)
                 "typeclaw.json": null},                      # null: absent when last accepted
     "pending": [{"path": "SOUL.md", "kind": "changed", "old_sha": "...", "new_sha": "...",
                  "new_size": 840, "new_text": "# Soul\n...", "detected": "2026-02-05T10:01:00Z"}]}

The texts are kept so that accepting an alert can show what changed, as a diff, before a person
confirms (`alert_diff`); a file over `TEXT_LIMIT` bytes or not UTF-8 keeps its checksum only.

Rules:
- The first check writes the baseline and raises nothing; taking it is a mutation, so it writes
  one audit line (`BASELINE | memory/meta/critical-baseline.json | <actor> | — | Critical-file baseline
  recorded …`). A file newly added to the watched list is baselined on the check that first sees it.
- `peek_alerts` is the read: what a check would report, writing nothing (None: no baseline yet).
  The `alerts` verb uses it; `alerts --ack` checks (recording what is new), then acknowledges,
  and on a workspace without a baseline records the first one.
- A file whose state (sha256, or absence) differs from its baseline is an alert: created,
  changed or deleted. It is recorded in `pending` with ONE audit line
  `ALERT | <file> | system:audit | — | Critical file change detected. Pending user acknowledgment.`
  Later checks of the same unacknowledged state add nothing; a further change to another state
  replaces the pending alert and is audited again; a file back at its baseline drops its alert
  (the ALERT line already in the log keeps the history).
- `acknowledge` accepts the state the alert showed as the new baseline and writes an `ACK` line.
  If the file changed again since detection, that newer state is not silently accepted: the next
  check raises a fresh alert for it.
Audit lines (ALERT, ACK) are written before the baseline records them, so a crash in between
can repeat a line but never lose one.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from filelock import FileLock

from dreamdeck.core.errors import BadFile, BadInput
from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.io.atomic import atomic_write_text
from dreamdeck.core.io.no_links import read_bytes_nofollow
from dreamdeck.core.store.audit import NO_APPROVAL, AuditEntry, append_entries
from dreamdeck.core.workspace import lock_file

DEFAULT_CRITICAL_FILES = ("SOUL.md", "IDENTITY.md", "AGENTS.md", "typeclaw.json")
BASELINE_RELPATH = "memory/meta/critical-baseline.json"
BASELINE_VERSION = 1
ALERT_ACTOR = "system:audit"
ALERT_SUMMARY = "Critical file change detected. Pending user acknowledgment."
LOCK_TIMEOUT = 60.0
TEXT_LIMIT = 64 * 1024  # critical files are a few KB of prose; a bigger one keeps its checksum only


class BaselineError(BadFile):
    """The baseline file exists but cannot be read; `doctor` decides, never a silent reset."""


@dataclass(frozen=True)
class Alert:
    path: str
    kind: str  # "created" | "changed" | "deleted"
    old_sha: str | None
    new_sha: str | None
    detected: str  # ISO 8601 UTC, seconds


def baseline_path(root: Path | str) -> Path:
    return Path(root) / BASELINE_RELPATH


def _iso(now: datetime | None) -> str:
    if now is None:
        now = datetime.now(UTC)
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("alerts need a timezone-aware datetime")
    return now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _relpath(path: str | Path) -> str:
    """A watched path as a clean relative posix path inside the workspace."""
    raw = str(path).replace("\\", "/").strip()
    pure = PurePosixPath(raw)
    if not raw or pure.is_absolute() or ".." in pure.parts or raw.startswith("~"):
        raise BadInput(f"critical file {str(path)!r} must be a relative path inside the workspace")
    clean = str(pure)
    if clean in ("", "."):
        raise BadInput(f"critical file {str(path)!r} must name a file")
    return clean


def _state(root: Path, rel: str, seen: str) -> dict[str, Any] | None:
    target = root / rel
    try:
        if not target.is_file():
            return None
        data = target.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    state: dict[str, Any] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data), "seen": seen}
    text = _text(data)
    if text is not None:
        state["text"] = text
    return state


def _text(data: bytes) -> str | None:
    if len(data) > TEXT_LIMIT:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _sha(state: dict[str, Any] | None) -> str | None:
    return None if state is None else state.get("sha256")


def _kind(old_sha: str | None, new_sha: str | None) -> str:
    if old_sha is None:
        return "created"
    if new_sha is None:
        return "deleted"
    return "changed"


def _load(root: Path) -> dict[str, Any] | None:
    path = baseline_path(root)
    try:
        text = read_bytes_nofollow(path).decode("utf-8", "replace")
    except FileNotFoundError:
        return None
    try:
        data = load_json(text)
    except json.JSONDecodeError as exc:
        raise BaselineError(f"{BASELINE_RELPATH} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict) or data.get("version") != BASELINE_VERSION or not isinstance(data.get("files"), dict):
        raise BaselineError(f"{BASELINE_RELPATH} is not a version-{BASELINE_VERSION} baseline")
    pending = data.get("pending", [])
    if not isinstance(pending, list):
        raise BaselineError(f"{BASELINE_RELPATH}: 'pending' must be a list")
    data["pending"] = [p for p in pending if isinstance(p, dict) and isinstance(p.get("path"), str)]
    return data


def _save(root: Path, data: dict[str, Any]) -> None:
    atomic_write_text(baseline_path(root), json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


def _alert(record: dict[str, Any]) -> Alert:
    return Alert(record["path"], record.get("kind", "changed"), record.get("old_sha"),
                 record.get("new_sha"), record.get("detected", ""))


def _lock(root: Path) -> FileLock:
    path = baseline_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    return FileLock(lock_file(root, "critical-baseline"), timeout=LOCK_TIMEOUT)


def check_alerts(
    root: Path | str,
    files: Iterable[str | Path] | None = None,
    now: datetime | None = None,
    actor: str = ALERT_ACTOR,
) -> list[Alert]:
    """Compare the watched files (default `DEFAULT_CRITICAL_FILES`) with the baseline.

    Returns every pending alert after the check (newly detected and earlier unacknowledged ones),
    in baseline order. Writes one ALERT audit line per newly detected change."""
    root = Path(root)
    watched = [_relpath(f) for f in (DEFAULT_CRITICAL_FILES if files is None else files)]
    stamp = _iso(now)
    with _lock(root):
        data = _load(root)
        if data is None:
            _record_first_baseline(root, {rel: _state(root, rel, stamp) for rel in watched}, actor, now)
            return []

        pending: dict[str, dict[str, Any]] = {p["path"]: p for p in data["pending"]}
        new_alerts: list[Alert] = []
        dirty = False
        for rel in watched:
            current = _state(root, rel, stamp)
            if rel not in data["files"]:
                data["files"][rel] = current  # newly watched: its first state is the baseline
                dirty = True
                continue
            old_sha, new_sha = _sha(data["files"][rel]), _sha(current)
            if new_sha == old_sha:
                if rel in pending:  # back at the accepted state: nothing left to acknowledge
                    del pending[rel]
                    dirty = True
                continue
            known = pending.get(rel)
            if known is not None and known.get("new_sha") == new_sha:
                continue  # same unacknowledged change: already alerted
            record = {"path": rel, "kind": _kind(old_sha, new_sha), "old_sha": old_sha,
                      "new_sha": new_sha, "new_size": None if current is None else current["size"],
                      "detected": stamp}
            if current is not None and "text" in current:
                record["new_text"] = current["text"]
            pending[rel] = record
            new_alerts.append(_alert(record))
            dirty = True

        if new_alerts:
            append_entries(root, [
                AuditEntry.at(now or datetime.now(UTC), "ALERT", a.path, ALERT_ACTOR,
                              NO_APPROVAL, ALERT_SUMMARY)
                for a in new_alerts
            ])
        if dirty:
            data["pending"] = list(pending.values())
            _save(root, data)
        return [_alert(p) for p in data["pending"]]


def _record_first_baseline(root: Path, states: dict[str, dict[str, Any] | None], actor: str,
                           now: datetime | None) -> None:
    """The first baseline, with its audit line (written first: a crash repeats it, never loses it)."""
    append_entries(root, [AuditEntry.at(now or datetime.now(UTC), "BASELINE", BASELINE_RELPATH, actor, NO_APPROVAL,
                                         f"Critical-file baseline recorded ({len(states)} watched files).")])
    _save(root, {"version": BASELINE_VERSION, "files": dict(states), "pending": []})


def peek_alerts(root: Path | str, files: Iterable[str | Path] | None = None,
                now: datetime | None = None) -> list[Alert] | None:
    """What `check_alerts` would return, writing nothing; None when there is no baseline yet."""
    root = Path(root)
    data = _load(root)
    if data is None:
        return None
    stamp = _iso(now)
    pending: dict[str, dict[str, Any]] = {p["path"]: p for p in data["pending"]}
    for rel in (_relpath(f) for f in (DEFAULT_CRITICAL_FILES if files is None else files)):
        if rel not in data["files"]:
            continue
        current = _state(root, rel, stamp)
        old_sha, new_sha = _sha(data["files"][rel]), _sha(current)
        if new_sha == old_sha:
            pending.pop(rel, None)
        elif rel not in pending or pending[rel].get("new_sha") != new_sha:
            pending[rel] = {"path": rel, "kind": _kind(old_sha, new_sha), "old_sha": old_sha, "new_sha": new_sha,
                            "new_size": None if current is None else current["size"], "detected": stamp}
    return [_alert(p) for p in pending.values()]


def pending_alerts(root: Path | str) -> list[Alert]:
    """The unacknowledged alerts recorded in the baseline (no re-check)."""
    data = _load(Path(root))
    return [] if data is None else [_alert(p) for p in data["pending"]]


def acknowledge(
    root: Path | str,
    paths: Iterable[str | Path] | None = None,
    actor: str = "manual",
    now: datetime | None = None,
) -> list[Alert]:
    """Accept the pending alerts for `paths` (None: all): the state each alert showed becomes the
    baseline, the alert is cleared, and one ACK audit line is written per alert. Returns them."""
    root = Path(root)
    wanted = None if paths is None else {_relpath(p) for p in paths}
    stamp = _iso(now)
    with _lock(root):
        data = _load(root)
        if data is None:
            return []
        keep: list[dict[str, Any]] = []
        done: list[Alert] = []
        for record in data["pending"]:
            if wanted is not None and record["path"] not in wanted:
                keep.append(record)
                continue
            rel, new_sha = record["path"], record.get("new_sha")
            if new_sha is None:
                data["files"][rel] = None
            else:
                current = _state(root, rel, stamp)
                if current is not None and current["sha256"] == new_sha:
                    data["files"][rel] = current
                else:  # changed again since detection: accept what was shown, not what is there
                    data["files"][rel] = {"sha256": new_sha, "size": record.get("new_size"), "seen": stamp}
                    if "new_text" in record:
                        data["files"][rel]["text"] = record["new_text"]
            done.append(_alert(record))
        if not done:
            return []
        append_entries(root, [
            AuditEntry.at(now or datetime.now(UTC), "ACK", a.path, actor, NO_APPROVAL,
                          f"Critical file change acknowledged ({a.kind}).")
            for a in done
        ])
        data["pending"] = keep
        _save(root, data)
        return done


def pending_records(root: Path | str) -> list[tuple[Alert, dict[str, Any] | None, dict[str, Any]]]:
    """Each pending alert with the accepted state it departs from and its own record (texts
    included, when kept): what `alert_diff` shows before a person accepts."""
    data = _load(Path(root))
    if data is None:
        return []
    return [(_alert(p), data["files"].get(p["path"]), p) for p in data["pending"]]


def current_states(root: Path | str, files: Iterable[str | Path] | None = None) -> dict[str, dict[str, Any] | None]:
    """The watched files as they are now (read only): a watcher's starting point."""
    root = Path(root)
    stamp = _iso(None)
    return {rel: _state(root, rel, stamp) for rel in
            (_relpath(f) for f in (DEFAULT_CRITICAL_FILES if files is None else files))}


def ensure_baseline(root: Path | str, states: dict[str, dict[str, Any] | None]) -> bool:
    """Write a baseline from `states` when there is none (True when written). A watcher started
    before any baseline existed records what it saw at its start, so a change made while it
    watches is an alert rather than the first, silent, baseline."""
    root = Path(root)
    with _lock(root):
        if _load(root) is not None:
            return False
        _record_first_baseline(root, states, ALERT_ACTOR, None)
        return True


# --- linked shards: an alert while they are there, not a recorded one ----------------------
SHARD_AREAS = ("topics", "vault", "archive")


@dataclass(frozen=True)
class LinkedShardAlert:
    """A shard file that is a symbolic link or has another hard link: its bytes may be a file's
    outside the folder, so every change to memory is refused and dreaming stops while it is there
    (the door's rule). Read live from the folders, never recorded: removing the link clears it."""

    path: str  # "memory/topics/creds.md"
    why: str  # "a symbolic link", "2 hard links"

    @property
    def blocks(self) -> str:
        return "every change to memory is refused and dreaming stops until it is removed"

    @property
    def clear(self) -> str:
        return f"`rm {self.path}` (a copy of its own may replace it), or `dreamdeck doctor` to see every link"

    def text(self) -> str:
        return f"{self.path} is {self.why}: {self.blocks} — {self.clear}"

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "kind": "linked-shard", "why": self.why, "blocks": self.blocks,
                "clear": f"rm {self.path}"}


def linked_shard_alerts(root: Path | str) -> list[LinkedShardAlert]:
    """One alert per linked file in memory/topics, vault and archive, and per shard folder that
    is itself a link. A read: writes nothing."""
    from dreamdeck.core.store.shard_files import linked_shards

    memory = Path(root) / "memory"
    alerts = []
    for area in SHARD_AREAS:
        folder = memory / area
        if folder.is_symlink():
            alerts.append(LinkedShardAlert(f"memory/{area}", "a symbolic link"))
            continue
        alerts += [LinkedShardAlert(f"memory/{area}/{Path(path).name}", why) for path, why in linked_shards(folder)]
    return sorted(alerts, key=lambda a: a.path)
