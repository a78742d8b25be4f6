"""A fresh `dreamdeck recall` imports only what it runs: never the app (textual, rich) nor the
Messages API client, and — when the index finds nothing changed — not the shard parser (YAML),
the tail's reader or the file lock either. Checked in a subprocess, where `sys.modules` is the process's own."""
from __future__ import annotations

import json
import subprocess
import sys

from tests.support import REPO
from tests.support.memory import shard_text, write_shard

NEVER = ("textual", "rich", "yaml", "frontmatter", "anthropic")
PROGRAM = """
import json, sys, time
from dreamdeck.cli.main import main
from dreamdeck.core.io.cache import set_clock
set_clock(lambda: time.time_ns() + 10**10)  # the files written a moment ago have settled
try:
    status = main(sys.argv[1:])
except SystemExit as exc:
    status = exc.code
print(json.dumps({"status": status, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def fresh_recall(root) -> tuple[int, set[str]]:
    proc = subprocess.run([sys.executable, "-c", PROGRAM, "-w", str(root), "--today", "2026-05-22", "recall", "green tea",
                           "--json"], capture_output=True, text=True, cwd=REPO, timeout=120)
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    return report["status"], {name.split(".")[0] for name in report["modules"]} | set(report["modules"])


def test_a_fresh_recall_imports_neither_the_app_nor_yaml_nor_the_api_client_nor_the_lock_when_nothing_changed(ws):
    write_shard(ws.root, "tea", shard_text("The user drinks green tea", []))
    first_status, first = fresh_recall(ws.root)  # builds the index
    status, modules = fresh_recall(ws.root)  # finds it fresh
    assert first_status == status == 0
    assert not first & {"textual", "rich", "anthropic"}  # a build parses shards: YAML is allowed there
    assert not modules & {*NEVER, "filelock", "dreamdeck.core.formats.shards", "dreamdeck.core.index.search_tail"}, \
        sorted(modules & {*NEVER, "filelock", "dreamdeck.core.formats.shards", "dreamdeck.core.index.search_tail"})
