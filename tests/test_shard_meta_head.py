"""`read_shard_meta` (the strength table's head-only read) agrees with the full strict parse."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from dreamdeck.core.formats.shards import ShardParseError, meta_from_head, parse_shard
from dreamdeck.core.store.shard_files import HEAD_BYTES, read_shard_meta


def full(path):
    try:
        return parse_shard(path.read_bytes().decode("utf-8", "replace"))[0]
    except ShardParseError:
        return None


def check(tmp_path, text: str | bytes) -> None:
    path = tmp_path / "s.md"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    head = read_shard_meta(path)
    # None means "read the whole shard": the head read may decline, never disagree.
    assert head is None or head == full(path)
    # The dream run reads every shard whole for its snapshot; its strength rows take the meta
    # from that text's head the same way, and must decline or agree just the same.
    decoded = path.read_bytes().decode("utf-8", "replace")
    from_text = meta_from_head(decoded)
    assert from_text is None or from_text == full(path)


CANON = "---\nheading: The user uses pnpm\ncites: 2\ndays: 1\nlastReinforced: 2026-05-20\ntags: [a, b]\n---\nbody\n"


def test_a_canonical_shard_is_read_from_its_head(tmp_path):
    path = tmp_path / "s.md"
    path.write_text(CANON + "- streams/2026-05-20#x\n" * 5000)
    assert read_shard_meta(path) == full(path) is not None


def test_tricky_heads_decline_or_agree(tmp_path):
    for text in (
        CANON.replace("\n", "\r\n"),  # CRLF
        "---\nheading: x\ncites: 1\n",  # never closed
        "---\nheading: " + "é" * HEAD_BYTES + "\ncites: 1\ndays: 1\nlastReinforced: 2026-01-01\n---\n",  # longer than the head
        "---\nheading: x\nproposal: cli packages/x\n---\nbody",  # unknown key
        "---\nheading: x\ncites: 01\ndays: 1\nlastReinforced: 2026-01-01\n---\n",  # non-canonical int
        "---\nheading: x\ncites: 1\ndays: 1\nlastReinforced: 2026-01-01\ntags:\n  - a\n  - b\n---\n",  # block tags
        b"---\nheading: \xff\xfe\ncites: 1\ndays: 1\nlastReinforced: 2026-01-01\n---\n",  # bad UTF-8
        "no frontmatter at all\n",
    ):
        check(tmp_path, text)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(list("-:abc01\n\r é[],") + ["heading: ", "cites: ", "days: ", "---\n",
                                                              "lastReinforced: 2026-01-01", "\n  - "]),
                max_size=80).map("".join))
def test_for_any_text_the_head_read_never_disagrees_with_the_full_parse(tmp_path_factory, text):
    check(tmp_path_factory.mktemp("h"), text)


# The canonical frontmatter every writer (TypeClaw's recompute, dreamdeck's render) produces, and
# near misses of it: the fast path for this shape must give exactly the strict parser's answer.
_HEADING = st.text(alphabet=st.sampled_from(list("ab :-\t\xa0\u2028\ufeff\u3000x1é中")), min_size=0, max_size=8)
_COUNT = st.one_of(st.integers(0, 10**16).map(str), st.sampled_from(["", "01", "1.0", "-1", "١", " 3", "3 ", "1e3"]))
_DATE = st.one_of(st.just("2026-11-22"), st.sampled_from(["2026-1-22", "２０２６-11-22", "2026-11-22 ", "x", ""]))


@settings(max_examples=300, deadline=None)
@given(_HEADING, _COUNT, _COUNT, _DATE, st.sampled_from(["", "\n", "\ntags: [a]", "\nheading: again"]))
def test_the_canonical_shape_and_its_near_misses_read_exactly_as_the_strict_parser(heading, cites, days, date, tail):
    from dreamdeck.core.formats.shards import parse_frontmatter

    fm = f"heading: {heading}\ncites: {cites}\ndays: {days}\nlastReinforced: {date}{tail}"
    try:
        strict = parse_frontmatter(fm)
    except ShardParseError:
        strict = None
    assert meta_from_head(f"---\n{fm}\n---\nbody\n") == strict


def test_a_canonical_head_is_read_without_the_line_by_line_parser(monkeypatch):
    """The strength table reads 100,000 heads in a fresh process: the canonical shape takes one
    regular expression, not TypeClaw's line rules (which stay the authority for anything else)."""
    from dreamdeck.core.formats import shards

    def refuse(_fm):
        raise AssertionError("the line-by-line parser ran for a canonical head")

    monkeypatch.setattr(shards, "parse_frontmatter", refuse)
    head = "---\nheading: Uses pnpm: never bun\ncites: 3\ndays: 2\nlastReinforced: 2026-11-20\n---\nbody\n"
    assert meta_from_head(head) == shards.ShardMeta("Uses pnpm: never bun", 3, 2, "2026-11-20", None)
