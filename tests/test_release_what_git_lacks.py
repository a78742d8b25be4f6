"""`reject r-N --release` when a held fragment left the streams (TypeClaw's GC took it) and git
history does not hold it either, so it cannot be put back (issue 10, item 4): the warning names
it, and nothing claims it released: the decision records it as not released, the command says so."""
from __future__ import annotations

import json

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.workspace import Workspace
from tests.support.dreamers import Scripted, draft
from tests.support.memory import cite, fragment_line, uuid_at, write_stream
from tests.support.processes import run_cli

D = "2026-05-22"


def test_a_held_fragment_git_cannot_put_back_is_named_and_not_claimed_released(tmp_path):
    folder = tmp_path / "agent"  # no git: nothing TypeClaw's GC takes can come back from history
    path = write_stream(folder, D, [fragment_line(D, k, "pm", f"uses pnpm, note {k}") for k in range(1, 4)])
    run_dream(Workspace.open(folder, today="2026-05-23"),
              dreamer=Scripted(lambda inp, s: s.write_shard("pm", draft("Uses pnpm", [cite(D, 1)]))), review="all")
    gone = uuid_at(D, 3)
    path.write_text("".join(line + "\n" for line in path.read_text().splitlines() if gone not in line))

    out = run_cli(folder, "reject", "r-1", "--release", "--reason", "dream it again", today="2026-05-23")

    said = out.stdout + out.stderr
    decision = json.loads((folder / "memory/meta/reflections/r-1.json").read_text())["decisions"][-1]
    assert f"{D}#{gone}" in out.stderr and "cannot be put back" in out.stderr
    assert "released, in no stream" not in said
    assert "1 could not be put back" in out.stdout
    assert decision["not_released"] == [f"{D}#{gone}"]
