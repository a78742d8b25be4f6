"""TypeClaw v0.45.1's `# Memory` block, byte for byte, on every golden case.

`tests/data/typeclaw/inject.json` holds TypeClaw's own output for each case (made by running its
real `session.turn.start` hook with an empty vector lane, `/work/research/harness`), and
`inject_extra.json` more cases made the same way for the rules those do not reach (a topic found
through the who, time or workspace name of a fragment it cites, unresolved citations, the legacy
`memory/` prefix, names learned across fragments, ties between topics citing one fragment,
legacy prose, more than 20 matches, demoted references, stopwords, an empty prompt; produced
with `bun --preload ./preload.ts run.ts inject CASES --out inject_extra.json`); here each
case's files are laid out in a fresh agent folder and dreamdeck's `inject` must print the same
block and the same retrieval log line. Three cases replace TypeClaw's hybrid search with fixed
results (`hybrid`): they pass those results through the same seam (`search=`), so they test the
renderers and the decision flow, not retrieval. What is not compared: TypeClaw's console
warnings (dreamdeck words parse errors its own way) and `vectorIndexExistsAfter` (TypeClaw
creates `memory/.vectors/index.db`; dreamdeck never writes TypeClaw's vector store, see
`test_inject_never_creates_typeclaws_vector_index`).
"""
from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from dreamdeck.core.errors import BadInput
from dreamdeck.core.formats.memory_block import RetrievedItem
from dreamdeck.core.ops.inject import InjectSession, inject
from dreamdeck.core.workspace import Workspace

DATA = Path(__file__).parent / "data" / "typeclaw"
CASES = json.loads((DATA / "inject.json").read_text(encoding="utf-8"))
EXTRA = json.loads((DATA / "inject_extra.json").read_text(encoding="utf-8"))


def lay_out(root: Path, files: dict) -> None:
    """The harness's file map: text, {"b64"}, or {"prefix","repeat","times","suffix"}."""
    for rel, spec in files.items():
        path = root / rel
        if rel.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(spec, str):
            path.write_bytes(spec.encode("utf-8"))
        elif "b64" in spec:
            path.write_bytes(base64.b64decode(spec["b64"]))
        else:
            text = spec.get("prefix", "") + spec["repeat"] * spec["times"] + spec.get("suffix", "")
            path.write_bytes(text.encode("utf-8"))


def fixed_search(hybrid):
    """The harness's stand-in for TypeClaw's hybridSearch, through inject's `search` seam."""
    if hybrid == "empty":
        return lambda view, prompt: []
    items = [RetrievedItem(r["source"], r["key"], r["heading"], r["excerpt"], r.get("who"), r.get("when"), r.get("where"))
             for r in hybrid["results"]]
    return lambda view, prompt: items


def masked(log: str | None) -> str | None:
    return None if log is None else re.sub(r"elapsed_ms=\d+", "elapsed_ms=<n>", log)


@pytest.mark.parametrize("case", CASES + EXTRA, ids=[c["name"] for c in CASES + EXTRA])
def test_inject_prints_typeclaws_memory_block_byte_for_byte(case, tmp_path):
    root = tmp_path / "agent"
    root.mkdir()
    lay_out(root, case["files"])
    ws = Workspace.open(root, today=case["today"])
    options, expected = case["options"], case["expected"]
    budget = options.get("config", {}).get("injectionBudgetBytes", 16384)
    if "configError" in expected:
        with pytest.raises(BadInput, match="at least 4096"):
            inject(ws, options["userPrompt"], origin=options.get("origin"), budget=budget, record=False)
        return
    search = fixed_search(options["hybrid"]) if "hybrid" in options else None
    session = InjectSession()
    prompts = options.get("turns") or [options["userPrompt"]]
    logs = []
    for prompt, turn in zip(prompts, expected["turns"], strict=True):
        result = inject(ws, prompt, origin=options.get("origin"), budget=budget, session=session, search=search, record=False)
        assert result.text == turn["results"]
        if result.log is not None:
            logs.append(masked(result.log))
    assert logs == [re.sub(r"^\w+: ", "", line) for line in expected["logs"]]


def test_the_golden_file_covers_the_cases_the_spec_names():
    names = " ".join(c["name"] for c in CASES)
    for needle in ("zero shards", "channel origin -> forced headings-only", "budget boundary", "MEMORY.md fallback",
                   "12288", "dedup across two identical turns", "superseded fragment never surfaces",
                   "reference file matched", "memory/vault and memory/archive are never read", "CJK shard matched"):
        assert needle in names
