"""Stream compaction beside TypeClaw v0.45.1's `compactDailyStreams` (dreaming.ts): every golden
case (tests/data/typeclaw/compact.json, TypeClaw's own output) through `door.compaction`.

What must agree: which fragments and watermarks go, and that a file TypeClaw leaves alone stays
byte for byte. What differs on purpose, each case below saying why: dreamdeck keeps the lines it
keeps as they were written (TypeClaw writes them again with `JSON.stringify`), keeps a line
TypeClaw's schema refuses, and never drops a last line that has no newline yet.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from dreamdeck.core.door.compaction import compact_days
from dreamdeck.core.formats.events import EventError, validate_event
from dreamdeck.core.store.compaction_backlog import DayWork
from dreamdeck.core.store.state import load_state
from dreamdeck.core.workspace import Workspace
from tests.support.typeclaw_golden import case_named, cases, file_bytes

MALFORMED = "fuzz: a line TypeClaw's schema refuses (empty who) on a rewritten day is dropped with the rewrite"
PARTIAL = "fuzz: a last line without its newline is parsed and dropped like any other"
TWICE = "fuzz: one fragment line written twice is dropped twice and counted twice"


def compacted(root: Path, case: dict):
    """Lay the case out and compact its touched days as TypeClaw's dream would."""
    for rel, spec in case["files"].items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        if not rel.endswith("/"):
            (root / rel).write_bytes(file_bytes(spec))
    state_path = root / "memory" / ".dreaming-state.json"
    state_path.write_text(json.dumps(case["state"]), encoding="utf-8")
    state, _ = load_state(state_path)
    ws = Workspace.open(root, today="2026-07-16")
    cited = {(day, i) for day, ids in case["cited"].items() for i in ids}
    work = {day: DayWork(case["applyFragmentGc"]) for day in case["touchedDates"]}
    return compact_days(ws, state, cited, work)


def events(text: str) -> list[tuple[str, str]]:
    """(type, id) of every line TypeClaw's stream schema accepts, in file order."""
    out = []
    for line in text.split("\n"):
        try:
            ev = validate_event(json.loads(line))
        except (ValueError, EventError):
            continue
        if ev["type"] in ("fragment", "watermark"):
            out.append((ev["type"], ev["id"]))
    return out


@pytest.mark.parametrize("case", cases("compact", skip={PARTIAL: "deliberate: see the test of the partial last line"}))
def test_compaction_drops_what_typeclaw_drops(case, agent_dir: Path):
    result = compacted(agent_dir, case)
    stats = case["expected"]["stats"]
    assert sorted(f"{d}#{i}" for d, i in result.fragments_dropped) == sorted(set(stats["droppedFragmentIds"]))
    assert (result.watermarks_dropped, len(result.files)) == (stats["watermarksDropped"], stats["filesCompacted"])
    for rel, spec in case["files"].items():
        if rel.endswith("/"):
            continue
        after, typeclaw = (agent_dir / rel).read_bytes(), case["expected"]["memory"][rel]
        if typeclaw.encode("utf-8") == file_bytes(spec):
            assert after == file_bytes(spec)  # untouched by TypeClaw: untouched by dreamdeck
        assert events(after.decode("utf-8")) == events(typeclaw)


# Deliberate: TypeClaw's rewrite is built from the lines its schema accepts, so a line it cannot
# read (here a fragment whose `who` is empty) vanishes from disk with no trace but a console
# warning. dreamdeck never deletes a line it cannot read (issue 10: the door keeps malformed lines
# verbatim everywhere); doctor names it, and a person decides.
def test_a_line_typeclaws_schema_refuses_is_kept_where_typeclaw_drops_it(agent_dir: Path):
    case = case_named("compact", MALFORMED)
    [(rel, spec)] = [(r, s) for r, s in case["files"].items() if not r.endswith("/")]
    compacted(agent_dir, case)
    assert case["expected"]["memory"][rel] == ""
    assert (agent_dir / rel).read_text(encoding="utf-8") == file_bytes(spec).decode().split("\n", 1)[1]


# Deliberate: TypeClaw parses a last line that has no newline yet and may drop it. dreamdeck
# carries it verbatim: an appender may be in the middle of writing it (invariant 8, no lost
# append), and it is judged once it is whole.
def test_a_last_line_without_its_newline_is_carried_where_typeclaw_drops_it(agent_dir: Path):
    case = case_named("compact", PARTIAL)
    [(rel, spec)] = [(r, s) for r, s in case["files"].items() if not r.endswith("/")]
    result = compacted(agent_dir, case)
    assert case["expected"]["stats"]["fragmentsDropped"] == 1
    assert result.fragments_dropped == [] and (agent_dir / rel).read_bytes() == file_bytes(spec)


# The bytes agree (both copies go); the count does not: TypeClaw counts lines, dreamdeck counts
# each dropped fragment once by (day, id), which is what its audit and dream receipts record.
def test_a_fragment_written_twice_leaves_the_same_bytes_and_is_counted_once(agent_dir: Path):
    case = case_named("compact", TWICE)
    [(rel, _)] = [(r, s) for r, s in case["files"].items() if not r.endswith("/")]
    result = compacted(agent_dir, case)
    assert (agent_dir / rel).read_text(encoding="utf-8") == case["expected"]["memory"][rel]
    assert case["expected"]["stats"]["fragmentsDropped"] == 2 and len(result.fragments_dropped) == 1
