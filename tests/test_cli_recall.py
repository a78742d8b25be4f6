"""`dreamdeck recall`, `dreamdeck inject`, `dreamdeck access`, and the Python API, on a real
agent folder in real processes: outputs, exit codes, one-line errors, what is recorded."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.memory import fragment_line, shard_text, uuid_at, write_shard, write_stream

TODAY = "2026-05-22"
REPO = Path(__file__).resolve().parent.parent


def run(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "dreamdeck", "-w", str(root), "--today", TODAY, *args],
                          capture_output=True, text=True, cwd=REPO)
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}: {proc.stderr}")
    return proc


@pytest.fixture
def agent(agent_dir: Path) -> Path:
    write_stream(agent_dir, "2026-05-20", [fragment_line("2026-05-20", 1, "package manager", "User said use pnpm")])
    write_stream(agent_dir, TODAY, [fragment_line(TODAY, 1, "oncall", "Jisoo is oncall this week")])
    write_shard(agent_dir, "package-manager", shard_text(
        "The user uses pnpm for this repo", [f"streams/2026-05-20#{uuid_at('2026-05-20', 1)}"]))
    write_shard(agent_dir, "deploy-day", shard_text("Deploys happen on Fridays after the standup", []))
    return agent_dir


def test_recall_lists_what_the_agent_gets_back(agent):
    out = run(agent, "recall", "which package manager?").stdout
    assert out.startswith("1. topic:package-manager  score ") and "active" in out
    assert "The user uses pnpm for this repo" in out
    blocks = json.loads(run(agent, "recall", "oncall", "--json", "--budget", "lean").stdout)
    assert [(b["kind"], b["key"], b["heading"]) for b in blocks] == [("stream", f"{TODAY}#{uuid_at(TODAY, 1)}", "oncall")]
    assert set(blocks[0]["why"]) >= {"bm25", "decay", "status", "tier", "access_count", "last_access"}
    assert run(agent, "recall", "kayaks").stdout == "Nothing in memory matches that.\n"


@pytest.mark.parametrize("args,message", [
    (("recall",), "recall needs a query"),
    (("recall", "  "), "recall needs a query"),
    (("recall", "pnpm", "--budget", "huge"), "unknown budget 'huge'"),
    (("recall", "pnpm", "--limit", "many"), "--limit 'many': expected a whole number"),
    (("inject", "--budget", "1000"), "at least 4096"),
    (("inject", "--origin", "telegram"), "unknown origin 'telegram'"),
    (("access", "--limit", "0"), "--limit 0: expected 1 or more"),
])
def test_bad_input_is_one_line_and_a_non_zero_status(agent, args, message):
    proc = run(agent, *args, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and message in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("verb", [("recall", "anything"), ("inject",)])
def test_a_workspace_without_memory_is_one_line(tmp_path, verb):
    proc = run(tmp_path, *verb, check=False)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "no memory in" in proc.stderr


def test_inject_prints_the_block_and_its_plan(agent):
    from dreamdeck.core.formats.memory_block import FRAMING

    out = run(agent, "inject", "--query", "which package manager does pnpm use?").stdout
    assert out == "\n".join(["# Memory", "", FRAMING, "", "## The user uses pnpm for this repo",
                             "The user uses pnpm for this repo.", "", "fragments:",
                             f"- streams/2026-05-20#{uuid_at('2026-05-20', 1)}"]) + "\n"
    plan = json.loads(run(agent, "inject", "--origin", "channel", "--json").stdout)
    assert (plan["mode"], plan["render"], plan["shards"], plan["budget"]) == (
        "direct", "channel-index", ["deploy-day", "package-manager"], 16384)
    assert plan["bytes"] == sum(len(t.split("---\n", 2)[2].encode()) for t in
                                ((agent / "memory/topics" / f"{s}.md").read_text() for s in ("deploy-day", "package-manager")))
    assert plan["text"].startswith("# Memory\n") and plan["log"] == "[vector-retrieval] mode=index topics=2 channel=forced"
    write_shard(agent, "long", shard_text("A long note", []).replace("A long note.", "x" * 5000))
    empty = run(agent, "inject", "--origin", "channel", "--budget", "4096", "--query", "kayaks")
    assert empty.stdout == "" and "nothing would be injected" in empty.stderr


def test_access_shows_what_the_agent_was_shown_and_topics_counts_it(agent):
    run(agent, "recall", "pnpm")
    run(agent, "inject", "--query", "pnpm")
    records = json.loads(run(agent, "access", "--json").stdout)
    assert [(r["op"], r["query"], r["items"]) for r in records] == [
        ("inject", "pnpm", ["topic:package-manager"]), ("recall", "pnpm", ["topic:package-manager"])]
    [line] = run(agent, "access", "--limit", "1").stdout.splitlines()
    assert "inject  'pnpm'  → topic:package-manager" in line
    rows = {r["slug"]: r for r in json.loads(run(agent, "topics", "--json").stdout)}
    assert (rows["package-manager"]["access_count"], rows["package-manager"]["last_access"]) == (2, TODAY)
    assert (rows["deploy-day"]["access_count"], rows["deploy-day"]["last_access"]) == (0, None)


def test_the_python_api(agent):
    import dreamdeck
    from dreamdeck import Memory

    memory = Memory(agent, today=TODAY)
    citation = memory.remember("Standups moved to 10am", topic="standup")
    assert citation.startswith(f"streams/{TODAY}#")
    [block] = memory.recall("10am", budget="lean")
    assert (block.kind, block.heading, block.excerpt) == ("stream", "standup", "Standups moved to 10am")
    first, second = memory.inject("pnpm"), memory.inject("pnpm")
    assert "## The user uses pnpm for this repo\nThe user uses pnpm" in first
    assert "slug: `package-manager` — unchanged since earlier this session" in second  # one session
    memory.new_session()
    assert memory.inject("pnpm") == first
    assert [r.op for r in memory.access()][:2] == ["inject", "inject"]
    assert [b.key for b in dreamdeck.recall(memory.workspace, "pnpm", record=False)] == ["package-manager"]
    assert dreamdeck.inject(memory.workspace, "pnpm", record=False) == first


def test_import_dreamdeck_stays_cheap():
    code = "import sys, dreamdeck; print(sorted(m for m in sys.modules if m.startswith('dreamdeck')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True).stdout
    assert out.strip() == "['dreamdeck']"


def test_recall_and_inject_write_only_the_access_record_and_access_writes_nothing(agent):
    def files() -> dict[str, bytes]:
        return {str(p.relative_to(agent)): p.read_bytes() for p in sorted(agent.rglob("*"))
                if p.is_file() and ".git" not in p.parts}

    before = files()
    run(agent, "recall", "pnpm")
    run(agent, "inject", "--query", "pnpm")
    after = files()
    assert set(after) - set(before) == {"memory/meta/access.jsonl"}
    assert {k: v for k, v in after.items() if k in before} == before
    run(agent, "access")
    assert files() == after
