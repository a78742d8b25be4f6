"""A topic's facts for TypeClaw's keyword lane (`index.tc_documents`) found in C-speed passes over
the body are exactly the facts the line-by-line reading finds, for any body."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from dreamdeck.core.index.tc_documents import facts_line_by_line, topic_facts
from dreamdeck.core.index.tc_memory import TcShard

PLAIN = [f"- streams/2026-05-20#019e0000-0000-7000-8000-00000000000{n}" for n in range(4)]
ODD = [
    "- streams/2026-05-19#019E0000-0000-7000-8000-000000000009",  # canonical, upper-case id
    "  - memory/2026-05-18#019e0000-0000-7000-8000-000000000008",  # canonical, legacy prefix
    "- streams/2026-05-18#019e0000-0000-7000-8000-000000000007 ",  # canonical, trailing space
    "- streams/2026-05-17#frag-7",  # a citation TypeClaw reads, not a UUID
    "see streams/2026-05-16#019e0000-0000-7000-8000-000000000006\r",  # cited after a \r
    "- streams/2026-05-20#019e0000-0000-7000-8000-000000000001\r",
    "fragments:", "superseded:", " - Superseded :", "FRAGMENTS:",
    "", "The user prefers pnpm.", "ΣΟΦΟΣ said so", "İstanbul office", "\0", "- streams/x",
]


def _body(lines: list[str], trailing: bool) -> str:
    return "\n".join(lines) + ("\n" if trailing else "")


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PLAIN + ODD), max_size=14), st.booleans())
def test_the_fast_facts_equal_the_line_by_line_facts_for_any_body(lines, trailing):
    shard = TcShard("package-manager", "Package Manager", None, _body(lines, trailing), f"/t/{len(lines)}.md")
    assert topic_facts(shard) == facts_line_by_line(shard)


def test_a_usual_shard_keeps_its_citations_sorted_and_its_superseded_ids_in_order():
    body = _body(["Uses pnpm.", "", "fragments:", PLAIN[2], PLAIN[0], PLAIN[0], "", "superseded:", PLAIN[3],
                  PLAIN[1], PLAIN[0]], True)
    facts = topic_facts(TcShard("pm", "Uses pnpm", None, body, "/t/usual.md"))
    assert facts.cited.split("\n") == [PLAIN[0][10:], PLAIN[2][10:]]
    assert facts.superseded.split("\n") == [PLAIN[3][-36:], PLAIN[1][-36:]]
    assert facts == facts_line_by_line(TcShard("pm", "Uses pnpm", None, body, "/t/usual.md"))
