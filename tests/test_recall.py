"""Recall: superseded evidence is never a hook, forgotten fragments never return, decay shapes
the ranking (Moltbot §9), budgets cut the list (joelclaw's profiles), access is recorded."""
from __future__ import annotations

import pytest

from dreamdeck.core.errors import BadInput, NotFound
from dreamdeck.core.formats.events import fragment_content_hash
from dreamdeck.core.ops.recall import PROFILES, choose_profile, recall
from dreamdeck.core.store.access import read_access
from dreamdeck.core.store.state import DreamingState, save_state
from dreamdeck.core.store.tombstones import Tombstone, record
from dreamdeck.core.workspace import Workspace
from tests.support.memory import fragment_line, shard_text, uuid_at, write_shard, write_stream

TODAY = "2026-05-22"


def cite(day: str, n: int) -> str:
    return f"streams/{day}#{uuid_at(day, n)}"


def shown(blocks) -> list[tuple[str, str]]:
    return [(b.kind, b.key) for b in blocks]


pytestmark = pytest.mark.usefixtures("fresh_search_indexes")  # tests/conftest.py


@pytest.mark.parametrize("dreamed", [False, True], ids=["bun fragment undreamed", "bun fragment dreamed"])
def test_a_superseded_citation_is_never_a_hook(ws, dreamed):
    write_stream(ws.root, "2026-05-18", [fragment_line("2026-05-18", 1, "package manager", "The user uses bun")])
    write_stream(ws.root, "2026-05-20", [fragment_line("2026-05-20", 1, "package manager", "Switched to pnpm")])
    write_shard(ws.root, "package-manager", shard_text("The user uses pnpm for this repo", [cite("2026-05-20", 1)],
                                                       superseded=[cite("2026-05-18", 1)]))
    if dreamed:
        save_state(ws.state_path, DreamingState().add_dreamed("2026-05-18", {uuid_at("2026-05-18", 1)}, "x"))
    assert recall(ws, "bun") == []
    assert shown(recall(ws, "pnpm")) == [("topic", "package-manager")]


def test_a_belief_s_tier_and_decay_in_recall_count_only_its_own_evidence(ws):
    """A belief that replaced one seen on four days is supported by one day: recall words it as
    the strength table does ("mentioned"), and ranks it as a one-day belief, not a five-day one."""
    old = [cite(f"2026-05-{d:02d}", 1) for d in range(10, 14)]
    write_shard(ws.root, "cadence", shard_text("Releases are cut on Thursdays", [cite("2026-05-21", 1)], superseded=old))
    write_shard(ws.root, "fresh", shard_text("Deploys are cut on Thursdays", [cite("2026-05-21", 2)]))
    for n in range(3):
        write_shard(ws.root, f"kayak-{n}", shard_text(f"Kayak {n} is stored by the river", []))
    blocks = {b.key: b for b in recall(ws, "cut thursdays", record=False)}
    assert blocks["cadence"].why["tier"] == "mentioned"
    assert blocks["cadence"].why["decay"] == blocks["fresh"].why["decay"]


def test_a_forgotten_fragment_never_returns_by_id_or_content(ws):
    write_stream(ws.root, TODAY, [fragment_line(TODAY, 1, "travel", "Passport number is in the drawer"),
                                  fragment_line(TODAY, 2, "travel", "Passport renewal is due in June")])
    assert len(recall(ws, "passport")) == 2
    record(ws, "forget", Tombstone(TODAY, uuid_at(TODAY, 1), fragment_content_hash("travel", "Passport number is in the drawer"),
                                   "private", "human:t", "x"))
    write_stream(ws.root, TODAY, [fragment_line(TODAY, 3, "travel", "Passport number is in the drawer")])  # same words, new id
    assert shown(recall(ws, "passport")) == [("stream", f"{TODAY}#{uuid_at(TODAY, 2)}")]


def test_todays_undreamed_fragment_is_reachable_before_any_dream(ws):
    write_stream(ws.root, TODAY, [fragment_line(TODAY, 1, "oncall", "Jisoo is oncall this week", who="Jisoo")])
    [block] = recall(ws, "who is oncall?")
    assert (block.kind, block.heading, block.excerpt) == ("stream", "oncall", "Jisoo is oncall this week")
    assert block.why["status"] == "active" and block.why["tier"] is None


@pytest.fixture
def decayed(ws):
    """Equally relevant beliefs at each decay status (λ = 0.03, one reinforcement day), and as
    many about something else: "gliders" is in fewer than half the beliefs, so BM25 weighs it."""
    for n in range(6):
        write_shard(ws.root, f"other-{n}", shard_text(f"Kayak {n} is stored by the river", []))
    for slug, day in (("fresh", "2026-05-20"), ("fading", "2026-04-27"), ("dormant", "2026-03-23"), ("archived", "2026-01-22")):
        write_shard(ws.root, slug, shard_text(f"The user keeps {slug} notes about gliders", [cite(day, 1)]))
    write_shard(ws.root, "pinned", shard_text("The user keeps pinned notes about gliders", [cite("2025-01-01", 1)]), folder="vault")
    return ws


def test_decay_status_shapes_the_ranking(decayed):
    blocks = recall(decayed, "gliders notes", record=False)
    assert {b.key: b.why["status"] for b in blocks} == {"fresh": "active", "pinned": "pinned", "fading": "fading"}
    by_key = {b.key: b for b in blocks}
    assert by_key["fading"].score == pytest.approx(by_key["fading"].why["bm25"] * by_key["fading"].why["decay"], rel=1e-3)
    assert by_key["fresh"].score == pytest.approx(by_key["fresh"].why["bm25"], rel=1e-3)
    assert [b.key for b in blocks].index("fading") == 2  # deprioritized below the active and the pinned


def test_dormant_only_when_asked_and_archived_never(decayed):
    blocks = recall(decayed, "gliders notes", include_dormant=True, record=False)
    assert {b.key for b in blocks} == {"fresh", "pinned", "fading", "dormant"}
    assert {b.key: b.why["status"] for b in blocks}["dormant"] == "dormant"


def test_the_vault_never_decays_and_a_pinned_belief_is_shown_once(decayed):
    write_shard(decayed.root, "pinned", shard_text("The user keeps pinned notes about gliders", [cite("2025-01-01", 1)]))
    blocks = [b for b in recall(decayed, "pinned gliders", record=False) if b.key == "pinned"]
    assert [(b.kind, b.why["status"], b.why["decay"]) for b in blocks] == [("vault", "pinned", 1.0)]


def test_being_shown_counts_as_access_and_revives_a_fading_belief(decayed):
    assert {b.key: b.why["status"] for b in recall(decayed, "fading gliders")}["fading"] == "fading"
    again = {b.key: b for b in recall(decayed, "fading gliders")}["fading"]
    assert again.why["status"] == "active" and again.why["access_count"] == 1 and again.why["last_access"] == TODAY


@pytest.fixture
def many(ws):
    for n in range(20):
        write_shard(ws.root, f"tip-{n:02d}", shard_text(f"Tip {n}: keep the gliders waxed and the hangar dry, always", []))
    return ws


@pytest.mark.parametrize("budget,count", [("lean", 3), ("balanced", 7), ("deep", 15)])
def test_budgets_are_joelclaws_profiles(many, budget, count):
    assert len(recall(many, "gliders hangar", budget=budget, record=False)) == count
    assert len(recall(many, "gliders hangar", budget=budget, limit=2, record=False)) == 2


def test_weak_hits_past_the_profiles_minimum_are_cut(many):
    for n in range(22):  # "hangar" is in fewer than half the beliefs: BM25 weighs it
        write_shard(many.root, f"kayak-{n:02d}", shard_text(f"Kayak {n} is stored by the river", []))
    write_shard(many.root, "rare", shard_text("The zeppelin is kept in hangar nine", []))
    lean = recall(many, "zeppelin hangar", budget="lean", record=False)
    assert lean[0].key == "rare" and len(lean) == PROFILES["lean"].min_hits
    assert len(recall(many, "zeppelin hangar", budget="deep", record=False)) == PROFILES["deep"].min_hits


def test_a_word_in_half_the_beliefs_or_more_does_not_pad_the_answer_when_a_rarer_one_matched(many):
    # "hangar" is in 20 of 21 beliefs: BM25 floors its weight at ~0, so the tips that only hold it
    # are not matches once "zeppelin" matched; asked alone, it still finds them.
    write_shard(many.root, "rare", shard_text("The zeppelin is kept in hangar nine", []))
    assert [b.key for b in recall(many, "zeppelin hangar", budget="deep", record=False)] == ["rare"]
    assert len(recall(many, "hangar", budget="deep", record=False)) == PROFILES["deep"].max_hits


@pytest.mark.parametrize("max_bytes", [60, 300, 1000, 2500])
def test_the_byte_budget_is_never_exceeded(ws, max_bytes):
    for n in range(10):
        write_shard(ws.root, f"long-{n}", shard_text(f"Glider note {n} " + "with a long explanation " * 30, []))
    blocks = recall(ws, "glider explanation", budget="deep", max_bytes=max_bytes, record=False)
    assert sum(b.size for b in blocks) <= max_bytes
    if blocks and blocks[-1].why.get("cut"):
        assert blocks[-1].excerpt.endswith("…")
    assert len(recall(ws, "glider explanation", budget="deep", record=False)) > len(blocks) or max_bytes >= 2500


def test_auto_chooses_the_profile_from_the_query():
    assert choose_profile("pnpm").name == "lean"
    assert choose_profile("which package manager does this repo use?").name == "balanced"
    assert choose_profile("why did the deploy day move from tuesday to wednesday this quarter and who decided").name == "deep"
    assert choose_profile("한국어 답변").name == "lean"


def test_every_recall_is_recorded_and_a_preview_is_not(many):
    recall(many, "gliders hangar", budget="lean", record=False)
    assert read_access(many) == []
    blocks = recall(many, "gliders hangar", budget="lean")
    [rec] = read_access(many)
    assert (rec.op, rec.query, rec.detail["budget"]) == ("recall", "gliders hangar", "lean")
    assert list(rec.items) == [f"topic:{b.key}" for b in blocks]


def test_a_block_says_what_it_is_and_why(ws):
    write_shard(ws.root, "deploys", shard_text("Deploys happen on Fridays", [cite("2026-05-20", 1), cite("2026-05-21", 1)]))
    for n in range(2):  # "deploy" in fewer than half the beliefs: BM25 weighs it (`index.search_strength`)
        write_shard(ws.root, f"kayak-{n}", shard_text(f"Kayak {n} is stored by the river", []))
    [block] = recall(ws, "deploy", record=False)
    assert block.to_json() == {
        "kind": "topic", "key": "deploys", "heading": "Deploys happen on Fridays", "excerpt": "Deploys happen on Fridays.",
        "score": block.score, "path": "topics/deploys.md",
        "why": {"bm25": block.why["bm25"], "decay": 1.0, "status": "active", "tier": "observed", "weight": 1.0,
                "access_count": 0, "last_access": None},
    }


def test_chinese_and_korean_questions_find_their_beliefs(ws):
    write_shard(ws.root, "city", shard_text("用户住在北京", []))
    write_shard(ws.root, "lang", shard_text("사용자는 한국어로 답변을 원한다", []))
    assert shown(recall(ws, "用户在哪个城市？北京", record=False)) == [("topic", "city")]
    assert shown(recall(ws, "어떤 언어로 답변해야 해?", record=False)) == [("topic", "lang")]


@pytest.mark.parametrize("kwargs,message", [
    ({"query": "   "}, "needs a query"),
    ({"query": "x", "budget": "huge"}, "unknown budget 'huge'"),
    ({"query": "x", "limit": 0}, "limit must be"),
    ({"query": "x", "max_bytes": -1}, "max_bytes must be"),
])
def test_bad_input_is_one_clear_error(ws, kwargs, message):
    (ws.memory / "topics").mkdir(parents=True)
    with pytest.raises(BadInput, match=message):
        recall(ws, **kwargs)


def test_a_workspace_without_memory_says_so(tmp_path):
    with pytest.raises(NotFound, match="no memory/ folder"):
        recall(Workspace.open(tmp_path, today=TODAY), "anything")
