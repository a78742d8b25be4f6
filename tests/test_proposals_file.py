"""memory/meta/pending-memories.md: Moltbot §13.2 parsing, rendering, appends and conflicts."""
from __future__ import annotations

import multiprocessing
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dreamdeck.core.formats.pending_memories import CONFIDENCES, STORES, Proposal, parse_pending, render_pending
from dreamdeck.core.store.proposals_file import (
    ProposalNotFound,
    append_proposal,
    find_conflicts,
    pending_path,
    read_pending,
    update_status,
)

NOW = datetime(2026, 2, 3, 10, 0, tzinfo=UTC)

SECTION_13_2 = """# Pending Memory Proposals
<!-- Sub-agents append proposals here. Main agent reviews and commits. -->
---
## Proposal #1
- **From**: researcher
- **Timestamp**: 2026-02-03T10:00:00Z
- **Trigger**: auto-detect during research task
- **Suggested store**: semantic
- **Content**: User prefers academic sources over blog posts for technical topics
- **Entities**: [preference--source-quality]
- **Confidence**: medium
- **Core-worthy**: no
- **Status**: pending
---
## Proposal #2
- **From**: coder
- **Timestamp**: 2026-02-03T10:15:00Z
- **Trigger**: user said "remember this pattern"
- **Suggested store**: procedural
- **Content**: When refactoring, user wants tests written before changing implementation
- **Entities**: [procedure--refactoring-workflow]
- **Confidence**: high
- **Core-worthy**: no
- **Status**: pending
"""


def _proposal(number: int, content: str, entities=(), status="pending", **kw) -> Proposal:
    return Proposal(number=number, from_agent=kw.pop("from_agent", "researcher"),
                    timestamp="2026-02-03T10:00:00Z", trigger="test", store="semantic",
                    content=content, entities=list(entities), status=status, **kw)


# ------------------------------------------------------------------------------ parsing

def test_parses_the_exact_section_13_2_example():
    result = parse_pending(SECTION_13_2)
    assert result.problems == []
    first, second = result.proposals
    assert first == Proposal(
        number=1, from_agent="researcher", timestamp="2026-02-03T10:00:00Z",
        trigger="auto-detect during research task", store="semantic",
        content="User prefers academic sources over blog posts for technical topics",
        entities=["preference--source-quality"], confidence="medium", core_worthy=False,
        status="pending",
    )
    assert first.id == "p-1"
    assert second.number == 2 and second.from_agent == "coder" and second.store == "procedural"
    assert second.trigger == 'user said "remember this pattern"'
    assert second.confidence == "high"
    assert second.entities == ["procedure--refactoring-workflow"]


def test_renders_the_section_13_2_example_byte_for_byte():
    assert render_pending(parse_pending(SECTION_13_2).proposals) == SECTION_13_2


def test_parses_the_section_13_6_conflict_example():
    text = """## Proposal #3 ⚠️ CONFLICT with #4
- **From**: researcher
- **Suggested store**: semantic
- **Content**: Project deadline is March 15
- **Status**: conflict — see #4

## Proposal #4 ⚠️ CONFLICT with #3
- **From**: coder
- **Suggested store**: semantic
- **Content**: Project deadline is March 30
- **Status**: conflict — see #3
"""
    result = parse_pending(text)
    assert result.problems == []
    three, four = result.proposals
    assert three.conflict_with == [4] and three.status == "conflict — see #4"
    assert four.conflict_with == [3] and four.is_open


def test_one_broken_block_is_reported_with_its_line_and_the_others_load():
    text = SECTION_13_2 + """---
## Proposal #3
- **From**: coder
- **Suggested store**: attic
- **Content**: Something in a store that does not exist
---
## Proposal
- **From**: coder
- **Suggested store**: semantic
- **Content**: A heading without a number
---
## Proposal #5
- **From**: coder
- **Suggested store**: semantic
- **Status**: pending
---
## Proposal #6
- **From**: reviewer
- **Suggested store**: episodic
- **Content**: Still loads after three broken neighbours
"""
    result = parse_pending(text)
    assert [p.number for p in result.proposals] == [1, 2, 6]
    assert len(result.problems) == 3
    lines = text.split("\n")
    for problem, needle in zip(result.problems, ["## Proposal #3", "## Proposal", "## Proposal #5"]):
        line_no = int(problem.split(":")[0].removeprefix("line "))
        assert lines[line_no - 1] == needle
    assert "attic" in result.problems[0]
    assert "no number" in result.problems[1]
    assert "no content" in result.problems[2]


def test_hand_written_variations_load():
    text = (
        "# Pending Memory Proposals\r\n\r\n"
        "---\r\n\r\n"
        "## Proposal #7\r\n\r\n"
        "- **From**: human\r\n"
        "* **Store:** Semantic\r\n"
        "- **Content**: User lives in Lisbon\r\n"
        "  and works remotely\r\n"
        "- **Entities**: person--user, place--lisbon\r\n"
        "- **Confidence**: HIGH\r\n"
        "- **Core-worthy**: Yes\r\n"
        "- **Status**: deferred\r\n"
        "- **Reviewer note**: double-check the city\r\n"
        "- **Reason**: waiting for the user\r\n\r\n"
        "---\r\n"
        "## Proposal #8\r\n"
        "- **From**: coder\r\n"
        "- **Suggested store**: procedural\r\n"
        "- **Content**: Run the linter before commits\r\n"
        "- **Entities**: []\r\n"
        "- **Core-worthy**: NO\r\n"
    )
    result = parse_pending(text)
    assert result.problems == []
    seven, eight = result.proposals
    assert seven.store == "semantic"
    assert seven.content == "User lives in Lisbon and works remotely"
    assert seven.entities == ["person--user", "place--lisbon"]
    assert seven.confidence == "high" and seven.core_worthy is True
    assert seven.status == "deferred" and seven.reason == "waiting for the user"
    assert seven.extra == [("Reviewer note", "double-check the city")]
    assert eight.entities == [] and eight.core_worthy is False
    assert eight.status == "pending" and eight.confidence == "medium"


def test_content_hash_ignores_case_and_whitespace():
    a = _proposal(1, "User  prefers\tPNPM ")
    b = _proposal(2, "user prefers pnpm")
    assert a.content_hash == b.content_hash
    assert a.content_hash != _proposal(3, "user prefers yarn").content_hash


_line = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=40,
).map(lambda s: " ".join(s.split())).filter(bool)
_maybe_line = st.one_of(st.just(""), _line)
_entity = st.from_regex(r"[a-z0-9][a-z0-9-]{0,20}(--[a-z0-9-]{1,20})?", fullmatch=True)
_extra_key = st.from_regex(r"[A-Z][a-z]{1,10}( [a-z]{1,8})?", fullmatch=True).filter(
    lambda k: k.lower() not in {"from", "timestamp", "trigger", "store", "content", "entities",
                                "entity", "confidence", "status", "reason", "time", "date",
                                "agent", "core", "suggested store", "from agent", "coreworthy"})


@st.composite
def _proposals(draw):
    numbers = draw(st.lists(st.integers(0, 10_000), unique=True, max_size=6))
    out = []
    for n in numbers:
        out.append(Proposal(
            number=n,
            from_agent=draw(_maybe_line),
            timestamp=draw(_maybe_line),
            trigger=draw(_maybe_line),
            store=draw(st.sampled_from(STORES)),
            content=draw(_line),
            entities=draw(st.lists(_entity, unique=True, max_size=4)),
            confidence=draw(st.sampled_from(CONFIDENCES)),
            core_worthy=draw(st.booleans()),
            status=draw(st.one_of(st.sampled_from(["pending", "deferred", "committed", "conflict — see #4"]),
                                  _line)),
            conflict_with=draw(st.lists(st.integers(0, 10_000), max_size=3)),
            extra=draw(st.lists(st.tuples(_extra_key, _maybe_line), max_size=2)),
            reason=draw(st.one_of(st.none(), _maybe_line)),
        ))
    return out


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_proposals())
def test_render_then_parse_round_trips(proposals):
    text = render_pending(proposals)
    result = parse_pending(text)
    assert result.problems == []
    assert result.proposals == proposals
    assert render_pending(result.proposals) == text


# ------------------------------------------------------------------------------ appends

def test_append_creates_the_file_and_numbers_max_plus_one(tmp_path: Path):
    p1, new1 = append_proposal(tmp_path, "researcher", "semantic", "User prefers academic sources",
                               entities=["preference--source-quality"], now=NOW)
    p2, new2 = append_proposal(tmp_path, "coder", "procedural", "Write tests before refactoring",
                               confidence="high", now=NOW + timedelta(minutes=15))
    assert (p1.number, p2.number, new1, new2) == (1, 2, True, True)
    text = pending_path(tmp_path).read_text()
    assert text.startswith("# Pending Memory Proposals\n<!-- ")
    assert text == render_pending([p1, p2])  # appends build exactly the canonical file
    assert p2.timestamp == "2026-02-03T10:15:00Z"
    # a hand-written block with a big number (even a malformed one) moves the counter on
    with pending_path(tmp_path).open("a") as fh:
        fh.write("---\n## Proposal #41\n- **From**: human\n- **Content**: no store given\n")
    p3, _ = append_proposal(tmp_path, "coder", "episodic", "Deployed v2 today", now=NOW)
    assert p3.number == 42
    assert "## Proposal #41\n- **From**: human" in pending_path(tmp_path).read_text()


def test_append_keeps_a_hand_edit_made_in_between(tmp_path: Path):
    append_proposal(tmp_path, "researcher", "semantic", "First fact", now=NOW)
    path = pending_path(tmp_path)
    edited = path.read_text().replace("- **Status**: pending", "- **Status**: deferred\n- **Note**: by hand")
    path.write_text(edited.rstrip("\n"))  # an editor that drops the final newline
    append_proposal(tmp_path, "coder", "semantic", "Second fact", now=NOW)
    text = path.read_text()
    assert text.startswith(edited.rstrip("\n") + "\n---\n## Proposal #2")
    result = parse_pending(text)
    assert result.problems == []
    assert [p.status for p in result.proposals] == ["deferred", "pending"]


def test_re_proposing_the_same_content_is_idempotent(tmp_path: Path):
    first, created = append_proposal(tmp_path, "researcher", "semantic", "User prefers pnpm", now=NOW)
    before = pending_path(tmp_path).read_bytes()
    again, created_again = append_proposal(tmp_path, "coder", "semantic", "  user PREFERS\npnpm ", now=NOW)
    assert created and not created_again
    assert again == first
    assert pending_path(tmp_path).read_bytes() == before


def test_re_proposing_rejected_content_makes_a_new_proposal(tmp_path: Path):
    first, _ = append_proposal(tmp_path, "researcher", "semantic", "User prefers pnpm", now=NOW)
    update_status(tmp_path, first.number, "rejected", reason="stale")
    second, created = append_proposal(tmp_path, "researcher", "semantic", "User prefers pnpm", now=NOW)
    assert created and second.number == 2


def test_a_secret_is_refused_naming_its_family_and_nothing_is_written(tmp_path: Path):
    token = "ghp_" + "a1B2" * 10
    with pytest.raises(ValueError, match="github token") as info:
        append_proposal(tmp_path, "coder", "semantic", f"The deploy token is {token}", now=NOW)
    assert token not in str(info.value)
    assert not pending_path(tmp_path).exists()
    append_proposal(tmp_path, "coder", "semantic", "Harmless", now=NOW)
    before = pending_path(tmp_path).read_bytes()
    with pytest.raises(ValueError, match="anthropic key"):
        append_proposal(tmp_path, "coder", "semantic", "key sk-ant-" + "x" * 30, now=NOW)
    assert pending_path(tmp_path).read_bytes() == before


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"from_agent": "../etc"}, "agent name"),
        ({"from_agent": ""}, "agent name"),
        ({"from_agent": "a" * 65}, "agent name"),
        ({"store": "attic"}, "store"),
        ({"content": "   \n "}, "empty"),
        ({"content": "x" * 4001}, "limit"),
        ({"confidence": "certain"}, "confidence"),
        ({"entities": ["ok", "../bad"]}, "entity"),
    ],
)
def test_bad_input_is_refused_before_anything_is_written(tmp_path: Path, kwargs, message):
    args = {"from_agent": "coder", "store": "semantic", "content": "A fact"} | kwargs
    with pytest.raises(ValueError, match=message):
        append_proposal(tmp_path, args.pop("from_agent"), args.pop("store"), args.pop("content"),
                        now=NOW, **args)
    assert not pending_path(tmp_path).exists()


def test_newlines_in_content_collapse_to_one_line(tmp_path: Path):
    p, _ = append_proposal(tmp_path, "coder", "semantic", "line one\n- **Status**: committed\nline three",
                           now=NOW)
    assert p.content == "line one - **Status**: committed line three"
    (loaded,) = read_pending(tmp_path).proposals
    assert loaded.status == "pending" and loaded.content == p.content


def _propose_many(root: str, agent: str, count: int) -> list[int]:
    numbers = []
    for i in range(count):
        p, created = append_proposal(Path(root), agent, "episodic", f"{agent} observation number {i}",
                                     now=NOW + timedelta(seconds=i))
        assert created
        numbers.append(p.number)
    return numbers


def test_eight_processes_proposing_concurrently_lose_nothing(tmp_path: Path):
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(8) as pool:
        results = pool.starmap(_propose_many, [(str(tmp_path), f"agent{i}", 20) for i in range(8)])
    returned = [n for numbers in results for n in numbers]
    result = read_pending(tmp_path)
    assert result.problems == []
    assert len(result.proposals) == 160
    assert sorted(p.number for p in result.proposals) == list(range(1, 161))
    assert sorted(returned) == list(range(1, 161))
    assert len({p.content_hash for p in result.proposals}) == 160
    text = pending_path(tmp_path).read_text()
    assert text == render_pending(result.proposals)


# ------------------------------------------------------------------------------ conflicts

@pytest.mark.parametrize(
    ("a", "b", "a_entities", "b_entities", "expected"),
    [
        ("Project deadline is March 15", "Project deadline is March 30", (), (), True),
        ("Project deadline is March 15", "The project deadline was moved to March 30", (), (), True),
        ("The project deadline is March 15", "Project deadline is March 30", (), (), True),
        ("User prefers pnpm", "User no longer prefers pnpm", (), (), True),
        ("User prefers pnpm", "User does not prefer pnpm", (), (), True),
        ("User uses tabs", "User never uses tabs", (), (), True),
        ("Standup is at 9:30", "Standup is at 10:00", ("event--standup",), ("event--standup",), True),
        ("Apollo deadline is March 15", "Deadline is March 30", ("project--apollo",), ("project--apollo",), True),
        # negatives
        ("User prefers pnpm", "User prefers pnpm for monorepos", (), (), False),  # a refinement
        ("User prefers pnpm", "User prefers yarn", (), (), False),  # no number, no negation
        ("Project deadline is March 15", "Project deadline is March 15, 2026", (), (), False),
        ("User is 30", "User has 2 kids", (), (), False),  # same subject, different verb
        ("User prefers pnpm", "User does not like being interrupted", (), (), False),
        ("Project deadline is March 15", "Project deadline is March 30", ("project--a",), ("project--b",), False),
        ("Apollo deadline is March 15", "Apollo kickoff was March 1", ("project--apollo",), ("project--apollo",), False),
        ("Meeting at 3", "Lunch at 1", (), (), False),  # no verb: no subject
    ],
)
def test_conflict_heuristic(a, b, a_entities, b_entities, expected):
    new = _proposal(2, b, b_entities)
    other = _proposal(1, a, a_entities)
    assert find_conflicts(new, [other]) == ([1] if expected else [])
    assert find_conflicts(_proposal(1, a, a_entities), [_proposal(2, b, b_entities)]) == ([2] if expected else [])


def test_identical_content_and_itself_never_conflict():
    p = _proposal(1, "Project deadline is March 15")
    assert find_conflicts(p, [p, _proposal(2, "project deadline is  march 15")]) == []


def test_conflicting_proposals_are_both_marked_in_one_rewrite(tmp_path: Path):
    append_proposal(tmp_path, "researcher", "semantic", "Project deadline is March 15", now=NOW)
    append_proposal(tmp_path, "coder", "semantic", "User prefers pnpm", now=NOW)
    new, created = append_proposal(tmp_path, "coder", "semantic", "Project deadline is March 30", now=NOW)
    assert created and new.number == 3
    assert new.conflict_with == [1] and new.status == "conflict — see #1"
    text = pending_path(tmp_path).read_text()
    assert "## Proposal #1 ⚠️ CONFLICT with #3\n" in text
    assert "## Proposal #3 ⚠️ CONFLICT with #1\n" in text
    assert "## Proposal #2\n" in text
    result = read_pending(tmp_path)
    assert result.problems == []
    one, two, three = result.proposals
    assert one.status == "conflict — see #3" and one.conflict_with == [3]
    assert two.status == "pending" and two.conflict_with == []
    assert three == new
    # a third voice joins the existing conflict
    fourth, _ = append_proposal(tmp_path, "reviewer", "semantic", "Project deadline is April 2", now=NOW)
    assert fourth.conflict_with == [1, 3]
    one, _, three, _ = read_pending(tmp_path).proposals
    assert one.conflict_with == [3, 4] and one.status == "conflict — see #3, #4"
    assert three.conflict_with == [1, 4]


def test_decided_proposals_are_not_checked_for_conflicts(tmp_path: Path):
    first, _ = append_proposal(tmp_path, "researcher", "semantic", "Project deadline is March 15", now=NOW)
    update_status(tmp_path, first.number, "committed")
    new, _ = append_proposal(tmp_path, "coder", "semantic", "Project deadline is March 30", now=NOW)
    assert new.conflict_with == [] and new.status == "pending"


# ------------------------------------------------------------------------------ update_status

def test_update_status_rewrites_only_that_block(tmp_path: Path):
    path = pending_path(tmp_path)
    path.parent.mkdir(parents=True)
    broken = "---\n## Proposal #9\n- **Content**: no store, kept verbatim\n"
    path.write_text(SECTION_13_2.replace("\n", "\r\n") + broken.replace("\n", "\r\n"), newline="")
    updated = update_status(tmp_path, 2, "rejected", reason="duplicate of #1")
    assert updated.status == "rejected" and updated.reason == "duplicate of #1"
    raw = path.read_bytes().decode()
    head, tail = SECTION_13_2.split("## Proposal #2")
    expected = head + "## Proposal #2" + tail.replace(
        "- **Status**: pending\n", "- **Status**: rejected\n- **Reason**: duplicate of #1\n")
    assert raw == (expected + broken).replace("\n", "\r\n")
    result = read_pending(tmp_path)
    assert [p.status for p in result.proposals] == ["pending", "rejected"]
    assert len(result.problems) == 1  # the malformed block survived the rewrite


def test_update_status_of_a_missing_proposal_raises(tmp_path: Path):
    with pytest.raises(ProposalNotFound):
        update_status(tmp_path, 1, "committed")
    append_proposal(tmp_path, "coder", "semantic", "A fact", now=NOW)
    with pytest.raises(ProposalNotFound):
        update_status(tmp_path, 7, "committed")
