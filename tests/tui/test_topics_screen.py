"""Screen 1, Topics: the strength table and the selected shard, driven with Pilot; the files on
disk and the git history are the truth, not only the screen."""
from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest
from textual.widgets import Input, OptionList, Static

from dreamdeck.core.formats.shards import parse_shard
from dreamdeck.core.index.shard_heads import ShardHeads
from dreamdeck.core.index.strength import strength_table
from dreamdeck.core.io.cache import clear_all
from dreamdeck.core.store.settings import load_settings
from dreamdeck.core.store.shard_files import list_shard_files
from dreamdeck.tui.app import DreamdeckApp
from dreamdeck.tui.modals import ReasonModal
from dreamdeck.tui.screens.topics import COLUMNS, SUPERSEDED_HEADING, TopicsScreen, cell_style
from dreamdeck.tui.widgets.virtual_table import VirtualTable
from tests.support.git import commit_count, git
from tests.support.memory import uuid_at
from tests.support.tui import Notes, make_app
from tests.support.waits import on_screen, settle, wait_for
from tests.tui.apps import topics_app

SIZE = (140, 40)
PM = "package-manager"


@pytest.fixture
def topics(ws):
    topics_app.build_topics(ws.root)
    return ws


def table(app) -> VirtualTable:
    return app.screen.query_one("#strength", VirtualTable)


def slugs(app) -> list[str]:
    t = table(app)
    return [str(t.source.row(i)["slug"]) for i in range(t.row_count)]


def text_of(app, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


def citation_texts(app) -> list[str]:
    cites = app.screen.query_one("#citations", OptionList)
    return [str(cites.get_option_at_index(i).prompt) for i in range(cites.option_count)]


def header(app) -> str:
    return table(app).render_line(0).text


# --- the table ---------------------------------------------------------------------------------
async def test_every_topic_with_every_column_of_dreamdeck_topics_in_typeclaws_order(topics):
    expected = strength_table(topics.topics_dir, topics.today(), load_settings(topics.root).decay,
                              frozenset(s for s, _ in list_shard_files(topics.vault_dir)))
    app = make_app(topics)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, TopicsScreen)
        assert slugs(app) == [r.slug for r in expected] == [
            PM, "deploy-day", "secrets", "loose-note", "editor", "tabs"]
        assert [c.label for c in COLUMNS] == ["slug", "cites", "days", "last", "age", "tier", "score", "status", "heading"]
        head = header(app).split()
        assert head == [c.label for c in COLUMNS]  # all nine fit at 140 cells, no horizontal scroll
        t = table(app)
        for i, r in enumerate(expected):
            row = t.source.row(i)
            assert (row["cites"], row["days"], row["last_reinforced"], row["age"], row["tier"], row["status"]) == \
                (r.cites, r.days, r.last_reinforced, r.age, r.tier, r.status)
            assert row["score"] == pytest.approx(r.score)
            assert row["heading"] == (r.heading or "(untitled)")
        first = t.render_line(1).text.split()
        assert first[:8] == [PM, "7", "7", "2026-05-21", "1", "always", "1.00", "active"]
        assert " ".join(first[8:]) == "The user always uses pnpm, not bun"
        statuses = {str(t.source.row(i)["slug"]): t.source.row(i)["status"] for i in range(t.row_count)}
        assert statuses == {PM: "active", "deploy-day": "active", "secrets": "pinned", "loose-note": "active",
                            "editor": "dormant", "tabs": "archived"}


@pytest.mark.perf_contract(reason="the first paint builds the rows on screen, not one per topic")
async def test_the_first_paint_builds_only_the_rows_on_screen_and_a_sort_builds_the_rest(ws):
    from tests.support.memory import cite, shard_text, write_shard

    for n in range(300):
        write_shard(ws.root, f"topic-{n:03d}", shard_text(f"Topic {n}", [cite("2026-05-20", n)]))
    app = make_app(ws)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        t = table(app)
        rows = t.source.rows
        assert t.row_count == 300 and rows.built <= SIZE[1]  # the rows on screen (and the cursor's)
        assert t.render_line(1).text.split()[0] == "topic-000"
        await pilot.press("G")  # the last row: built when it is shown
        await settle(app, pilot)
        assert t.current_row()["slug"] == "topic-299" and rows.built <= 2 * SIZE[1]
        t.sort_by("heading")
        await settle(app, pilot)
        assert rows.built == 300 and t.source.row(0)["heading"] == "Topic 0"


async def test_s_on_a_column_and_a_header_click_sort_and_reverse(topics):
    app = make_app(topics)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        t = table(app)
        await pilot.press("right", "right", "right", "right")  # slug → cites → days → last → age
        assert COLUMNS[t.cursor_column].key == "age"
        await pilot.press("s")
        await settle(app, pilot)
        assert t.sort_key == "age" and not t.sort_reverse
        assert slugs(app) == [PM, "deploy-day", "secrets", "loose-note", "editor", "tabs"]
        assert "age ▲" in header(app)
        await pilot.press("s")
        await settle(app, pilot)
        assert t.sort_reverse and slugs(app)[:2] == ["tabs", "editor"]
        assert "age ▼" in header(app)
        assert t.current_row()["slug"] == PM  # the cursor stays on its row
        # a click on the slug header sorts by slug, a second click reverses
        await pilot.click("#strength", offset=(2, 0))
        await settle(app, pilot)
        assert t.sort_key == "slug" and slugs(app) == sorted(slugs(app))
        await pilot.click("#strength", offset=(2, 0))
        await settle(app, pilot)
        assert t.sort_reverse and slugs(app) == sorted(slugs(app), reverse=True)
        # the heading column is reachable by mouse too
        left = sum(w + 2 for w in t.column_widths[:-1])
        await pilot.click("#strength", offset=(left + 1, 0))
        await settle(app, pilot)
        assert t.sort_key == "heading" and slugs(app)[0] == "loose-note"  # "(untitled)" sorts first


async def test_slash_filters_and_escape_clears(topics):
    app = make_app(topics)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        box = app.screen.query_one("#filter", Input)
        assert not box.display
        await pilot.press("slash")
        assert box.display and box.has_focus
        await pilot.press(*"depl")
        await settle(app, pilot)
        assert slugs(app) == ["deploy-day"]
        assert "Deploys go out on Wednesdays" in text_of(app, "#shard-title")  # the pane follows the filter
        await pilot.press("enter")  # keep the filter, back to the table
        assert table(app).has_focus and slugs(app) == ["deploy-day"]
        await pilot.press("slash")
        await pilot.press("ctrl+u", *"dorm")  # matches the status column too
        await settle(app, pilot)
        assert slugs(app) == ["editor"]
        await pilot.press("escape")
        await settle(app, pilot)
        assert not box.display and box.value == "" and table(app).has_focus
        assert len(slugs(app)) == 6
        assert table(app).current_row()["slug"] == "editor"  # the cursor stays on the row it was on


async def test_j_k_g_G_move_and_the_shard_pane_follows_with_resolved_citations(topics):
    app = make_app(topics)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert text_of(app, "#shard-title") == "The user always uses pnpm, not bun"
        assert text_of(app, "#shard-meta") == f"memory/topics/{PM}.md · cites 7 · days 7 · last 2026-05-21"
        cites = citation_texts(app)
        assert len(cites) == 7
        assert cites[0] == "2026-05-12 [package manager] User said: use pnpm, not bun, in this repo."
        await pilot.press("j")
        await settle(app, pilot)
        assert table(app).cursor_row == 1
        assert text_of(app, "#shard-title") == "Deploys go out on Wednesdays"
        assert text_of(app, "#shard-meta").endswith("last 2026-05-21 · tags ops")
        # the evidence for the belief first; what it replaced after, under a heading that says so
        # (it came first by date, so "why" opened on the fragment the belief contradicts)
        assert citation_texts(app) == [
            "2026-05-20 [deploy] Deploys moved to Wednesdays this quarter.",
            "2026-05-21 [deploy] Wednesday deploy went out at 14:00.",
            SUPERSEDED_HEADING,
            "⊘ 2026-05-18 [deploy] Deploys go out on Tuesdays after the standup.",
        ]
        assert app.screen.query_one("#citations", OptionList).get_option_at_index(2).disabled
        md = app.screen.query_one("#shard-md")
        sections = text_of(app, "#shard-sections")
        # the belief drawn as Markdown; its citation sections as the plain lines they are
        assert md.source == "Deploys go out on Wednesdays."
        assert sections.startswith("fragments:\n- streams/2026-05-20#") and "\nsuperseded:\n- streams/2026-05-18#" in sections
        await pilot.press("j")
        await settle(app, pilot)
        assert text_of(app, "#shard-title") == "📌 Never paste production credentials into chat"
        await pilot.press("G")
        await settle(app, pilot)
        assert table(app).cursor_row == 5 and text_of(app, "#shard-title") == "The user prefers tabs in Makefiles"
        await pilot.press("k")
        await settle(app, pilot)
        assert text_of(app, "#shard-title") == "The user edits with Helix"
        assert citation_texts(app) == ["2026-03-02 [editor] User opened the repo in Helix and asked for its config."]
        await pilot.press("g")
        await settle(app, pilot)
        assert table(app).cursor_row == 0 and text_of(app, "#shard-title") == "The user always uses pnpm, not bun"


async def test_an_unparseable_shard_has_a_red_slug_and_its_parse_error_in_the_meta_line(topics):
    app = make_app(topics)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        t = table(app)
        row = t.source.row(slugs(app).index("loose-note"))
        assert cell_style("slug", row) == "bold red"
        assert cell_style("slug", t.source.row(0)) is None
        line = t.render_line(1 + slugs(app).index("loose-note"))
        slug_seg = next(s for s in line if s.text.strip() == "loose-note")
        assert slug_seg.style.color.name == "red" and slug_seg.style.bold
        await pilot.press("j", "j", "j")
        await settle(app, pilot)
        assert t.current_row()["slug"] == "loose-note"
        assert text_of(app, "#shard-title") == "loose-note"
        meta = text_of(app, "#shard-meta")
        assert meta == ("memory/topics/loose-note.md · ⚠ TypeClaw cannot parse it: "
                        "frontmatter delimiter missing")
        assert app.screen.query_one("#shard-meta").has_class("-error")
        assert citation_texts(app) == ["2026-05-18 [deploy] Deploys go out on Tuesdays after the standup."]
        await pilot.press("k")
        await settle(app, pilot)
        assert not app.screen.query_one("#shard-meta").has_class("-error")


async def test_an_empty_workspace_says_how_to_start(ws):
    app = make_app(ws)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        t = table(app)
        assert t.row_count == 0
        shown = "\n".join(t.render_line(y).text for y in range(t.size.height))
        assert "No topics yet: add fragments (dreamdeck remember TEXT), then dream: 7, d." in shown
        assert text_of(app, "#shard-title") == "" and citation_texts(app) == []
        assert not app.screen.check_action("pin", ()) and not app.screen.check_action("forget", ())
        keys = {b.binding.id for b in app.screen.active_bindings.values()}
        assert "topics.pin" not in keys and "topics.edit" not in keys
        await pilot.press("p", "f", "e")  # nothing to act on: no modal, no commit
        await settle(app, pilot)
        assert isinstance(app.screen, TopicsScreen)


async def test_with_no_topics_but_a_dream_to_review_topics_points_to_it_whole_at_80_columns(ws):
    from dreamdeck.core.dreaming.run import run_dream
    from tests.support.dreamers import Scripted, draft
    from tests.support.memory import fragment_line, uuid_at, write_stream

    write_stream(ws.root, "2026-05-20", [fragment_line("2026-05-20", 1, "deploy", "Deploys go out on Tuesdays.")])
    run_dream(ws, review="all", dreamer=Scripted(lambda inp, s: s.write_shard(
        "deploy-day", draft("Deploys go out on Tuesdays", [f"streams/2026-05-20#{uuid_at('2026-05-20', 1)}"]))))
    app = make_app(ws)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        t = table(app)
        assert t.row_count == 0
        shown = "\n".join(t.render_line(y).text for y in range(t.size.height))
        assert "No topics yet: a dream waits for your review on 2 (Reflections)." in shown
        assert "dreamdeck remember" not in shown


# --- citation jump -------------------------------------------------------------------------------
async def test_enter_on_a_citation_opens_that_fragment_on_the_stream_screen(topics, monkeypatch):
    app = make_app(topics)
    jumps = []
    real_switch = app.switch_mode

    def spy(mode):
        jumps.append((mode, app.pending_jump))
        return real_switch(mode)

    monkeypatch.setattr(app, "switch_mode", spy)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("j")  # deploy-day: its first citation is 2026-05-20 #2 (the superseded one comes last)
        await settle(app, pilot)
        await pilot.press("enter")  # the footer's "⏎ Citations"
        cites = app.screen.query_one("#citations", OptionList)
        assert cites.has_focus and cites.highlighted == 0
        await pilot.press("enter")
        target = ("2026-05-20", uuid_at("2026-05-20", 2))
        assert [j for j in jumps if j[0] == "stream"] == [("stream", target)]  # pending_jump set before the switch
        for _ in range(100):
            await settle(app, pilot)
            if type(app.screen).__name__ == "StreamScreen" and app.screen.jumped_key:
                break
        screen = app.screen
        assert type(screen).__name__ == "StreamScreen" and app.current_mode == "stream"
        assert screen.jumped_key == "#".join(target) and app.pending_jump is None
        row = screen.table.current_row()
        assert (row["date"], row["id"]) == target


# --- the first paint from the projection -----------------------------------------------------------
class HeldProof(TopicsScreen):
    """Topics whose proof against the files waits for the test, so the first paint (the rows the
    projection recorded) stays on screen as long as the test looks at it."""

    release = threading.Event()

    def proven_rows(self, *args, **kwargs):
        assert type(self).release.wait(20), "the test never released the proof"
        return super().proven_rows(*args, **kwargs)


class HeldProofApp(DreamdeckApp):
    MODES = {**DreamdeckApp.MODES, "topics": HeldProof}


async def test_rows_painted_from_the_projection_are_proven_before_any_action_on_them(topics, settled_clock):
    """The rule: a fresh app paints the rows the projection recorded, then proves them against the
    files (strength_table) and repaints. Until then pin, forget and edit are disabled, and the shard
    pane is read from the file; so a row is never acted on as the projection pictured it."""
    clear_all()
    strength_table(topics.topics_dir, topics.today(), load_settings(topics.root).decay, heads=ShardHeads.of(topics))
    path = topics.topics_dir / f"{PM}.md"
    before = os.stat(path)
    path.write_text(path.read_text().replace("uses pnpm, not bun", "uses yarn, not bun"))  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # mtime forced back; ctime moves on
    clear_all()  # a fresh process
    HeldProof.release = threading.Event()
    app = make_app(topics, app_class=HeldProofApp)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TopicsScreen) and table(app).row_count > 0,
                       what="the first paint")
        screen = app.screen
        assert not screen.proven and slugs(app)[0] == PM
        assert table(app).current_row()["heading"] == "The user always uses pnpm, not bun"  # the picture
        # The person is told why pin, forget and edit are dimmed: the line under the tabs says so.
        assert text_of(app, ".purpose").startswith("Checking each row against its file")
        await wait_for(pilot, lambda: "yarn" in text_of(app, "#shard-title"), what="the pane, read from the file")
        await pilot.press("p", "f", "e")
        await pilot.pause()
        assert not (topics.vault_dir / f"{PM}.md").exists() and not isinstance(app.screen, ReasonModal)
        HeldProof.release.set()
        await settle(app, pilot)
        assert screen.proven and table(app).current_row()["heading"] == "The user always uses yarn, not bun"
        assert text_of(app, ".purpose") == TopicsScreen.PURPOSE
        await pilot.press("p")
        await settle(app, pilot)
        assert (topics.vault_dir / f"{PM}.md").read_bytes() == path.read_bytes()


def footer_key(app, action: str):
    from textual.widgets._footer import FooterKey

    return next(k for k in app.screen.query(FooterKey) if k.action == action)


@pytest.mark.perf_contract(reason="the keys of a screen behind a modal are not recomposed while it is open")
async def test_keys_that_change_behind_a_modal_are_shown_when_it_closes_and_not_rebuilt_before(
        topics, settled_clock):
    clear_all()
    strength_table(topics.topics_dir, topics.today(), load_settings(topics.root).decay, heads=ShardHeads.of(topics))
    clear_all()
    HeldProof.release = threading.Event()
    app = make_app(topics, app_class=HeldProofApp)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TopicsScreen) and table(app).row_count > 0,
                       what="the first paint")
        screen = app.screen
        # the footer composes its keys once more when it adds the palette's: wait for its last form
        await wait_for(pilot, lambda: any(k.has_class("-command-palette") for k in screen.query("FooterKey")),
                       what="the footer's keys")
        await pilot.pause()
        assert footer_key(app, "pin").has_class("-disabled")  # not proven yet
        keys = list(screen.query("FooterKey"))
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: app.screen is not screen, what="the help modal")
        HeldProof.release.set()
        await wait_for(pilot, lambda: screen.proven, what="the proof behind the modal")
        await pilot.pause()
        assert list(screen.query("FooterKey")) == keys  # the same widgets: nothing rebuilt behind the modal
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen and not footer_key(app, "pin").has_class("-disabled")


# --- actions: files and git ----------------------------------------------------------------------
async def test_p_pins_the_topic_byte_for_byte_in_a_new_commit_and_a_second_p_says_it_is_pinned(topics):
    before = commit_count(topics.root)
    app = make_app(topics)
    notes = Notes()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await settle(app, pilot)
        await pilot.press("p")
        await settle(app, pilot)
        vault = topics.vault_dir / f"{PM}.md"
        assert vault.read_bytes() == (topics.topics_dir / f"{PM}.md").read_bytes()
        assert commit_count(topics.root) == before + 1
        msg = git(topics.root, "log", "-1", "--format=%B")
        assert msg.startswith(f"memory: pin {PM}")
        assert "Actor: human:tester" in msg.splitlines()
        assert f"memory/vault/{PM}.md" in git(topics.root, "show", "--name-status", "--format=", "HEAD")
        assert table(app).current_row()["status"] == "pinned"  # the view re-read core
        assert text_of(app, "#shard-title").startswith("📌 ")
        assert any(f"pinned {PM}" in n.message for n in notes.raised)

        await pilot.press("p")  # again: already pinned, so it says so and commits nothing
        await settle(app, pilot)
        assert commit_count(topics.root) == before + 1
        assert notes.messages[-1] == f"{PM} is already pinned (the vault copy is identical)"
        assert sum(f"pinned {PM} to the vault" in m for m in notes.messages) == 1


async def test_f_with_a_reason_archives_the_topic_in_a_commit(topics):
    text = (topics.topics_dir / "editor.md").read_bytes()
    before = commit_count(topics.root)
    app = make_app(topics)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("G", "k")  # editor
        await settle(app, pilot)
        await pilot.press("f")
        await pilot.pause()
        assert isinstance(app.screen, ReasonModal)
        assert "Forget topic editor?" in str(app.screen.query_one(".title").render())
        await pilot.press("enter")  # a reason is required
        await pilot.pause()
        assert isinstance(app.screen, ReasonModal)
        assert "A reason is required." in str(app.screen.query_one("#reason-error").render())
        await pilot.press(*"switched to vim")
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, TopicsScreen)
        assert not (topics.topics_dir / "editor.md").exists()
        assert (topics.memory / "archive" / "editor.md").read_bytes() == text
        assert commit_count(topics.root) == before + 1
        msg = git(topics.root, "log", "-1", "--format=%B")
        assert msg.startswith("memory: forget editor") and "Actor: human:tester" in msg.splitlines()
        assert "topic editor archived: switched to vim" in (topics.meta_dir / "audit.log").read_text()
        shown = git(topics.root, "show", "--name-status", "--no-renames", "--format=", "HEAD")
        assert "A\tmemory/archive/editor.md" in shown and "D\tmemory/topics/editor.md" in shown
        assert "editor" not in slugs(app) and len(slugs(app)) == 5


def test_the_forget_commit_removes_the_topic_from_the_tree(topics):
    from dreamdeck.core.ops.forget import forget_topic

    forget_topic(topics, "editor", reason="switched to vim", actor="human:tester")  # what `f` calls
    assert git(topics.root, "log", "-1", "--format=%s").strip() == "memory: forget editor"
    assert git(topics.root, "ls-tree", "--name-only", "HEAD", "memory/archive/editor.md").strip()
    assert git(topics.root, "ls-tree", "--name-only", "HEAD", "memory/topics/editor.md").strip() == ""
    assert "memory/topics/editor.md" not in git(topics.root, "status", "--porcelain", "--ignored", "memory/")


async def test_f_then_escape_cancels_and_nothing_changes(topics):
    files = {p.name: p.read_bytes() for p in topics.topics_dir.glob("*.md")}
    before = commit_count(topics.root)
    app = make_app(topics)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f")
        await pilot.pause()
        assert isinstance(app.screen, ReasonModal)
        await pilot.press(*"not sure")
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, TopicsScreen)
    assert {p.name: p.read_bytes() for p in topics.topics_dir.glob("*.md")} == files
    assert not (topics.memory / "archive").exists()
    assert commit_count(topics.root) == before


def editor_script(tmp_path: Path, body: str) -> str:
    script = tmp_path / "edit.sh"
    script.write_text(f"#!/bin/sh\nset -e\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


async def test_e_edits_in_the_editor_through_the_door(topics, tmp_path, monkeypatch):
    # the belief is reworded and the frontmatter tampered with: the door recomputes it
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", editor_script(tmp_path, (
        "sed -i -e 's/^The user always uses pnpm, not bun\\./The user uses pnpm everywhere./' "
        "-e 's/^cites: 7$/cites: 99/' \"$1\"")))
    path = topics.topics_dir / f"{PM}.md"
    before = commit_count(topics.root)
    app = make_app(topics)
    notes = Notes()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await settle(app, pilot)
        await pilot.press("e")
        await settle(app, pilot)
        meta, body = parse_shard(path.read_text())
        assert body.startswith("The user uses pnpm everywhere.\n")
        assert meta.cites == 7 and meta.days == 7 and meta.last_reinforced == "2026-05-21"  # recomputed
        assert commit_count(topics.root) == before + 1
        msg = git(topics.root, "log", "-1", "--format=%B")
        assert msg.startswith(f"memory: edit {PM}") and "Actor: human:tester" in msg.splitlines()
        assert git(topics.root, "show", "--name-only", "--format=", "HEAD").split() == [
            "memory/meta/audit.log", f"memory/topics/{PM}.md"]
        assert "The user uses pnpm everywhere." in app.screen.query_one("#shard-md").source
        assert any(f"saved {PM}" in n.message for n in notes.raised)


async def test_an_edit_that_drops_a_citation_is_refused_and_nothing_changes(topics, tmp_path, monkeypatch):
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", editor_script(tmp_path, "sed -i '/2026-05-12#/d' \"$1\""))
    path = topics.topics_dir / f"{PM}.md"
    data, before = path.read_bytes(), commit_count(topics.root)
    app = make_app(topics)
    notes = Notes()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await settle(app, pilot)
        await pilot.press("e")
        await settle(app, pilot)
        refusals = [n for n in notes.raised if n.title == "Edit: refused"]
        assert len(refusals) == 1 and n_severity(refusals[0]) == "error"
        assert uuid_at("2026-05-12", 1) in refusals[0].message
    assert path.read_bytes() == data and commit_count(topics.root) == before


async def test_an_editor_that_fails_or_changes_nothing_saves_nothing(topics, tmp_path, monkeypatch):
    monkeypatch.delenv("VISUAL", raising=False)
    data, before = (topics.topics_dir / f"{PM}.md").read_bytes(), commit_count(topics.root)
    app = make_app(topics)
    notes = Notes()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await settle(app, pilot)
        monkeypatch.setenv("EDITOR", editor_script(tmp_path, "true"))
        await pilot.press("e")
        await settle(app, pilot)
        monkeypatch.setenv("EDITOR", editor_script(tmp_path, "sed -i 's/pnpm/npm/' \"$1\"; exit 3"))
        await pilot.press("e")
        await settle(app, pilot)
        messages = [n.message for n in notes.raised]
        assert "edit cancelled: nothing changed" in messages
        assert "the editor exited with status 3: nothing was saved" in messages
    assert (topics.topics_dir / f"{PM}.md").read_bytes() == data and commit_count(topics.root) == before


@pytest.mark.usefixtures("suspending_terminal")
async def test_after_the_editor_the_table_has_focus_again_and_j_moves_on(topics, tmp_path, monkeypatch):
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", editor_script(tmp_path, "sed -i 's/pnpm, not bun/pnpm everywhere/' \"$1\""))
    app = make_app(topics)
    notes = Notes()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await settle(app, pilot)
        await pilot.press("e")
        await settle(app, pilot)
        assert any(f"saved {PM}" in n.message for n in notes.raised)
        assert app.screen.focused is table(app)
        await pilot.press("j")
        await settle(app, pilot)
        assert table(app).cursor_row == 1 and text_of(app, "#shard-title") == "Deploys go out on Wednesdays"
        await pilot.press("k")
        assert table(app).cursor_row == 0


@pytest.mark.usefixtures("suspending_terminal")
async def test_after_the_editor_focus_is_back_on_the_citation_list_it_was_on(topics, tmp_path, monkeypatch):
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", editor_script(tmp_path, "true"))
    app = make_app(topics)
    notes = Notes()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await settle(app, pilot)
        await pilot.press("tab", "tab")  # the table, the shard's text, its citations
        cites = app.screen.query_one("#citations", OptionList)
        assert app.screen.focused is cites
        await pilot.press("e")
        await settle(app, pilot)
        assert "edit cancelled: nothing changed" in [n.message for n in notes.raised]
        assert app.screen.focused is cites
        await pilot.press("down")
        assert cites.highlighted == 1


def n_severity(notification) -> str:
    return str(notification.severity)


# --- snapshots -----------------------------------------------------------------------------------
def test_snapshot_topics_with_a_selected_shard(snap_compare, tmp_path):
    assert snap_compare(topics_app.snapshot_app(parent=tmp_path), terminal_size=SIZE, run_before=on_screen("j"))


def test_snapshot_topics_filtered(snap_compare, tmp_path):
    assert snap_compare(topics_app.snapshot_app(parent=tmp_path), terminal_size=SIZE,
                        run_before=on_screen("slash", *"pnpm"))


def test_snapshot_topics_help(snap_compare, tmp_path):
    assert snap_compare(topics_app.snapshot_app(parent=tmp_path), terminal_size=SIZE,
                        run_before=on_screen("question_mark"))


def test_snapshot_topics_forget_reason(snap_compare, tmp_path):
    assert snap_compare(topics_app.snapshot_app(parent=tmp_path), terminal_size=SIZE,
                        run_before=on_screen("G", "k", "f"))


def test_the_shard_body_splits_into_the_belief_and_its_citation_sections():
    from dreamdeck.tui.screens.topics import split_sections

    body = "The user uses pnpm.\n\nMore prose.\n\nfragments:\n- streams/2026-05-20#a\n\nsuperseded:\n- streams/2026-05-18#b\n"
    assert split_sections(body) == ("The user uses pnpm.\n\nMore prose.",
                                    "fragments:\n- streams/2026-05-20#a\n\nsuperseded:\n- streams/2026-05-18#b")
    assert split_sections("Only a belief.\n") == ("Only a belief.\n", "")
    assert split_sections("B.\r\n\r\nReferences:\r\n- slug\r\n") == ("B.", "References:\r\n- slug")
    assert split_sections("fragments:\n- streams/2026-05-20#a\n") == ("", "fragments:\n- streams/2026-05-20#a")


async def test_angle_brackets_in_a_belief_are_shown_as_written_not_eaten_as_html(ws):
    """A belief like `<type>/<PLAT-key>-<slug>` is text; Markdown must not drop it as inline HTML."""
    from textual.widgets import Markdown

    from tests.support.memory import shard_text, write_shard

    write_shard(ws.root, "naming", shard_text("Branches are <type>/<PLAT-key>-<slug>", ["streams/2026-05-20#a1"]))
    app = make_app(ws)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        md = app.screen.query_one("#shard-md", Markdown)
        shown = "".join(str(block._content) for block in md.children)
        assert "Branches are <type>/<PLAT-key>-<slug>." in shown
