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
