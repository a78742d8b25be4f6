"""`dreamdeck demo`: what is said about the demo folder (the app on it is `dreamdeck.tui.demo_app`)."""
from __future__ import annotations

from pathlib import Path


def demo_notice(path: Path) -> str:
    return (f"Pico's agent folder, made for this demo: {path}\n"
            f"Open it again with `dreamdeck {path}`; nothing outside it was touched.")
