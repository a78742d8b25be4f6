"""The dreamer's index reads a shard's frontmatter heading without parsing the shard
(`matching.heading_of`, found with `str.find`): the same heading the frontmatter line says."""
from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from dreamdeck.core.dreaming.matching import heading_of

_LINE = re.compile(r"^heading:[ \t]*(.*?)[ \t]*$", re.MULTILINE)


def _by_regex(text: str) -> str | None:
    """The first frontmatter line opening with "heading:", read by one regex search."""
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---", 4)
    m = _LINE.search(text, 4, end if end > 0 else len(text))
    return m.group(1) if m else None


_PIECES = st.sampled_from(["---\n", "heading:", "heading: a belief", " ", "\t", "\n", "\r", "---", "cites: 1",
                           "\nheading:", "x", "\n---\n", "headings: z", "body"])


@settings(max_examples=500, deadline=None)
@given(st.lists(_PIECES, max_size=12).map("".join))
def test_the_heading_found_by_find_is_the_frontmatter_lines(text):
    assert heading_of(text) == _by_regex(text)
    assert heading_of("---\n" + text) == _by_regex("---\n" + text)


def test_a_heading_is_read_from_its_line_only():
    text = "---\ncites: 2\nheading:  Mentioned once: disk: 61% used \t\ndays: 1\n---\nbody\n"
    assert heading_of(text) == "Mentioned once: disk: 61% used"
    assert heading_of("---\ncites: 2\n---\nheading: not in the frontmatter\n") is None
