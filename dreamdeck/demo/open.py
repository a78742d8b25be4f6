"""`dreamdeck demo`: create the staged demo and open the app on it, saying where it is."""
from __future__ import annotations

from pathlib import Path


def demo_notice(path: Path) -> str:
    return (f"Pico's agent folder, made for this demo: {path}\n"
            f"Open it again with `dreamdeck {path}`; nothing outside it was touched.")


def demo_app(ws, **kwargs):
    """The app on the demo, first saying where the demo folder is."""
    from dreamdeck.tui.app import DreamdeckApp

    class DemoApp(DreamdeckApp):
        def on_mount(self) -> None:  # Textual runs DreamdeckApp.on_mount as well
            self.notify(demo_notice(self.ws.root), title="Demo workspace", timeout=30)

    return DemoApp(ws, **kwargs)


def open_demo(ws) -> int:
    demo_app(ws).run()
    return 0
