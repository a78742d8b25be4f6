"""Critical-file alerts a person can judge: the diff of what changed (the baseline keeps the
accepted text), accepting exactly what was shown, and a watcher that raises them while a
program runs."""
from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from dreamdeck.core.ops.alert_diff import alert_diffs
from dreamdeck.core.ops.alert_watch import CriticalWatcher
from dreamdeck.core.ops.alerts import acknowledge, baseline_path, check_alerts, pending_alerts

T0 = datetime(2026, 2, 5, 9, 0, tzinfo=UTC)
T1 = T0 + timedelta(hours=1)
T2 = T0 + timedelta(hours=2)


def test_a_change_is_shown_as_a_diff_against_the_accepted_text(agent_dir: Path):
    check_alerts(agent_dir, now=T0)
    (agent_dir / "SOUL.md").write_text("# Soul\nBe kind.\nBe brief.\n")
    check_alerts(agent_dir, now=T1)
    (d,) = alert_diffs(agent_dir)
    assert d.alert.path == "SOUL.md" and d.before == "# Soul\nBe kind.\n" and d.after == "# Soul\nBe kind.\nBe brief.\n"
    assert d.diff.splitlines()[:2] == ["--- SOUL.md (accepted)", "+++ SOUL.md (now)"]
    assert "+Be brief." in d.diff.splitlines() and not d.notes


def test_accepting_accepts_the_version_the_diff_showed_even_after_another_change(agent_dir: Path):
    check_alerts(agent_dir, now=T0)
    (agent_dir / "SOUL.md").write_text("# Soul\nBe brief.\n")
    check_alerts(agent_dir, now=T1)
    (agent_dir / "SOUL.md").write_text("# Soul\nBe rude.\n")  # after detection, before acceptance
    (d,) = alert_diffs(agent_dir)
    assert d.after == "# Soul\nBe brief.\n" and "changed again after this alert" in d.notes[0]
    acknowledge(agent_dir, ["SOUL.md"], actor="human:test", now=T2)
    assert json.loads(baseline_path(agent_dir).read_text())["files"]["SOUL.md"]["text"] == "# Soul\nBe brief.\n"
    (again,) = check_alerts(agent_dir, now=T2)  # the newer change is an alert of its own
    (d2,) = alert_diffs(agent_dir)
    assert again.path == "SOUL.md" and "-Be brief." in d2.diff and "+Be rude." in d2.diff


def test_a_baseline_written_without_texts_falls_back_to_the_file_at_head(agent_dir: Path):
    check_alerts(agent_dir, now=T0)
    data = json.loads(baseline_path(agent_dir).read_text())
    for state in data["files"].values():
        if state:
            state.pop("text", None)  # as an older dreamdeck wrote it
    baseline_path(agent_dir).write_text(json.dumps(data))
    (agent_dir / "SOUL.md").write_text("# Soul\nBe kind.\nAlways.\n")
    check_alerts(agent_dir, now=T1)
    (d,) = alert_diffs(agent_dir)
    assert d.before == "# Soul\nBe kind.\n" and "+Always." in d.diff
    assert d.notes == ["the accepted version of SOUL.md is the one committed at HEAD"]


def test_a_created_and_a_deleted_file_diff_against_nothing(agent_dir: Path):
    (agent_dir / "AGENTS.md").write_text("# Agents\n")
    check_alerts(agent_dir, now=T0)
    (agent_dir / "AGENTS.md").unlink()
    (agent_dir / "IDENTITY.md").write_text("# Identity\nPico\n")
    check_alerts(agent_dir, now=T1)
    diffs = {d.alert.path: d for d in alert_diffs(agent_dir)}
    assert diffs["AGENTS.md"].after is None and "-# Agents" in diffs["AGENTS.md"].diff
    assert diffs["IDENTITY.md"].before is None and "+Pico" in diffs["IDENTITY.md"].diff


def wait_until(predicate, what: str, timeout: float = 10.0) -> None:
    start = time.monotonic()
    while not predicate():
        assert time.monotonic() - start < timeout, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_the_watcher_raises_an_alert_when_soul_md_changes_and_reports_it_once(agent_dir: Path):
    got: list = []
    watcher = CriticalWatcher(agent_dir, ["SOUL.md", "AGENTS.md"], got.extend)
    watcher.start()
    try:
        assert watcher.ready.wait(10)
        assert not baseline_path(agent_dir).exists()  # starting writes nothing
        (agent_dir / "SOUL.md").write_text("# Soul\nBe kind.\nNew rule.\n")
        wait_until(lambda: got, "the alert")
        assert [(a.path, a.kind) for a in got] == [("SOUL.md", "changed")]
        assert [a.path for a in pending_alerts(agent_dir)] == ["SOUL.md"]
        (agent_dir / "notes.txt").write_text("not watched")
        (agent_dir / "AGENTS.md").write_text("# Agents\n")
        wait_until(lambda: len(got) == 2, "the second alert")
        assert [(a.path, a.kind) for a in got] == [("SOUL.md", "changed"), ("AGENTS.md", "created")]
    finally:
        watcher.stop()
