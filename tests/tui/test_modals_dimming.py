"""The screen behind a modal: dimmed exactly as Textual dims it, and laid out again only when the
terminal's size really changed."""
from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.renderables.background_screen import BackgroundScreen

from dreamdeck.tui.modals import ReasonModal, dim_segments
from dreamdeck.tui.screens.topics import TopicsScreen
from tests.support.tui import make_app
from tests.support.waits import settle, wait_for
from tests.tui.apps import topics_app


def test_the_dimmed_background_is_textuals_tint_segment_for_segment():
    styles = [None, Style(), Style(color="red"), Style(bgcolor="#102030", bold=True),
              Style(color="#aabbcc", bgcolor="blue", italic=True, link="https://example.org"),
              Style.from_meta({"@click": "app.bell()"}) + Style(color="green"), Style(color="red")]
    segments = [Segment(f"cell {n}", style) for n, style in enumerate(styles)]
    segments.insert(3, Segment("", None, [(1,)]))  # a control segment passes as it is
    for color in (Color(0, 0, 0, 0.6), Color(30, 40, 50, 0.25)):
        assert list(dim_segments(segments * 3, color)) == list(BackgroundScreen.process_segments(segments * 3, color))


async def test_a_resize_while_a_modal_is_open_lays_out_the_screen_beneath_it(ws):
    topics_app.build_topics(ws.root)
    app = make_app(ws)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, TopicsScreen)
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, ReasonModal), what="the forget modal")
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert screen.outer_size == (100, 30)  # the dimmed screen behind the modal, at the new size
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen and screen.query_one("#strength").size.width == 100
