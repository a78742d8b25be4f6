"""Issue 10, item 7 as an alert: a linked shard refuses every change and stops dreaming, so
`dreamdeck alerts` says so, naming the file, what it blocks and how to clear it."""
from __future__ import annotations

import json

from dreamdeck.core.ops.alerts import linked_shard_alerts
from tests.support.processes import run_cli

D = "2026-05-22"


def test_alerts_names_a_symlinked_and_a_hard_linked_shard_what_they_block_and_how_to_clear_them(agent_dir):
    topics = agent_dir / "memory" / "topics"
    topics.mkdir(parents=True)
    outside = agent_dir.parent / "outside.md"
    outside.write_text("# outside\n", encoding="utf-8")
    (topics / "creds.md").symlink_to(outside)
    (topics / "twin.md").hardlink_to(outside)
    assert [(a.path, a.why) for a in linked_shard_alerts(agent_dir)] == [
        ("memory/topics/creds.md", "a symbolic link"), ("memory/topics/twin.md", "2 hard links")]
    proc = run_cli(agent_dir, "alerts", today=D, check=False)
    assert proc.returncode == 1
    assert ("⚠ memory/topics/creds.md is a symbolic link: every change to memory is refused and dreaming stops "
            "until it is removed — `rm memory/topics/creds.md`") in proc.stdout
    assert "memory/topics/twin.md is 2 hard links" in proc.stdout
    as_json = json.loads(run_cli(agent_dir, "alerts", "--json", today=D, check=False).stdout)
    assert {"path": "memory/topics/creds.md", "kind": "linked-shard", "why": "a symbolic link",
            "blocks": "every change to memory is refused and dreaming stops until it is removed",
            "clear": "rm memory/topics/creds.md"} in as_json


def test_a_linked_shard_folder_is_an_alert_and_no_link_is_none(agent_dir, tmp_path):
    memory = agent_dir / "memory"
    memory.mkdir()
    (tmp_path / "elsewhere").mkdir()
    (memory / "topics").symlink_to(tmp_path / "elsewhere")
    assert [a.path for a in linked_shard_alerts(agent_dir)] == ["memory/topics"]
    (memory / "topics").unlink()
    (memory / "topics").mkdir()
    assert linked_shard_alerts(agent_dir) == []
