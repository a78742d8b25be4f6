"""Expiry (Moltbot §10.6 / DESIGN Review model): old pending reflections become stale, visibly."""
from __future__ import annotations

import json

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.store.reflections import load_reflection
from tests.support.git import git
from tests.support.memory import fragment_line, write_stream
from tests.support.processes import run_cli


class NewShard:
    name = "scripted"

    def dream(self, inp, scratch):
        f = inp.fragments[0]
        scratch.write_shard("ci", f"CI runs on every push.\n\nfragments:\n- {f.citation}\n")
        scratch.finish("a new belief")
        return scratch.outcome


def test_a_dream_marks_reflections_older_than_expire_days_stale_and_review_shows_them(ws, agent_dir):
    (agent_dir / "dreamdeck.toml").write_text("[review]\nexpire_days = 3\n")
    write_stream(agent_dir, "2026-05-20", [fragment_line("2026-05-20", 1, "ci", "CI runs on every push")])
    r = run_dream(ws, dreamer=NewShard(), review="all")
    path = agent_dir / "memory/meta/reflections" / f"{r.reflection}.json"
    data = json.loads(path.read_text())
    data["created"] = "2026-05-01T09:00:00+00:00"  # three weeks old
    path.write_text(json.dumps(data))

    receipt = run_dream(ws, dreamer=NewShard(), review="all")  # nothing undreamed: only the expiry runs

    assert receipt.status == "skipped"
    assert load_reflection(ws, r.reflection).status == "stale"
    assert "expire stale reflections" in git(agent_dir, "log", "-1", "--format=%s")
    assert not (agent_dir / "memory/topics/ci.md").exists()  # stale is never applied
    out = run_cli(agent_dir, "review", "--json", check=False).stdout
    items = json.loads(out)["items"]
    assert [(i["id"], i["status"]) for i in items] == [(r.reflection, "stale")]
