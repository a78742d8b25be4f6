"""A dream's receipt is committed with the dream, so it cannot hold its own sha: git history
(`git.history.receipt_commits`) finds the commit that added each receipt."""
from __future__ import annotations

import json
import shutil

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.git.history import receipt_commits
from tests.support.git import git
from tests.support.memory import fragment_line, write_stream

TODAY = "2026-05-22"


def dream(ws, n: int) -> None:
    write_stream(ws.root, TODAY, [fragment_line(TODAY, n, "coffee", f"Coffee fact number {n}.")])
    run_dream(ws, review="none")


def receipt_ids(ws) -> set[str]:
    return {p.stem for p in (ws.meta_dir / "receipts").glob("d-*.json")}


def test_each_receipt_maps_to_the_dream_commit_that_added_it(ws):
    dream(ws, 1)
    first, (first_id,) = git(ws.root, "rev-parse", "HEAD").strip(), receipt_ids(ws)
    dream(ws, 2)
    second, (second_id,) = git(ws.root, "rev-parse", "HEAD").strip(), receipt_ids(ws) - {first_id}
    assert first != second

    assert receipt_commits(ws.root) == {first_id: first, second_id: second}
    assert receipt_commits(ws.root, limit=1) == {second_id: second}  # the newest commits only
    assert not json.loads((ws.meta_dir / "receipts" / f"{second_id}.json").read_text()).get("commit")


def test_a_folder_without_git_or_without_commits_has_no_receipt_commits(ws, tmp_path):
    assert receipt_commits(ws.root) == {}  # a repository with no receipt yet
    shutil.rmtree(ws.root / ".git")
    assert receipt_commits(ws.root) == {}
