"""Critical file alerts (Moltbot §12.5): baseline, created/changed/deleted, acknowledgment."""
from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from dreamdeck.core.ops.alerts import (
    DEFAULT_CRITICAL_FILES,
    Alert,
    BaselineError,
    acknowledge,
    baseline_path,
    check_alerts,
    pending_alerts,
)
from dreamdeck.core.store.audit import read_entries

T0 = datetime(2026, 2, 5, 9, 0, tzinfo=UTC)
T1 = T0 + timedelta(hours=1)
T2 = T0 + timedelta(hours=2)
T3 = T0 + timedelta(hours=3)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "SOUL.md").write_text("# Soul\nBe kind.\n")
    (tmp_path / "AGENTS.md").write_text("# Agents\n")
    return tmp_path


def alert_lines(root: Path) -> list[str]:
    return [e.file for e in read_entries(root, action="ALERT")]


def test_the_first_check_writes_the_baseline_with_one_audit_line_and_raises_nothing(workspace: Path):
    assert check_alerts(workspace, now=T0) == []
    data = json.loads(baseline_path(workspace).read_text())
    assert data["version"] == 1 and data["pending"] == []
    assert set(data["files"]) == set(DEFAULT_CRITICAL_FILES)
    assert data["files"]["SOUL.md"] == {"sha256": sha(b"# Soul\nBe kind.\n"), "size": 16, "seen": "2026-02-05T09:00:00Z",
                                        "text": "# Soul\nBe kind.\n"}  # kept so a change can be shown as a diff
    assert data["files"]["IDENTITY.md"] is None and data["files"]["typeclaw.json"] is None
    (entry,) = read_entries(workspace)  # taking the baseline is a mutation: audited
    assert (entry.action, entry.file) == ("BASELINE", "memory/meta/critical-baseline.json")
    assert check_alerts(workspace, now=T1) == []  # nothing changed: still nothing
    assert len(read_entries(workspace)) == 1


def test_changed_created_and_deleted_files_alert_once_each(workspace: Path):
    check_alerts(workspace, now=T0)
    old_soul = sha((workspace / "SOUL.md").read_bytes())
    old_agents = sha((workspace / "AGENTS.md").read_bytes())
    (workspace / "SOUL.md").write_text("# Soul\nBe ruthless.\n")
    (workspace / "IDENTITY.md").write_text("# Identity\n")
    (workspace / "AGENTS.md").unlink()

    alerts = check_alerts(workspace, now=T1)
    stamp = "2026-02-05T10:00:00Z"
    assert alerts == [
        Alert("SOUL.md", "changed", old_soul, sha(b"# Soul\nBe ruthless.\n"), stamp),
        Alert("IDENTITY.md", "created", None, sha(b"# Identity\n"), stamp),
        Alert("AGENTS.md", "deleted", old_agents, None, stamp),
    ]
    assert pending_alerts(workspace) == alerts
    lines = audit_text(workspace).splitlines()[1:]  # after the baseline's own line
    assert lines == [
        f"2026-02-05T10:00Z | ALERT | {name} | system:audit | — | Critical file change detected. Pending user acknowledgment."
        for name in ("SOUL.md", "IDENTITY.md", "AGENTS.md")
    ]
    # later checks of the same unacknowledged changes report them again but log nothing new
    assert check_alerts(workspace, now=T2) == alerts
    assert check_alerts(workspace, now=T3) == alerts
    assert alert_lines(workspace) == ["SOUL.md", "IDENTITY.md", "AGENTS.md"]


def audit_text(root: Path) -> str:
    return (root / "memory/meta/audit.log").read_text()


def test_a_further_change_before_acknowledgment_alerts_again(workspace: Path):
    check_alerts(workspace, now=T0)
    original = sha((workspace / "SOUL.md").read_bytes())
    (workspace / "SOUL.md").write_text("v2\n")
    check_alerts(workspace, now=T1)
    (workspace / "SOUL.md").write_text("v3\n")
    (alert,) = check_alerts(workspace, now=T2)
    assert (alert.old_sha, alert.new_sha, alert.kind) == (original, sha(b"v3\n"), "changed")
    assert alert_lines(workspace) == ["SOUL.md", "SOUL.md"]


def test_a_file_restored_to_its_baseline_drops_its_alert(workspace: Path):
    check_alerts(workspace, now=T0)
    original = (workspace / "SOUL.md").read_bytes()
    (workspace / "SOUL.md").write_text("tampered\n")
    assert len(check_alerts(workspace, now=T1)) == 1
    (workspace / "SOUL.md").write_bytes(original)
    assert check_alerts(workspace, now=T2) == []
    assert pending_alerts(workspace) == []
    assert alert_lines(workspace) == ["SOUL.md"]  # the history stays in the log


def test_acknowledge_moves_the_baseline_and_writes_one_ack_each(workspace: Path):
    check_alerts(workspace, now=T0)
    (workspace / "SOUL.md").write_text("v2\n")
    (workspace / "typeclaw.json").write_text("{}\n")
    assert len(check_alerts(workspace, now=T1)) == 2

    done = acknowledge(workspace, ["SOUL.md"], actor="manual", now=T2)
    assert [a.path for a in done] == ["SOUL.md"]
    assert [a.path for a in pending_alerts(workspace)] == ["typeclaw.json"]
    data = json.loads(baseline_path(workspace).read_text())
    assert data["files"]["SOUL.md"]["sha256"] == sha(b"v2\n")
    assert data["files"]["SOUL.md"]["seen"] == "2026-02-05T11:00:00Z"

    done = acknowledge(workspace, now=T2)  # None: all the rest
    assert [a.path for a in done] == ["typeclaw.json"]
    assert pending_alerts(workspace) == []
    assert check_alerts(workspace, now=T3) == []
    acks = read_entries(workspace, action="ACK")
    assert [(e.file, e.actor, e.approval) for e in acks] == [("SOUL.md", "manual", "—"), ("typeclaw.json", "manual", "—")]
    assert alert_lines(workspace) == ["SOUL.md", "typeclaw.json"]  # no ALERT repeated after the ack
    assert acknowledge(workspace, now=T3) == []  # nothing pending: nothing written
    assert len(read_entries(workspace, action="ACK")) == 2


def test_acknowledging_a_deletion_records_the_file_as_absent(workspace: Path):
    check_alerts(workspace, now=T0)
    (workspace / "AGENTS.md").unlink()
    check_alerts(workspace, now=T1)
    acknowledge(workspace, ["AGENTS.md"], now=T2)
    assert json.loads(baseline_path(workspace).read_text())["files"]["AGENTS.md"] is None
    assert check_alerts(workspace, now=T3) == []


def test_acknowledge_accepts_what_was_shown_not_a_later_change(workspace: Path):
    check_alerts(workspace, now=T0)
    (workspace / "SOUL.md").write_text("shown\n")
    check_alerts(workspace, now=T1)
    (workspace / "SOUL.md").write_text("sneaked in after the alert\n")
    acknowledge(workspace, now=T2)
    (alert,) = check_alerts(workspace, now=T3)
    assert (alert.old_sha, alert.new_sha) == (sha(b"shown\n"), sha(b"sneaked in after the alert\n"))


def test_a_newly_watched_file_is_baselined_silently(workspace: Path):
    check_alerts(workspace, ["SOUL.md"], now=T0)
    (workspace / "USER.md").write_text("# User\n")
    assert check_alerts(workspace, ["SOUL.md", "USER.md"], now=T1) == []
    (workspace / "USER.md").write_text("# User\nchanged\n")
    assert [a.path for a in check_alerts(workspace, ["SOUL.md", "USER.md"], now=T2)] == ["USER.md"]


@pytest.mark.parametrize("bad", ["/etc/passwd", "../outside.md", "a/../../b", ""])
def test_paths_outside_the_workspace_are_refused(workspace: Path, bad: str):
    with pytest.raises(ValueError, match="relative path|must name"):
        check_alerts(workspace, [bad], now=T0)


def test_a_corrupt_baseline_is_an_error_not_a_silent_reset(workspace: Path):
    path = baseline_path(workspace)
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    with pytest.raises(BaselineError):
        check_alerts(workspace, now=T0)
    assert path.read_text() == "{not json"
