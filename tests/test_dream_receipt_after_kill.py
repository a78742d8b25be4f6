"""A dream killed at any step of its apply, finished by `doctor --fix` (the journal's replay),
commits the receipt an unkilled run commits: what its collection took and why, the watermarks
it dropped, which compactions wait, and the sentence that says so (issue 10, item 7's pattern
of tests/test_approve_receipt_after_kill.py, for dreams). And the receipt has one writer, the
door: its bytes are written once per dream, never a first version by the door and a second by
a hook (a kill between the two left the first)."""
from __future__ import annotations

import json
import os
import shutil
import sys
from datetime import UTC, datetime

import pytest

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.ops.doctor import fix
from dreamdeck.core.workspace import Workspace
from tests.support.dreamers import Scripted, draft
from tests.support.git import git
from tests.support.memory import cite, fragment_line, the_next_day, uuid_at, watermark_line, write_stream

D = "2026-05-22"
NOW = datetime(2026, 5, 23, 12, 0, tzinfo=UTC)
# What the run itself decides, and what its compaction did; not its timing or its random id.
SAME = ("status", "fragments_seen", "days", "collected", "fragments_dropped", "watermarks_dropped",
        "compaction_waiting", "message", "auto_applied", "pending", "folded")


class Killed(BaseException):
    """Raised at a door step: the process 'dies' there, leaving the journal."""


def _cites_first_folds_second(inp, scratch):
    scratch.write_shard("pm", draft("Uses pnpm", [cite(D, 1)]))
    scratch.outcome.folded[f"{D}#{uuid_at(D, 2)}"] = f"{D}#{uuid_at(D, 1)}"


def _dream(folder, fault=None):
    ws = the_next_day(Workspace.open(folder, today=D))
    return run_dream(ws, dreamer=Scripted(_cites_first_folds_second), review="none", now=NOW, fault=fault)


def _copy(agent_dir, tmp_path, name: str):
    target = tmp_path / name
    shutil.copytree(agent_dir, target, symlinks=True)
    return target


def _receipt_at_head(folder) -> dict:
    [name] = git(folder, "ls-tree", "--name-only", "HEAD", "memory/meta/receipts/").split()
    return json.loads(git(folder, "show", f"HEAD:{name}"))


@pytest.fixture
def day_with_watermarks(agent_dir):
    write_stream(agent_dir, D, [watermark_line(D, 20, entry="e1"), watermark_line(D, 21, entry="e2")]
                 + [fragment_line(D, k, "pm", f"uses pnpm, note {k}") for k in range(1, 5)]
                 + [watermark_line(D, 22, entry="e3")])
    return agent_dir


def test_a_dream_killed_at_any_step_commits_the_receipt_an_unkilled_run_commits(ws, day_with_watermarks, tmp_path):
    folder = day_with_watermarks
    normal = _copy(folder, tmp_path, "normal")
    _dream(normal)
    expected = _receipt_at_head(normal)
    assert expected["watermarks_dropped"] == 2 and expected["collected"]
    steps: list[str] = []
    _dream(_copy(folder, tmp_path, "steps"), fault=steps.append)

    for step in steps[steps.index("journal"):steps.index("commit") + 1]:
        killed = _copy(folder, tmp_path, f"killed-{step.replace('/', '_').replace(':', '_')}")

        def die(name: str, at=step) -> None:
            if name == at:
                raise Killed()

        with pytest.raises(Killed):
            _dream(killed, fault=die)
        fix(Workspace.open(killed, today="2026-05-23"))
        got = _receipt_at_head(killed)
        assert {k: got[k] for k in SAME} == {k: expected[k] for k in SAME}, f"killed at {step}"


def test_a_dreams_receipt_is_written_once(ws, day_with_watermarks):
    """Every rename onto the receipt's name, from the run's start to its commit (Python's audit
    events: the door writes each file by a rename of a temp file beside it)."""
    renamed: list[str] = []
    listening = [True]

    def hook(event: str, args: tuple) -> None:
        if listening[0] and event == "os.rename" and str(os.fsdecode(args[1])).startswith("d-"):
            renamed.append(os.path.basename(os.fsdecode(args[1])))

    sys.addaudithook(hook)
    try:
        receipt = _dream(day_with_watermarks)
    finally:
        listening[0] = False

    assert renamed == [f"{receipt.id}.json"]
    on_disk = json.loads((day_with_watermarks / f"memory/meta/receipts/{receipt.id}.json").read_text())
    assert on_disk["watermarks_dropped"] == 2 and on_disk["message"] == receipt.message
