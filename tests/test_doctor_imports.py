"""A fresh `dreamdeck doctor --json` imports only what examining runs: never the door's apply
(it changes nothing), the audit log's writer, nor the strength table, shard heads and report the
other read verbs need. Every import before its stream worker starts is on the first run's
longest path (issue 10 item 14). Checked in a subprocess, where `sys.modules` is the process's own."""
from __future__ import annotations

import json
import subprocess
import sys

from tests.support import REPO
from tests.support.outside import seeded_agent
from tests.test_recall_imports import PROGRAM

NOT_FOR_EXAMINING = ("dreamdeck.core.door.apply", "dreamdeck.core.door.finish", "dreamdeck.core.store.audit",
                     "dreamdeck.core.index.strength", "dreamdeck.core.index.shard_heads", "dreamdeck.core.ops.report",
                     "dreamdeck.cli.read", "textual", "rich", "anthropic")


def test_a_fresh_doctor_imports_neither_the_door_nor_the_audit_writer_nor_the_other_read_verbs(agent_dir):
    root = seeded_agent(agent_dir)
    proc = subprocess.run([sys.executable, "-c", PROGRAM, "-w", str(root), "--today", "2026-05-22", "doctor", "--json"],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    modules = {name.split(".")[0] for name in report["modules"]} | set(report["modules"])

    assert report["status"] == 0 and json.loads(proc.stdout)["healthy"] is True
    assert "dreamdeck.core.ops.doctor" in modules
    assert not modules & set(NOT_FOR_EXAMINING), sorted(modules & set(NOT_FOR_EXAMINING))
