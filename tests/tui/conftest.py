"""Fixtures for the app's tests: a terminal that can hand itself over to an editor."""
from __future__ import annotations

import pytest


@pytest.fixture
def suspending_terminal(monkeypatch):
    """Pilot's headless driver behaving as a real terminal does around `App.suspend()` (the
    editor): it can suspend; the app is told it lost focus when the editor takes the terminal and
    got it back afterwards (tmux with focus-events does exactly this); resuming sends a resize."""
    from textual import events
    from textual.drivers.headless_driver import HeadlessDriver

    suspend, resume = HeadlessDriver.suspend_application_mode, HeadlessDriver.resume_application_mode

    def suspend_with_blur(self) -> None:
        self._app.post_message(events.AppBlur())
        suspend(self)

    def resume_with_focus(self) -> None:
        resume(self)  # start_application_mode: the resize
        self._app.post_message(events.AppFocus())

    monkeypatch.setattr(HeadlessDriver, "can_suspend", True, raising=False)
    monkeypatch.setattr(HeadlessDriver, "suspend_application_mode", suspend_with_blur)
    monkeypatch.setattr(HeadlessDriver, "resume_application_mode", resume_with_focus)
