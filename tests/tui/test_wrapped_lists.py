"""A list whose options wrap (the Topics citations, the Reflections list) shows every line of
every option: an option's height is measured at the width it is drawn at, scrollbar or not."""
from __future__ import annotations

from textual.widgets import OptionList

from tests.support.memory import cite, fragment_line, shard_text, write_shard, write_stream
from tests.support.tui import make_app
from tests.support.waits import settle

DAY = "2026-05-20"


def _seed_wrapping_citations(root) -> list[str]:
    """Forty fragments whose bodies grow a cell at a time, each ending in its own marker, so
    some wrap exactly where a scrollbar's two columns make the difference."""
    bodies = [f"{'word ' * (4 + n // 5)}{'x' * (n % 5)}end{n:02d}" for n in range(40)]
    write_stream(root, DAY, [fragment_line(DAY, n, "deploy", body) for n, body in enumerate(bodies)])
    write_shard(root, "deploy", shard_text("Deploys go through staging", [cite(DAY, n) for n in range(40)]))
    return [f"end{n:02d}" for n in range(40)]


async def _every_line_of(pilot, cites: OptionList) -> str:
    lines = []
    for top in range(0, cites.virtual_size.height, cites.size.height):
        cites.scroll_to(y=top, animate=False, immediate=True)
        await pilot.pause()
        lines += [cites.render_line(y).text for y in range(cites.size.height)]
    return " ".join(lines)


async def test_every_wrapped_citation_is_shown_whole_beside_a_scrollbar(ws):
    markers = _seed_wrapping_citations(ws.root)
    for size in [(80, 24), (120, 36)]:
        app = make_app(ws)
        async with app.run_test(size=size) as pilot:
            await settle(app, pilot)
            cites = app.screen.query_one("#citations", OptionList)
            assert cites.option_count == 40
            assert cites.show_vertical_scrollbar  # the case that used to lose a line
            shown = await _every_line_of(pilot, cites)
            assert [m for m in markers if m not in shown] == [], size
