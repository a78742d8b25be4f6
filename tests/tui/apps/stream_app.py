"""A small agent folder for the Stream screen's snapshot (and a manual look: python tests/tui/apps/stream_app.py).

Three days of fragments with fixed ids (so fixed timestamps), a watermark, a legacy line and
one forgotten fragment; today is pinned, the user config is empty, the watcher is off.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
for extra in (ROOT, ROOT / "tests"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from dreamdeck.core.formats.events import fragment_content_hash  # noqa: E402
from dreamdeck.core.store.tombstones import Tombstone, record  # noqa: E402
from dreamdeck.core.workspace import Workspace  # noqa: E402
from helpers import fragment_line, uuid_at, watermark_line, write_stream  # noqa: E402
from dreamdeck.tui.app import DreamdeckApp  # noqa: E402
from dreamdeck.tui.config import UserConfig  # noqa: E402

TODAY = "2026-05-22"

FRAGMENTS = {
    "2026-05-20": [
        ("deploys", "Friday deploys were rolled back twice this month; the team prefers Tuesdays.", "ops-bot"),
        ("editor", "Uses Helix with the default keymap; asked for no Vim suggestions.", "alice"),
        ("coffee", "Drinks oat flat whites, no sugar.", None),
    ],
    "2026-05-21": [
        ("deploys", "Deploy freeze starts on the 28th for the quarter close.", "ops-bot"),
        ("testing", "Prefers pytest with plain asserts over unittest classes.", "alice"),
        ("secrets", "Shared a token by mistake; it was rotated the same hour.", "alice"),
        ("editor", "Switched the Helix theme to a light one for daytime pairing.", "alice"),
    ],
    TODAY: [
        ("testing", "Snapshot tests must pin the clock, the ids and the terminal size.", "bob"),
        ("deploys", "Tuesday deploy went out clean at 10:40 with the new canary step.", "ops-bot"),
        ("coffee", "Switched to decaf after 3 pm.", None),
        ("reviews", "Wants review comments grouped per file, with the blocking ones first, and a short summary "
                    "at the top that says whether the change can merge today.", "alice"),
    ],
}
FORGOTTEN = ("2026-05-21", 2)  # the token fragment is tombstoned: the stream hides it


def build(root: Path) -> Workspace:
    """Write the streams (exact TypeClaw lines) and the tombstone into an agent folder."""
    (root / "memory" / "streams").mkdir(parents=True, exist_ok=True)
    for day, items in FRAGMENTS.items():
        lines = []
        if day == "2026-05-20":
            lines.append('{"type":"legacy_prose","ts":"2026-05-20T06:00:00.000Z","text":"old notes","origin":"migration"}')
        for n, (topic, body, who) in enumerate(items):
            extra = {"who": who} if who else {}
            lines.append(fragment_line(day, 600_000 * (n + 1), topic, body, **extra))
        lines.append(watermark_line(day, 600_000 * (len(items) + 1)))
        write_stream(root, day, lines)
    ws = Workspace.open(root, today=TODAY)
    day, n = FORGOTTEN
    topic, body, _ = FRAGMENTS[day][n]
    record(ws, "forget", Tombstone(day, uuid_at(day, 600_000 * (n + 1)), fragment_content_hash(topic, body),
                                   "a secret", "human:test", "2026-05-21T12:00:00Z", topic=topic))
    return ws


def fragment_id(day: str, n: int) -> str:
    return uuid_at(day, 600_000 * (n + 1))


def make_app(root: Path, **kwargs) -> DreamdeckApp:
    return DreamdeckApp(Workspace.open(root, today=TODAY), watcher=False, user_config=UserConfig(), **kwargs)


if __name__ == "__main__":
    folder = Path(tempfile.mkdtemp(prefix="dreamdeck-stream-")) / "agent"
    folder.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=folder, check=True)
    build(folder)
    app = make_app(folder)
    app.call_later(app.switch_mode, "stream")
    app.run()
