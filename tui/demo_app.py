"""The app on the demo folder: it first says where the demo folder is."""
from __future__ import annotations

from dreamdeck.demo.open import demo_notice
from dreamdeck.tui.app import DreamdeckApp


def demo_app(ws, **kwargs) -> DreamdeckApp:
    class DemoApp(DreamdeckApp):
        def on_mount(self) -> None:  # Textual runs DreamdeckApp.on_mount as well
            self.notify(demo_notice(self.ws.root), title="Demo workspace", timeout=12)  # long enough to read, gone before work starts

    return DemoApp(ws, **kwargs)


def open_demo(ws) -> int:
    demo_app(ws).run()
    return 0
