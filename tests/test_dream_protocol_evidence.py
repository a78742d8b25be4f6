"""The protocol accounts for every shown fragment: cited by a shard, folded as a named duplicate,
or declared noise in `finish` with a reason; `unaccounted` lists the rest (the run's loss bound)."""
from __future__ import annotations

import json

from dreamdeck.core.dreaming.offline import OfflineDreamer
from dreamdeck.core.dreaming.prompt import SYSTEM_PROMPT
from dreamdeck.core.dreaming.protocol import TOOL_SCHEMAS, DreamInput, DreamScratch, UndreamedFragment, unaccounted

D = "2026-05-21"


def frag(n: int, body: str, topic: str = "notes") -> UndreamedFragment:
    return UndreamedFragment(date=D, id=f"f{n}", topic=topic, body=body)


SHARD = "---\nheading: Uses pnpm\ncites: 1\ndays: 1\nlastReinforced: 2026-05-21\n---\nUses pnpm.\n\nfragments:\n- streams/2026-05-21#f1\n"


def test_finish_records_noise_per_fragment_with_its_reason():
    scratch = DreamScratch({})
    result = json.loads(scratch.dispatch("finish", {
        "summary": "s",
        "noise": [{"cite": f"streams/{D}#f2", "reason": "small talk about lunch"},
                  {"cite": f"memory/{D}#f3", "reason": "a duplicate of streams/2026-05-21#f1"}],
    }))
    assert result == {"ok": True, "finished": True, "noise": 2}
    assert scratch.outcome.noise == {f"{D}#f2": "small talk about lunch", f"{D}#f3": "a duplicate of streams/2026-05-21#f1"}


def test_noise_that_names_no_fragment_or_no_reason_is_refused_in_the_result_and_not_recorded():
    scratch = DreamScratch({})
    result = json.loads(scratch.dispatch("finish", {
        "summary": "s", "noise": [{"cite": "f2", "reason": "x"}, {"cite": f"streams/{D}#f4", "reason": " "}, "junk"],
    }))
    assert result["ok"] is True and result["noise"] == 0
    assert result["ignored"] == ["f2", f"streams/{D}#f4", "junk"]
    assert scratch.outcome.noise == {}


def test_unaccounted_lists_shown_fragments_neither_cited_folded_nor_declared_noise():
    inp = DreamInput(D, [frag(1, "Uses pnpm."), frag(2, "lunch was late"), frag(3, "Uses pnpm again."), frag(4, "?")], "")
    scratch = DreamScratch({"pm": SHARD})
    scratch.outcome.noise = {f"{D}#f2": "small talk"}
    scratch.outcome.folded = {f"{D}#f3": f"{D}#f1"}
    assert unaccounted(inp, scratch) == [f"{D}#f4"]


def test_the_offline_dreamer_leaves_nothing_unaccounted():
    inp = DreamInput(D, [frag(1, "heartbeat: ok", "Heartbeat"), frag(2, "Heartbeat: OK", "Heartbeat"),
                         frag(3, "fixed the checkout bug", "Today"), frag(4, "reviewed the checkout PR", "Today")], "")
    scratch = DreamScratch({})
    OfflineDreamer().dream(inp, scratch)
    assert unaccounted(inp, scratch) == []
    assert scratch.outcome.folded == {f"{D}#f2": f"{D}#f1"}


def test_the_finish_tool_and_the_prompt_state_the_evidence_rules():
    finish = next(t for t in TOOL_SCHEMAS if t["name"] == "finish")
    assert finish["input_schema"]["properties"]["noise"]["items"]["required"] == ["cite", "reason"]
    for rule in ("Cite every distinct observation", "Supersede only on a real contradiction",
                 "never because of a word like \"now\" alone", "declare it in finish's `noise`"):
        assert rule in SYSTEM_PROMPT
