"""Every screen at 80×24, 120×36 and 200×50: the layout adapts (tabs, stacked panes, text columns
that take the room left, no box below a usable height). One fixed scene per screen, from
tests/tui/apps (the same the screens' own tests use)."""
from __future__ import annotations

from pathlib import Path

import pytest

from dreamdeck.core.workspace import Workspace
from tests.support.agent import agent_folder
from tests.support.tui import make_app
from tests.support.waits import settle, wait_for
from tests.tui.apps import control_app, history_app, proposals_app, reflections_app, stream_app, topics_app, vault_app

SIZES = [(80, 24), (120, 36), (200, 50)]


def _forgotten(tmp_path: Path):
    from tests.tui import test_forgotten_screen as forgotten

    agent_dir = agent_folder(tmp_path)
    forgotten.build(agent_dir)
    forgotten.pin_times(agent_dir)
    return forgotten.make_app(agent_dir)


def _stream(tmp_path: Path):
    agent_dir = agent_folder(tmp_path)
    stream_app.build(agent_dir)
    return make_app(Workspace.open(agent_dir, today=stream_app.TODAY))


def _control(tmp_path: Path):
    agent_dir = agent_folder(tmp_path)
    control_app.build(agent_dir)
    return control_app.snapshot_app(agent_dir)


SCENES = {
    "topics": ("1", lambda tmp: topics_app.snapshot_app(parent=tmp)),
    "reflections": ("2", reflections_app.snapshot_app),
    "proposals": ("3", lambda tmp: proposals_app.snapshot_app(parent=tmp)),
    "vault": ("4", lambda tmp: vault_app.snapshot_app(parent=tmp)),
    "history": ("5", lambda tmp: history_app.snapshot_app(parent=tmp)),
    "stream": ("6", _stream),
    "control": ("7", _control),
    "forgotten": ("8", _forgotten),
}


def on_mode(key: str, mode: str):
    async def run_before(pilot) -> None:
        app = pilot.app
        await settle(app, pilot)
        await pilot.press(key)
        await wait_for(pilot, lambda: app.current_mode == mode, what=f"screen {key}")
        await settle(app, pilot)
        app.clear_notifications()
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("mode", list(SCENES))
def test_snapshot_every_screen_at_every_size(snap_compare, tmp_path, utc, mode, size):
    key, build = SCENES[mode]
    assert snap_compare(build(tmp_path), terminal_size=size, run_before=on_mode(key, mode))
