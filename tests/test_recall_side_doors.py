"""`recall` reads memory by the same rule as every other view: never through a symbolic link
(a shard folder linked outside included).

Found by the attacker round (session 10): with `memory/topics` or `memory/vault` a symbolic
link to a folder outside, `dreamdeck recall` indexed the outside folder's files and returned
their text to the agent (the sweep opened the folder by path, following the link).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.support.memory import fragment_line
from tests.support.outside import D, one_line_refusal, outside_folder, run_cli, seeded_agent

SECRET_SHARD = (b"---\nheading: creds\ntags: []\ncites: 1\ndays: 1\nlastReinforced: 2026-05-20\n---\n"
                b"hunter2-outside-secret about green tea\n")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = outside_folder(tmp_path, SECRET_SHARD)
    (folder / "notes.jsonl").write_text(fragment_line(D, 9, "tea", "hunter2-outside-stream about green tea") + "\n")
    return folder


@pytest.fixture
def seeded(agent_dir: Path) -> Path:
    return seeded_agent(agent_dir)


def recalled(root: Path, query: str = "green tea"):
    proc = run_cli(root, "recall", query, "--json")
    return proc, proc.stdout


@pytest.mark.parametrize("area", ["topics", "vault"])
def test_recall_refuses_a_shard_folder_that_is_a_link(seeded, outside, area):
    folder = seeded / "memory" / area
    (outside / area).mkdir()
    (outside / area / "creds.md").write_bytes(SECRET_SHARD)
    shutil.rmtree(folder, ignore_errors=True)
    folder.symlink_to(outside / area)

    proc, out = recalled(seeded)

    assert "hunter2" not in out
    one_line_refusal(proc, f"memory/{area}")


def test_recall_still_finds_the_streams_and_shards_it_owns(seeded):
    proc, out = recalled(seeded)

    assert proc.returncode == 0, proc.stderr
    assert ("topic", "tea") in [(b["kind"], b["key"]) for b in json.loads(out)]


def test_recall_names_an_access_record_that_is_a_link_and_writes_nothing_through_it(seeded, outside):
    record = seeded / "memory" / "meta" / "access.jsonl"
    record.parent.mkdir(parents=True, exist_ok=True)
    record.symlink_to(outside / "passwd")

    proc, _ = recalled(seeded)

    one_line_refusal(proc, "memory/meta/access.jsonl is a symbolic link")
    assert (outside / "passwd").read_bytes() == SECRET_SHARD
