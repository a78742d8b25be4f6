"""Terminal-safe text in the app: a shard, a fragment or a file's name holding ESC sequences, C1
controls or bidi overrides is shown escaped (`\\x1b`, `\\u202e`), never sent to the terminal; and
Textual markup in it (`[bold]`, `[/]`, `[@click=…]`) is shown as written, never obeyed."""
from __future__ import annotations

from dreamdeck.core.workspace import Workspace
from tests.support.memory import cite, fragment_line, shard_text, write_shard, write_stream
from tests.support.tui import Notes, make_app
from tests.support.waits import settle, wait_for

D = "2026-05-22"
SIZE = (160, 40)
HOSTILE = "see \x1b]0;pwned\x07 then \x1b[2J \x9b31m \u202etxt.exe\u202c [bold]loud[/] [/] [@click=app.quit]x[/]"
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\u202c")


def hostile_workspace(agent_dir) -> Workspace:
    write_stream(agent_dir, D, [fragment_line(D, 1, "deploy\x1b[31m [b]", HOSTILE, who="\u202eeve [/]")])
    write_shard(agent_dir, "deploy", shard_text("Deploys " + HOSTILE, [cite(D, 1)]))
    return Workspace.open(agent_dir, today=D)


def assert_shown_escaped(app) -> str:
    screen = app.export_screenshot()
    assert not [c for c in RAW if c in screen], [c for c in RAW if c in screen]
    return screen


async def test_topics_and_stream_show_hostile_text_escaped_and_markup_as_written(agent_dir):
    app = make_app(hostile_workspace(agent_dir))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = assert_shown_escaped(app)
        assert "\\x1b]0;pwned\\x07" in screen and "[bold]loud[/]" in screen
        await pilot.press("6")
        await wait_for(pilot, lambda: app.current_mode == "stream", what="the stream screen")
        await settle(app, pilot)
        screen = assert_shown_escaped(app)
        assert "\\u202etxt.exe" in screen and "[@click=app.quit]x[/]" in screen


def test_a_diff_and_a_hunk_line_show_hostile_text_escaped():
    from dreamdeck.tui.widgets.diff_text import diff_text
    from dreamdeck.tui.widgets.hunk_view import _printable

    shown = diff_text(f"@@ -1 +1 @@\n-old\n+{HOSTILE}\n").plain + _printable(HOSTILE)
    assert not [c for c in RAW if c in shown]
    assert shown.count("\\x1b]0;pwned\\x07") == 2


async def test_a_modal_shows_a_hostile_title_and_body_escaped_and_markup_as_written(agent_dir):
    from dreamdeck.tui.modals import ConfirmModal

    app = make_app(hostile_workspace(agent_dir))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.push_screen(ConfirmModal(f"Forget [b]{HOSTILE}?", HOSTILE))
        await pilot.pause()
        screen = assert_shown_escaped(app)
        assert "[b]see" in screen and "\\x1b]0;pwned" in screen


async def test_a_notification_naming_a_hostile_file_is_escaped_and_never_parsed_as_markup(agent_dir):
    notes = Notes()
    app = make_app(hostile_workspace(agent_dir))
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await settle(app, pilot)
        app.notify("refused: memory/topics/[/]ev\x1b]0;pwned\x07.md is a symbolic link", title="Pin \u202e[b]",
                   severity="error")
        await pilot.pause()
    [toast] = [n for n in notes.raised if n.title.startswith("Pin")]
    assert (toast.title, toast.message, toast.markup) == (
        "Pin \\u202e[b]", "refused: memory/topics/[/]ev\\x1b]0;pwned\\x07.md is a symbolic link", False)
