"""A dreaming state file that is not a plain file of its own (a symbolic link, a FIFO, a hard
link) gets its one finding from doctor's walks of memory/, and every other finding is still
reported: it once hid them all (a link read as a linked folder: nothing but the `link` line) or
stopped doctor with one line (a FIFO). Nothing is read through it or written to it."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.outside import outside_folder, run_cli, seeded_agent

SECRET = b"root:x:0:0:hunter2-outside-secret\n"
STATE = "memory/.dreaming-state.json"


@pytest.fixture
def broken(agent_dir: Path) -> Path:
    """A seeded agent with one shard TypeClaw cannot parse."""
    root = seeded_agent(agent_dir)
    (root / "memory" / "topics" / "broken.md").write_text("---\nkind: [unclosed\n---\nbody\n", encoding="utf-8")
    return root


def findings(root: Path, *args: str) -> list[tuple[str, str]]:
    proc = run_cli(root, "doctor", "--json", *args)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    return [(f["kind"], f["where"]) for f in json.loads(proc.stdout)["findings"]]


def test_a_linked_state_file_is_one_link_finding_and_the_unparseable_shard_is_still_reported(broken, tmp_path):
    outside = outside_folder(tmp_path, SECRET)
    (broken / STATE).symlink_to(outside / "passwd")

    for _run in range(2):  # the first run, then one the record answers
        found = findings(broken)
        assert ("unparseable", "memory/topics/broken.md") in found
        assert [f for f in found if f[1] == STATE] == [("link", STATE)]
    assert (outside / "passwd").read_bytes() == SECRET


def test_a_fifo_state_file_is_one_special_file_finding_and_the_unparseable_shard_is_still_reported(broken):
    os.mkfifo(broken / STATE)

    for _run in range(2):
        found = findings(broken)
        assert ("unparseable", "memory/topics/broken.md") in found
        assert [f for f in found if f[1] == STATE] == [("special-file", STATE)]


def test_a_hard_linked_state_file_is_one_hard_link_finding_and_the_unparseable_shard_is_still_reported(broken, tmp_path):
    (broken / STATE).write_text('{"version": 2, "dreamedThrough": {}}', encoding="utf-8")
    os.link(broken / STATE, tmp_path / "other-name.json")

    found = findings(broken)
    assert ("unparseable", "memory/topics/broken.md") in found
    assert [f for f in found if f[1] == STATE] == [("hard-link", STATE)]


def test_a_linked_state_file_among_a_year_of_streams_is_one_link_finding(broken, tmp_path, monkeypatch):
    """The stream worker proves the state file when the streams are many bytes: the same answer."""
    from dreamdeck.core.ops import doctor_streams

    monkeypatch.setattr(doctor_streams, "WORKER_BYTES", 0)
    outside = outside_folder(tmp_path, SECRET)
    (broken / STATE).symlink_to(outside / "passwd")
    from dreamdeck.core.ops.doctor import examine
    from dreamdeck.core.workspace import Workspace

    found = [(f.kind, f.where) for f in examine(Workspace.open(broken, today="2026-05-22")).findings]
    assert ("unparseable", "memory/topics/broken.md") in found
    assert [f for f in found if f[1] == STATE] == [("link", STATE)]
