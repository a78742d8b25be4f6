"""The anthropic dreamer's loss bound: its tool protocol refuses a finish, and the run, that leaves
more of the fragments it was shown unaccounted for (neither cited, folded as a named duplicate,
nor declared noise) than `[dreaming] loss_bound` allows (25% by default). Over real HTTP against
the local Messages API server."""
from __future__ import annotations

import json

import pytest

from dreamdeck.core.dreaming.anthropic_dreamer import AnthropicDreamer
from dreamdeck.core.dreaming.protocol import DreamInput, DreamScratch, UndreamedFragment
from dreamdeck.core.dreaming.run import choose_dreamer, run_dream
from dreamdeck.core.store.settings import SettingsError, load_settings
from tests.support.dreamers import draft
from tests.support.memory import cite, commit_all, fragment_line, topics, uuid_at, write_stream
from tests.support.messages_api import FakeMessagesAPI, Reply, text, tool_use

KEY = "test-key-not-a-secret"
D = "2026-05-22"


def frag(n: int, body: str) -> UndreamedFragment:
    return UndreamedFragment(date=D, id=uuid_at(D, n), topic="ops", body=body)


FRAGS = [frag(1, "The deploy runs on Fridays."), frag(2, "Cost alerts: none."),
         frag(3, "lol"), frag(4, "Dana prefers tabs.")]


def inp() -> DreamInput:
    return DreamInput(today=D, fragments=list(FRAGS), strength_rows=[])


def dreamer(api, **kw) -> AnthropicDreamer:
    return AnthropicDreamer("claude-test", api_key=KEY, base_url=api.base_url, timeout_seconds=5.0, max_retries=0, **kw)


def write_citing(*ns: int) -> dict:
    return tool_use("write_topic_shard", {"slug": "deploys", "content": draft(
        "The deploy was mentioned running on Fridays", [cite(D, n) for n in ns])})


def finish(**args) -> dict:
    return tool_use("finish", {"summary": "done", **args})


def last_result(body: dict) -> dict:
    (result,) = [b for b in body["messages"][-1]["content"] if b.get("type") == "tool_result"]
    return result


def test_a_finish_leaving_more_than_a_quarter_unaccounted_is_refused_back_to_the_model_naming_them():
    script = [Reply([write_citing(1)]), Reply([finish()]),
              Reply([finish(noise=[{"cite": cite(D, 3), "reason": "small talk"},
                                   {"cite": cite(D, 2), "reason": "a routine status line"}])])]
    sc = DreamScratch({})
    with FakeMessagesAPI(script) as api:
        outcome = dreamer(api).dream(inp(), sc)
    refusal = last_result(api.bodies[2])
    assert refusal["is_error"] is True
    data = json.loads(refusal["content"])
    assert data["reason"] == "loss_bound"
    assert "3 of 4 fragments" in data["message"] and "25%" in data["message"]
    for n in (2, 3, 4):
        assert cite(D, n) in data["message"]
    # The corrected finish leaves 1 of 4 (25%, not more) unaccounted: accepted.
    assert outcome.finished is True and set(outcome.noise) == {f"{D}#{uuid_at(D, 3)}", f"{D}#{uuid_at(D, 2)}"}


def test_a_dream_that_ends_past_the_loss_bound_fails_and_its_run_changes_nothing(ws, agent_dir):
    write_stream(agent_dir, D, [fragment_line(D, n, "ops", f"observation number {n} about the deploy") for n in range(1, 5)])
    commit_all(agent_dir)
    script = [Reply([write_citing(1)]), Reply([finish()]), Reply([text("That is all I can say.")])]
    with FakeMessagesAPI(script) as api:
        receipt = run_dream(ws, dreamer=dreamer(api), review="none")
    assert receipt.status == "failed"
    assert "3 of 4 fragments" in receipt.message and "nothing changed" in receipt.message
    assert topics(agent_dir) == {}


def test_a_named_duplicate_and_declared_noise_account_for_their_fragments():
    sc = DreamScratch({})
    sc.bound_loss(inp(), 0.0)
    sc.write_shard("deploys", draft("The deploy runs on Fridays", [cite(D, 1), cite(D, 4)]))
    sc.outcome.folded[f"{D}#{uuid_at(D, 2)}"] = f"{D}#{uuid_at(D, 1)}"
    assert sc.over_loss_bound() is not None  # fragment 3 is still unaccounted for
    result = json.loads(sc.finish("done", noise=[{"cite": cite(D, 3), "reason": "small talk"}]))
    assert result["ok"] is True and sc.outcome.finished


def test_the_loss_bound_is_read_from_the_dreaming_settings(ws, monkeypatch):
    assert load_settings(ws.root).dreaming.loss_bound == 0.25
    (ws.root / "dreamdeck.toml").write_text("[dreaming]\nloss_bound = 0.5\n")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    chosen, _why = choose_dreamer("anthropic", ws)
    assert chosen.loss_bound == 0.5


def test_a_loss_bound_above_one_is_refused_in_one_line(tmp_path):
    (tmp_path / "dreamdeck.toml").write_text("[dreaming]\nloss_bound = 25\n")
    with pytest.raises(SettingsError, match=r"loss_bound: .*from 0 to 1"):
        load_settings(tmp_path)


def test_a_larger_bound_lets_the_same_finish_through():
    with FakeMessagesAPI([Reply([write_citing(1)]), Reply([finish()])]) as api:
        outcome = dreamer(api, loss_bound=0.75).dream(inp(), DreamScratch({}))
    assert outcome.finished is True
