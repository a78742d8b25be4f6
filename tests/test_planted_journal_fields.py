"""A journal is a file under memory/ anyone who can write there can plant (issue 10, item 10):
a collection record that names no meta file of the change, a path into it that leads nowhere, a
record that is not JSON, and the fields this session added (the lines another writer removed,
the watermark count, the days compacted) with the wrong types are not a journal: `doctor --fix`
sets it aside as torn, in one line, never a traceback, and replays nothing of it."""
from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime

import pytest

from dreamdeck.core.door.apply import apply_changeset
from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.ops.reflections import approval_changeset
from dreamdeck.core.workspace import Workspace
from tests.support.dreamers import Scripted, draft
from tests.support.memory import cite, fragment_line, the_next_day, write_stream
from tests.support.processes import run_cli

D = "2026-05-22"
NOW = datetime(2026, 5, 23, 12, 0, tzinfo=UTC)


class Killed(BaseException):
    pass


@pytest.fixture(scope="module")
def interrupted(tmp_path_factory):
    """An approval killed right after its journal was written."""
    from tests.support.agent import agent_folder

    folder = agent_folder(tmp_path_factory.mktemp("held"))
    write_stream(folder, D, [fragment_line(D, k, "pm", f"uses pnpm, note {k}") for k in range(1, 4)])
    run_dream(the_next_day(Workspace.open(folder, today=D)),
              dreamer=Scripted(lambda inp, s: s.write_shard("pm", draft("Uses pnpm", [cite(D, 1)]))), review="all")
    ws = Workspace.open(folder, today="2026-05-23")
    cs, _ = approval_changeset(ws, "r-1", now=NOW)

    def die(name: str) -> None:
        if name == "journal":
            raise Killed()

    with pytest.raises(Killed):
        apply_changeset(ws, cs, now=NOW, fault=die)
    return folder


def _plant(data: dict, where: str, value) -> None:
    c = data["changeset"]
    if where == "record-file":
        c["collection_record"] = {"file": "reflections/r-9.json", "at": []}
    elif where == "record-path":
        c["collection_record"] = {"file": "reflections/r-1.json", "at": ["nowhere", 7]}
    elif where == "record-text":
        c["meta_files"]["reflections/r-1.json"] = "{not json"
    elif where == "record-key":
        c["collection_record"] = {"file": "reflections/r-1.json", "at": [], "said": value}
    else:
        data[where] = value


@pytest.mark.parametrize("where, value", [
    ("record-file", None), ("record-path", None), ("record-text", None), ("record-key", 5),
    ("outside_lines", [["2026-05-22"]]), ("outside_lines", "x"), ("watermarks_dropped", -3),
    ("watermarks_dropped", "2"), ("compacted_days", [1, 2]),
])
def test_a_planted_journal_field_is_set_aside_in_one_line(interrupted, tmp_path, where, value):
    folder = tmp_path / "agent"
    shutil.copytree(interrupted, folder, symlinks=True)
    path = folder / "memory/meta/.journal.json"
    data = json.loads(path.read_text())
    _plant(data, where, value)
    path.write_text(json.dumps(data))

    out = run_cli(folder, "doctor", "--fix", today="2026-05-23", check=False)

    assert "set aside a torn journal" in out.stdout, out.stdout + out.stderr
    assert not path.exists()
