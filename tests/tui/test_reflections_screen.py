"""Screen 2, Reflections: hunk-by-hunk review driven with Pilot, checked on disk and in git."""
from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from dreamdeck.core.door.apply import apply_changeset
from dreamdeck.core.door.changeset import ChangeSet, Commit, FileEdit, Writes
from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.git.runner import head
from dreamdeck.core.store.reflections import load_reflection
from dreamdeck.core.store.state import load_state, save_state
from dreamdeck.tui.modals import ConfirmModal, ReasonModal
from dreamdeck.tui.screens.reflections import EMPTY, ReflectionsScreen
from dreamdeck.tui.widgets.diff_text import CONTINUATION
from dreamdeck.tui.widgets.hunk_view import GUTTER, HunkView
from tests.support.dreamers import Scripted, draft, merge_into
from tests.support.git import git
from tests.support.memory import cite, commit_all, fragment_line, shard_text, topics, uuid_at, write_shard, write_stream
from tests.support.tui import Notes, make_app
from tests.support.waits import settle
from tests.tui.apps import reflections_app

SIZE = (140, 40)
D1, D = "2026-05-20", "2026-05-22"


def status_of(ws, rid: str = "r-1") -> str:
    return json.loads((ws.meta_dir / "reflections" / f"{rid}.json").read_text())["status"]


def _seed(ws, agent_dir: Path) -> None:
    """Shards a (cites D1#1) and b (cites D1#2); today: D#1 for a, D#2 new, D#3 noise."""
    write_stream(agent_dir, D1, [fragment_line(D1, 1, "a", "fact a"), fragment_line(D1, 2, "b", "fact b")])
    write_shard(agent_dir, "a", shard_text("Belief a", [cite(D1, 1)]))
    write_shard(agent_dir, "b", shard_text("Belief b", [cite(D1, 2)]))
    state, _ = load_state(ws.state_path)
    save_state(ws.state_path, state.add_dreamed(D1, {uuid_at(D1, 1), uuid_at(D1, 2)}, "2026-05-20T10:00:00+00:00"))
    write_stream(agent_dir, D, [
        fragment_line(D, 1, "a", "a again"), fragment_line(D, 2, "n", "something new"),
        fragment_line(D, 3, "noise", "cold coffee"),
    ])
    commit_all(agent_dir)


def _two_files(inp, scratch):
    scratch.write_shard("a", draft("Belief a", [cite(D1, 1), cite(D, 1)]))
    scratch.write_shard("n", draft("Something new", [cite(D, 2)]))


def _rewrite_a(inp, scratch):
    scratch.write_shard("a", draft("Belief a, rewritten", [cite(D1, 1)]))
    scratch.write_shard("n", draft("Something new", [cite(D, 2)]))


def pending(ws, agent_dir, script=_two_files) -> None:
    _seed(ws, agent_dir)
    receipt = run_dream(ws, dreamer=Scripted(script, summary="two changes"), review="all")
    assert receipt.reflection == "r-1", receipt.to_json()


async def open_reflections(app, pilot) -> ReflectionsScreen:
    await settle(app, pilot)
    await pilot.press("2")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, ReflectionsScreen)
    return screen


def view(screen) -> HunkView:
    return screen.query_one("#hunks", HunkView)


async def go_to_file(pilot, screen, path: str) -> str:
    """Press n until the ┃ hunk belongs to `path`; returns that hunk's id."""
    hv = view(screen)
    assert path in {h.path for h in hv.hunks}, [h.path for h in hv.hunks]
    while hv.current.path != path:
        await pilot.press("n" if any(h.path == path for h in hv.hunks[hv.cursor:]) else "p")
    return hv.current.id


async def type_text(pilot, text: str) -> None:
    await pilot.press(*["space" if c == " " else c for c in text])


def commit_message(root: Path) -> str:
    return git(root, "log", "-1", "--format=%B")


# --- approving ---------------------------------------------------------------------------------------
async def test_space_on_one_hunk_then_enter_applies_only_that_file_as_a_partial_commit(ws, agent_dir):
    pending(ws, agent_dir)
    before = topics(agent_dir)
    proposed = {f.path: f.proposed for f in load_reflection(ws, "r-1").files}
    app = make_app(ws)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_reflections(app, pilot)
        assert len(view(screen).hunks) == 2
        hid = await go_to_file(pilot, screen, "topics/n.md")
        await pilot.press("space")
        assert screen.decisions == {hid: "approve"}
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        body = str(app.screen.query_one("#confirm-body").render())
        assert "1 of 2 hunks will be applied (partial approval)" in body
        assert "topics/n.md — added: 1 of 1 hunk" in body and "topics/a.md — modified: not applied" in body
        await pilot.press("y")
        await settle(app, pilot)

        after = topics(agent_dir)
        assert after["a.md"] == before["a.md"]
        assert after["n.md"].decode() == proposed["topics/n.md"]
        assert status_of(ws) == "pending"  # the undecided hunk of a.md waits in the same reflection
        msg = commit_message(agent_dir)
        assert "Reflection: r-1" in msg and "Approval: partial" in msg and "Actor: human:tester" in msg
        assert msg.startswith("dream: partial r-1 (1/2 hunks)")
        # the screen re-read core: only the undecided hunk of a.md is left in r-1
        assert list(screen._items) == ["r-1"]
        assert [f.path for f in screen._items["r-1"].files] == ["topics/a.md"]
        assert screen.decisions == {}
        await settle(app, pilot)
        info = str(screen.query_one("#refl-info").render())
        assert "decided so far: 1 hunk approved · 1 hunk left" in info  # the summary above is the dream's, whole


async def test_a_then_enter_applies_every_hunk(ws, agent_dir):
    pending(ws, agent_dir)
    proposed = {f.path: f.proposed for f in load_reflection(ws, "r-1").files}
    app = make_app(ws)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_reflections(app, pilot)
        await pilot.press("a")
        assert set(screen.decisions.values()) == {"approve"} and len(screen.decisions) == 2
        assert sum("✓ approve" in t for t in view(screen).row_texts()) == 2
        await pilot.press("enter", "y")
        await settle(app, pilot)

    after = topics(agent_dir)
    assert after["a.md"].decode() == proposed["topics/a.md"]
    assert after["n.md"].decode() == proposed["topics/n.md"]
    assert status_of(ws) == "approved"
    msg = commit_message(agent_dir)
    assert "Approval: approved" in msg and "Reflection: r-1" in msg and "(2/2 hunks)" in msg


# --- rejecting ---------------------------------------------------------------------------------------
async def test_R_with_a_reason_rejects_the_reflection_and_applies_nothing(ws, agent_dir):
    pending(ws, agent_dir)
    before = topics(agent_dir)
    app = make_app(ws)
    async with app.run_test(size=SIZE) as pilot:
        await open_reflections(app, pilot)
        await pilot.press("R")
        await pilot.pause()
        assert isinstance(app.screen, ReasonModal)
        await type_text(pilot, "too noisy")
        await pilot.press("enter")
        await settle(app, pilot)

    assert status_of(ws) == "rejected"
    decision = json.loads((ws.meta_dir / "reflections/r-1.json").read_text())["decisions"][-1]
    assert decision["reason"] == "too noisy" and decision["released"] is False and decision["actor"] == "human:tester"
    assert (ws.meta_dir / "reflection-log.md").read_text().splitlines()[-1].endswith(
        "r-1 rejected by human:tester: too noisy")
    assert topics(agent_dir) == before
    assert git(agent_dir, "log", "-1", "--format=%s").strip() == "memory: reject r-1"


async def test_X_rejects_and_releases_the_fragments_to_the_next_dream(ws, agent_dir):
    pending(ws, agent_dir)
    app = make_app(ws)
    async with app.run_test(size=SIZE) as pilot:
        await open_reflections(app, pilot)
        await pilot.press("X")
        await pilot.pause()
        assert isinstance(app.screen, ReasonModal)
        await type_text(pilot, "redo")
        await pilot.press("enter")
        await settle(app, pilot)

    assert status_of(ws) == "rejected"
    assert (ws.meta_dir / "reflection-log.md").read_text().splitlines()[-1].endswith("(fragments released)")
    state, _ = load_state(ws.state_path)
    assert uuid_at(D, 2) not in state.dreamed_ids(D)


async def test_enter_when_every_hunk_is_rejected_offers_to_reject_the_reflection(ws, agent_dir):
    pending(ws, agent_dir)
    before = topics(agent_dir)
    app = make_app(ws)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_reflections(app, pilot)
        await pilot.press("x", "n", "x")
        assert set(screen.decisions.values()) == {"reject"} and len(screen.decisions) == 2
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ReasonModal)
        await type_text(pilot, "all wrong")
        await pilot.press("enter")
        await settle(app, pilot)
    assert status_of(ws) == "rejected" and topics(agent_dir) == before


# --- refusals and stale bases ----------------------------------------------------------------------------
async def test_a_partial_choice_that_would_lose_a_citation_is_refused_naming_the_id_and_hunk(ws, agent_dir):
    pending(ws, agent_dir, script=merge_into("ab", ["a", "b"], "Beliefs a and b", extra=lambda inp: [cite(D, 1)]))
    before, before_head = topics(agent_dir), head(agent_dir)
    lost = f"{D1}#{uuid_at(D1, 1)}"
    app = make_app(ws)
    notes = Notes()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        screen = await open_reflections(app, pilot)
        delete_a = await go_to_file(pilot, screen, "topics/a.md")
        await pilot.press("space", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("y")
        await settle(app, pilot)

        errors = [m for t, m, sev in notes.triples() if sev == "error"]
        assert any(lost in m and delete_a in m for m in errors), errors
        refusal = str(screen.query_one("#refl-refusal").render())
        assert "last refusal" in refusal and lost in refusal and f"{delete_a} (topics/a.md) removes" in refusal
        assert screen.query_one("#refl-refusal").display
        # the blamed hunk is marked, and the choice is kept so it can be fixed
        rows = view(screen).row_texts()
        at = next(i for i, t in enumerate(rows) if delete_a in t)
        assert f"refused: drops {lost}" in rows[at] + rows[at + 1]
        create_ab = next(h.id for h in view(screen).hunks if h.path == "topics/ab.md")
        assert "keeps the cited fragment: approve it too" in next(t for t in rows if create_ab in t)
        assert screen.decisions == {delete_a: "approve"}

    assert topics(agent_dir) == before and head(agent_dir) == before_head
    assert status_of(ws) == "pending"


async def test_a_stale_base_that_conflicts_shows_the_hunk_as_conflict_and_space_refuses(ws, agent_dir):
    pending(ws, agent_dir, script=_rewrite_a)
    current = (agent_dir / "memory/topics/a.md").read_text()
    apply_changeset(ws, ChangeSet(
        Commit("edit", "human:cli", "approved", "test", "human rewrite"),
        Writes([FileEdit("topics/a.md", current, shard_text("Belief a, said differently", [cite(D1, 1)]))]),
    ))
    edited, before_head = (agent_dir / "memory/topics/a.md").read_bytes(), head(agent_dir)
    app = make_app(ws)
    notes = Notes()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        screen = await open_reflections(app, pilot)
        hid = await go_to_file(pilot, screen, "topics/a.md")
        hv = view(screen)
        assert hv.current.conflict
        rows = hv.row_texts()
        assert any("topics/a.md — modified" in t and "stale: base changed" in t and "⚠ conflict" in t for t in rows)
        header = next(t for t in rows if hid in t)
        assert header.startswith(GUTTER) and "⚠ conflict" in header and "· undecided" in header
        await pilot.press("space")
        await pilot.pause()
        assert hid not in screen.decisions
        assert any(hid in m and "conflict" in m.lower() for _, m, _ in notes.triples())
        # approve-all leaves it out too; the other file is still fine
        await pilot.press("a")
        assert hid not in screen.decisions and list(screen.decisions.values()) == ["approve"]
        assert "changed since the dream" in str(screen.query_one("#refl-info").render())
    assert (agent_dir / "memory/topics/a.md").read_bytes() == edited and head(agent_dir) == before_head


async def test_a_stale_base_that_merges_is_marked_rebases_cleanly_and_applies(ws, agent_dir):
    pending(ws, agent_dir, script=_rewrite_a)
    current = (agent_dir / "memory/topics/a.md").read_text()
    apply_changeset(ws, ChangeSet(  # a later reinforcement adds a citation at the end of a
        Commit("edit", "human:cli", "approved", "test", "reinforce a"),
        Writes([FileEdit("topics/a.md", current, shard_text("Belief a", [cite(D1, 1), cite(D, 1)]))]),
    ))
    app = make_app(ws)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_reflections(app, pilot)
        hid = await go_to_file(pilot, screen, "topics/a.md")
        header = next(t for t in view(screen).row_texts() if hid in t)
        assert "rebases cleanly" in header and not view(screen).current.conflict
        await pilot.press("space", "enter", "y")
        await settle(app, pilot)
    text = (agent_dir / "memory/topics/a.md").read_text()
    assert "heading: Belief a, rewritten" in text and cite(D, 1) in text
    assert status_of(ws) == "pending"  # the hunks not chosen stay pending


# --- navigation, empty state, edit -------------------------------------------------------------------------
async def test_n_and_p_move_the_gutter_marker_between_hunks(ws, agent_dir):
    pending(ws, agent_dir)
    app = make_app(ws)
    notes = Notes()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        screen = await open_reflections(app, pilot)
        hv = view(screen)
        first, second = (h.id for h in hv.hunks)

        def marked() -> set[str]:
            return {hid for hid in (first, second)
                    for t in hv.row_texts() if hid in t and t.startswith(GUTTER)}

        assert hv.cursor == 0 and marked() == {first}
        await pilot.press("n")
        assert hv.cursor == 1 and marked() == {second}
        assert "hunk 2/2" in str(screen.query_one("#refl-decisions").render())
        await pilot.press("n")  # already on the last hunk
        assert hv.cursor == 1
        await pilot.press("p")
        assert hv.cursor == 0 and marked() == {first}
        # the marked hunk's lines carry the gutter too
        rows = hv.row_texts()
        start = next(i for i, t in enumerate(rows) if first in t)
        assert rows[start + 1].startswith(GUTTER)
        # moving is not deciding: enter with nothing chosen applies nothing
        before_head = head(agent_dir)
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is screen and screen.decisions == {}
        assert any("Nothing chosen" in m for _, m, _ in notes.triples())
    assert head(agent_dir) == before_head and status_of(ws) == "pending"


async def test_the_empty_state_explains_itself_and_hides_the_hunk_keys(ws, agent_dir):
    app = make_app(ws)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_reflections(app, pilot)
        assert screen.query_one("#refl-empty").display
        assert str(screen.query_one("#refl-empty").render()) == EMPTY
        assert not screen.query_one("#refl-body").display
        for action in ("toggle", "approve_all", "apply", "reject", "edit", "next_hunk"):
            assert screen.check_action(action, ()) is False
        await pilot.press("space", "enter", "a")
        await settle(app, pilot)
        assert app.screen is screen


async def test_E_opens_the_editor_on_the_chosen_result_and_accepts_the_edited_text(ws, agent_dir, tmp_path,
                                                                                    monkeypatch):
    pending(ws, agent_dir)
    editor = tmp_path / "editor.py"
    editor.write_text(textwrap.dedent("""
        import sys
        for name in sys.argv[1:]:
            text = open(name, encoding="utf-8").read()
            open(name, "w", encoding="utf-8").write(text.replace("Something new.", "Something new, in my words."))
    """))
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    before = topics(agent_dir)
    app = make_app(ws)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_reflections(app, pilot)
        await go_to_file(pilot, screen, "topics/n.md")
        await pilot.press("space", "e")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmModal)
        assert "topics/n.md — edited" in str(app.screen.query_one("#confirm-body").render())
        await pilot.press("y")
        await settle(app, pilot)
    after = topics(agent_dir)
    assert "Something new, in my words." in after["n.md"].decode()
    assert after["a.md"] == before["a.md"]
    assert status_of(ws) == "partial"
    decision = json.loads((ws.meta_dir / "reflections/r-1.json").read_text())["decisions"][-1]
    assert decision["edited"] == ["topics/n.md"]


@pytest.mark.usefixtures("suspending_terminal")
async def test_after_E_and_the_confirm_the_hunks_have_focus_again_and_n_moves_on(ws, agent_dir, monkeypatch):
    pending(ws, agent_dir)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", "true")
    app = make_app(ws)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_reflections(app, pilot)
        assert screen.focused is view(screen)
        await pilot.press("e")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("n")  # "No": nothing is applied
        await settle(app, pilot)
        assert app.screen is screen and screen.focused is view(screen)
        first = view(screen).cursor
        await pilot.press("n")
        assert view(screen).cursor == first + 1
    assert status_of(ws) == "pending"


# --- snapshots -------------------------------------------------------------------------------------------
async def _open_screen_two(pilot) -> None:
    await settle(pilot.app, pilot)
    await pilot.press("2")
    await settle(pilot.app, pilot)


def test_snapshot_reflection_with_hunks(snap_compare, tmp_path):
    app = reflections_app.snapshot_app(tmp_path)

    async def run_before(pilot) -> None:
        await _open_screen_two(pilot)
        await pilot.press("space", "n", "x", "p")  # approve the first hunk, reject the second, go back
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_snapshot_confirm_modal(snap_compare, tmp_path):
    app = reflections_app.snapshot_app(tmp_path)

    async def run_before(pilot) -> None:
        await _open_screen_two(pilot)
        await pilot.press("space", "enter")  # a partial approval: 1 of 2 hunks
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


# --- claim by claim -------------------------------------------------------------------------------------
async def test_each_file_shows_what_it_does_to_its_claim_and_m_approves_only_the_mechanical_hunks(ws, agent_dir):
    pending(ws, agent_dir, _rewrite_a)
    before = topics(agent_dir)
    proposed = {f.path: f.proposed for f in load_reflection(ws, "r-1").files}
    app = make_app(ws)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_reflections(app, pilot)
        rows = view(screen).row_texts()
        assert any('✓ new claim: "Something new"' in t for t in rows), rows
        assert any('rewritten: "Belief a" → "Belief a, rewritten"' in t for t in rows), rows
        info = str(screen.query_one("#refl-info").render())
        assert "2 claims" in info and "1 mechanical" in info
        n_hunk = await go_to_file(pilot, screen, "topics/n.md")
        await pilot.press("m")
        assert screen.decisions == {n_hunk: "approve"}
        await pilot.press("enter", "y")
        await settle(app, pilot)

    after = topics(agent_dir)
    assert after["a.md"] == before["a.md"]
    assert after["n.md"].decode() == proposed["topics/n.md"]
    assert status_of(ws) == "pending"  # the rewrite of a.md, undecided, waits in the open reflection


async def test_at_80_columns_a_wrapped_added_line_goes_on_after_a_continuation_mark(ws, agent_dir):
    """Not under a second + sign: as plain text (copied, or through capture-pane) that read as
    another added line."""
    long = "Belief a, rewritten at length: deploys wait for the staging smoke test and for on-call to agree"
    pending(ws, agent_dir, script=lambda inp, s: s.write_shard("a", draft(long, [cite(D1, 1)])))
    app = make_app(ws)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_reflections(app, pilot)
        rows = [t[len(GUTTER):] for t in view(screen).row_texts()]
        at = next(i for i, t in enumerate(rows) if t.startswith("+heading: Belief a, rewritten"))
        assert rows[at + 1].startswith(CONTINUATION), rows[at:at + 3]


async def test_a_decision_moves_on_to_the_next_undecided_hunk(ws, agent_dir):
    """Space and x alone read a reflection top to bottom; undoing stays put."""
    pending(ws, agent_dir)
    app = make_app(ws)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_reflections(app, pilot)
        hv = view(screen)
        first, second = (h.id for h in hv.hunks)
        assert hv.current.id == first
        await pilot.press("space")
        assert screen.decisions == {first: "approve"} and hv.current.id == second
        await pilot.press("x")
        assert screen.decisions == {first: "approve", second: "reject"} and hv.current.id == second  # none left below
        await pilot.press("x")  # again on the same hunk: undecided, and the ┃ stays
        assert screen.decisions == {first: "approve"} and hv.current.id == second
        await pilot.press("p", "space")  # undoing the first stays on it
        assert screen.decisions == {} and hv.current.id == first
