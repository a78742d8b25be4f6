"""A kill at any step of an approval, finished by `doctor --fix` (the journal's replay), commits
the same decision record (`memory/meta/reflections/r-N.json`) a normal approval commits: with
the list of what its collection took and why (issue 10, items 6 and 9). The journal holds what
the finish needs before the first file is written, so nothing of the record depends on the
process that was killed."""
from __future__ import annotations

import shutil
from datetime import UTC, datetime

import pytest

from dreamdeck.core.door.apply import apply_changeset
from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.ops.doctor import fix
from dreamdeck.core.ops.reflections import approval_changeset, approve
from dreamdeck.core.workspace import Workspace
from tests.support.dreamers import Scripted, draft
from tests.support.git import git
from tests.support.memory import cite, fragment_line, the_next_day, uuid_at, write_stream

D = "2026-05-22"
NOW = datetime(2026, 5, 23, 12, 0, tzinfo=UTC)
RECORD = "memory/meta/reflections/r-1.json"


class Killed(BaseException):
    """Raised at a door step: the process 'dies' there, leaving the journal."""


def _cites_first_folds_second(inp, scratch):
    scratch.write_shard("pm", draft("Uses pnpm", [cite(D, 1)]))
    scratch.outcome.folded[f"{D}#{uuid_at(D, 2)}"] = f"{D}#{uuid_at(D, 1)}"


@pytest.fixture
def held(ws, agent_dir):
    """A folder whose dream waits for review in r-1, a day later (its stream may be compacted)."""
    write_stream(agent_dir, D, [fragment_line(D, k, "pm", f"uses pnpm, note {k}") for k in range(1, 5)])
    run_dream(the_next_day(ws), dreamer=Scripted(_cites_first_folds_second), review="all")
    return agent_dir


def _copy(agent_dir, tmp_path, name: str):
    target = tmp_path / name
    shutil.copytree(agent_dir, target, symlinks=True)
    return target


def _approve(folder, fault=None):
    ws = Workspace.open(folder, today="2026-05-23")
    if fault is None:
        return approve(ws, "r-1", now=NOW)
    cs, _ = approval_changeset(ws, "r-1", now=NOW)
    return apply_changeset(ws, cs, now=NOW, fault=fault)


def _killed_then_fixed(folder, tmp_path, step: str, change):
    """A copy of `folder` where `change` dies at the door's `step`, then `doctor --fix` finished it."""
    killed = _copy(folder, tmp_path, f"killed-{step.replace('/', '_').replace(':', '_')}")

    def die(name: str) -> None:
        if name == step:
            raise Killed()

    with pytest.raises(Killed):
        change(killed, fault=die)
    fix(Workspace.open(killed, today="2026-05-23"))
    return killed


def _steps_of_an_approval(folder) -> list[str]:
    seen: list[str] = []
    _approve(folder, fault=seen.append)
    return seen


def test_every_kill_point_of_an_approval_is_finished_with_the_same_decision_record(held, tmp_path):
    normal = _copy(held, tmp_path, "normal")
    result = _approve(normal)
    expected = git(normal, "show", f"HEAD:{RECORD}")
    assert '"collected"' in expected and result.reasons  # the record says what went, and why
    steps = _steps_of_an_approval(_copy(held, tmp_path, "steps"))
    assert {"journal", "state", "gc-planned", "gc", "audit", "commit", "journal-removed"} <= set(steps)

    for step in steps:
        killed = _killed_then_fixed(held, tmp_path, step, _approve)
        assert git(killed, "show", f"HEAD:{RECORD}") == expected, f"killed at {step}"
        assert (killed / RECORD).read_text(encoding="utf-8") == expected, f"killed at {step}"
        assert git(killed, "status", "--porcelain", "--", "memory/meta/reflections").strip() == ""


def test_a_collection_record_outside_the_changes_meta_files_is_refused_before_anything_is_written(ws, agent_dir):
    from dreamdeck.core.door.changeset import ChangeSet, CollectionRecord, Commit, FileEdit, Writes
    from tests.support.memory import shard_text

    cs = ChangeSet(Commit("edit", "human:cli", "approved", "test", "add a"),
                   Writes([FileEdit("topics/a.md", None, shard_text("A", []))],
                          collection_record=CollectionRecord("reflections/r-9.json", ("decisions", -1))))

    with pytest.raises(ValueError, match="r-9.json"):
        apply_changeset(ws, cs)
    assert not (agent_dir / "memory/topics/a.md").exists()
    assert not (agent_dir / "memory/meta/.journal.json").exists()


def _receipt_at_head(folder) -> dict:
    import json

    [name] = git(folder, "ls-tree", "--name-only", "HEAD", "memory/meta/receipts/").split()
    return json.loads(git(folder, "show", f"HEAD:{name}"))


def _dream(folder, fault=None):
    ws = the_next_day(Workspace.open(folder, today=D))
    return run_dream(ws, dreamer=Scripted(_cites_first_folds_second), review="none", fault=fault)


def test_a_dream_killed_at_any_step_is_finished_with_its_receipts_collected_list(ws, agent_dir, tmp_path):
    """The dream's receipt says what its GC took and why, also when a kill after the GC leaves it
    to `doctor --fix`: before, the replay committed the journal's first receipt, `collected: {}`."""
    write_stream(agent_dir, D, [fragment_line(D, k, "pm", f"uses pnpm, note {k}") for k in range(1, 5)])
    normal = _copy(agent_dir, tmp_path, "normal")
    _dream(normal)
    expected = _receipt_at_head(normal)
    assert expected["collected"] and sorted(expected["fragments_dropped"]) == sorted(expected["collected"])
    steps: list[str] = []
    _dream(_copy(agent_dir, tmp_path, "steps"), fault=steps.append)
    assert {"gc", "commit"} <= set(steps)

    for step in steps[steps.index("gc"):steps.index("commit") + 1]:
        killed = _killed_then_fixed(agent_dir, tmp_path, step, _dream)
        got = _receipt_at_head(killed)
        assert (got["collected"], got["fragments_dropped"]) == (expected["collected"], expected["fragments_dropped"]), step


@pytest.mark.parametrize("field, planted", [
    ("meta_files", {"../../../outside.txt": "owned\n"}),
    ("meta_files", {"/tmp/outside.txt": "owned\n"}),
    ("targets", {"../../outside.md": "owned\n"}),
])
def test_a_planted_journal_naming_a_path_outside_memory_writes_nothing_there(held, tmp_path, field, planted):
    """The journal is a file in memory/: a hostile one must not make the replay write outside it
    (issue 10 item 7). Its paths are checked when it is read; one that leaves is not a journal."""
    import json

    folder = _copy(held, tmp_path, "planted")
    cs, _ = approval_changeset(Workspace.open(folder, today="2026-05-23"), "r-1", now=NOW)

    def die(name: str) -> None:
        if name == "journal":
            raise Killed()

    with pytest.raises(Killed):
        apply_changeset(Workspace.open(folder, today="2026-05-23"), cs, now=NOW, fault=die)
    path = folder / "memory/meta/.journal.json"
    data = json.loads(path.read_text())
    (data["changeset"] if field == "meta_files" else data)[field] = planted
    path.write_text(json.dumps(data))
    outside = [tmp_path / "outside.txt", tmp_path / "outside.md", folder.parent / "outside.md",
               __import__("pathlib").Path("/tmp/outside.txt")]
    for p in outside:
        p.unlink(missing_ok=True)

    fix(Workspace.open(folder, today="2026-05-23"))

    assert [p for p in outside if p.exists()] == []
