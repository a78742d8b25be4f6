"""What a critical-file alert changed, as a diff, so a person sees it before accepting it.

The accepted side is the text the baseline kept (`alerts.TEXT_LIMIT`); a baseline written
before texts were kept falls back to the file at git HEAD when its checksum matches. The
detected side is the text the alert recorded, which is exactly what `acknowledge` accepts, even
when the file has changed again since (that newer change raises its own alert).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from dreamdeck.core.git.blobs import show_file
from dreamdeck.core.git.diff import diff_texts
from dreamdeck.core.ops.alerts import Alert, pending_records


@dataclass(frozen=True)
class AlertDiff:
    alert: Alert
    before: str | None  # the accepted text (None: absent then, or not known; see notes)
    after: str | None  # the detected text (None: deleted, or not known)
    diff: str  # unified hunks, "" when a side is not known or nothing differs
    notes: list[str] = field(default_factory=list)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _accepted(root: Path, alert: Alert, state: dict | None, notes: list[str]) -> tuple[str | None, bool]:
    """(accepted text, known)."""
    if state is None:
        return None, True  # absent when last accepted
    if "text" in state:
        return state["text"], True
    data = show_file(root, "HEAD", alert.path)
    if data is not None and _sha(data) == state.get("sha256"):
        notes.append(f"the accepted version of {alert.path} is the one committed at HEAD")
        return data.decode("utf-8", "replace"), True
    notes.append(f"the accepted version of {alert.path} was not kept (over 64 KB, not text, or "
                 "recorded by an older dreamdeck): only its checksum is known")
    return None, False


def _detected(root: Path, alert: Alert, record: dict, notes: list[str]) -> tuple[str | None, bool]:
    """(detected text, known)."""
    if alert.new_sha is None:
        return None, True  # deleted
    try:
        now = (root / alert.path).read_bytes()
    except OSError:
        now = None
    if now is None or _sha(now) != alert.new_sha:
        notes.append(f"{alert.path} changed again after this alert: accepting accepts the version shown "
                     "here, and the newer change raises an alert of its own")
    if "new_text" in record:
        return record["new_text"], True
    if now is not None and _sha(now) == alert.new_sha:
        return now.decode("utf-8", "replace"), True
    notes.append(f"the detected version of {alert.path} was not kept: only its checksum is known")
    return None, False


def alert_diffs(root: Path | str, paths: list[str] | None = None) -> list[AlertDiff]:
    """A diff per pending alert (for `paths`, or all), in the baseline's order."""
    root = Path(root)
    out = []
    for alert, state, record in pending_records(root):
        if paths is not None and alert.path not in paths:
            continue
        notes: list[str] = []
        before, known_before = _accepted(root, alert, state, notes)
        after, known_after = _detected(root, alert, record, notes)
        diff = ""
        if known_before and known_after and before != after:
            fd = diff_texts(alert.path, before, after)
            head = f"--- {alert.path} (accepted)\n+++ {alert.path} (now)\n"
            diff = head + "".join(h.text() for h in fd.hunks)
        out.append(AlertDiff(alert, before, after, diff, notes))
    return out
