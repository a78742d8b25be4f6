"""Shards, byte for byte with TypeClaw v0.45.1: every golden case (tests/data/typeclaw), made by
running TypeClaw's own functions, goes through ours and must come out the same.

The parametrized tests run the whole files; the named tests below them spell out the rules
issue 10 item 13 found we got wrong, each naming the TypeClaw function it mirrors.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from dreamdeck.core.formats.shards import (
    ShardMeta,
    ShardParseError,
    derive_heading,
    first_belief_sentence,
    meta_from_head,
    parse_loose_shard,
    parse_shard,
    recompute_shard_text,
    synthesize_heading,
)
from dreamdeck.core.store.shard_files import read_shard, read_shard_meta
from tests.support.typeclaw_golden import case_named, cases, input_bytes, input_text, today_of

# The three Object.prototype names whose call throws inside TypeClaw: the message after the
# field name is the JavaScript engine's own TypeError text (JavaScriptCore's under Bun), which a
# port cannot and need not reproduce; the field and the refusal are compared.
ENGINE_TEXT = {"unknown key __proto__"}


def typeclaw_shape(meta: ShardMeta) -> dict:
    out = {"heading": meta.heading, "cites": meta.cites, "days": meta.days, "lastReinforced": meta.last_reinforced}
    if meta.tags is not None:
        out["tags"] = list(meta.tags)
    return out


def parsed(text: str) -> dict:
    try:
        meta, body = parse_shard(text)
    except ShardParseError as exc:
        return {"ok": False, "error": str(exc)}
    return {"ok": True, "frontmatter": typeclaw_shape(meta), "body": body}


def assert_same_refusal(case: dict, got: dict, expected: dict) -> None:
    if case["name"] in ENGINE_TEXT and not expected["ok"]:
        field = expected["error"].split(": ", 1)[0]
        assert not got["ok"] and got["error"].startswith(field + ": ")
    else:
        assert got == expected


# --- every golden case -------------------------------------------------------------------------------
# TypeClaw `parseShard` + `parseFrontmatterBlock` + `parseNonNegativeInt` (frontmatter.ts).
@pytest.mark.parametrize("case", cases("parse_shard"))
def test_parse_shard_matches_typeclaw(case):
    assert_same_refusal(case, parsed(input_text(case)), case["expected"]["parseShard"])


# TypeClaw `loadAllShards` / `readAndParseShard` (load-shards.ts): the file's bytes, decoded as
# `readFile(path, 'utf8')` does (BOM kept, bad bytes as U+FFFD), loaded or skipped with the error.
@pytest.mark.parametrize("case", cases("parse_shard"))
def test_a_shard_file_loads_as_typeclaw_loads_it(case, tmp_path: Path):
    expected = case["expected"]["loadAllShards"]
    path = tmp_path / "case.md"
    path.write_bytes(input_bytes(case))
    shard = read_shard("case", path)
    assert shard.ok == expected["loaded"]
    if shard.ok:
        assert (typeclaw_shape(shard.meta), shard.body) == (expected["frontmatter"], expected["body"])
        assert expected["warnings"] == []
    else:
        [warning] = expected["warnings"]
        got = f"warn: [memory] skipping malformed topic shard case: {shard.error}"
        assert_same_refusal(case, {"ok": False, "error": got.split("case: ", 1)[1]},
                            {"ok": False, "error": warning.split("case: ", 1)[1]})
    # The fast path reads only the head: it may defer to a whole read, never disagree.
    head = read_shard_meta(path)
    assert head is None or (shard.ok and head == shard.meta)


# `meta_from_head` is `parse_shard` on the first bytes: on text and on bytes it accepts exactly
# what `parse_shard` accepts (or defers with None), and returns the same frontmatter.
@pytest.mark.parametrize("case", cases("parse_shard"))
def test_meta_from_head_agrees_with_parse_shard(case):
    text = input_text(case)
    try:
        strict: ShardMeta | None = parse_shard(text)[0]
    except ShardParseError:
        strict = None
    for head in (text, input_bytes(case)):
        fast = meta_from_head(head)
        assert fast is None or fast == strict
    if strict is not None and "\r" not in text:
        assert meta_from_head(text) == strict  # a plain LF shard never needs the slow path


# TypeClaw `recomputeShardFrontmatter` + `parseShardTolerantly` (dreaming.ts): the exact text
# written (or not), and the warnings on the dreaming logger.
@pytest.mark.parametrize("case", cases("recompute"))
def test_recompute_matches_typeclaw(case):
    expected = case["expected"]
    text = input_text(case)
    out, warnings = recompute_shard_text(text, case["slug"], today_of(case))
    if "output_b64" in expected:
        assert out.encode("utf-8") == input_bytes({"input_b64": expected["output_b64"]})
    assert out == expected["output"]
    assert (out != text) == expected["written"]
    assert [f"warn: {w}" for w in warnings] == expected["warnings"]


# TypeClaw `parseLooseShard` + `parseLooseTags` (dreaming.ts). TypeClaw leaves `heading` undefined
# when there is no heading line; ours is "" (both are falsy where TypeClaw reads it).
@pytest.mark.parametrize("case", cases("recompute"))
def test_loose_parse_matches_typeclaw(case):
    expected = case["expected"]["parseLooseShard"]
    loose = parse_loose_shard(input_text(case))
    if expected is None:
        assert not loose.found and loose.body == input_text(case)
        return
    assert loose.found
    got = {"heading": loose.heading, "tagsMalformed": loose.tags_malformed, "body": loose.body}
    if loose.tags is not None:
        got["tags"] = list(loose.tags)
    assert got == {"heading": "", **expected}


# TypeClaw `firstBeliefSentence` (belief-sentence.ts) and `synthesizeHeadingFromBody` (dreaming.ts).
@pytest.mark.parametrize("case", cases("belief_sentence"))
def test_belief_sentence_and_synthesized_heading_match_typeclaw(case):
    expected = case["expected"]
    assert first_belief_sentence(case["input"]) == (expected["firstBeliefSentence"] or "")
    assert synthesize_heading(case["input"]) == (expected["synthesizeHeadingFromBody"] or "")


# --- the rules, one by one -----------------------------------------------------------------------------
FM = "heading: H\ncites: 1\ndays: 1\nlastReinforced: 2026-07-01\n"


def shard(fm: str, body: str = "Body.\n") -> str:
    return f"---\n{fm}---\n{body}"


# TypeClaw `parseNonNegativeInt` (frontmatter.ts): a count is accepted only when JavaScript's
# `String(Number(s))` gives `s` back, so beyond 2**53 some integers are refused and the way
# JavaScript prints 2**60 is accepted.
@pytest.mark.parametrize("value, accepted", [
    ("9007199254740992", True), ("9007199254740993", False), ("9007199254740994", True),
    ("1152921504606846976", False), ("1152921504606847000", True), ("1000000000000000000000", False),
    ("05", False), ("-0", False), ("5.0", False), ("３", False), ("0", True),
])
def test_a_count_must_print_back_identically_as_a_javascript_number(value, accepted):
    text = shard(f"heading: H\ncites: {value}\ndays: 1\nlastReinforced: 2026-07-01\n")
    if accepted:
        assert parse_shard(text)[0].cites == int(value)
    else:
        with pytest.raises(ShardParseError, match=f"^frontmatter field 'cites': expected non-negative integer, got '{value}'$"):
            parse_shard(text)
    golden = case_named("parse_shard", "cites beyond safe integer 9007199254740993")["expected"]["parseShard"]
    assert parsed(case_named("parse_shard", "cites beyond safe integer 9007199254740993")["input"]) == golden


# TypeClaw `parseFrontmatterBlock` (frontmatter.ts): blank lines and lines without a colon inside
# the frontmatter are skipped, not refused.
def test_blank_and_colon_less_frontmatter_lines_are_skipped():
    meta, _ = parse_shard(shard("heading: H\n\n   \n# a comment\n- dangling item\ncites: 1\ndays: 1\nlastReinforced: 2026-07-01\n"))
    assert meta == ShardMeta("H", 1, 1, "2026-07-01")


# TypeClaw `parseFrontmatterBlock`, its `tags:` block branch: only lines starting with exactly
# two spaces, `-` and a space are items; a block indented by one or three spaces is `tags: []`
# (its lines are then skipped as colon-less), and an empty `  - ` item is kept.
@pytest.mark.parametrize("block, tags", [
    ("  - a\n  - b\n", ("a", "b")), (" - a\n - b\n", ()), ("   - a\n", ()), ("\t- a\n", ()),
    ("  - \n  - x\n", ("", "x")), ("  - a\n\n  - b\n", ("a",)),
])
def test_a_tags_block_takes_only_two_space_items(block, tags):
    assert parse_shard(shard(FM + "tags:\n" + block))[0].tags == tags


# TypeClaw `parseFrontmatterBlock` and `parseLooseTags`: the inline list drops empty items.
@pytest.mark.parametrize("value, tags", [("[a, , b]", ("a", "b")), ("[,]", ()), ("[ ]", ()), ("[a, [b], c]", ("a", "[b]", "c"))])
def test_an_inline_tags_list_drops_empty_items(value, tags):
    assert parse_shard(shard(FM + f"tags: {value}\n"))[0].tags == tags
    assert parse_loose_shard(shard(FM + f"tags: {value}\nproposal: x\n")).tags == tags


# TypeClaw `parseShard` (frontmatter.ts) over `readFile(path, 'utf8')`, which keeps a byte-order
# mark: the text no longer starts with `---`, the shard is skipped, and the recompute
# (`parseShardTolerantly` finds no frontmatter) puts a new one on top of the whole file.
def test_a_byte_order_mark_before_the_frontmatter_makes_the_shard_unparseable(tmp_path: Path):
    path = tmp_path / "bom.md"
    path.write_bytes(b"\xef\xbb\xbf" + shard(FM).encode())
    assert read_shard("bom", path).error == "frontmatter delimiter missing"
    case = case_named("recompute", "UTF-8 BOM before --- (strict and loose both fail)")
    out, _ = recompute_shard_text(input_text(case), "case", "2026-07-16")
    assert out == case["expected"]["output"] and out.startswith("---\nheading: ---\n") and "\n\ufeff---\n" in out


# TypeClaw `recomputeShardFrontmatter` / `parseShardTolerantly` (dreaming.ts): an unclosed
# frontmatter is no frontmatter; the whole file, broken block included, becomes the body under a
# new frontmatter whose heading is synthesized from it (its first line, `---`).
def test_recompute_of_an_unclosed_frontmatter_keeps_it_in_the_body():
    text = "---\nheading: Unclosed\ncites: 1\n\nThe user uses pnpm.\n\nfragments:\n- streams/2026-05-20#abc\n"
    out, warnings = recompute_shard_text(text, "case", "2026-07-16")
    assert out == "---\nheading: ---\ncites: 1\ndays: 1\nlastReinforced: 2026-05-20\n---\n" + text
    assert warnings == []
    case = case_named("recompute", "unclosed frontmatter (no closing ---)")
    assert recompute_shard_text(input_text(case), "case", "2026-07-16")[0] == case["expected"]["output"]


# TypeClaw `parseFrontmatterBlock`: `key in FRONTMATTER_PARSERS` also sees Object.prototype.
@pytest.mark.parametrize("key", ["toString", "constructor", "hasOwnProperty", "valueOf", "__lookupGetter__"])
def test_object_prototype_names_are_accepted_and_ignored(key):
    assert parse_shard(shard(FM + f"{key}: x\n"))[0] == ShardMeta("H", 1, 1, "2026-07-01")


@pytest.mark.parametrize("key", ["__proto__", "__defineGetter__", "__defineSetter__", "proposal", ""])
def test_other_unknown_keys_are_refused_naming_them(key):
    with pytest.raises(ShardParseError, match=f"^frontmatter field '{key}': "):
        parse_shard(shard(FM + f"{key}: x\n"))


# TypeClaw `parseFrontmatterBlock` trims with JavaScript's `trim()`: U+0085 and U+001F are not
# whitespace to it (Python's `strip()` would remove them), U+FEFF and U+3000 are.
def test_the_heading_is_trimmed_as_javascript_trims():
    assert parse_shard(shard("heading: \x85\ncites: 1\ndays: 1\nlastReinforced: 2026-07-01\n"))[0].heading == "\x85"
    for blank in ("\ufeff", "\u3000", "\xa0"):
        with pytest.raises(ShardParseError, match="^frontmatter field 'heading': required$"):
            parse_shard(shard(f"heading: {blank}\ncites: 1\ndays: 1\nlastReinforced: 2026-07-01\n"))


# TypeClaw `parseShard`: any line starting with `---` closes the frontmatter, and exactly one
# more character is skipped before the body.
def test_any_line_starting_with_three_dashes_closes_the_frontmatter():
    assert parse_shard(f"---\n{FM}----\nBody.\n")[1] == "\nBody.\n"
    assert parse_shard(f"---\n{FM}---")[1] == ""


# TypeClaw `synthesizeHeadingFromBody` (`/^##\s+(.+)$/m`, JavaScript's `m`): `\s+` may run to the
# next line, `### x` matches, and a lone CR ends a line.
def test_the_synthesized_heading_reads_the_double_hash_line_as_javascript_does():
    assert synthesize_heading("### Three\nBelief.") == "Three"
    assert synthesize_heading("Intro.\r## After CR\r") == "After CR"
    assert derive_heading("", "##\n\nNext line", "slug") == "Next line"
    assert derive_heading("", "fragments:\n- streams/2026-05-20#abc\n", "slug") == "slug"
