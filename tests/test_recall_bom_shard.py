"""A shard saved with a byte-order mark (and CRLF line ends, as a Windows editor saves it) is
recalled by its heading and prose, never with its frontmatter as the excerpt.

Found by the attacker round (session 10, attacker-8): `dreamdeck recall` showed
`\\ufeff---\\nheading: …\\ncites: 1 …` as the excerpt and `---` as the heading. TypeClaw cannot
parse such a shard (the strict parser wants `---` first), and recall still says so (`parse_error`
in the index's facts); what it shows a person and the agent is what the person wrote.
"""
from __future__ import annotations

import json

import pytest

from tests.support.memory import cite, commit_all, fragment_line, shard_text, write_stream
from tests.support.outside import D, run_cli


@pytest.mark.parametrize("line_end", ["\n", "\r\n"])
def test_a_shard_behind_a_bom_is_recalled_by_its_heading_and_prose(agent_dir, line_end):
    write_stream(agent_dir, D, [fragment_line(D, 1, "tea", "the user drinks green tea")])
    text = shard_text("Green tea every morning", [cite(D, 1)])
    topics = agent_dir / "memory" / "topics"
    topics.mkdir(parents=True, exist_ok=True)
    (topics / "tea.md").write_bytes(("\ufeff" + text).replace("\n", line_end).encode())
    commit_all(agent_dir)

    proc = run_cli(agent_dir, "recall", "green tea", "--json")

    assert proc.returncode == 0, proc.stderr
    block = next(b for b in json.loads(proc.stdout) if b["key"] == "tea")
    assert block["heading"] == "Green tea every morning"
    assert "heading:" not in block["excerpt"] and "cites:" not in block["excerpt"] and "---" not in block["excerpt"]
    assert "Green tea every morning" in block["excerpt"]
