"""dreamdeck's own rules around TypeClaw's memory block: what it leaves out, what it never
writes, what it records, the fast documents' exactness, and the pre-v0.45 direct mode."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from dreamdeck.core.errors import BadInput
from dreamdeck.core.formats.events import fragment_content_hash
from dreamdeck.core.formats.memory_block import FRAMING
from dreamdeck.core.formats.tc_text import first_belief_sentence
from dreamdeck.core.index.keyword_lane import fuse, keyword_lane, read_turn_memory
from dreamdeck.core.ops.inject import inject
from dreamdeck.core.store.access import read_access
from dreamdeck.core.store.tombstones import Tombstone, record
from tests.support.git import git
from tests.support.memory import fragment_line, shard_text, uuid_at, write_shard, write_stream

TODAY = "2026-05-22"
DATA = Path(__file__).parent / "data" / "typeclaw"


def cite(day: str, n: int) -> str:
    return f"streams/{day}#{uuid_at(day, n)}"


@pytest.fixture
def memory(ws):
    root = ws.root
    write_stream(root, "2026-05-20", [fragment_line("2026-05-20", 1, "package manager", "User said use pnpm")])
    write_stream(root, TODAY, [
        fragment_line(TODAY, 1, "oncall", "Jisoo is oncall this week", who="Jisoo",
                      where={"adapter": "slack-bot", "workspace": "T01", "chat": "C0456", "thread": None, "chatName": "incidents"}),
        fragment_line(TODAY, 2, "oncall", "Minji covers oncall on Fridays"),
    ])
    write_shard(root, "package-manager", shard_text("The user uses pnpm", [cite("2026-05-20", 1)]))
    return ws


def test_a_forgotten_fragment_is_never_injected_by_id_or_by_content(memory):
    assert "Jisoo is oncall" in inject(memory, "who is oncall", record=False).text
    day, fid = TODAY, uuid_at(TODAY, 1)
    record(memory, "forget", Tombstone(day, fid, fragment_content_hash("oncall", "Jisoo is oncall this week"), "private", "human:t", "x"))
    text = inject(memory, "who is oncall", record=False).text
    assert "Jisoo" not in text and "Minji covers oncall" in text
    # the same words under another id are forgotten too
    write_stream(memory.root, TODAY, [fragment_line(TODAY, 9, "oncall", "Jisoo is oncall this week")])
    assert "Jisoo" not in inject(memory, "who is oncall", record=False).text


def test_inject_never_creates_typeclaws_vector_index(memory):
    inject(memory, "who is oncall", record=False)
    inject(memory, "pnpm", origin="channel", record=False)
    assert not (memory.memory / ".vectors").exists()


def test_inject_records_the_items_it_returned_and_nothing_for_a_preview(memory):
    inject(memory, "who is oncall", record=False)
    assert read_access(memory) == []
    result = inject(memory, "who is oncall")
    [rec] = read_access(memory)
    assert rec.op == "inject" and rec.query == "who is oncall" and rec.day == TODAY
    assert list(rec.items) == [f"stream:{r.key}" for r in result.results] and len(rec.items) == 2
    assert rec.detail["render"] == "retrieved"


def test_a_headings_index_records_no_item_as_shown(memory):
    result = inject(memory, "tell me a joke")
    assert result.render == "fallback-index"
    assert read_access(memory)[0].items == ()


def test_a_budget_below_typeclaws_minimum_or_an_unknown_origin_is_refused(memory):
    with pytest.raises(BadInput, match="at least 4096"):
        inject(memory, "x", budget=4095)
    with pytest.raises(BadInput, match="unknown origin"):
        inject(memory, "x", origin="telegram")


def test_the_plan_counts_utf8_bytes_of_bodies(memory):
    write_shard(memory.root, "ko", shard_text("가" * 1500, []))
    result = inject(memory, "x", record=False)
    bodies = [(memory.topics_dir / f"{s}.md").read_text().split("---\n", 2)[2] for s in ("ko", "package-manager")]
    assert result.plan.total_bytes == sum(len(b.encode()) for b in bodies)
    assert result.plan.mode == "direct" and result.plan.to_json()["shards"] == ["ko", "package-manager"]


def test_direct_mode_renders_every_body_as_typeclaw_did_before_v045(memory):
    write_shard(memory.root, "empty", "---\nheading: Nothing yet\ncites: 0\ndays: 0\nlastReinforced: 2026-05-01\n---\n\n")
    text = inject(memory, "", mode="direct", record=False).text
    path = memory.topics_dir / "empty.md"
    assert text == "\n".join([
        "# Memory", "", FRAMING, "",
        "## Nothing yet", f"[EMPTY] Present at {path} but has no content yet.", "",
        "## The user uses pnpm", f"The user uses pnpm.\n\nfragments:\n- {cite('2026-05-20', 1)}",
    ])
    over = inject(memory, "", mode="direct", budget=4096, origin="channel", record=False).text
    assert "## The user uses pnpm\ncites=1, days=1, lastReinforced=2026-05-20" in over
    assert "Memory shown as index only in channels." in over


@pytest.mark.parametrize("case", json.loads((DATA / "belief_sentence.json").read_text()), ids=lambda c: c["name"])
def test_the_channel_belief_sentence_is_typeclaws(case):
    assert first_belief_sentence(case["input"]) == case["expected"]["firstBeliefSentence"]


def test_fast_documents_find_exactly_what_whole_documents_find(ws):
    """Citation and provenance lines stand in for themselves only when no prompt piece could
    touch them; over random prompts mixing words, digits, hex, names and line breaks, the fast
    and the whole documents give the same retrieval."""
    root, rng = ws.root, random.Random(7)
    where = {"adapter": "slack-bot", "workspace": "T01", "chat": "C0456", "thread": None, "chatName": "incidents"}
    for d, day in enumerate(("2026-05-18", "2026-05-19", "2026-05-20")):
        write_stream(root, day, [fragment_line(day, n, f"topic {n}", f"Body {n} about deploys and cafe {d}",
                                               **({"who": "Minji", "where": where} if n % 3 == 0 else {}))
                                 for n in range(1, 13)])
    for s in range(12):
        cites = [cite(rng.choice(("2026-05-18", "2026-05-19", "2026-05-20")), rng.randrange(1, 13)) for _ in range(4)]
        body_cites = cites + (["memory/2026-05-17#odd_id-7"] if s % 4 == 0 else [])
        write_shard(root, f"belief-{s:02d}", shard_text(f"Belief {s} about deploys and the cafe", body_cites))
    vocab = ["deploys", "cafe", "minji", "incidents", "t01", "c0456", "2026", "05", "18", "7000", "memory", "streams",
             "unresolved", "citation", "belief", "fragments:", "odd_id", "about", "#", "-", "03:00", "2026-05-19", "z"]
    mem = read_turn_memory(ws)
    for _ in range(150):
        words = [rng.choice(vocab) for _ in range(rng.randrange(1, 4))]
        prompt = rng.choice((" ", "\n", " ")).join(words)
        fast = [(r.source, r.key) for r in fuse(mem, keyword_lane(mem, prompt))]
        whole = [(r.source, r.key) for r in fuse(mem, keyword_lane(mem, prompt, whole_docs=True))]
        assert fast == whole, prompt


def test_inject_reads_through_nothing_it_should_not_write(memory):
    git(memory.root, "add", "-f", "memory/")
    git(memory.root, "commit", "-qm", "memory")
    inject(memory, "who is oncall", record=False)
    assert git(memory.root, "status", "--porcelain", "--ignored", "memory/") == ""
