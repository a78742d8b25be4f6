"""A small agent folder for the Dream control screen's snapshot (and a manual look:
python -m tests.tui.apps.control_app).

Fixed receipts (ids, times, commits), a dreamdeck.toml with the offline dreamer, undreamed
fragments with fixed ids, the watcher off, and a screen whose clock is pinned, so nothing on
screen depends on the wall clock.
"""
from __future__ import annotations

import json
import tempfile
from datetime import datetime
from pathlib import Path

from dreamdeck.core.dreaming.run import DreamReceipt
from dreamdeck.core.workspace import Workspace
from dreamdeck.tui.app import DreamdeckApp
from dreamdeck.tui.screens.control import ControlScreen
from tests.support.agent import agent_folder
from tests.support.memory import fragment_line, uuid_at, write_stream
from tests.support.tui import make_app

TODAY = "2026-05-22"
NOW = datetime(2026, 5, 22, 10, 7)  # naive local time: "next run 10:30 (in 23 min)"

SETTINGS = """[dreaming]
dreamer = "offline"
review = "judgement"
schedule = "*/30 * * * *"
min_fragments = 3
min_interval_minutes = 15
"""

RECEIPTS = [
    DreamReceipt("d-20260521-183000-0a1b", "2026-05-21T18:30:00+00:00", "offline", "schedule", "judgement",
                 status="applied", fragments_seen=6, days=["2026-05-21"], shards_changed=["deploys", "editor"],
                 auto_applied=["topics/deploys.md", "topics/editor.md"], citations_added=6,
                 fragments_dropped=["2026-05-20#a", "2026-05-20#b"], commit="3f9c2d41e8a0b7c6d5e4f3a2b1c0d9e8f7a6b5c4",
                 message="6 fragments from 1 day, 2 changes applied, 2 uncited fragments collected"),
    DreamReceipt("d-20260522-081500-1c2d", "2026-05-22T08:15:00+00:00", "offline", "watch", "judgement",
                 status="mixed", fragments_seen=4, days=["2026-05-22"], shards_created=["reviews"],
                 shards_changed=["testing"], auto_applied=["topics/testing.md"], pending=["topics/reviews.md"],
                 reflection="r-0003", commit="8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b",
                 # a duplicate the GC has since collected, of a fragment still in today's stream
                 folded={f"2026-05-21#{uuid_at('2026-05-21', 7)}": f"{TODAY}#{uuid_at(TODAY, 1)}"},
                 message="4 fragments from 1 day, 1 change applied, 1 held for review in r-0003"),
    DreamReceipt("d-20260522-093000-2e3f", "2026-05-22T09:30:00+00:00", "offline", "manual", "judgement",
                 status="skipped", message="no undreamed fragments since last run; skipping"),
]


class PinnedClockControl(ControlScreen):
    def now(self) -> datetime:
        return NOW


class ControlSnapshotApp(DreamdeckApp):
    MODES = {**DreamdeckApp.MODES, "control": PinnedClockControl}


def build(root: Path) -> Workspace:
    (root / "dreamdeck.toml").write_text(SETTINGS, encoding="utf-8")
    folder = root / "memory" / "meta" / "receipts"
    folder.mkdir(parents=True, exist_ok=True)
    for r in RECEIPTS:
        (folder / f"{r.id}.json").write_text(json.dumps(r.to_json(), indent=2) + "\n", encoding="utf-8")
    write_stream(root, TODAY, [fragment_line(TODAY, n, topic, body) for n, (topic, body) in enumerate([
        ("coffee", "Switched to decaf after 3 pm."),
        ("deploys", "The canary step caught a bad config before it shipped."),
    ])])
    return Workspace.open(root, today=TODAY)


def snapshot_app(root: Path) -> DreamdeckApp:
    return make_app(Workspace.open(root, today=TODAY), app_class=ControlSnapshotApp)


if __name__ == "__main__":
    make_app(build(agent_folder(Path(tempfile.mkdtemp(prefix="dreamdeck-control-")))), "control",
             app_class=ControlSnapshotApp).run()
