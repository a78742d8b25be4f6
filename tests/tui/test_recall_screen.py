"""Recall screen (9): a question's ranked answers with every part of their score, opening one
where it lives, the next prompt's # Memory section, budgets, saving a question through the door;
and the recall impact of a reflection's chosen hunks on the Reflections screen. A preview never
writes the access record."""
from __future__ import annotations

import pytest

from dreamdeck.core.workspace import Workspace
from tests.support.git import git
from tests.support.memory import uuid_at
from tests.support.tui import make_app
from tests.support.waits import on_screen, settle, wait_for
from tests.tui.apps import recall_app
from tests.tui.apps.recall_app import TODAY

pytestmark = pytest.mark.usefixtures("fresh_search_indexes")  # tests/conftest.py


@pytest.fixture
def memory(tmp_path) -> Workspace:
    root = recall_app.pinned_agent_folder(tmp_path)
    recall_app.build_recall(root)
    return Workspace.open(root, today=TODAY)


def text(screen, selector: str) -> str:
    return str(screen.query_one(selector).render())


def answers(screen) -> list[tuple[str, str]]:
    table = screen.query_one("#answers-table")
    return [(str(table.source.row(i)["kind"]), str(table.source.row(i)["key"])) for i in range(table.row_count)]


async def ask(pilot, question: str):
    app = pilot.app
    await wait_for(pilot, lambda: type(app.screen).__name__ == "RecallScreen", what="the Recall screen")
    await settle(app, pilot)
    await pilot.press("slash")
    await pilot.press(*[("space" if c == " " else c) for c in question])
    await pilot.press("enter")
    screen = app.screen
    await wait_for(pilot, lambda: screen.view is not None and screen.view.query == question, what="the answer")
    await settle(app, pilot)
    return screen


async def test_a_question_shows_ranked_answers_with_every_part_of_their_score(memory):
    access = (memory.meta_dir / "access.jsonl").read_bytes()
    async with make_app(memory, "recall").run_test(size=(120, 36)) as pilot:
        screen = await ask(pilot, "deploys")
        assert answers(screen) == [("topic", "topic:deploy-day")]
        detail = text(screen, "#answer-text")
        assert "topic:deploy-day  Deploys go out on Tuesdays" in detail
        assert "bm25" in detail and "× weight" in detail and "(active)" in detail and "tier mentioned" in detail
        assert "shown 2×, last 2026-05-22" in detail  # the saved question was asked twice
        assert text(screen, "#recall-status").startswith("1 answer · ")
    assert (memory.meta_dir / "access.jsonl").read_bytes() == access  # a preview is not the agent being shown it


async def test_a_pinned_belief_opens_on_the_vault_screen(memory):
    async with make_app(memory, "recall").run_test(size=(120, 36)) as pilot:
        screen = await ask(pilot, "pnpm")
        assert answers(screen)[0] == ("vault", "vault:package-manager")
        await pilot.press("enter")
        app = pilot.app
        await wait_for(pilot, lambda: type(app.screen).__name__ == "VaultScreen", what="the Vault screen")
        await wait_for(pilot, lambda: (app.screen.query_one("#vault").current_row() or {}).get("slug") == "package-manager",
                       what="the pinned belief under the cursor")


async def test_a_belief_opens_on_the_topics_screen_with_its_shard(memory):
    async with make_app(memory, "recall").run_test(size=(120, 36)) as pilot:
        screen = await ask(pilot, "helix")
        assert answers(screen) == [("topic", "topic:editor")]
        await pilot.press("enter")
        app = pilot.app
        await wait_for(pilot, lambda: type(app.screen).__name__ == "TopicsScreen", what="the Topics screen")
        await wait_for(pilot, lambda: (app.screen.query_one("#strength").current_row() or {}).get("slug") == "editor",
                       what="the belief under the cursor")


async def test_an_undreamed_fragment_opens_on_the_stream_screen(memory):
    async with make_app(memory, "recall").run_test(size=(120, 36)) as pilot:
        screen = await ask(pilot, "standup room")
        assert answers(screen) == [("stream", f"stream:{TODAY}#{uuid_at(TODAY, 3)}")]
        await pilot.press("enter")
        app = pilot.app
        await wait_for(pilot, lambda: type(app.screen).__name__ == "StreamScreen", what="the Stream screen")
        await wait_for(pilot, lambda: app.screen.jumped_key == f"{TODAY}#{uuid_at(TODAY, 3)}", what="the jump")


async def test_the_next_prompt_shows_the_memory_section_with_its_mode_and_budget_use(memory):
    from dreamdeck.core.ops.inject import inject

    async with make_app(memory, "recall").run_test(size=(120, 36)) as pilot:
        screen = await ask(pilot, "helix")
        await pilot.press("n")
        await pilot.pause()
        assert screen.query_one("#recall-switcher").current == "prompt"
        expected = inject(memory, "helix", record=False)
        header = text(screen, "#prompt-header")
        assert header.startswith(f"mode direct · shard bodies {expected.plan.total_bytes:,} of the 16,384-byte budget")
        assert "shows the excerpts that match the question" in header
        assert f"the section: {len(expected.text.encode()):,} bytes" in header
        assert text(screen, "#prompt-text") == expected.text and expected.text.startswith("# Memory")


async def test_b_cycles_the_budget_and_d_brings_back_dormant_beliefs(memory):
    async with make_app(memory, "recall").run_test(size=(120, 36)) as pilot:
        screen = await ask(pilot, "user")
        assert "budget balanced · dormant hidden" in text(screen, "#recall-status")
        await pilot.press("b")
        await settle(pilot.app, pilot)
        assert "budget lean" in text(screen, "#recall-status") and len(answers(screen)) <= 3
        await pilot.press("d")
        await settle(pilot.app, pilot)
        assert "dormant shown" in text(screen, "#recall-status")


async def test_s_saves_the_question_through_the_door_and_s_again_unsaves_it(memory):
    saved = memory.meta_dir / "saved-queries.txt"
    commits = int(git(memory.root, "rev-list", "--count", "HEAD").strip())
    async with make_app(memory, "recall").run_test(size=(120, 36)) as pilot:
        screen = await ask(pilot, "helix")
        await pilot.press("s")
        await wait_for(pilot, lambda: "helix" in saved.read_text().splitlines(), what="the saved line")
        await settle(pilot.app, pilot)
        assert "★ saved" in text(screen, "#recall-status")
        await pilot.press("s")
        await wait_for(pilot, lambda: "helix" not in saved.read_text().splitlines(), what="the line removed")
    assert int(git(memory.root, "rev-list", "--count", "HEAD").strip()) == commits + 2
    assert "human:tui" in (memory.meta_dir / "audit.log").read_text().splitlines()[-1]


async def test_the_empty_box_lists_the_questions_an_impact_would_replay(memory):
    async with make_app(memory, "recall").run_test(size=(120, 36)) as pilot:
        app = pilot.app
        await wait_for(pilot, lambda: type(app.screen).__name__ == "RecallScreen", what="the Recall screen")
        await settle(app, pilot)
        lines = text(app.screen, "#answer-text").splitlines()
        assert lines[0] == "Replayed before an approval (i on Reflections):"
        assert [ln.split(maxsplit=2)[-1] for ln in lines[1:] if ln.strip()] == [
            "when do deploys go out", "which package manager", "standup"]


async def test_recall_is_reachable_from_the_palette(memory):
    async with make_app(memory).run_test(size=(120, 36)) as pilot:
        app = pilot.app
        await settle(app, pilot)
        await pilot.press("ctrl+p")
        await pilot.press(*"go to recall")
        await settle(app, pilot)
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "RecallScreen", what="the Recall screen")


# --- the impact on the Reflections screen ------------------------------------------------------
async def open_impact(pilot, *keys: str):
    app = pilot.app
    await wait_for(pilot, lambda: type(app.screen).__name__ == "ReflectionsScreen", what="the Reflections screen")
    await settle(app, pilot)
    for k in keys:
        await pilot.press(k)
    await pilot.press("i")
    await wait_for(pilot, lambda: type(app.screen).__name__ == "ImpactModal", what="the impact")
    await wait_for(pilot, lambda: "replaying" not in text(app.screen, "#impact-text"), what="the replay")
    return app.screen


async def test_i_on_reflections_shows_which_answers_the_reflection_changes(memory):
    async with make_app(memory, "reflections").run_test(size=(120, 36)) as pilot:
        modal = await open_impact(pilot)
        assert text(modal, "#impact-title") == "Recall impact of r-1 (all hunks)"
        shown = text(modal, "#impact-text")
        assert shown.splitlines()[0].startswith("1 of 3 replayed questions change · writes topics/deploy-day.md")
        assert "when do deploys go out  (★ saved)" in shown
        assert "* reworded topic:deploy-day  Deploys go out on Wednesdays  (reworded at 1)" in shown
        assert "which package manager  (asked 3×)  — unchanged" in shown
        await pilot.press("escape")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "ReflectionsScreen", what="closed")


async def test_the_impact_follows_the_hunks_chosen_so_far(memory):
    async with make_app(memory, "reflections").run_test(size=(120, 36)) as pilot:
        modal = await open_impact(pilot, "x")  # the only hunk rejected: nothing would change
        assert text(modal, "#impact-title") == "Recall impact of r-1 (no hunks)"
        assert text(modal, "#impact-text").startswith("0 of 3 replayed questions change · writes nothing")


# --- snapshots -----------------------------------------------------------------------------
def _asking(*keys: str):
    return on_screen("slash", *keys, "enter")


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=["80x24", "120x36"])
def test_snapshot_recall_answers(snap_compare, tmp_path, size):
    assert snap_compare(recall_app.snapshot_app(parent=tmp_path), terminal_size=size,
                        run_before=_asking(*"deploys"))


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=["80x24", "120x36"])
def test_snapshot_recall_next_prompt(snap_compare, tmp_path, size):
    assert snap_compare(recall_app.snapshot_app(parent=tmp_path), terminal_size=size,
                        run_before=on_screen("slash", *"helix", "enter", "n"))


def test_snapshot_recall_empty_box_lists_the_replayed_questions(snap_compare, tmp_path):
    assert snap_compare(recall_app.snapshot_app(parent=tmp_path), terminal_size=(80, 24), run_before=on_screen())
