"""A fragment another writer removed (TypeClaw's GC, a hand edit) is never swept silently into
dreamdeck's next commit (issue 10, item 1): the door finds it before committing the stream file,
records it (the commit's GC note, an audit line, memory/meta/outside-losses.json), and `doctor`
keeps naming it until it is restored or a person accepts the loss."""
from __future__ import annotations

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.git.notes import read_gc_entries
from dreamdeck.core.ops.doctor import examine, fix
from dreamdeck.core.ops.forget import forget_fragment
from dreamdeck.core.ops.unrecorded_loss import accept_outside_losses, restore_outside_losses
from dreamdeck.core.ops.vault import pin_topic, unpin
from tests.support.dreamers import Scripted, draft
from tests.support.memory import cite, commit_all, fragment_line, the_next_day, uuid_at, write_stream
from tests.support.processes import run_cli

D = "2026-05-22"


def _kinds(ws) -> dict[str, list]:
    out: dict[str, list] = {}
    for f in examine(ws).findings:
        out.setdefault(f.kind, []).append(f)
    return out


def _removed_by_another_writer_then_committed(ws, agent_dir):
    """f1 cited, f5 undreamed and committed by dreamdeck; f5 removed by hand; then a dreamdeck
    commit (a pin) of the stream files as they are."""
    path = write_stream(agent_dir, D, [fragment_line(D, 1, "pm", "uses pnpm")])
    commit_all(agent_dir)
    run_dream(the_next_day(ws), dreamer=Scripted(lambda inp, s: s.write_shard("pm", draft("Uses pnpm", [cite(D, 1)]))),
              review="none")
    write_stream(agent_dir, D, [fragment_line(D, 5, "misc", "the build runs at noon")])
    pin_topic(ws, "pm")  # a dreamdeck commit holding f5
    path.write_text("".join(line + "\n" for line in path.read_text().splitlines() if uuid_at(D, 5) not in line))
    return unpin(ws, "pm")  # the next dreamdeck commit: the stream file as another writer left it


def test_a_loss_by_another_writer_is_recorded_by_the_next_commit_and_doctor_keeps_naming_it(ws, agent_dir):
    result = _removed_by_another_writer_then_committed(ws, agent_dir)

    ref = f"{D}#{uuid_at(D, 5)}"
    outside = _kinds(ws).get("outside-loss", [])
    note = read_gc_entries(agent_dir, result.sha)
    audit = (agent_dir / "memory/meta/audit.log").read_text()

    assert [f.where for f in outside] == [f"memory/streams/{D}.jsonl"] and ref in outside[0].detail
    assert [(e.fid, e.reason.startswith("left by another writer")) for e in note] == [(uuid_at(D, 5), True)]
    assert "by another writer" in audit and ref in audit
    assert ref in (agent_dir / "memory/meta/outside-losses.json").read_text()
    assert "outside-loss" in run_cli(agent_dir, "doctor", check=False).stdout


def test_accepting_the_loss_ends_the_finding_with_an_audited_commit(ws, agent_dir):
    _removed_by_another_writer_then_committed(ws, agent_dir)

    accepted = accept_outside_losses(ws)

    assert accepted is not None and accepted.sha
    assert "outside-loss" not in _kinds(ws)
    assert f"accepted the loss of 1 fragment another writer removed: {D}#{uuid_at(D, 5)}" in \
        (agent_dir / "memory/meta/audit.log").read_text()
    assert accept_outside_losses(ws) is None  # nothing left to accept


def test_restoring_the_loss_puts_the_exact_line_back_from_history(ws, agent_dir):
    _removed_by_another_writer_then_committed(ws, agent_dir)
    line = fragment_line(D, 5, "misc", "the build runs at noon")

    result, unfound = restore_outside_losses(ws)

    assert result is not None and unfound == []
    assert line in (agent_dir / f"memory/streams/{D}.jsonl").read_text().splitlines()
    assert "outside-loss" not in _kinds(ws) and "unrecorded-loss" not in _kinds(ws)


def test_the_cli_accepts_losses(ws, agent_dir):
    _removed_by_another_writer_then_committed(ws, agent_dir)

    out = run_cli(agent_dir, "doctor", "--accept-losses", check=False).stdout

    assert "accept-losses: accepted" in out and "outside-loss" not in out


def test_a_held_fragment_another_writer_removed_is_recorded_then_restored_by_doctor_fix(ws, agent_dir):
    """Protected (held by a pending reflection): recorded by the next commit like any other, and
    `doctor --fix` puts it back from history, which ends both findings."""
    path = write_stream(agent_dir, D, [fragment_line(D, k, "pm", f"uses pnpm, note {k}") for k in (1, 2)])
    run_dream(the_next_day(ws), dreamer=Scripted(lambda inp, s: s.write_shard("pm", draft("Uses pnpm", [cite(D, 1)]))),
              review="all")  # r-1 holds both
    line = fragment_line(D, 2, "pm", "uses pnpm, note 2")
    path.write_text("".join(x + "\n" for x in path.read_text().splitlines() if x != line))  # TypeClaw's GC, say
    write_stream(agent_dir, D, [fragment_line(D, 3, "misc", "a later note")])
    forget_fragment(the_next_day(ws), D, uuid_at(D, 3), "noise")  # a dreamdeck commit of the stream file

    assert "outside-loss" in _kinds(ws)
    fix(the_next_day(ws))

    assert line in path.read_text().splitlines()
    assert "outside-loss" not in _kinds(ws) and "missing-fragment" not in _kinds(ws)
