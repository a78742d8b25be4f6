"""inject skips a stream day that `index.undreamed`'s projection of fully dreamed days vouches
for (nothing forgotten by id, nothing held that day) — and injects exactly the bytes reading
every day gives; it records the fully dreamed days it reads for next time."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from dreamdeck.core.formats.events import fragment_content_hash
from dreamdeck.core.index.tc_projection import projection_path
from dreamdeck.core.io.cache import clear_all
from dreamdeck.core.ops.inject import inject
from dreamdeck.core.ops.recall import recall
from dreamdeck.core.store.state import DreamingState, save_state
from dreamdeck.core.store.tombstones import Tombstone, record
from tests.support.memory import fragment_line, shard_text, uuid_at, watermark_line, write_shard, write_stream

QUERY = "oncall deploys kayak"


def _build(ws, forget: bool) -> None:
    days = {"2026-05-18": 2, "2026-05-19": 1, "2026-05-20": 1}  # day -> fragments dreamed (of 2)
    state = DreamingState()
    for day, dreamed in days.items():
        write_stream(ws.root, day, [fragment_line(day, 1, "oncall", f"Jisoo is oncall on {day}"),
                                    fragment_line(day, 2, "deploys", f"Deploys froze on {day} for the kayak trip"),
                                    watermark_line(day, 3)])
        state = state.add_dreamed(day, {uuid_at(day, n) for n in range(1, dreamed + 1)}, f"{day}T04:00:00+00:00")
    save_state(ws.state_path, state)
    write_shard(ws.root, "oncall", shard_text("Jisoo is oncall", [f"streams/2026-05-18#{uuid_at('2026-05-18', 1)}"]))
    if forget:
        body = "Deploys froze on 2026-05-20 for the kayak trip"
        record(ws, "forget", Tombstone("2026-05-20", uuid_at("2026-05-20", 2), fragment_content_hash("deploys", body),
                                       "test", "human:test", "2026-05-22T10:00:00+00:00"))


def _fresh_turn(ws) -> str:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{projection_path(ws)}{suffix}").unlink(missing_ok=True)
    clear_all()
    return inject(ws, QUERY, record=False).text


@pytest.mark.parametrize("forget", [False, True], ids=["nothing-forgotten", "one-forgotten-by-id"])
def test_a_day_the_projection_vouches_for_injects_the_same_bytes_as_reading_it(ws, settled_clock, forget):
    _build(ws, forget)
    recall(ws, "oncall", record=False)  # the index's tail records the fully dreamed days
    known = ws.lock_dir / "dreamed-days.json"
    dreamed_day = str(ws.memory / "streams" / "2026-05-18.jsonl")
    assert dreamed_day in json.loads(known.read_text())
    vouched = _fresh_turn(ws)
    known.unlink()
    read = _fresh_turn(ws)
    assert vouched == read
    assert "Deploys froze on 2026-05-19" in read and "on 2026-05-18 for" not in read
    assert ("Deploys froze on 2026-05-20" in read) is not forget
    assert dreamed_day in json.loads(known.read_text())  # inject recorded the day it read in full
