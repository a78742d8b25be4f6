"""A forgotten text written another way stays forgotten (issue 10, item 2): another case, other
spacing, a final period or compatibility letters are the same text to a tombstone (its loose
hash, `formats.loose_text`), refused on every path the exact hash is — remember, a proposal,
an outside writer's line in any day's file, the stream view's pre-check, what a dreamer is
given, a citation at the door, a replay from git history — and for a tombstone recorded before
loose hashes were kept, computed from its line while the stream still holds it.
"""
from __future__ import annotations

import json

import pytest

from dreamdeck.core.door.apply import apply_changeset
from dreamdeck.core.door.changeset import ChangeSet, Commit, FileEdit, Writes
from dreamdeck.core.errors import Refused
from dreamdeck.core.formats.loose_text import loose_content_hash, loose_text, needle_of
from dreamdeck.core.index.stream_search import parse_query, search_days
from dreamdeck.core.index.stream_view import StreamView
from dreamdeck.core.index.undreamed import collect_undreamed
from dreamdeck.core.io.cache import clear_all
from dreamdeck.core.ops.forget import forget_fragment
from dreamdeck.core.ops.proposals import ProposalError, approve_proposal, propose
from dreamdeck.core.store.state import load_state
from dreamdeck.core.store.streams import AppendRefused, append_fragment
from dreamdeck.core.store.tombstones import forgotten, tombstones_path
from dreamdeck.core.workspace import Workspace
from tests.support.memory import commit_all, fragment_line, shard_text, uuid_at, write_shard, write_stream

TODAY, OLD = "2026-05-22", "2026-05-20"
TOPIC, BODY = "infra", "The staging database moves to Frankfurt on Tuesday"
VARIANTS = {
    "upper case": ("INFRA", BODY.upper()),
    "spacing": (" infra ", "The  staging database\n moves to Frankfurt   on Tuesday"),
    "final period": ("infra", BODY + "."),
    "fullwidth letters": ("ｉｎｆｒａ", BODY.replace("Frankfurt", "Ｆｒａｎｋｆｕｒｔ")),
    "all at once": ("Infra.", "  the STAGING database moves to frankfurt on tuesday !  "),
    "invisible characters": ("in\u200bfra", "\ufeffThe sta\u00adging data\u200dbase moves to Frank\u2060furt on Tues\ufe0fday\u200f"),
    # a topic label is a hint: a statement of four words or more is forgotten under any label
    "another topic": ("deploy notes", BODY),
    "another topic, written another way": ("ops", "  the STAGING database moves to frankfurt on tuesday ! "),
    "another topic, a newline inside": ("ops", "The staging database moves to\nFrankfurt on Tuesday"),
}


def seed_and_forget(root, hard: bool = True) -> Workspace:
    write_stream(root, OLD, [fragment_line(OLD, 1, TOPIC, BODY), fragment_line(OLD, 2, "misc", "Lunch is at noon.")])
    write_shard(root, "infra", shard_text("Infra", [f"streams/{OLD}#{uuid_at(OLD, 1)}", f"streams/{OLD}#{uuid_at(OLD, 2)}"]))
    commit_all(root)
    ws = Workspace.open(root, today=TODAY)
    forget_fragment(ws, OLD, uuid_at(OLD, 1), "wrong", hard=hard)
    return ws


def shown_anywhere(ws: Workspace, fid: str) -> list[str]:
    clear_all()
    places = []
    view = StreamView(ws, min_rows=10_000)
    if any(view.row(i)["id"] == fid for i in range(len(view))):
        places.append("stream view")
    if any(row["id"] == fid for day in search_days(ws, parse_query("staging")) for row in day.rows):
        places.append("stream search")
    if any(f.id == fid for f in collect_undreamed(ws, load_state(ws.state_path)[0])):
        places.append("undreamed")
    return places


def door_cites(ws: Workspace, citation: str) -> None:
    apply_changeset(ws, ChangeSet(Commit("edit", "test", "approved", "edit", "cite it"),
                                  Writes([FileEdit("topics/smuggled.md", None, shard_text("Smuggled", [citation]))])))


def test_invisible_characters_are_dropped_from_the_loose_text():
    """Zero-width space and joiner, soft hyphen, BOM, word joiner, bidi marks, variation selectors
    and tag characters are invisible: a forgotten text sprinkled with them is the same text."""
    for mark in ("\u200b", "\u200c", "\u200d", "\u00ad", "\ufeff", "\u2060", "\u200e", "\u202e", "\ufe0f",
                 "\U000e0041", "\u034f", "\u180e"):
        assert loose_text(f"dep{mark}loy on Friday") == "deploy on friday", repr(mark)


@pytest.mark.parametrize(("forgotten_text", "other_fact"), [
    ("Budget cut 50%", "Budget cut 50"),
    ("We use C#", "We use C"),
    ("Never run rm -rf /", "Never run rm -rf"),
    ("The limit is 5*", "The limit is 5"),
    ("Deploy on Friday?", "Deploy on Friday."),
    ('She said "no"', 'She said "no'),
    ("Don't deploy on Friday", "Deploy on Friday"),
])
def test_two_different_facts_never_share_a_loose_hash(forgotten_text, other_fact):
    """A false refusal: only sentence-ending punctuation is one ending; a percent sign, a hash, a
    slash, a question mark or a closing quote are part of what is said."""
    assert loose_content_hash("t", forgotten_text) != loose_content_hash("t", other_fact)


def test_a_record_made_under_the_first_loose_rule_still_refuses_what_it_refused(agent_dir):
    """Records keep the hash of the rule they were made under: one made under `loose1` (any
    final punctuation stripped) still refuses "Budget cut 50%!" for "Budget cut 50%"."""
    from dreamdeck.core.formats.loose_text import loose_content_hashes

    ws = seed_and_forget(agent_dir, hard=True)
    path = tombstones_path(ws)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    for rec in records:
        rec["loose"] = loose_content_hashes(TOPIC, BODY)[1]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    clear_all()
    with pytest.raises(AppendRefused, match="forgotten"):
        append_fragment(ws, "Infra", BODY + " !")
    write_stream(agent_dir, TODAY, [fragment_line(TODAY, 3, "INFRA", BODY + ".")])
    assert shown_anywhere(ws, uuid_at(TODAY, 3)) == []


def test_the_loose_text_folds_case_spacing_compatibility_letters_and_a_final_period():
    assert loose_text("  The  STAGING\tdatabase\n moves… !  ") == "the staging database moves"
    assert loose_text("Ｆｒａｎｋｆｕｒｔ") == "frankfurt"
    assert loose_text("Straße") == loose_text("STRASSE")
    assert loose_text("数据库迁移到法兰克福。") == "数据库迁移到法兰克福"
    assert loose_content_hash("infra", BODY) != loose_content_hash("infra", BODY.replace("Tuesday", "Monday"))
    assert needle_of("Deploy process") == "process" and needle_of("...") is None


@pytest.mark.parametrize("variant", list(VARIANTS), ids=list(VARIANTS))
def test_remember_refuses_the_forgotten_text_written_another_way(agent_dir, variant):
    ws = seed_and_forget(agent_dir)
    before = (agent_dir / "memory" / "streams").iterdir()
    topic, body = VARIANTS[variant]
    with pytest.raises(AppendRefused, match="forgotten"):
        append_fragment(ws, topic, body)
    assert sorted(before) == sorted((agent_dir / "memory" / "streams").iterdir())
    assert not (agent_dir / "memory" / "streams" / f"{TODAY}.jsonl").exists()


@pytest.mark.parametrize("variant", list(VARIANTS), ids=list(VARIANTS))
def test_an_outside_writers_variant_is_never_shown_dreamed_or_cited(agent_dir, variant):
    ws = seed_and_forget(agent_dir, hard=False)
    write_stream(agent_dir, TODAY, [fragment_line(TODAY, 7, *VARIANTS[variant]),
                                    fragment_line(TODAY, 8, "misc", "The staging coffee machine is fixed.")])
    assert shown_anywhere(ws, uuid_at(TODAY, 7)) == []
    assert shown_anywhere(ws, uuid_at(TODAY, 8)) == ["stream view", "stream search", "undreamed"]
    with pytest.raises(Refused, match="forgotten"):
        door_cites(ws, f"streams/{TODAY}#{uuid_at(TODAY, 7)}")


def test_a_variant_in_an_older_days_file_is_hidden_from_a_view_opened_before_the_forget(agent_dir):
    ws = seed_and_forget(agent_dir, hard=False)
    view = StreamView(ws, min_rows=10_000)
    write_stream(agent_dir, OLD, [fragment_line(OLD, 9, "INFRA", BODY + ".")])
    view.refresh()
    assert [view.row(i)["id"] for i in range(len(view))] == [uuid_at(OLD, 2)]


def test_an_ascii_topic_spelled_with_json_escapes_is_still_recognised(agent_dir):
    """The prefilter searches raw bytes: `\\u0069nfra` is `infra` to JSON and must not slip by."""
    ws = seed_and_forget(agent_dir)
    line = fragment_line(TODAY, 5, TOPIC, BODY).replace('"topic":"infra"', '"topic":"\\u0069nfra"')
    assert json.loads(line)["topic"] == TOPIC
    write_stream(agent_dir, TODAY, [line])
    assert shown_anywhere(ws, uuid_at(TODAY, 5)) == []


def test_a_proposal_of_the_forgotten_text_written_another_way_is_refused(agent_dir):
    ws = seed_and_forget(agent_dir)
    p, _ = propose(ws, "scout", "episodic", BODY.upper() + ".", entities=["Infra"])
    with pytest.raises(ProposalError, match="forgotten"):
        approve_proposal(ws, p.id)
    assert not (agent_dir / "memory" / "streams" / f"{TODAY}.jsonl").exists()


def test_a_tombstone_recorded_before_loose_hashes_still_refuses_a_variant(agent_dir):
    """An old record (no `loose`): its loose hash is computed from its line, which a soft
    forget leaves in the stream — also when the file comes back from git history."""
    ws = seed_and_forget(agent_dir, hard=False)
    path = tombstones_path(ws)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    for rec in records:
        rec.pop("loose")
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    clear_all()
    assert forgotten(ws).loose == {loose_content_hash(TOPIC, BODY)}
    with pytest.raises(AppendRefused, match="forgotten"):
        append_fragment(ws, "Infra", BODY + ".")
    write_stream(agent_dir, TODAY, [fragment_line(TODAY, 3, "INFRA", BODY + " !")])
    assert shown_anywhere(ws, uuid_at(TODAY, 3)) == []


# --- the same body under another topic (the VARIANTS above), and what is not it -------------------
def test_another_text_under_another_topic_is_neither_refused_nor_hidden(agent_dir):
    """A literal backslash before "Frankfurt" makes another text ("\\nfrankfurt"), so nothing
    of the forgotten statement's is refused in it."""
    ws = seed_and_forget(agent_dir, hard=True)
    append_fragment(ws, "ops", "The staging database moves to \\nFrankfurt on Tuesday")
    fid = json.loads((agent_dir / "memory" / "streams" / f"{TODAY}.jsonl").read_text().splitlines()[-1])["id"]
    assert shown_anywhere(ws, fid) == ["stream view", "stream search", "undreamed"]


def test_a_short_body_under_another_topic_is_not_refused(agent_dir):
    """'heartbeat ok' forgotten under one topic is not every 'heartbeat ok' ever after: a body of
    fewer than four words (or eight CJK characters) is forgotten with its topic only."""
    write_stream(agent_dir, OLD, [fragment_line(OLD, 1, "status", "heartbeat ok"), fragment_line(OLD, 2, "状态", "心跳正常")])
    commit_all(agent_dir)
    ws = Workspace.open(agent_dir, today=TODAY)
    forget_fragment(ws, OLD, uuid_at(OLD, 1), "noise", hard=True)
    forget_fragment(ws, OLD, uuid_at(OLD, 2), "noise", hard=True)
    append_fragment(ws, "cron", "heartbeat ok")
    append_fragment(ws, "定时", "心跳正常")
    with pytest.raises(AppendRefused, match="forgotten"):
        append_fragment(ws, "status", "Heartbeat OK.")


def test_a_chinese_statement_is_forgotten_under_another_topic(agent_dir):
    body = "预发布数据库周二迁移到法兰克福机房"
    write_stream(agent_dir, OLD, [fragment_line(OLD, 1, "基础设施", body)])
    commit_all(agent_dir)
    ws = Workspace.open(agent_dir, today=TODAY)
    forget_fragment(ws, OLD, uuid_at(OLD, 1), "wrong", hard=True)
    with pytest.raises(AppendRefused, match="forgotten"):
        append_fragment(ws, "运维", body + "。")
    write_stream(agent_dir, TODAY, [fragment_line(TODAY, 7, "运维", body)])
    assert shown_anywhere(ws, uuid_at(TODAY, 7)) == []


def test_the_tombstone_keeps_no_word_of_a_hard_forgotten_body(agent_dir):
    ws = seed_and_forget(agent_dir, hard=True)
    record = tombstones_path(ws).read_text()
    for word in ("staging", "database", "frankfurt", "tuesday"):
        assert word not in record.lower()
