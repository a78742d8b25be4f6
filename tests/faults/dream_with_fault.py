"""Open a prepared workspace and change it through the one door, SIGKILLing ourselves at STEP.

    python -m tests.faults.dream_with_fault <agent folder> <today> <scenario> <STEP> <plan.json>

Scenarios (the workspace is built by tests/test_fault_injection.py, never here):
- dream:  run_dream, review none: merge a+b into ab (plus today's #1), new shard n (#2), noise #3
- mixed:  run_dream, review judgement: a gains today's #1 (auto), new shard n (#2) is held
- forget: a FORGET change set: b deleted, its fragment tombstoned (the only way a step
          "tombstones" is reached)
- restore: a REVERT change set re-appending a collected fragment line and citing it again
          (the only way a step "restore" is reached)
Exit status 0 means STEP was never reached (the test fails on that).
"""
from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

from dreamdeck.core.door.apply import apply_changeset
from dreamdeck.core.door.changeset import ChangeSet, Commit, Evidence, FileEdit, Writes
from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.store.tombstones import Tombstone
from dreamdeck.core.workspace import Workspace
from tests.support.dreamers import Scripted, citations_in, draft


def main() -> int:
    root, today, scenario, step_name, plan_path = sys.argv[1:6]
    ws = Workspace.open(root, today=today)
    plan = json.loads(Path(plan_path).read_text())  # texts and records the test prepared

    def fault(step: str) -> None:
        if step == step_name:
            os.kill(os.getpid(), signal.SIGKILL)

    if scenario in ("dream", "mixed"):
        def script(inp, scratch):
            shown = [f.citation for f in inp.fragments]
            if scenario == "dream":
                union = citations_in(scratch.files["a"]) + citations_in(scratch.files["b"])
                scratch.write_shard("ab", draft("Beliefs a and b", union + [shown[0]]))
                scratch.delete_shard("a")
                scratch.delete_shard("b")
            else:
                scratch.write_shard("a", draft("Belief a", citations_in(scratch.files["a"]) + [shown[0]]))
            scratch.write_shard("n", draft("Something new", [shown[1]]))

        review = "none" if scenario == "dream" else "judgement"
        run_dream(ws, dreamer=Scripted(script), review=review, fault=fault)
    elif scenario == "forget":
        stone = Tombstone(**plan["tombstone"])
        apply_changeset(ws, ChangeSet(
            Commit("forget", "human:cli", "approved", "forget", "forget b"),
            Writes([FileEdit("topics/b.md", plan["b"], None)]),
            Evidence(allow_drop={(stone.date, stone.id)}, tombstones=[("forget", stone)], gc_days={stone.date}),
        ), fault=fault)
    elif scenario == "restore":
        apply_changeset(ws, ChangeSet(
            Commit("revert", "human:cli", "approved", "rollback", "bring r back"),
            Writes([FileEdit("topics/r.md", None, plan["r"])]),
            Evidence(restore_lines={plan["restore_day"]: [plan["restore_line"]]}),
        ), fault=fault)
    else:
        raise SystemExit(f"unknown scenario {scenario}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
