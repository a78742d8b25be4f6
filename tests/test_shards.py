"""core.shards: TypeClaw's strict shard format (`parseShard` / `renderShard`) and shard loading.

Acceptance: frontmatter.test.ts and load-shards.test.ts (reference §2, §9).
"""
from __future__ import annotations

import dataclasses

import pytest

from dreamdeck.core.formats.shards import (
    HANDLER,
    Shard,
    ShardMeta,
    ShardParseError,
    parse_shard,
    render_shard,
)
from dreamdeck.core.store.shard_files import list_shard_files, load_shards, read_shard

CANONICAL = """---
heading: The user consistently uses pnpm (not bun) for this repo
cites: 3
days: 3
lastReinforced: 2026-05-22
tags: [tooling]
---
The user consistently uses pnpm (not bun) for this repo.

fragments:
- streams/2026-05-21#019ef1a2-0c11-7a3b-8d2e-5f4c3b2a1908
- streams/2026-05-22#019ef6b7-3d22-7c4d-9e3f-6a5b4c3d2e19

superseded:
- streams/2026-05-20#019eec91-9b00-7f2a-8c1d-4e3b2a190817
"""

FM = "heading: H\ncites: 1\ndays: 1\nlastReinforced: 2026-05-22\n"


def shard(fm: str = FM, body: str = "Body.\n") -> str:
    return f"---\n{fm}---\n{body}"


# --- round trip ------------------------------------------------------------------------------------
def test_the_canonical_shard_round_trips_byte_exactly():
    meta, body = parse_shard(CANONICAL)
    assert render_shard(meta, body) == CANONICAL


def test_the_canonical_shard_parses_to_its_fields():
    meta, body = parse_shard(CANONICAL)
    assert meta == ShardMeta(
        heading="The user consistently uses pnpm (not bun) for this repo", cites=3, days=3,
        last_reinforced="2026-05-22", tags=("tooling",),
    )
    assert body.startswith("The user consistently uses pnpm (not bun) for this repo.\n\nfragments:\n")
    assert body.endswith("4e3b2a190817\n")


def test_render_writes_exactly_the_typeclaw_layout():
    text = render_shard(ShardMeta("A belief", 2, 1, "2026-05-21", ("a", "b")), "A belief.\n")
    assert text == "---\nheading: A belief\ncites: 2\ndays: 1\nlastReinforced: 2026-05-21\ntags: [a, b]\n---\nA belief.\n"


def test_render_omits_the_tags_line_when_tags_are_undefined():
    assert "tags" not in render_shard(ShardMeta("H", 0, 0, "2026-05-22"), "b")


def test_render_writes_empty_tags_as_an_empty_list():
    assert "\ntags: []\n" in render_shard(ShardMeta("H", 0, 0, "2026-05-22", ()), "b")


def test_absent_tags_differ_from_empty_tags():
    absent, _ = parse_shard(shard())
    empty, _ = parse_shard(shard(FM + "tags: []\n"))
    assert absent.tags is None
    assert empty.tags == ()
    assert render_shard(absent, "b") != render_shard(empty, "b")


def test_render_keeps_leading_and_trailing_newlines_in_the_body():
    body = "\n\nBelief.\n\n\n"
    text = render_shard(ShardMeta("H", 0, 0, "2026-05-22"), body)
    assert text.endswith("---\n\n\nBelief.\n\n\n")
    assert parse_shard(text)[1] == body


def test_render_appends_no_newline_to_the_body():
    assert render_shard(ShardMeta("H", 0, 0, "2026-05-22"), "no newline").endswith("---\nno newline")


def test_the_heading_is_raw_with_no_yaml_quoting():
    heading = "\"quoted\" 'single' #hash: colon [brackets] {braces} & ampersand — 한국어"
    text = render_shard(ShardMeta(heading, 0, 0, "2026-05-22"), "b")
    assert f"\nheading: {heading}\n" in text
    assert parse_shard(text)[0].heading == heading


def test_patching_the_meta_can_remove_tags():
    meta, body = parse_shard(CANONICAL)
    patched = render_shard(dataclasses.replace(meta, tags=None, cites=4), body)
    assert "tags:" not in patched
    assert "\ncites: 4\n" in patched
    assert parse_shard(patched)[1] == body


# --- the strict parser ------------------------------------------------------------------------------
def test_an_empty_body_is_ok():
    assert parse_shard(shard(body=""))[1] == ""
    assert parse_shard("---\n" + FM + "---")[1] == ""


def test_crlf_is_normalized_to_lf():
    meta, body = parse_shard(CANONICAL.replace("\n", "\r\n"))
    assert render_shard(meta, body) == CANONICAL


def test_tags_inline_form():
    assert parse_shard(shard(FM + "tags: [tooling, deploy]\n"))[0].tags == ("tooling", "deploy")


def test_tags_block_form_indented_two_spaces():
    assert parse_shard(shard(FM + "tags:\n  - tooling\n  - deploy\n"))[0].tags == ("tooling", "deploy")


def test_tags_block_form_may_precede_other_keys():
    fm = "heading: H\ntags:\n  - a\n  - b\ncites: 1\ndays: 1\nlastReinforced: 2026-05-22\n"
    meta, _ = parse_shard(shard(fm))
    assert (meta.tags, meta.cites) == (("a", "b"), 1)


def test_tags_block_with_no_items_is_empty():
    assert parse_shard(shard(FM + "tags:\n"))[0].tags == ()


def test_tags_block_items_need_exactly_two_spaces():
    # TypeClaw `parseFrontmatterBlock`: other indents end the block (an empty list) and their
    # colon-less lines are skipped; one with a colon is read as an unknown key.
    assert parse_shard(shard(FM + "tags:\n    - deep\n"))[0].tags == ()
    assert parse_shard(shard(FM + "tags:\n- flush\n"))[0].tags == ()
    with pytest.raises(ShardParseError, match="^frontmatter field '- a': unknown$"):
        parse_shard(shard(FM + "tags:\n - a:b\n"))


def test_tags_in_a_bare_list_throw():
    with pytest.raises(ShardParseError, match="'tags'"):
        parse_shard(shard(FM + "tags: tooling, deploy\n"))


def test_blank_lines_in_the_frontmatter_are_ignored():
    assert parse_shard(shard("\nheading: H\n\ncites: 1\ndays: 1\n\nlastReinforced: 2026-05-22\n\n"))[0].heading == "H"


def test_each_line_is_split_at_its_first_colon():
    assert parse_shard(shard(FM.replace("heading: H", "heading: Rule: use pnpm: always")))[0].heading == "Rule: use pnpm: always"


def test_the_frontmatter_ends_at_the_first_closing_delimiter():
    meta, body = parse_shard(shard(body="Belief.\n---\nnot frontmatter: x\n"))
    assert meta.heading == "H"
    assert body == "Belief.\n---\nnot frontmatter: x\n"


def test_the_body_starts_five_characters_after_the_closing_delimiter():
    # TypeClaw skips "\n---" plus one character, whatever it is.
    assert parse_shard("---\n" + FM + "---X rest")[1] == " rest"


def test_a_proposal_line_belongs_in_the_body():
    body = "Rationale.\n\nproposal: cli packages/deploy-check\n\nfragments:\n- streams/2026-05-21#a\n"
    assert parse_shard(shard(body=body))[1] == body


@pytest.mark.parametrize(
    "text",
    [
        "heading: H\ncites: 1\ndays: 1\nlastReinforced: 2026-05-22\n---\nbody",  # no opening
        " ---\n" + FM + "---\nbody",
        "---\n" + FM + "body without a closing delimiter",
        "",
    ],
)
def test_missing_delimiters_throw(text):
    with pytest.raises(ShardParseError):
        parse_shard(text)


@pytest.mark.parametrize("key", ["cites", "days"])
@pytest.mark.parametrize("value", ["3.0", "three", "-1", "+3", "03", "1e3", "", "0x1", "３"])
def test_a_non_canonical_or_negative_count_throws(key, value):
    fm = FM.replace(f"{key}: 1", f"{key}: {value}")
    with pytest.raises(ShardParseError, match=f"'{key}'"):
        parse_shard(shard(fm))


def test_zero_counts_are_canonical():
    meta, _ = parse_shard(shard(FM.replace("cites: 1", "cites: 0").replace("days: 1", "days: 0")))
    assert (meta.cites, meta.days) == (0, 0)


@pytest.mark.parametrize("fm", [FM.replace("heading: H\n", ""), FM.replace("heading: H", "heading:"), FM.replace("heading: H", "heading:    ")])
def test_a_missing_or_empty_heading_throws(fm):
    with pytest.raises(ShardParseError, match="'heading'"):
        parse_shard(shard(fm))


@pytest.mark.parametrize("value", ["2026-5-22", "2026/05/22", "yesterday", "2026-05-22T00:00:00Z", "", "２０２６-05-22"])
def test_a_bad_last_reinforced_date_throws(value):
    with pytest.raises(ShardParseError, match="'lastReinforced'"):
        parse_shard(shard(FM.replace("2026-05-22", value)))


@pytest.mark.parametrize("key", ["cites", "days", "lastReinforced"])
def test_a_missing_count_or_date_throws(key):
    fm = "".join(line + "\n" for line in FM.splitlines() if not line.startswith(key))
    with pytest.raises(ShardParseError, match=f"'{key}'"):
        parse_shard(shard(fm))


@pytest.mark.parametrize("line", ["proposal: cli packages/x", "title: T", "Heading: H", "demoted: true"])
def test_an_unknown_key_throws_naming_it(line):
    key = line.split(":")[0]
    with pytest.raises(ShardParseError, match=f"frontmatter field '{key}': unknown"):
        parse_shard(shard(FM + line + "\n"))


def test_a_frontmatter_line_without_a_colon_is_skipped():
    # TypeClaw `parseFrontmatterBlock` skips it (golden parse_shard: "colon-less lines inside frontmatter are ignored").
    assert parse_shard(shard(FM + "just words\n"))[0] == parse_shard(shard(FM))[0]


def test_the_handler_detects_only_typeclaw_frontmatter():
    assert HANDLER.detect(CANONICAL)
    assert HANDLER.detect(CANONICAL.replace("\n", "\r\n"))
    assert not HANDLER.detect("+++\ntitle = 1\n+++\n")
    assert not HANDLER.detect("# Heading\n")


# --- files -----------------------------------------------------------------------------------------
def test_a_missing_topics_folder_lists_no_shards(tmp_path):
    assert list_shard_files(tmp_path / "topics") == []
    assert load_shards(tmp_path / "topics") == []


def test_only_flat_md_files_are_shards_sorted_by_slug(tmp_path):
    topics = tmp_path / "topics"
    (topics / "nested").mkdir(parents=True)
    for name in ("zeta.md", "alpha.md", "mid-1.md", "notes.txt", ".hidden.md", "nested/inner.md", "alpha.md.bak"):
        (topics / name).write_text(CANONICAL)
    (topics / "dir.md").mkdir()
    assert [slug for slug, _ in list_shard_files(topics)] == ["alpha", "mid-1", "zeta"]
    assert [s.slug for s in load_shards(topics)] == ["alpha", "mid-1", "zeta"]


def test_a_malformed_shard_is_loaded_with_its_error_and_its_body(tmp_path):
    topics = tmp_path / "topics"
    topics.mkdir()
    (topics / "good.md").write_text(CANONICAL)
    (topics / "bad.md").write_text(shard(FM + "proposal: cli x\n", body="Still here.\n"))
    bad, good = load_shards(topics)
    assert good.ok and good.error is None and good.meta.cites == 3
    assert not bad.ok and bad.meta is None
    assert bad.error == "frontmatter field 'proposal': unknown"
    assert bad.body == "Still here.\n"


def test_a_shard_without_frontmatter_keeps_its_whole_text_as_body(tmp_path):
    loaded = Shard.from_text("raw", tmp_path / "raw.md", "## Heading\n\nProse.\n")
    assert not loaded.ok
    assert loaded.body == "## Heading\n\nProse.\n"


def test_read_shard_keeps_the_exact_text_and_survives_bad_utf8(tmp_path):
    path = tmp_path / "x.md"
    path.write_bytes(CANONICAL.encode() + b"\xff")
    loaded = read_shard("x", path)
    assert loaded.text == CANONICAL + "\ufffd"
    assert loaded.ok

