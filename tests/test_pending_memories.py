"""formats.pending_memories: the §13.2 text itself — new blocks and rewritten blocks change only
their own lines, in the file's own newline style."""
from __future__ import annotations

from dreamdeck.core.formats.pending_memories import (
    HEADER,
    Proposal,
    block_to_append,
    conflict_status,
    parse_pending,
    render_block,
    render_pending,
    splice,
)


def proposal(number: int, content: str, status: str = "pending") -> Proposal:
    return Proposal(number=number, from_agent="coder", timestamp="2026-02-03T10:00:00Z", trigger="test",
                    store="semantic", content=content, status=status)


BROKEN = "## Proposal #2\n- **From**: coder\n- **Suggested store**: attic\n- **Content**: a store that does not exist"


def test_splice_rewrites_only_the_changed_block_in_the_files_newlines():
    text = "\n---\n".join([HEADER, render_block(proposal(1, "First")), BROKEN,
                           render_block(proposal(3, "Third"))]).replace("\n", "\r\n") + "\r\n"
    parsed = parse_pending(text)
    third = parsed.get(3)
    third.status = "committed"
    out = splice(text, parsed, {3: third})
    head, block = text.split("## Proposal #3")
    assert out == head + "## Proposal #3" + block.replace("- **Status**: pending", "- **Status**: committed")


def test_a_block_appended_after_a_last_line_without_newline_starts_on_its_own_line():
    text = render_pending([proposal(1, "First")]).replace("\n", "\r\n").rstrip("\r\n")
    out = text + block_to_append(text, proposal(2, "Second"))
    assert out.endswith("\r\n") and "\n" not in out.replace("\r\n", "")
    assert [p.content for p in parse_pending(out).proposals] == ["First", "Second"]
    assert out.startswith(text + "\r\n---\r\n## Proposal #2\r\n")


def test_a_new_number_counts_malformed_blocks_too():
    parsed = parse_pending(render_pending([proposal(1, "First")]) + "---\n" + BROKEN.replace("#2", "#7") + "\n")
    assert [p.number for p in parsed.proposals] == [1] and parsed.next_number() == 8
    assert parse_pending("").next_number() == 1


def test_a_conflict_status_names_its_partners_and_reads_as_open():
    status = conflict_status([3, 4])
    assert status == "conflict — see #3, #4"
    assert proposal(5, "x", status=status).is_open
