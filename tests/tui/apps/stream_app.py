"""A small agent folder for the Stream screen's snapshot (and a manual look:
python -m tests.tui.apps.stream_app).

Three days of fragments with fixed ids (so fixed timestamps), a watermark, a legacy line and
one forgotten fragment; today is pinned, the user config is empty, the watcher is off.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from dreamdeck.core.formats.events import fragment_content_hash
from dreamdeck.core.store.tombstones import Tombstone, record
from dreamdeck.core.workspace import Workspace
from tests.support.agent import agent_folder
from tests.support.memory import fragment_line, uuid_at, watermark_line, write_stream
from tests.support.tui import make_app

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


if __name__ == "__main__":
    make_app(build(agent_folder(Path(tempfile.mkdtemp(prefix="dreamdeck-stream-")))), "stream").run()
