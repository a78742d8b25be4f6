"""The app around the screens: number keys, the tab bar and its badges, help, the command
palette, the user config (theme, keymap) and quitting; checked on disk where something is written."""
from __future__ import annotations

from pathlib import Path

import pytest
from textual.command import CommandList, CommandPalette

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.tui.app import DreamdeckApp
from dreamdeck.tui.config import load_user_config
from dreamdeck.tui.modals import HelpModal
from dreamdeck.tui.screens.topics import TopicsScreen
from dreamdeck.tui.widgets.tab_bar import TABS, TabBar
from tests.support.dreamers import Scripted, draft
from tests.support.memory import commit_all, fragment_line, uuid_at, write_stream
from tests.support.tui import Notes, make_app
from tests.support.waits import settle
from tests.tui.apps import topics_app

SIZE = (140, 40)
PM = "package-manager"


@pytest.fixture(autouse=True)
def config_dir(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "user-config"
    monkeypatch.setenv("DREAMDECK_CONFIG_DIR", str(folder))
    return folder


@pytest.fixture
def topics(ws):
    topics_app.build_topics(ws.root)
    return ws


def bar_text(app) -> str:
    return str(app.screen.query_one(TabBar).render())


def current_tab(app) -> str:
    """The label drawn reversed in the tab bar."""
    content = app.screen.query_one(TabBar).render()
    spans = [content.plain[s.start:s.end] for s in content.spans if "reverse" in str(s.style)]
    return " ".join(x.strip() for x in spans if x.strip())


async def test_number_keys_switch_screens_and_the_tab_bar_shows_the_current_one(topics):
    app = make_app(topics)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.current_mode == "topics" and current_tab(app) == "1 Topics"
        assert bar_text(app).startswith(" dreamdeck · agent │") and "○ watcher off" in bar_text(app)
        for mode, key, label in [*TABS[1:], TABS[0]]:
            await pilot.press(key)
            await settle(app, pilot)
            assert app.current_mode == mode and app.screen.MODE == mode
            assert app.screen.query_one(TabBar).current == mode
            assert current_tab(app) == f"{key} {label}"


async def test_question_mark_lists_the_current_screens_keys_one_per_line_under_the_tabs_name(topics):
    app = make_app(topics)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpModal)
        shown = help_lines(app)
        assert shown[0] == "1 Topics" and shown[1].startswith("How strong is each belief?")
        rows = dict((k, d) for k, d in app.screen.keys)
        for key, action in (("/", "Filter"), ("p", "Pin"), ("f", "Forget"), ("e", "Edit"), ("s", "Sort"),
                            ("?", "Help"), ("↑ k / ↓ j", "Up / down"), ("tab / shift+tab", "Next / previous pane")):
            assert rows.get(key) == action, (key, rows)
        assert "Number keys 1–9 switch screens" in shown[-2] + " " + shown[-1] and "q quits" in shown[-1]
        # one key per line: every row of the key list is on its own line of the modal
        for key, action in app.screen.keys:
            assert any(line.split() and key in line and action in line for line in shown), (key, action)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TopicsScreen)
        # another screen, other keys, its own name
        await pilot.press("4", "question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpModal)
        assert help_lines(app)[0] == "4 Vault" and "Pin" not in dict(app.screen.keys).values()
        await pilot.press("escape", "7", "question_mark")
        await settle(app, pilot)
        assert help_lines(app)[0] == "7 Dream"
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.MODE == "control"


def help_lines(app) -> list[str]:
    """The help modal as it is drawn, line by line, without blank lines."""
    from textual.widgets import Static

    lines = []
    for widget in app.screen.query(Static):
        for strip in widget.render_lines(widget.region.reset_offset):
            text = strip.text.strip()
            if text:
                lines.append(text)
    return lines


async def test_the_help_is_compact_twelve_keys_take_about_a_dozen_lines_and_columns_when_wide(topics):
    for size, most in (((80, 24), 16), ((200, 50), 8)):
        app = make_app(topics)
        async with app.run_test(size=size) as pilot:
            await settle(app, pilot)
            await pilot.press("question_mark")
            await pilot.pause()
            keys = app.screen.query_one("#help-keys")
            assert len(app.screen.keys) >= 12
            assert keys.region.height <= most, (size, keys.region.height)


async def palette_entries(app, pilot, query: str = "") -> list[str]:
    await pilot.press("ctrl+p")
    await pilot.pause()
    assert isinstance(app.screen, CommandPalette)
    if query:
        await pilot.press(*query)
    else:
        await pilot.press("down")  # discovery: the list shows without a query
    for _ in range(50):
        await pilot.pause(0.02)
        options = app.screen.query_one(CommandList)
        if options.option_count:
            break
    options = app.screen.query_one(CommandList)
    return [str(options.get_option_at_index(i).prompt).split("\n")[0] for i in range(options.option_count)]


async def test_the_palette_lists_screens_and_the_current_screens_actions_and_runs_them(topics):
    app = make_app(topics)
    notes = Notes()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await settle(app, pilot)
        names = await palette_entries(app, pilot)
        for _, _, label in TABS:
            assert f"Go to {label}" in names
        assert {"Dream now", "Pin", "Forget", "Edit", "Filter"} <= set(names)
        await pilot.press("escape")
        await pilot.pause()
        names = await palette_entries(app, pilot, "pin")
        assert names[0] == "Pin"
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, TopicsScreen)
        assert (topics.vault_dir / f"{PM}.md").read_bytes() == (topics.topics_dir / f"{PM}.md").read_bytes()
        assert any(f"pinned {PM}" in n.message for n in notes.raised)
        # "Go to …" switches screens
        await palette_entries(app, pilot, "go to history")
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.current_mode == "history"


async def test_a_theme_change_is_saved_to_the_user_config_and_used_by_the_next_app(ws, config_dir):
    (config_dir).mkdir()
    (config_dir / "config.toml").write_text('watcher = false\n[keymap]\n"topics.pin" = "P"\n')
    app = DreamdeckApp(ws, watcher=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.theme != "gruvbox"
        app.theme = "gruvbox"
        await pilot.pause()
    saved = (config_dir / "config.toml").read_text()
    assert saved.splitlines()[0] == 'theme = "gruvbox"'
    assert '[keymap]\n"topics.pin" = "P"' in saved  # the rest of the file is kept
    cfg = load_user_config()
    assert (cfg.theme, cfg.watcher, cfg.keymap, cfg.problem) == ("gruvbox", False, {"topics.pin": "P"}, None)
    again = DreamdeckApp(ws, watcher=False)
    async with again.run_test(size=SIZE) as pilot:
        await settle(again, pilot)
        assert again.theme == "gruvbox"


async def test_the_palette_changes_the_theme_too(ws, config_dir):
    app = make_app(ws)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await palette_entries(app, pilot, "theme")
        await pilot.press("enter")  # "Theme": the theme picker
        await pilot.pause()
        await pilot.press(*"nord")
        for _ in range(50):
            await pilot.pause(0.02)
            if app.screen.query_one(CommandList).option_count:
                break
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.theme == "nord"
    assert load_user_config().theme == "nord"


async def test_a_user_keymap_remaps_pin(topics, config_dir):
    config_dir.mkdir()
    (config_dir / "config.toml").write_text('[keymap]\n"topics.pin" = "P"\n')
    app = DreamdeckApp(topics, watcher=False)
    vault = topics.vault_dir / f"{PM}.md"
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("p")
        await settle(app, pilot)
        assert not vault.exists()
        footer_keys = {b.binding.id: b.binding.key for b in app.screen.active_bindings.values()}
        assert footer_keys["topics.pin"] == "P"
        await pilot.press("P")
        await settle(app, pilot)
        assert vault.read_bytes() == (topics.topics_dir / f"{PM}.md").read_bytes()


async def test_a_broken_user_config_is_reported_not_fatal(ws, config_dir):
    config_dir.mkdir()
    (config_dir / "config.toml").write_text("theme = \n")
    app = DreamdeckApp(ws, watcher=False)
    notes = Notes()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, TopicsScreen)
        assert any(n.title == "user config ignored" for n in notes.raised)


async def test_a_pending_reflection_shows_a_badge_on_the_reflections_tab(ws):
    D = "2026-05-22"
    write_stream(ws.root, D, [fragment_line(D, 1, "ci", "CI runs on every push to main")])
    commit_all(ws.root)
    cite = f"streams/{D}#{uuid_at(D, 1)}"
    receipt = run_dream(ws, review="all", dreamer=Scripted(
        lambda inp, scratch: scratch.write_shard("ci", draft("CI runs on every push to main", [cite]))))
    assert receipt.reflection == "r-1", receipt.to_json()
    app = make_app(ws)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.counts["reflections"] == 1
        assert " 2 Reflections⚑1 " in bar_text(app)  # nine tabs at 140 columns: the badge's words give way first
        assert "Proposals ⚑" not in bar_text(app)
        content = app.screen.query_one(TabBar).render()
        badge = [s for s in content.spans if content.plain[s.start:s.end].strip() == "⚑1"]
        assert badge and "reverse" in str(badge[0].style)


async def test_q_quits(ws):
    app = make_app(ws)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0 and not app.is_running


# --- what an action's failure looks like ---------------------------------------------------------------
async def test_a_refusal_is_a_toast_with_its_own_words_and_a_bug_is_reported_as_a_bug(topics):
    from dreamdeck.core.errors import Refused

    def refused():
        raise Refused("refused: would drop 1 cited fragment: 2026-05-12#x")

    def broken():
        return {}["missing-key"]

    app = make_app(topics)
    notes = Notes()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await settle(app, pilot)
        app.screen.act("Pin", refused)
        await settle(app, pilot)
        app.screen.act("Forget", broken)
        await settle(app, pilot)
        toasts = {n.title: n for n in notes.raised}
    refusal, bug = toasts["Pin: refused"], toasts["Forget: bug in dreamdeck"]
    assert refusal.message == "refused: would drop 1 cited fragment: 2026-05-12#x"
    assert str(refusal.severity) == "error"
    assert bug.message.startswith("KeyError: 'missing-key'") and "this is a bug in dreamdeck" in bug.message
    assert str(bug.severity) == "error"


async def test_a_failed_write_says_what_the_machine_said_without_calling_it_a_bug(topics):
    def full_disk():
        raise OSError(28, "No space left on device", str(topics.topics_dir / "x.md"))

    app = make_app(topics)
    notes = Notes()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await settle(app, pilot)
        app.screen.act("Edit", full_disk)
        await settle(app, pilot)
        (toast,) = [n for n in notes.raised if n.title.startswith("Edit")]
    assert (toast.title, toast.message) == ("Edit: failed", f"No space left on device: {topics.topics_dir / 'x.md'}")
