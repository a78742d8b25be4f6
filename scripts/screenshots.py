"""Regenerate screenshots/*.svg: every screen of the app on the demo workspace.

Run: `.venv/bin/python scripts/screenshots.py [--out screenshots] [--size 140x40]`.
The demo is built in a temp folder with a fixed date; one dream (judgement policy, offline
dreamer) leaves a pending reflection, two sub-agents propose (one pair in conflict), one topic is
pinned, so every screen has something real to show.
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
os.environ.setdefault("DREAMDECK_CONFIG_DIR", tempfile.mkdtemp(prefix="dreamdeck-config-"))

TODAY = "2026-11-22"
SCREENS = [("1", "topics"), ("2", "reflections"), ("3", "proposals"), ("4", "vault"), ("5", "history"),
           ("6", "stream"), ("7", "control")]


def prepare(root: Path):
    from dreamdeck.demo.build import build_demo
    from dreamdeck.core.dreaming.run import run_dream
    from dreamdeck.core.workspace import Workspace

    build_demo(root, today=TODAY)
    ws = Workspace.open(root, today=TODAY)
    run_dream(ws, dreamer_name="offline", review="judgement", trigger="schedule")
    try:
        from dreamdeck.core.ops.proposals import propose

        propose(ws, "researcher", "semantic", "Project deadline is March 15", confidence="medium", entities=["project--deadline"])
        propose(ws, "coder", "semantic", "Project deadline is March 30", confidence="high", entities=["project--deadline"])
        propose(ws, "coder", "procedural", "When refactoring, the user wants tests written before changing code",
                confidence="high", entities=["procedure--refactoring"])
    except ImportError:
        pass
    try:
        from dreamdeck.core.ops import vault

        vault.pin_topic(ws, "code-review", actor="human:demo")
    except ImportError:
        pass
    return ws


async def shoot(ws, out: Path, size: tuple[int, int]) -> list[Path]:
    from dreamdeck.tui.app import DreamdeckApp

    written = []
    app = DreamdeckApp(ws, watcher=False)
    async with app.run_test(size=size) as pilot:
        for key, mode in SCREENS:
            await pilot.press(key)
            for _ in range(3):
                await pilot.pause(0.3)
                await app.workers.wait_for_complete()
            await pilot.pause(0.3)
            path = out / f"{mode}.svg"
            app.save_screenshot(str(path.name), path=str(out))
            written.append(path)
        await pilot.press("1")
        await pilot.pause(0.3)
        await pilot.press("question_mark")
        await pilot.pause(0.5)
        app.save_screenshot("help.svg", path=str(out))
        written.append(out / "help.svg")
    return written


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(ROOT / "screenshots"))
    ap.add_argument("--size", default="140x40")
    args = ap.parse_args()
    w, h = (int(x) for x in args.size.split("x"))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="dreamdeck-shots-") as tmp:
        ws = prepare(Path(tmp) / "pico")
        for path in asyncio.run(shoot(ws, out, (w, h))):
            print(path)


if __name__ == "__main__":
    main()
