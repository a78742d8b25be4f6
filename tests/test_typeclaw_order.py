"""Orders TypeClaw v0.45.1 gives memory, found wrong in dreamdeck by differential fuzzing
(/work/research/harness/fuzz: random agent folders through TypeClaw's real code and ours).
Each rule's golden case is in tests/data/typeclaw/inject.json (its name starts with `fuzz:`).
"""
from __future__ import annotations

from pathlib import Path

from dreamdeck.core.index.tc_memory import load_all_shards, load_references
from dreamdeck.core.ops.inject import inject
from dreamdeck.core.workspace import Workspace
from tests.support.typeclaw_golden import case_named


def lay_out(root: Path, files: dict[str, str]) -> Workspace:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return Workspace.open(root, today="2026-07-16")


SHARD = "---\nheading: {0}\ncites: 0\ndays: 0\nlastReinforced: 2026-07-01\n---\n{0}\n"
REFERENCE = ("---\ntitle: {0}\norigin: curated\ncreated: 2026-07-01T00:00:00.000Z\nlastAccessed: 2026-07-01T00:00:00.000Z\n"
             "accessCount: 0\npinned: false\ndemoted: false\ntags: []\n---\n{0}\n")


# TypeClaw `listShardSlugs` (load-shards.ts) and `listReferenceSlugs` (load-references.ts) strip
# `.md` and then sort: `a` comes before `a-b`, though the file `a-b.md` sorts before `a.md`.
def test_topics_and_references_are_read_in_slug_order_not_file_name_order(agent_dir: Path):
    ws = lay_out(agent_dir, {"memory/topics/a-b.md": SHARD.format("Second."), "memory/topics/a.md": SHARD.format("First."),
                             "memory/references/a-b.md": REFERENCE.format("Second."),
                             "memory/references/a.md": REFERENCE.format("First.")})
    assert [s.slug for s in load_all_shards(ws)[0]] == ["a", "a-b"]
    assert [r.slug for r in load_references(ws)] == ["a", "a-b"]


def test_a_channel_headings_index_lists_a_before_a_b(tmp_path: Path):
    case = case_named("inject", "fuzz: slugs sort as slugs, not file names ('a' before 'a-b', though 'a-b.md' < 'a.md'), channel")
    ws = lay_out(tmp_path, case["files"])
    got = inject(ws, case["options"]["userPrompt"], origin=case["options"]["origin"], record=False).text
    assert got == case["expected"]["turns"][0]["results"]
    assert got.endswith("- First. `a`\n- Second. `a-b`")


# TypeClaw `fuseLanes` (vector/hybrid.ts): the topics one matched fragment leads to tie on score
# and are ordered by `key.localeCompare` (ICU): an accented `é` sorts with the e's, before `t9`.
def test_a_fragment_leads_to_its_topics_in_locale_compare_order_accents_included(tmp_path: Path):
    case = case_named("inject", "fuzz: a fragment cited by two topics becomes both in localeCompare order, "
                                "accents included ('é' before 't9')")
    ws = lay_out(tmp_path, case["files"])
    got = inject(ws, case["options"]["userPrompt"], origin=case["options"]["origin"], record=False).text
    assert got == case["expected"]["turns"][0]["results"]
    assert got.index("## Accent") < got.index("## Nine")
