"""core.events: TypeClaw's stream event schema, byte-exact serialization and the duplicate hash.

Acceptance: stream-events.test.ts and fragment-parser.test.ts (reference §1, §9).
"""
from __future__ import annotations

import hashlib
import json

import pytest

from dreamdeck.core.formats.events import (
    EventError,
    Fragment,
    build_fragment,
    build_watermark,
    fragment_content_hash,
    parse_event_line,
    serialize_event,
    try_parse_event_line,
)

# The reference's example lines, byte for byte.
FRAGMENT_LINE = (
    '{"type":"fragment","id":"019e2eca-6fc5-71ef-add9-67a0955a4b35","ts":"2026-05-16T03:23:14.117Z",'
    '"source":"019e2ecf-f2d5-70ee-83f6-005fb5451c51","entry":"639cc130","topic":"package manager",'
    '"body":"User said \\"use pnpm, not bun\\" for this repo.","who":"Jisoo","where":{"adapter":"slack-bot",'
    '"workspace":"T01","chat":"C0456","thread":"th-1","chatName":"incidents"}}'
)
WATERMARK_LINE = (
    '{"type":"watermark","id":"019e2eca-6fc6-7d2a-9c1e-3f0a8b7c6d51","ts":"2026-05-16T03:23:14.118Z",'
    '"source":"019e2ecf-f2d5-70ee-83f6-005fb5451c51","entry":"7e682f27"}'
)
LEGACY_LINE = '{"type":"legacy_prose","ts":"2026-05-16T12:00:00.000Z","text":"old prose region from the .md era","origin":"migration"}'


def fragment(**overrides) -> dict:
    ev = {"type": "fragment", "id": "f-1", "ts": "2026-05-16T03:23:14.117Z", "source": "s", "entry": "e", "topic": "t", "body": "b"}
    ev.update(overrides)
    return ev


def line(ev: dict) -> str:
    return json.dumps(ev, ensure_ascii=False, separators=(",", ":"))


# --- parsing -----------------------------------------------------------------------------------
def test_a_valid_fragment_line_parses_with_every_field():
    ev = parse_event_line(FRAGMENT_LINE)
    assert ev["type"] == "fragment"
    assert ev["body"] == 'User said "use pnpm, not bun" for this repo.'
    assert ev["who"] == "Jisoo"
    assert ev["where"]["chatName"] == "incidents"


def test_a_watermark_line_parses_without_topic_or_body():
    ev = parse_event_line(WATERMARK_LINE)
    assert ev == {
        "type": "watermark", "id": "019e2eca-6fc6-7d2a-9c1e-3f0a8b7c6d51", "ts": "2026-05-16T03:23:14.118Z",
        "source": "019e2ecf-f2d5-70ee-83f6-005fb5451c51", "entry": "7e682f27",
    }


def test_legacy_prose_parses_without_an_id():
    assert parse_event_line(LEGACY_LINE)["text"] == "old prose region from the .md era"


@pytest.mark.parametrize("origin", ["import", "", None, "Migration"])
def test_legacy_prose_requires_origin_migration(origin):
    ev = {"type": "legacy_prose", "ts": "2026-05-16T12:00:00.000Z", "text": "x"}
    if origin is not None:
        ev["origin"] = origin
    assert try_parse_event_line(line(ev)) is None


@pytest.mark.parametrize("text", ['{"type":"note","id":"x"}', '{"id":"x"}', "not json", "{", "[1,2]", '"fragment"', "", "null"])
def test_an_unknown_type_or_bad_json_gives_none_without_throwing(text):
    assert try_parse_event_line(text) is None


def test_parse_event_line_raises_only_event_error_naming_the_problem():
    with pytest.raises(EventError, match="invalid JSON"):
        parse_event_line("{oops")
    with pytest.raises(EventError, match="unknown event type 'note'"):
        parse_event_line('{"type":"note"}')
    with pytest.raises(EventError, match="'topic'"):
        parse_event_line(line({k: v for k, v in fragment().items() if k != "topic"}))


def test_deeply_nested_json_is_a_malformed_line_not_a_crash():
    assert try_parse_event_line("[" * 100_000 + "]" * 100_000) is None


def test_extra_fields_survive_parsing_and_reserialization():
    ev = fragment(certainty="explicit", extra={"n": 1})
    parsed = parse_event_line(line(ev))
    assert parsed["certainty"] == "explicit"
    assert serialize_event(parsed) == line(ev)


@pytest.mark.parametrize("missing", ["id", "ts", "source", "entry", "topic", "body"])
def test_a_fragment_missing_a_required_field_is_invalid(missing):
    ev = fragment()
    del ev[missing]
    assert try_parse_event_line(line(ev)) is None


@pytest.mark.parametrize("missing", ["id", "ts", "source", "entry"])
def test_a_watermark_missing_a_required_field_is_invalid(missing):
    ev = json.loads(WATERMARK_LINE)
    del ev[missing]
    assert try_parse_event_line(line(ev)) is None


def test_an_empty_id_is_invalid():
    assert try_parse_event_line(line(fragment(id=""))) is None


def test_a_non_string_field_is_invalid():
    assert try_parse_event_line(line(fragment(body=3))) is None
    assert try_parse_event_line(line(fragment(topic=None))) is None


def test_arbitrary_ids_such_as_f_keep_are_valid():
    assert parse_event_line(line(fragment(id="f-keep")))["id"] == "f-keep"


@pytest.mark.parametrize("ts", ["2026-05-16T03:23:14.117Z", "2026-05-16T03:23:14Z", "2026-05-16T03:23Z", "2026-05-16T03:23:14.1234567Z", "2024-02-29T00:00:00Z", "2000-02-29T00:00:00Z"])
def test_utc_z_timestamps_of_any_precision_are_valid(ts):
    assert try_parse_event_line(line(fragment(ts=ts))) is not None


@pytest.mark.parametrize(
    "ts",
    [
        "2026-05-16T12:23:14.117+09:00",  # offsets are rejected by zod 4's default
        "2026-05-16T03:23:14.117",  # local time
        "2026-05-16",
        "2026-13-01T00:00:00Z",
        "2026-02-29T00:00:00Z",  # not a leap year
        "1900-02-29T00:00:00Z",
        "2026-04-31T00:00:00Z",
        "2026-05-16T24:00:00Z",
        "2026-05-16T03:60:00Z",
        "２０２６-05-16T03:23:14Z",  # JS \d is ASCII: full-width digits are not digits
        "yesterday",
    ],
)
def test_timestamps_zod_rejects_are_invalid(ts):
    assert try_parse_event_line(line(fragment(ts=ts))) is None


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_non_json_constants_make_a_line_malformed(constant):
    text = line(fragment())[:-1] + f',"score":{constant}}}'
    assert try_parse_event_line(text) is None


def test_optional_fields_must_be_absent_not_null():
    assert try_parse_event_line(line(fragment(references=None))) is None
    assert try_parse_event_line(line(fragment(where=None))) is None
    assert try_parse_event_line(line(fragment(who=None))) is None


def test_references_must_be_a_list_of_strings():
    assert try_parse_event_line(line(fragment(references=["a", "b"]))) is not None
    assert try_parse_event_line(line(fragment(references="a"))) is None
    assert try_parse_event_line(line(fragment(references=["a", 1]))) is None


def test_who_must_be_a_non_empty_string():
    assert try_parse_event_line(line(fragment(who="지수"))) is not None
    assert try_parse_event_line(line(fragment(who=""))) is None


def test_where_needs_adapter_workspace_and_chat():
    where = {"adapter": "discord", "workspace": "G1", "chat": "C1"}
    assert try_parse_event_line(line(fragment(where=where))) is not None
    for key in where:
        partial = {k: v for k, v in where.items() if k != key}
        assert try_parse_event_line(line(fragment(where=partial))) is None


def test_where_thread_may_be_null_but_not_a_number():
    base = {"adapter": "discord", "workspace": "G1", "chat": "C1"}
    assert try_parse_event_line(line(fragment(where={**base, "thread": None}))) is not None
    assert try_parse_event_line(line(fragment(where={**base, "thread": 5}))) is None


@pytest.mark.parametrize("key", ["workspaceName", "chatName", "parentChat", "parentChatName"])
def test_where_optional_names_must_be_strings(key):
    base = {"adapter": "discord", "workspace": "G1", "chat": "C1"}
    assert try_parse_event_line(line(fragment(where={**base, key: "x"}))) is not None
    assert try_parse_event_line(line(fragment(where={**base, key: 1}))) is None


def test_where_keeps_unknown_keys():
    where = {"adapter": "discord", "workspace": "G1", "chat": "C1", "guildIcon": "x.png"}
    assert parse_event_line(line(fragment(where=where)))["where"]["guildIcon"] == "x.png"


# --- serialization -------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [FRAGMENT_LINE, WATERMARK_LINE, LEGACY_LINE])
def test_reference_lines_reserialize_byte_identically(text):
    assert serialize_event(parse_event_line(text)) == text


def test_serialization_is_compact_json_with_raw_utf8():
    out = serialize_event(fragment(topic="배포", body="café ☕ 🚀"))
    assert out == '{"type":"fragment","id":"f-1","ts":"2026-05-16T03:23:14.117Z","source":"s","entry":"e","topic":"배포","body":"café ☕ 🚀"}'
    assert "\\u" not in out


def test_serialization_escapes_like_json_stringify():
    out = serialize_event(fragment(body='a"b\\c\nd\te\x01f\u2028g'))
    assert '"body":"a\\"b\\\\c\\nd\\te\\u0001f\u2028g"' in out


def test_build_fragment_writes_the_append_tool_key_order():
    ev = build_fragment(
        "id-1", "2026-05-16T03:23:14.117Z", source="s", entry="e", topic="t", body="b",
        references=["r1"], who="Jisoo", where={"chatName": "n", "thread": None, "chat": "C", "workspace": "W", "adapter": "slack"},
    )
    assert list(ev) == ["type", "id", "ts", "source", "entry", "topic", "body", "references", "who", "where"]
    assert list(ev["where"]) == ["adapter", "workspace", "chat", "thread", "chatName"]
    assert ev["where"]["thread"] is None


def test_build_fragment_puts_the_where_optional_keys_in_typeclaw_order_and_extras_last():
    where = {"parentChatName": "pn", "extra": 1, "parentChat": "pc", "chatName": "cn", "workspaceName": "wn", "chat": "C", "workspace": "W", "adapter": "a"}
    ev = build_fragment("i", "2026-05-16T03:23:14.117Z", source="s", entry="e", topic="t", body="b", where=where)
    assert list(ev["where"]) == ["adapter", "workspace", "chat", "workspaceName", "chatName", "parentChat", "parentChatName", "extra"]


def test_build_fragment_omits_absent_optional_keys():
    ev = build_fragment("i", "2026-05-16T03:23:14.117Z", source="s", entry="e", topic="t", body="b", references=[], who="")
    assert list(ev) == ["type", "id", "ts", "source", "entry", "topic", "body"]


def test_build_watermark_has_exactly_the_watermark_keys():
    ev = build_watermark("w", "2026-05-16T03:23:14.118Z", source="s", entry="e9")
    assert serialize_event(ev) == '{"type":"watermark","id":"w","ts":"2026-05-16T03:23:14.118Z","source":"s","entry":"e9"}'


# --- the duplicate key ---------------------------------------------------------------------------
def test_content_hash_is_sha256_of_normalized_topic_blank_line_body():
    expected = hashlib.sha256(b"pkg\n\nuse pnpm\nnot bun").hexdigest()
    assert fragment_content_hash("  pkg  ", "\n\nuse pnpm   \nnot bun\t\n\n") == expected


def test_content_hash_ignores_trailing_whitespace_on_each_line():
    assert fragment_content_hash("t", "a  \nb\t") == fragment_content_hash("t", "a\nb")


def test_content_hash_ignores_leading_and_trailing_blank_lines():
    assert fragment_content_hash("t", "\n\n  \nbody\n\n") == fragment_content_hash("t", "body")


def test_content_hash_distinguishes_real_content():
    assert fragment_content_hash("t", "use pnpm") != fragment_content_hash("t", "use bun")
    assert fragment_content_hash("t", "a b") != fragment_content_hash("t", "ab")


def test_content_hash_keeps_leading_indentation_inside_the_body():
    assert fragment_content_hash("t", "a\n  b") != fragment_content_hash("t", "a\nb")


def test_content_hash_distinguishes_the_topic():
    assert fragment_content_hash("tooling", "use pnpm") != fragment_content_hash("deploy", "use pnpm")


def test_content_hash_separates_topic_from_body():
    assert fragment_content_hash("ab", "c") != fragment_content_hash("a", "bc")


# --- the typed view ----------------------------------------------------------------------------
def test_fragment_view_exposes_its_citation_and_key():
    frag = Fragment.from_event("2026-05-16", parse_event_line(FRAGMENT_LINE))
    assert frag.citation == "streams/2026-05-16#019e2eca-6fc5-71ef-add9-67a0955a4b35"
    assert frag.key == ("2026-05-16", "019e2eca-6fc5-71ef-add9-67a0955a4b35")
    assert frag.who == "Jisoo"
    assert frag.references == ()


def test_fragment_to_json_is_the_raw_event_with_its_date():
    ev = parse_event_line(FRAGMENT_LINE)
    assert Fragment.from_event("2026-05-16", ev).to_json() == {"date": "2026-05-16", **ev}
