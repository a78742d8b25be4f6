"""The fragments an LLM dreamer leaves uncited as noise (its `finish` names each with the reason
it carries nothing durable) are carried like the offline dreamer's folded duplicates: in the
committed receipt (memory/meta/receipts/<id>.json) with their reason, and in `dreamdeck dreams`
and `dreams --json`. Over real HTTP against the local Messages API server."""
from __future__ import annotations

import json

from dreamdeck.core.dreaming.anthropic_dreamer import AnthropicDreamer
from dreamdeck.core.dreaming.run import run_dream
from tests.support.dreamers import draft
from tests.support.git import git
from tests.support.memory import cite, commit_all, fragment_line, uuid_at, write_stream
from tests.support.messages_api import FakeMessagesAPI, Reply, tool_use
from tests.support.processes import run_cli

KEY = "test-key-not-a-secret"
D = "2026-05-22"


def noisy_dream(ws, agent_dir, reason: str = "small talk, nothing durable"):
    write_stream(agent_dir, D, [
        fragment_line(D, 1, "deploys", "The deploy runs on Fridays."),
        fragment_line(D, 2, "chat", "lol"),
        fragment_line(D, 3, "deploys", "Deploys happen on Fridays."),
    ])
    commit_all(agent_dir)
    script = [
        Reply([tool_use("write_topic_shard", {"slug": "deploys", "content": draft(
            "The deploy was mentioned running on Fridays", [cite(D, 1), cite(D, 3)])})]),
        Reply([tool_use("finish", {"summary": "deploy day noted",
                                   "noise": [{"cite": cite(D, 2), "reason": reason}]})]),
    ]
    with FakeMessagesAPI(script) as api:
        dreamer = AnthropicDreamer("claude-test", api_key=KEY, base_url=api.base_url, timeout_seconds=5.0, max_retries=0)
        return run_dream(ws, dreamer=dreamer, review="none")


def test_the_committed_receipt_names_each_noise_fragment_with_its_reason(ws, agent_dir):
    r = noisy_dream(ws, agent_dir)
    assert r.status == "applied"
    committed = json.loads(git(agent_dir, "show", f"HEAD:memory/meta/receipts/{r.id}.json"))
    assert committed["noise"] == {f"{D}#{uuid_at(D, 2)}": "small talk, nothing durable"}
    assert committed["folded"] == {}
    assert "1 noise fragment left uncited" in committed["message"]


def test_a_secret_in_a_noise_reason_never_reaches_the_receipt(ws, agent_dir):
    leaked = "sk-ant-api03-" + "A" * 80
    r = noisy_dream(ws, agent_dir, reason=f"it only repeats the key {leaked}")
    committed = git(agent_dir, "show", f"HEAD:memory/meta/receipts/{r.id}.json")
    assert leaked not in committed
    assert json.loads(committed)["noise"][f"{D}#{uuid_at(D, 2)}"].startswith("it only repeats the key ")


def test_dreams_lists_the_noise_fragments_with_their_reason_under_their_dream(ws, agent_dir):
    noisy_dream(ws, agent_dir)
    out = run_cli(ws.root, "dreams", today=D).stdout
    assert f"noise streams/{D}#{uuid_at(D, 2)} (small talk, nothing durable)" in out


def test_dreams_json_carries_the_receipt_with_its_noise_and_folds(ws, agent_dir):
    r = noisy_dream(ws, agent_dir)
    (dream,) = [d for d in json.loads(run_cli(ws.root, "dreams", "--json", today=D).stdout) if d.get("receipt")]
    assert dream["receipt"] == r.id
    assert dream["noise"] == {f"{D}#{uuid_at(D, 2)}": "small talk, nothing durable"}
    assert dream["folded"] == {}
