"""core.streams: finding, reading, appending and rewriting daily streams.

Acceptance: stream-io, watermark, fragment-parser and append-tool tests (reference §1, §9),
plus dreamdeck's own rules: no line is ever lost (malformed lines kept on a rewrite, concurrent
appends carried), appends never truncate.
"""
from __future__ import annotations

import json
import os
import re
import threading
import time
import uuid
from pathlib import Path

import pytest

from dreamdeck.core.formats.events import fragment_content_hash, serialize_event
from dreamdeck.core.formats.ids import timestamp_from_id
from dreamdeck.core.formats.stream_lines import StreamProblem, parse_stream_bytes
from dreamdeck.core.store.stream_rewrite import carry_replaced_streams, rewrite_stream
from dreamdeck.core.store.streams import (
    AppendRefused,
    all_problems,
    append_fragment,
    append_raw_lines,
    iter_fragments,
    latest_watermark,
    list_stream_days,
    read_day,
    read_path_for,
    stream_dir,
    write_path_for,
)
from dreamdeck.core.store.tombstones import Tombstone, record
from dreamdeck.core.workspace import WorkspaceError
from tests.support.memory import fragment_line, uuid_at, watermark_line, write_stream

DAY = "2026-05-22"
GITHUB_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.fixture
def ws(tmp_path):
    """Streams need no git: a bare agent folder keeps these tests fast."""
    from dreamdeck.core.workspace import Workspace

    root = tmp_path / "agent"
    root.mkdir()
    return Workspace.open(root, today=DAY)


def lines_of(path: Path) -> list[str]:
    return path.read_bytes().decode("utf-8").split("\n")[:-1]


# --- where streams live ------------------------------------------------------------------------
def test_no_memory_folder_means_no_stream_folder(ws):
    assert stream_dir(ws) is None
    assert list_stream_days(ws) == []
    assert read_path_for(ws, DAY) is None


def test_the_flat_memory_layout_is_the_fallback(ws):
    write_stream(ws.root, "2026-05-20", [fragment_line("2026-05-20", 1, "t", "b")], layout="flat")
    assert stream_dir(ws) == ws.memory
    assert list_stream_days(ws) == [("2026-05-20", ws.memory / "2026-05-20.jsonl")]
    assert [f.body for f in iter_fragments(ws)] == ["b"]


def test_the_streams_folder_wins_over_the_flat_layout_when_both_exist(ws):
    write_stream(ws.root, "2026-05-20", [fragment_line("2026-05-20", 1, "t", "flat")], layout="flat")
    write_stream(ws.root, "2026-05-21", [fragment_line("2026-05-21", 1, "t", "canonical")])
    assert stream_dir(ws) == ws.memory / "streams"
    assert [d for d, _ in list_stream_days(ws)] == ["2026-05-21"]
    assert [f.body for f in iter_fragments(ws)] == ["canonical"]


def test_an_empty_streams_folder_still_wins(ws):
    write_stream(ws.root, "2026-05-20", [fragment_line("2026-05-20", 1, "t", "flat")], layout="flat")
    (ws.memory / "streams").mkdir()
    assert list_stream_days(ws) == []


def test_stream_days_are_listed_oldest_first(ws):
    for day in ("2026-05-21", "2025-12-31", "2026-05-02"):
        write_stream(ws.root, day, [fragment_line(day, 1, "t", day)])
    assert [d for d, _ in list_stream_days(ws)] == ["2025-12-31", "2026-05-02", "2026-05-21"]


def test_non_dated_files_and_directories_are_not_streams(ws):
    write_stream(ws.root, DAY, [fragment_line(DAY, 1, "t", "b")])
    folder = ws.memory / "streams"
    (folder / "notes.jsonl").write_text(fragment_line(DAY, 2, "t", "x") + "\n")
    (folder / "2026-05-21.jsonl.tmp").write_text(fragment_line("2026-05-21", 2, "t", "x") + "\n")
    (folder / "2026-05-20.json").write_text("{}\n")
    (folder / "2026-5-20.jsonl").write_text("{}\n")
    (folder / "٢٠٢٦-05-20.jsonl").write_text("{}\n")  # Arabic-Indic digits are not JS \d
    (folder / "2026-05-19.jsonl").mkdir()
    assert [d for d, _ in list_stream_days(ws)] == [DAY]


def test_appends_go_to_the_streams_folder_even_in_a_flat_workspace(ws):
    assert write_path_for(ws, "2026-05-20") == ws.memory / "streams" / "2026-05-20.jsonl"


def test_a_bad_date_is_refused_before_any_path_is_built(ws):
    with pytest.raises(WorkspaceError):
        write_path_for(ws, "../../etc/passwd")
    with pytest.raises(WorkspaceError):
        write_path_for(ws, "2026-02-30")


# --- reading -----------------------------------------------------------------------------------
def test_only_fragments_are_extracted_from_a_day(ws):
    write_stream(ws.root, DAY, [
        fragment_line(DAY, 1, "t", "one"),
        watermark_line(DAY, 2),
        '{"type":"legacy_prose","ts":"2026-05-22T00:00:00.000Z","text":"old","origin":"migration"}',
        fragment_line(DAY, 3, "t", "two"),
    ])
    frags, problems = read_day(ws, DAY)
    assert [f.body for f in frags] == ["one", "two"]
    assert [f.id for f in frags] == [uuid_at(DAY, 1), uuid_at(DAY, 3)]
    assert all(f.date == DAY for f in frags)
    assert problems == []


def test_multi_line_bodies_are_kept(ws):
    body = "line one\n\n  indented\nlast line  "
    write_stream(ws.root, DAY, [fragment_line(DAY, 1, "t", body)])
    assert read_day(ws, DAY)[0][0].body == body


def test_malformed_lines_are_skipped_and_reported_with_file_and_line(ws):
    write_stream(ws.root, DAY, [
        fragment_line(DAY, 1, "t", "good"),
        "",
        "{broken json",
        '{"type":"note","id":"x"}',
        fragment_line(DAY, 2, "t", "also good"),
    ])
    frags, problems = read_day(ws, DAY)
    assert [f.body for f in frags] == ["good", "also good"]
    assert [(p.path, p.lineno) for p in problems] == [
        ("memory/streams/2026-05-22.jsonl", 3),
        ("memory/streams/2026-05-22.jsonl", 4),
    ]
    assert str(problems[0]).startswith("memory/streams/2026-05-22.jsonl:3: skipping malformed line (invalid JSON")
    assert "unknown event type 'note'" in str(problems[1])


def test_a_line_that_is_not_utf8_is_malformed_not_a_crash(ws):
    path = write_stream(ws.root, DAY, [fragment_line(DAY, 1, "t", "good")])
    with open(path, "ab") as fh:
        fh.write(b'{"type":"fragment","body":"\xff\xfe"}\n')
    frags, problems = read_day(ws, DAY)
    assert len(frags) == 1
    assert problems == [StreamProblem("memory/streams/2026-05-22.jsonl", 2, "not UTF-8")]


def test_stream_lines_carry_their_byte_offsets(ws):
    first = fragment_line(DAY, 1, "t", "café")
    second = watermark_line(DAY, 2)
    lines = parse_stream_bytes((first + "\n\n" + second + "\n").encode())
    assert [(ln.lineno, ln.offset, ln.kind) for ln in lines] == [
        (1, 0, "fragment"), (3, len(first.encode()) + 2, "watermark"),
    ]
    assert lines[0].raw == first.encode()


def test_all_problems_covers_every_day(ws):
    write_stream(ws.root, "2026-05-21", ["nope"])
    write_stream(ws.root, DAY, [fragment_line(DAY, 1, "t", "b"), "nope"])
    assert [(p.path, p.lineno) for p in all_problems(ws)] == [
        ("memory/streams/2026-05-21.jsonl", 1), ("memory/streams/2026-05-22.jsonl", 2),
    ]


def test_iter_fragments_walks_days_oldest_first_and_can_be_limited(ws):
    write_stream(ws.root, DAY, [fragment_line(DAY, 1, "t", "late")])
    write_stream(ws.root, "2026-05-20", [fragment_line("2026-05-20", 1, "t", "early")])
    assert [f.body for f in iter_fragments(ws)] == ["early", "late"]
    assert [f.body for f in iter_fragments(ws, days=[DAY])] == ["late"]


def test_reading_a_missing_day_is_empty(ws):
    assert read_day(ws, DAY) == ([], [])


# --- the watermark -------------------------------------------------------------------------------
def test_no_stream_file_gives_no_watermark(ws):
    assert latest_watermark(ws, "sess-1") is None


def test_a_day_without_a_marker_for_the_session_gives_none(ws):
    write_stream(ws.root, DAY, [watermark_line(DAY, 1, source="other", entry="e-other")])
    assert latest_watermark(ws, "sess-1") is None


def test_the_last_marker_wins_and_a_bare_watermark_counts(ws):
    write_stream(ws.root, DAY, [fragment_line(DAY, 1, "t", "b"), watermark_line(DAY, 2, entry="e-last")])
    assert latest_watermark(ws, "sess-1") == "e-last"


def test_the_last_marker_wins_and_a_fragment_counts(ws):
    write_stream(ws.root, DAY, [watermark_line(DAY, 1, entry="e-first"), fragment_line(DAY, 2, "t", "b")])
    assert latest_watermark(ws, "sess-1") == "e0000002"


def test_another_sessions_later_marker_does_not_win(ws):
    write_stream(ws.root, DAY, [watermark_line(DAY, 1, entry="mine"), watermark_line(DAY, 2, source="sess-2", entry="theirs")])
    assert latest_watermark(ws, "sess-1") == "mine"
    assert latest_watermark(ws, "sess-2") == "theirs"


def test_a_session_id_that_is_only_a_prefix_does_not_match(ws):
    write_stream(ws.root, DAY, [watermark_line(DAY, 1, source="sess-10", entry="e10")])
    assert latest_watermark(ws, "sess-1") is None


def test_watermark_lookup_crosses_days_back_past_unrelated_files(ws):
    write_stream(ws.root, "2026-05-19", [watermark_line("2026-05-19", 1, entry="oldest")])
    write_stream(ws.root, "2026-05-20", [watermark_line("2026-05-20", 1, entry="yesterday-ish")])
    write_stream(ws.root, "2026-05-21", [watermark_line("2026-05-21", 1, source="other")])
    write_stream(ws.root, DAY, [fragment_line(DAY, 1, "t", "b", source="other")])
    assert latest_watermark(ws, "sess-1") == "yesterday-ish"


def test_watermark_lookup_ignores_non_dated_files_and_directories(ws):
    write_stream(ws.root, "2026-05-20", [watermark_line("2026-05-20", 1, entry="real")])
    folder = ws.memory / "streams"
    (folder / "zzz.jsonl").write_text(watermark_line(DAY, 5, entry="fake") + "\n")
    (folder / "2026-05-23.jsonl").mkdir()
    assert latest_watermark(ws, "sess-1") == "real"


def test_watermark_lookup_reads_the_flat_layout(ws):
    write_stream(ws.root, "2026-05-20", [watermark_line("2026-05-20", 1, entry="flat")], layout="flat")
    assert latest_watermark(ws, "sess-1") == "flat"


def test_a_malformed_line_does_not_hide_an_earlier_marker(ws):
    write_stream(ws.root, DAY, [watermark_line(DAY, 1, entry="ok"), '{"type":"watermark","source":"sess-1"}'])
    assert latest_watermark(ws, "sess-1") == "ok"


# --- appending -----------------------------------------------------------------------------------
def test_append_creates_missing_folders_and_the_file(ws):
    assert not ws.memory.exists()
    frag = append_fragment(ws, "tooling", "use pnpm")
    path = ws.memory / "streams" / f"{DAY}.jsonl"
    assert path.is_file()
    assert lines_of(path) == [serialize_event(frag.raw)]
    assert frag.date == DAY


def test_append_writes_exactly_one_json_line_in_the_append_tool_key_order(ws):
    frag = append_fragment(ws, "t", "b", source="sess-9", entry="abc123", who="Jisoo",
                           where={"adapter": "slack", "workspace": "T1", "chat": "C1", "thread": None})
    (text,) = lines_of(write_path_for(ws, DAY))
    ev = json.loads(text)
    assert list(ev) == ["type", "id", "ts", "source", "entry", "topic", "body", "who", "where"]
    assert ev["source"] == "sess-9" and ev["entry"] == "abc123"
    assert ev["where"] == {"adapter": "slack", "workspace": "T1", "chat": "C1", "thread": None}
    assert text == serialize_event(frag.raw)


def test_append_mints_a_uuidv7_whose_time_is_the_ts(ws):
    frag = append_fragment(ws, "t", "b")
    assert uuid.UUID(frag.id).version == 7
    assert frag.ts == timestamp_from_id(frag.id)
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z", frag.ts)


def test_successive_appends_have_increasing_ids(ws):
    ids = [append_fragment(ws, "t", f"body {i}").id for i in range(5)]
    assert ids == sorted(ids)


def test_append_never_truncates_existing_bytes(ws):
    existing = fragment_line(DAY, 1, "t", "old") + "\n" + "not json at all\n" + watermark_line(DAY, 2) + "\n"
    path = write_path_for(ws, DAY)
    path.parent.mkdir(parents=True)
    path.write_bytes(existing.encode())
    append_fragment(ws, "t", "new")
    data = path.read_bytes()
    assert data.startswith(existing.encode())
    assert json.loads(data[len(existing.encode()):])["body"] == "new"


def test_multi_line_and_special_characters_are_stored_safely(ws):
    body = 'line 1\nline 2 "quoted" \\ back\tslash\n{"type":"watermark"}\n한국어 🚀 \u2028 end'
    topic = "tricky: \"quotes\" & <tags>"
    frag = append_fragment(ws, topic, body)
    path = write_path_for(ws, DAY)
    assert len(lines_of(path)) == 1
    (back,), _ = read_day(ws, DAY)
    assert (back.topic, back.body, back.id) == (topic, body, frag.id)


def test_the_entry_can_differ_from_the_id(ws):
    frag = append_fragment(ws, "t", "b", entry="639cc130")
    assert frag.entry == "639cc130" and frag.entry != frag.id


def test_append_can_target_another_day(ws):
    append_fragment(ws, "t", "b", day="2026-05-01")
    assert [d for d, _ in list_stream_days(ws)] == ["2026-05-01"]


@pytest.mark.parametrize("field", ["topic", "body", "who"])
def test_a_secret_is_refused_and_nothing_is_written(ws, field):
    kwargs = {"topic": "t", "body": "b", "who": "Jisoo"}
    kwargs[field] = f"the token is {GITHUB_TOKEN} ok"
    with pytest.raises(AppendRefused, match=rf"the {field} contains a secret \(github token\)") as err:
        append_fragment(ws, kwargs["topic"], kwargs["body"], who=kwargs["who"])
    assert GITHUB_TOKEN not in str(err.value)
    assert not ws.memory.exists()


def test_a_secret_refusal_leaves_an_existing_file_byte_identical(ws):
    path = write_stream(ws.root, DAY, [fragment_line(DAY, 1, "t", "b")])
    before = path.read_bytes()
    with pytest.raises(AppendRefused):
        append_fragment(ws, "t", "-----BEGIN RSA PRIVATE KEY-----\nMIIE")
    assert path.read_bytes() == before


def test_a_duplicate_topic_and_body_is_refused(ws):
    first = append_fragment(ws, "tooling", "use pnpm")
    path = write_path_for(ws, DAY)
    before = path.read_bytes()
    with pytest.raises(AppendRefused, match=f"duplicate of fragment {first.id} in memory/streams/{DAY}.jsonl"):
        append_fragment(ws, "tooling", "use pnpm")
    assert path.read_bytes() == before


def test_a_duplicate_differing_only_in_whitespace_is_refused(ws):
    append_fragment(ws, "tooling", "use pnpm\nnot bun")
    with pytest.raises(AppendRefused, match="duplicate"):
        append_fragment(ws, "  tooling ", "\n\nuse pnpm   \nnot bun\t\n\n")
    assert len(lines_of(write_path_for(ws, DAY))) == 1


def test_a_duplicate_is_refused_whoever_says_it_and_wherever(ws):
    append_fragment(ws, "t", "b", who="Jisoo")
    with pytest.raises(AppendRefused):
        append_fragment(ws, "t", "b", who="Min", where={"adapter": "a", "workspace": "w", "chat": "c"})


def test_a_different_body_under_the_same_topic_is_allowed(ws):
    append_fragment(ws, "tooling", "use pnpm")
    append_fragment(ws, "tooling", "use pnpm 9")
    assert len(lines_of(write_path_for(ws, DAY))) == 2


def test_the_same_text_on_another_day_is_not_a_duplicate(ws):
    append_fragment(ws, "t", "b", day="2026-05-21")
    append_fragment(ws, "t", "b")
    assert len(list_stream_days(ws)) == 2


def test_a_tombstoned_text_is_refused(ws):
    record(ws, "forget", Tombstone("2026-05-01", "old-id", fragment_content_hash("t", "b"), "wrong", "me", "2026-05-02T00:00:00+00:00"))
    with pytest.raises(AppendRefused, match="forgotten"):
        append_fragment(ws, "t", " b ")
    assert not (ws.memory / "streams").exists()


@pytest.mark.parametrize("topic,body", [("", "b"), ("t", ""), ("  ", "b"), ("t", "\n\t\n")])
def test_an_empty_topic_or_body_is_refused(ws, topic, body):
    with pytest.raises(AppendRefused):
        append_fragment(ws, topic, body)
    assert not ws.memory.exists()


@pytest.mark.parametrize("who", ["Jisoo", "지수", "Min-jun Kim", "3 people", "O'Brien", "+x"])
def test_a_safe_who_is_kept(ws, who):
    assert append_fragment(ws, "t", "b", who=who).who == who


def test_who_is_trimmed(ws):
    assert append_fragment(ws, "t", "b", who="  Jisoo ").who == "Jisoo"


@pytest.mark.parametrize(
    "who",
    [
        "a_b", "*bold*", "[link]", "<script>", "a|b", "back\\slash", "`code`",
        "# heading", "> quote", "--- rule", "- item", "+ item", "1. item", "2) item",
        "zero\u200bwidth", "bidi\u202eevil", "isolate\u2066x", "bom\ufeff", "bell\x07", "tab\tname",
        "x" * 257, "   ",
    ],
)
def test_an_unsafe_who_is_dropped_and_the_fragment_kept(ws, who):
    frag = append_fragment(ws, "t", "b", who=who)
    assert frag.who is None
    assert "who" not in json.loads(lines_of(write_path_for(ws, DAY))[0])


def test_a_credential_shaped_channel_name_is_dropped_but_the_raw_ids_kept(ws):
    where = {"adapter": "slack", "workspace": "T01", "workspaceName": "acme", "chat": "C0456",
             "chatName": f"leak {GITHUB_TOKEN}", "parentChat": "C0001", "parentChatName": "incidents"}
    append_fragment(ws, "t", "b", where=where)
    written = json.loads(lines_of(write_path_for(ws, DAY))[0])["where"]
    assert written == {"adapter": "slack", "workspace": "T01", "chat": "C0456", "workspaceName": "acme",
                       "parentChat": "C0001", "parentChatName": "incidents"}


def test_where_keeps_the_thread_parent_fields_in_order(ws):
    where = {"parentChatName": "general", "parentChat": "C1", "thread": "th-1", "chat": "C9", "workspace": "G1", "adapter": "discord"}
    append_fragment(ws, "t", "b", where=where)
    text = lines_of(write_path_for(ws, DAY))[0]
    assert text.endswith('"where":{"adapter":"discord","workspace":"G1","chat":"C9","thread":"th-1","parentChat":"C1","parentChatName":"general"}}')


def test_reference_slugs_are_trimmed_deduplicated_and_must_exist(ws):
    ws.references_dir.mkdir(parents=True)
    (ws.references_dir / "pnpm-policy.md").write_text("x")
    (ws.references_dir / "lockfile.md").write_text("x")
    frag = append_fragment(ws, "t", "b", references=[" pnpm-policy ", "", "missing", "pnpm-policy", "lockfile", "  "])
    assert frag.references == ("pnpm-policy", "lockfile")
    assert json.loads(lines_of(write_path_for(ws, DAY))[0])["references"] == ["pnpm-policy", "lockfile"]


def test_the_references_key_is_omitted_when_no_slug_survives(ws):
    frag = append_fragment(ws, "t", "b", references=["missing", " "])
    assert "references" not in json.loads(lines_of(write_path_for(ws, DAY))[0])
    assert frag.references == ()


def test_reference_slugs_cannot_escape_the_references_folder(ws):
    ws.references_dir.mkdir(parents=True)
    (ws.memory / "secret.md").write_text("x")
    (ws.references_dir / "Upper.md").write_text("x")
    frag = append_fragment(ws, "t", "b", references=["../secret", "Upper", "references/../../secret"])
    assert frag.references == ()


def test_concurrent_appends_all_land_as_whole_lines(ws):
    def worker(n: int) -> None:
        for i in range(8):
            append_fragment(ws, "t", f"worker {n} item {i}")

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    frags, problems = read_day(ws, DAY)
    assert problems == []
    assert sorted(f.body for f in frags) == sorted(f"worker {n} item {i}" for n in range(4) for i in range(8))


def test_append_raw_lines_restores_bytes_verbatim_one_per_line(ws):
    raw = [fragment_line(DAY, 1, "t", "b").encode(), (watermark_line(DAY, 2) + "\n").encode()]
    append_raw_lines(ws, DAY, raw)
    assert write_path_for(ws, DAY).read_bytes() == raw[0] + b"\n" + raw[1]


def test_append_raw_lines_with_nothing_writes_nothing(ws):
    append_raw_lines(ws, DAY, [])
    assert not ws.memory.exists()


# --- rewriting -----------------------------------------------------------------------------------
def drop_watermarks(ln) -> bool:
    return ln.kind != "watermark"


def test_rewrite_drops_only_the_rejected_lines_and_keeps_the_rest_byte_exact(ws):
    keep1 = fragment_line(DAY, 1, "t", "b")[:-1] + ',"certainty":"explicit","n":1.50}'  # extras, as written
    keep2 = '{"type":"legacy_prose","ts":"2026-05-22T00:00:00.000Z","text":"é","origin":"migration"}'
    path = write_stream(ws.root, DAY, [keep1, watermark_line(DAY, 2), keep2, watermark_line(DAY, 3)])
    result = rewrite_stream(ws, path, drop_watermarks)
    assert result.changed
    assert path.read_text() == keep1 + "\n" + keep2 + "\n"
    assert [ln.lineno for ln in result.dropped] == [2, 4]
    assert [ln.lineno for ln in result.kept] == [1, 3]


def test_rewrite_keeps_malformed_lines_verbatim_even_if_the_rule_rejects_everything(ws):
    bad = ['{"type":"fragment","id":"x"', "garbage ✂", '{"type":"watermark","id":"","ts":"x"}']
    path = write_stream(ws.root, DAY, [fragment_line(DAY, 1, "t", "b"), bad[0], watermark_line(DAY, 2), bad[1], bad[2]])
    result = rewrite_stream(ws, path, lambda ln: False)
    assert result.changed
    assert path.read_text() == "".join(b + "\n" for b in bad)
    assert [ln.lineno for ln in result.dropped] == [1, 3]


def test_the_rule_is_never_asked_about_a_malformed_line(ws):
    path = write_stream(ws.root, DAY, ["{not json", watermark_line(DAY, 1)])
    asked = []
    rewrite_stream(ws, path, lambda ln: asked.append(ln.event["type"]) or True)  # would crash on None
    assert asked == ["watermark"]


def test_a_file_with_nothing_to_drop_is_untouched(ws):
    path = write_stream(ws.root, DAY, [fragment_line(DAY, 1, "t", "b"), "", "{bad"])
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    before = os.stat(path)
    result = rewrite_stream(ws, path, drop_watermarks)
    after = os.stat(path)
    assert not result.changed and result.dropped == []
    assert (after.st_ino, after.st_mtime_ns, after.st_size) == (before.st_ino, before.st_mtime_ns, before.st_size)


def test_rewriting_a_missing_file_is_no_problem(ws):
    result = rewrite_stream(ws, ws.memory / "streams" / f"{DAY}.jsonl", drop_watermarks)
    assert not result.changed
    assert not ws.memory.exists()


def test_rewrite_leaves_no_temp_file_behind(ws):
    path = write_stream(ws.root, DAY, [watermark_line(DAY, 1), fragment_line(DAY, 2, "t", "b")])
    rewrite_stream(ws, path, drop_watermarks)
    assert sorted(p.name for p in path.parent.iterdir()) == [f"{DAY}.jsonl"]


def test_rewrite_replaces_the_file_atomically_with_a_new_inode(ws):
    path = write_stream(ws.root, DAY, [watermark_line(DAY, 1), fragment_line(DAY, 2, "t", "b")])
    before = os.stat(path).st_ino
    rewrite_stream(ws, path, drop_watermarks)
    assert os.stat(path).st_ino != before


def test_keep_for_judges_the_exact_lines_being_rewritten(ws):
    path = write_stream(ws.root, DAY, [watermark_line(DAY, 1), watermark_line(DAY, 2), watermark_line(DAY, 3)])

    def keep_last(lines):
        last = lines[-1].event["id"]
        return lambda ln: ln.event["id"] == last

    rewrite_stream(ws, path, keep_for=keep_last)
    assert path.read_text() == watermark_line(DAY, 3) + "\n"


def test_a_trailing_partial_line_is_carried_verbatim(ws):
    path = write_stream(ws.root, DAY, [watermark_line(DAY, 1), fragment_line(DAY, 2, "t", "b")])
    with open(path, "a") as fh:
        fh.write('{"type":"fragment","id":"half-writ')
    rewrite_stream(ws, path, drop_watermarks)
    assert path.read_text() == fragment_line(DAY, 2, "t", "b") + "\n" + '{"type":"fragment","id":"half-writ'


def test_bytes_appended_while_the_rule_runs_are_carried(ws):
    path = write_stream(ws.root, DAY, [watermark_line(DAY, 1), fragment_line(DAY, 2, "t", "b")])
    late = fragment_line(DAY, 3, "t", "written by the agent meanwhile") + "\n"

    def keep_for(lines):
        with open(path, "a", encoding="utf-8") as fh:  # TypeClaw's appendFile, no lock
            fh.write(late)
        return drop_watermarks

    result = rewrite_stream(ws, path, keep_for=keep_for)
    assert path.read_text() == fragment_line(DAY, 2, "t", "b") + "\n" + late
    assert result.carried_bytes == len(late.encode())


def test_bytes_written_to_the_old_file_just_after_the_rename_are_carried(ws):
    path = write_stream(ws.root, DAY, [watermark_line(DAY, 1), fragment_line(DAY, 2, "t", "b")])
    late = (fragment_line(DAY, 3, "t", "opened before the rename") + "\n").encode()
    writer: list[threading.Thread] = []

    def keep_for(lines):
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)  # a writer holding the old inode

        def write_later():
            time.sleep(0.03)
            os.write(fd, late)
            os.close(fd)

        writer.append(threading.Thread(target=write_later))
        writer[0].start()
        return drop_watermarks

    result = rewrite_stream(ws, path, keep_for=keep_for, grace_seconds=0.3)
    writer[0].join()
    assert path.read_bytes() == (fragment_line(DAY, 2, "t", "b") + "\n").encode() + late
    assert result.carried_bytes == len(late)


def test_the_grace_period_can_be_watched_in_the_background_and_still_carries_late_bytes(ws):
    """The door's compaction does not sit out the grace period: a watcher thread carries what a
    writer holding the old inode writes after the rename, and the door joins it before it ends."""
    from dreamdeck.core.store.stream_rewrite import join_late_carriers

    path = write_stream(ws.root, DAY, [watermark_line(DAY, 1), fragment_line(DAY, 2, "t", "b")])
    late_line = (fragment_line(DAY, 3, "t", "opened before the rename") + "\n").encode()
    wrote = threading.Event()
    writer: list[threading.Thread] = []

    def keep_for(lines):
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)

        def write_later():
            time.sleep(0.05)
            os.write(fd, late_line)
            os.close(fd)
            wrote.set()

        writer.append(threading.Thread(target=write_later))
        writer[0].start()
        return drop_watermarks

    watchers: list[threading.Thread] = []
    result = rewrite_stream(ws, path, keep_for=keep_for, grace_seconds=0.5, late=watchers)
    assert result.changed and len(watchers) == 1 and watchers[0].is_alive()  # returned before the grace ended
    writer[0].join()
    join_late_carriers(watchers)
    assert wrote.is_set() and watchers == []
    assert path.read_bytes() == (fragment_line(DAY, 2, "t", "b") + "\n").encode() + late_line


def test_no_append_is_lost_while_the_stream_is_rewritten_again_and_again(ws):
    path = write_stream(ws.root, DAY, [watermark_line(DAY, 0)])
    expected = [fragment_line(DAY, n, "t", f"appended {n}") for n in range(1, 241)]
    done = threading.Event()

    def agent():  # TypeClaw's logger: open, append, close; no lock
        for n, text in enumerate(expected, start=1):
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(text + "\n" + watermark_line(DAY, 1000 + n) + "\n")
            time.sleep(0.002)
        done.set()

    thread = threading.Thread(target=agent)
    thread.start()
    rewrites = 0
    deadline = time.monotonic() + 20
    while not done.is_set() and time.monotonic() < deadline:
        if rewrite_stream(ws, path, drop_watermarks, grace_seconds=0.01).changed:
            rewrites += 1
    thread.join()
    carry_replaced_streams(ws)  # what landed on a replaced inode after its grace period (every apply does this)
    rewrite_stream(ws, path, drop_watermarks)
    assert rewrites >= 3
    # Every line arrives whole and exactly once. Order is not promised: a line the agent wrote to
    # the old inode just after the rename is copied over after lines it already wrote to the new one.
    assert sorted(lines_of(path)) == sorted(expected)


# --- tombstones (the forgotten never come back) -------------------------------------------------------
def stone(day: str = "2026-05-01", fid: str = "f1", *, reason: str = "wrong", hard: bool = False, text: tuple[str, str] = ("t", "b")) -> Tombstone:
    return Tombstone(day, fid, fragment_content_hash(*text), reason, "human:me", "2026-05-02T00:00:00+00:00", hard=hard, topic=text[0])


def test_a_forget_record_is_live_and_an_unforget_lifts_it(ws):
    from dreamdeck.core.store.tombstones import load_tombstones, tombstoned_keys

    record(ws, "forget", stone())
    assert tombstoned_keys(ws) == {("2026-05-01", "f1")}
    assert load_tombstones(ws)[("2026-05-01", "f1")].reason == "wrong"
    record(ws, "unforget", stone())
    assert tombstoned_keys(ws) == set()


def test_a_hard_forget_cannot_be_unforgotten(ws):
    from dreamdeck.core.store.tombstones import tombstoned_keys

    record(ws, "forget", stone(hard=True))
    record(ws, "unforget", stone())
    assert tombstoned_keys(ws) == {("2026-05-01", "f1")}


def test_a_reason_with_a_unicode_line_separator_keeps_its_tombstone(ws):
    from dreamdeck.core.store.tombstones import forgotten, load_tombstones

    record(ws, "forget", stone(reason="said twice\u2028and\x85again\u2029"))
    assert load_tombstones(ws)[("2026-05-01", "f1")].reason == "said twice\u2028and\x85again\u2029"
    with pytest.raises(AppendRefused, match="forgotten"):
        append_fragment(ws, "t", "b")
    assert fragment_content_hash("t", "b") in forgotten(ws).hashes


def test_unreadable_tombstone_lines_are_skipped_not_fatal(ws):
    from dreamdeck.core.store.tombstones import tombstoned_keys, tombstones_path

    record(ws, "forget", stone())
    with open(tombstones_path(ws), "a", encoding="utf-8") as fh:
        fh.write('{broken\n{"date":["x"],"id":"y"}\n{"id":"no-date"}\n[1,2]\n\n')
    record(ws, "forget", stone(fid="f2"))
    assert tombstoned_keys(ws) == {("2026-05-01", "f1"), ("2026-05-01", "f2")}


def test_tombstones_live_in_meta_as_one_json_line_each(ws):
    from dreamdeck.core.store.tombstones import tombstones_path

    record(ws, "forget", stone())
    assert tombstones_path(ws) == ws.memory / "meta" / "tombstones.jsonl"
    (line,) = lines_of(tombstones_path(ws))
    assert json.loads(line)["op"] == "forget"
