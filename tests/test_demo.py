"""The demo agent folder: a real TypeClaw workspace with a dream-by-dream git history."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import date, datetime
from pathlib import Path

import pytest

from dreamdeck.core.formats.citations import parse_citations, sectioned_citations
from dreamdeck.core.formats.events import FRAGMENT_KEYS, WHERE_KEYS
from dreamdeck.core.formats.ids import timestamp_from_id
from dreamdeck.core.formats.shards import parse_shard, recompute_shard_text
from dreamdeck.core.git.commit import DREAM_EMOJI
from dreamdeck.core.index.strength import age_days, ladder_tier
from dreamdeck.core.store.settings import Settings, parse_settings
from dreamdeck.core.store.shard_files import list_shard_files
from dreamdeck.core.store.state import load_state
from dreamdeck.core.store.streams import all_problems, iter_fragments, list_stream_days, read_stream_lines
from dreamdeck.core.workspace import Workspace
from dreamdeck.demo.build import HISTORY_DAYS, build_demo
from tests.support import REPO
from tests.support.git import git

TODAY = "2026-07-20"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo") / "pico"
    build_demo(root, today=TODAY, seed=7)
    return root


@pytest.fixture(scope="module")
def ws(demo: Path) -> Workspace:
    return Workspace.open(demo, today=TODAY)


def shards(demo: Path) -> dict[str, str]:
    return {slug: path.read_text(encoding="utf-8") for slug, path in list_shard_files(demo / "memory" / "topics")}


def test_agent_files_are_committed_and_memory_is_ignored(demo):
    for name in ("SOUL.md", "IDENTITY.md", "AGENTS.md", "typeclaw.json", ".gitignore", "dreamdeck.toml"):
        assert name in git(demo, "ls-files", "--", name)
    assert (demo / ".gitignore").read_text() == "# system-managed roots\nmemory/\n"
    assert "## Memory" in (demo / "AGENTS.md").read_text()
    config = json.loads((demo / "typeclaw.json").read_text())
    assert config["memory"]["dreaming"]["schedule"] == "*/30 * * * *"
    assert git(demo, "branch", "--show-current").strip() == "main"


def test_dreamdeck_toml_documents_every_setting_commented_at_its_default(demo):
    text = (demo / "dreamdeck.toml").read_text()
    assert parse_settings(text) == Settings()
    from dataclasses import fields

    for table in fields(Settings):
        assert f"[{table.name}]" in text
        for f in fields(getattr(Settings(), table.name)):
            assert re.search(rf"^# {f.name.rstrip('_')} = ", text, re.M), f.name


def test_every_shard_parses_strictly_and_is_already_canonical(demo):
    found = shards(demo)
    assert 12 <= len(found) <= 16
    for slug, text in found.items():
        meta, body = parse_shard(text)
        assert recompute_shard_text(text, slug, TODAY) == (text, []), slug
        assert body.startswith(meta.heading + ".\n\nfragments:\n"), slug


def test_all_four_ladder_tiers_are_present_and_worded_in_the_belief(demo):
    tiers = {}
    for slug, text in shards(demo).items():
        meta, _ = parse_shard(text)
        tier = ladder_tier(meta.days)
        tiers.setdefault(tier, []).append(slug)
        assert tier in meta.heading, (slug, tier, meta.heading)
    assert set(tiers) == {"mentioned", "observed", "consistently", "always"}


def test_some_shards_have_tags_and_some_are_fading(demo):
    metas = [parse_shard(text)[0] for text in shards(demo).values()]
    assert any(m.tags for m in metas) and any(m.tags is None for m in metas)
    old = [m for m in metas if 15 <= age_days(TODAY, m.last_reinforced) <= 24]
    assert len(old) >= 3


def test_the_old_contradiction_is_listed_under_superseded(demo):
    text = shards(demo)["package-manager"]
    _, body = parse_shard(text)
    assert "\nsuperseded:\n" in body
    sections = sectioned_citations(body)
    assert sections.superseded_keys() and sections.active_keys()
    assert max(sections.superseded_keys()) < min(sections.active_keys())  # the old evidence is older


def test_every_citation_resolves_to_a_fragment_in_the_streams(demo, ws):
    fragments = {f.key: f for f in iter_fragments(ws)}
    cited = set()
    for slug, text in shards(demo).items():
        for day, ids in parse_citations(text).items():
            for cid in ids:
                assert (day, cid) in fragments, f"{slug} cites missing streams/{day}#{cid}"
                cited.add((day, cid))
    assert len(cited) >= 60


def test_stream_lines_are_typeclaw_lines(demo, ws):
    assert all_problems(ws) == []
    days = list_stream_days(ws)
    assert len(days) >= 20
    sources = set()
    total = 0
    for day, path in days:
        assert path.parent.name == "streams"
        for ln in read_stream_lines(path):
            ev = ln.event
            assert ev["ts"] == timestamp_from_id(ev["id"])
            local = datetime.fromisoformat(ev["ts"].replace("Z", "+00:00")).astimezone().date().isoformat()
            assert local == day
            sources.add(ev["source"])
            if ev["type"] == "fragment":
                total += 1
                assert tuple(ev) == tuple(k for k in FRAGMENT_KEYS if k in ev)
                assert re.fullmatch(r"[0-9a-f]{8}", ev["entry"])
                if "where" in ev:
                    assert tuple(ev["where"]) == tuple(k for k in WHERE_KEYS if k in ev["where"])
    assert len(sources) == 4
    assert 80 <= total <= 200
    frags = list(iter_fragments(ws))
    assert any(f.who and f.where and f.where["adapter"] == "slack-bot" for f in frags)
    assert any(f.where and f.where["adapter"] == "discord-bot" for f in frags)


def test_each_logger_call_is_a_fragment_then_its_watermark_on_undreamed_days(demo, ws):
    state, problem = load_state(ws.state_path)
    assert problem is None
    undreamed_days = [day for day, _ in list_stream_days(ws) if day not in state.days]
    assert undreamed_days
    for day in undreamed_days:
        events = [ln.event for ln in read_stream_lines(ws.memory / "streams" / f"{day}.jsonl")]
        for i, ev in enumerate(events):
            if ev["type"] == "fragment":
                nxt = events[i + 1]
                assert nxt["type"] == "watermark" and nxt["source"] == ev["source"] and nxt["id"] > ev["id"]


def test_dreamed_days_were_compacted_like_typeclaw(demo, ws):
    state, _ = load_state(ws.state_path)
    cited = {}
    for text in shards(demo).values():
        for day, ids in parse_citations(text).items():
            cited.setdefault(day, set()).update(ids)
    for day, path in list_stream_days(ws):
        if day not in state.days:
            continue
        events = [ln.event for ln in read_stream_lines(path)]
        marks = [ev["source"] for ev in events if ev["type"] == "watermark"]
        assert len(marks) == len(set(marks)), f"{day}: redundant watermarks survived"
        for ev in events:
            if ev["type"] == "fragment":
                assert ev["id"] in state.dreamed_ids(day)
                assert ev["id"] in cited.get(day, set()), f"{day}: dreamed, uncited fragment survived GC"


def test_the_last_days_stay_undreamed_with_work_for_a_dream(demo, ws):
    state, _ = load_state(ws.state_path)
    raw = json.loads(ws.state_path.read_text())
    assert raw["version"] == 2
    for entry in raw["dreamedThrough"].values():
        assert entry["dreamedIds"] == sorted(set(entry["dreamedIds"]))
    undreamed = [f for f in iter_fragments(ws) if f.id not in state.dreamed_ids(f.date)]
    assert 5 <= len(undreamed) <= 8
    assert {f.date for f in undreamed} == {"2026-07-18", "2026-07-19"}
    topics = {f.topic for f in undreamed}
    assert "release cadence" in topics  # the contradiction of the Tuesday release train
    assert "api errors" in topics  # a brand-new topic
    assert "Thursday" in next(f.body for f in undreamed if f.topic == "release cadence")


def test_history_is_built_dream_by_dream_in_date_order(demo):
    log = git(demo, "log", "--reverse", "--format=%aI%x09%s").splitlines()
    dates = [line.split("\t", 1)[0] for line in log]
    subjects = [line.split("\t", 1)[1] for line in log]
    assert dates == sorted(dates, key=lambda d: datetime.fromisoformat(d))
    assert not subjects[0].startswith("dream: ")
    dreams = [s for s in subjects if s.startswith("dream: ")]
    assert len(dreams) >= 5
    emoji = "|".join(DREAM_EMOJI)
    for subject in dreams:
        assert re.fullmatch(rf"dream: \d+ fragments?( \+ new skill .pr-review.)? ({emoji})", subject), subject
    assert sum("new skill 'pr-review'" in s for s in dreams) == 1
    first = date.fromisoformat(dates[0][:10])
    assert (date.fromisoformat(TODAY) - first).days == HISTORY_DAYS
    body = git(demo, "log", "-1", "--format=%B")
    assert "Actor: dreamer:offline" in body and "Trigger: schedule" in body


def test_the_skill_is_muscle_memory(demo):
    text = (demo / "memory" / "skills" / "pr-review" / "SKILL.md").read_text()
    assert text.startswith("---\nname: pr-review\ndescription: ")
    assert "\nsource: muscle-memory\n---\n" in text


def test_git_status_is_clean_and_memory_files_skip_the_worktree(demo):
    assert git(demo, "status", "--porcelain") == ""
    listed = git(demo, "ls-files", "-v", "--", "memory/").splitlines()
    assert listed and all(line.startswith("S ") for line in listed)
    assert "memory/.dreaming-state.json" in {line[2:] for line in listed}


def test_refuses_a_folder_that_is_not_empty(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="not empty"):
        build_demo(tmp_path, today=TODAY)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]
    with pytest.raises(ValueError):
        build_demo(tmp_path / "new", today="2026-02-30")
    assert not (tmp_path / "new").exists()


def test_an_empty_folder_is_accepted(tmp_path):
    root = tmp_path / "empty"
    root.mkdir()
    assert build_demo(root, today=TODAY, seed=3) == root
    assert (root / "memory" / "topics").is_dir()


def test_same_today_and_seed_give_the_same_memory_bytes(tmp_path, demo):
    again = build_demo(tmp_path / "again", today=TODAY, seed=7)
    assert shards(again) == shards(demo)
    for day, path in list_stream_days(Workspace.open(demo)):
        assert (again / "memory" / "streams" / f"{day}.jsonl").read_bytes() == path.read_bytes()
    assert (again / "memory" / ".dreaming-state.json").read_bytes() == (demo / "memory" / ".dreaming-state.json").read_bytes()
    other = build_demo(tmp_path / "other", today=TODAY, seed=8)
    assert shards(other) != shards(demo)
    assert set(shards(other)) == set(shards(demo))


def test_importing_the_demo_loads_no_terminal_library():
    code = "import sys, dreamdeck.demo.build; print(any(m.split('.')[0] in ('textual', 'rich') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "False"
