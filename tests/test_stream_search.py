"""Searching the streams day by day (`core.index.stream_search`): what matches, in which order,
and that a search reads one day at a time, never the year up front."""
from __future__ import annotations

import pytest

from dreamdeck.core.errors import BadInput
from dreamdeck.core.formats.events import fragment_content_hash
from dreamdeck.core.index.stream_search import StreamQuery, parse_query, search_days
from dreamdeck.core.store.tombstones import Tombstone, record
from tests.support.memory import fragment_line, uuid_at, watermark_line, write_stream


def build(agent_dir):
    write_stream(agent_dir, "2026-05-20", [
        fragment_line("2026-05-20", 1, "deploys", "Friday deploys were rolled back", source="slack-1", who="Dana"),
        watermark_line("2026-05-20", 2),
        fragment_line("2026-05-20", 3, "editor", "Uses Helix; asked for no Vim tips"),
    ])
    write_stream(agent_dir, "2026-05-21", [
        fragment_line("2026-05-21", 1, "deploys", "Deploy freeze starts on the 28th", source="slack-1"),
        "{not json",
        fragment_line("2026-05-21", 2, "secrets", "Shared a deploy token by mistake"),
    ])
    write_stream(agent_dir, "2026-05-22", [
        fragment_line("2026-05-22", 1, "Café", "Prefers the Überkaffee blend", who="Tomás"),
        fragment_line("2026-05-22", 2, "deploys", "Tuesday deploy went out clean"),
    ])


def keys(days) -> list[str]:
    return [r["key"] for d in days for r in d.rows]


def test_the_query_line_has_words_and_terms():
    q = parse_query("Deploy  topic:Deploys source:slack who:dana from:2026-05-01 to:2026-05-21 type:x")
    assert q == StreamQuery(("deploy", "type:x"), "deploys", "slack", "dana", "2026-05-01", "2026-05-21")
    assert parse_query("day:2026-05-21").since == parse_query("day:2026-05-21").until == "2026-05-21"
    assert parse_query("  ").empty
    assert parse_query("who:dana day:2026-05-21").describe() == "who:dana day:2026-05-21"


def test_a_bad_day_or_a_backwards_range_is_refused_in_words():
    with pytest.raises(BadInput, match="from:2026-13-01 is not a day"):
        parse_query("from:2026-13-01")
    with pytest.raises(BadInput, match="from:2026-05-21 is after to:2026-05-20"):
        parse_query("from:2026-05-21 to:2026-05-20")


def test_words_match_fields_not_json_keys_and_every_word_must_match(ws, agent_dir):
    build(agent_dir)
    assert keys(search_days(ws, parse_query("deploy"))) == [
        f"2026-05-22#{uuid_at('2026-05-22', 2)}",
        f"2026-05-21#{uuid_at('2026-05-21', 1)}", f"2026-05-21#{uuid_at('2026-05-21', 2)}",
        f"2026-05-20#{uuid_at('2026-05-20', 1)}",
    ]
    assert keys(search_days(ws, parse_query("type"))) == []  # "type" is a key in every line
    assert keys(search_days(ws, parse_query("deploy token"))) == [f"2026-05-21#{uuid_at('2026-05-21', 2)}"]
    assert keys(search_days(ws, parse_query("überkaffee tomás"))) == [f"2026-05-22#{uuid_at('2026-05-22', 1)}"]
    assert keys(search_days(ws, parse_query("topic:café"))) == [f"2026-05-22#{uuid_at('2026-05-22', 1)}"]


def test_terms_narrow_by_topic_source_who_and_days(ws, agent_dir):
    build(agent_dir)
    assert keys(search_days(ws, parse_query("source:slack who:dana"))) == [f"2026-05-20#{uuid_at('2026-05-20', 1)}"]
    found = list(search_days(ws, parse_query("topic:deploys to:2026-05-21")))
    assert [d.date for d in found] == ["2026-05-21", "2026-05-20"]  # newest first, one per day in range
    assert [(d.searched, d.total) for d in found] == [(1, 2), (2, 2)]
    assert keys(found) == [f"2026-05-21#{uuid_at('2026-05-21', 1)}", f"2026-05-20#{uuid_at('2026-05-20', 1)}"]


def test_forgotten_fragments_never_match(ws, agent_dir):
    build(agent_dir)
    fid = uuid_at("2026-05-21", 2)
    record(ws, "forget", Tombstone("2026-05-21", fid, fragment_content_hash("secrets", "Shared a deploy token by mistake"),
                                   "a secret", "human:test", "2026-05-22T10:00:00Z"))
    assert keys(search_days(ws, parse_query("token"))) == []


def test_a_search_reads_one_day_at_a_time(ws, agent_dir):
    build(agent_dir)
    search = search_days(ws, parse_query("deploy"))
    first = next(search)
    assert first.date == "2026-05-22" and first.searched == 1 and first.total == 3
    # the older days are read only when asked for: a day written meanwhile is what is searched
    write_stream(agent_dir, "2026-05-20", [fragment_line("2026-05-20", 9, "deploys", "deploy rewritten")])
    assert [r["body"] for d in search for r in d.rows][-1] == "deploy rewritten"
