"""A hard forget of a topic leaves its words nowhere dreamdeck writes: not in the reflections,
pending notes and receipts under memory/meta/, not in dreamdeck's private projections.

Found by the attacker round (session 10): `forget TOPIC --hard` deleted the shard but scrubbed
only the text of the fragments forgotten with it (none without `--fragments`). The topic's own
prose stayed in the reflection that proposed it (`meta/reflections/r-N.json`, committed with the
forget), and in the private folder: the offline dreamer's projection keeps every shard's
heading and claim (`offline-dreamer-index.sqlite3`), which not even a fragment's hard forget
deleted.
"""
from __future__ import annotations

from pathlib import Path

from dreamdeck.core.workspace import Workspace
from tests.support.memory import cite, commit_all, fragment_line, shard_text, write_shard, write_stream
from tests.support.outside import run_cli

SECRET = "quokkaSECRET77"
D1, D2 = "2026-05-20", "2026-05-21"


def files_holding(folder: Path, needle: str, skip: str = "\0") -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                  if p.is_file() and skip not in p.parts and needle.encode() in p.read_bytes())


def test_a_hard_forget_of_a_topic_leaves_its_words_in_no_meta_file_and_no_private_projection(agent_dir):
    write_stream(agent_dir, D1, [fragment_line(D1, 1, "kayak", "the kayak has a combination lock")])
    write_shard(agent_dir, "kayak", shard_text(f"The kayak lock code is {SECRET}", [cite(D1, 1)]))
    write_stream(agent_dir, D2, [fragment_line(D2, 1, "kayak", "the kayak has a combination lock now")])
    commit_all(agent_dir)
    dream = run_cli(agent_dir, "dream", "--dreamer", "offline", "--review", "all")  # compares with every belief
    assert dream.returncode == 0, dream.stderr
    private = Workspace.open(agent_dir).lock_dir
    assert files_holding(private, SECRET) != []  # the dreamer's projection did hold it

    proc = run_cli(agent_dir, "forget", "kayak", "--reason", "secret", "--hard")

    assert proc.returncode == 0, proc.stderr
    assert files_holding(agent_dir / "memory", SECRET) == []
    assert files_holding(private, SECRET) == []
