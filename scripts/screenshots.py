"""Regenerate screenshots/: every screen of the app on exactly the demo `dreamdeck demo` opens.

Run: `.venv/bin/python scripts/screenshots.py [--out screenshots] [--today YYYY-MM-DD]`.
The demo (`dreamdeck.demo.stage.create_demo`) is built in a temp folder named pico; each screen
is saved at 120x36 as `<screen>.svg` and at 80x24 as `80x24/<screen>.svg`, plus the help of the
Topics screen (`help.svg`). Nothing of the developer's is read: the user config and dreamdeck's
private folder are temp folders too.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["DREAMDECK_CONFIG_DIR"] = tempfile.mkdtemp(prefix="dreamdeck-config-")
os.environ["DREAMDECK_CACHE_DIR"] = tempfile.mkdtemp(prefix="dreamdeck-cache-")

SCREENS = [("1", "topics"), ("2", "reflections"), ("3", "proposals"), ("4", "vault"), ("5", "history"),
           ("6", "stream"), ("7", "control"), ("8", "forgotten")]
SIZES = {(120, 36): "", (80, 24): "80x24"}


async def settle(app, pilot) -> None:
    """Until no worker runs (a screen's load, then what it triggers)."""
    from textual.worker import WorkerCancelled

    for _ in range(8):
        try:
            await app.workers.wait_for_complete()
        except WorkerCancelled:
            continue
        await pilot.pause(0.2)
        if not any(w.is_running for w in app.workers):
            return


async def shoot(ws, out: Path, size: tuple[int, int]) -> list[Path]:
    from dreamdeck.tui.app import DreamdeckApp
    from dreamdeck.tui.config import UserConfig

    out.mkdir(parents=True, exist_ok=True)
    written = []
    app = DreamdeckApp(ws, watcher=False, user_config=UserConfig())
    async with app.run_test(size=size) as pilot:
        for key, mode in SCREENS:
            await pilot.press(key)
            await settle(app, pilot)
            app.clear_notifications()
            await pilot.pause(0.2)
            app.save_screenshot(f"{mode}.svg", path=str(out))
            written.append(out / f"{mode}.svg")
        await pilot.press("1")
        await settle(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause(0.5)
        app.save_screenshot("help.svg", path=str(out))
        written.append(out / "help.svg")
    return written


def main() -> None:
    from dreamdeck.core.workspace import local_today
    from dreamdeck.demo.stage import create_demo

    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(ROOT / "screenshots"))
    ap.add_argument("--today", default=None, help="the demo's today (default: the local date)")
    args = ap.parse_args()
    out = Path(args.out)
    with tempfile.TemporaryDirectory(prefix="dreamdeck-shots-") as tmp:
        demo = create_demo(Path(tmp) / "pico", today=args.today or local_today())
        for size, sub in SIZES.items():
            for path in asyncio.run(shoot(demo.ws, out / sub if sub else out, size)):
                print(path)


if __name__ == "__main__":
    main()
