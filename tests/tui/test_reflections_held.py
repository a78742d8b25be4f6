"""The Reflections screen lists the reflections that hold fragments with nothing left to approve
(a distinct "holds N" style), says what they hold, and X releases them to the next dream."""
from __future__ import annotations

import json

from dreamdeck.core.ops.reflections import reject
from dreamdeck.core.store.reflections import load_reflection
from dreamdeck.tui.modals import ReasonModal
from dreamdeck.tui.screens.reflections import HELD_STYLE
from tests.support.tui import make_app
from tests.support.waits import settle
from tests.tui.test_reflections_screen import SIZE, open_reflections, pending, type_text


async def test_a_rejected_reflection_holding_fragments_is_listed_and_X_releases_them(ws, agent_dir):
    pending(ws, agent_dir)
    reject(ws, "r-1", reason="not now")
    held = load_reflection(ws, "r-1").held
    assert held
    app = make_app(ws)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_reflections(app, pilot)
        assert list(screen._items) == ["r-1"]
        prompt = screen._items["r-1"].prompt()
        assert f"holds {len(held)}" in prompt.plain and "rejected" in prompt.plain
        assert any(span.style == HELD_STYLE for span in prompt.spans)
        info = str(screen.query_one("#refl-info").render())
        assert f"Holds {len(held)} fragment" in info and "X releases them to the next dream" in info
        await pilot.press("X")
        await pilot.pause()
        assert isinstance(app.screen, ReasonModal)
        await type_text(pilot, "again")
        await pilot.press("enter")
        await settle(app, pilot)
        assert screen._items == {}

    data = json.loads((ws.meta_dir / "reflections" / "r-1.json").read_text())
    assert data["status"] == "rejected" and data["decisions"][-1]["decision"] == "released"


async def test_held_fragments_that_left_the_streams_outside_dreamdeck_are_named_not_said_kept(ws, agent_dir):
    """TypeClaw's GC reads no reflection: a held fragment it collected is gone from the stream.
    The pane names it and the command that puts it back, as `dreamdeck review r-N` does."""
    pending(ws, agent_dir)
    reject(ws, "r-1", reason="not now")
    day, fid = load_reflection(ws, "r-1").held[0].split("#", 1)
    stream = agent_dir / "memory" / "streams" / f"{day}.jsonl"
    stream.write_text("".join(ln for ln in stream.read_text().splitlines(keepends=True) if fid not in ln))
    app = make_app(ws)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_reflections(app, pilot)
        info = str(screen.query_one("#refl-info").render())
        assert "kept in the streams" not in info
        assert "1 of them left the streams outside dreamdeck" in info and f"streams/{day}#{fid}" in info
        assert "dreamdeck doctor --fix" in info
