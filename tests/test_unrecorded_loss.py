"""`doctor` reports fragments that left the streams with no recorded reason (issue 10, item 6):
a fragment line the last commit dreamdeck made holds in a stream and the working file (or a
later commit made outside dreamdeck) does not, unexplained by a tombstone, the journal, a receipt
or a GC note. dreamdeck's own removals (the GC, a hard forget) are never reported."""
from __future__ import annotations

import json

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.ops.doctor import examine
from dreamdeck.core.ops.forget import forget_fragment
from tests.support.dreamers import Scripted, draft
from tests.support.git import git
from tests.support.memory import cite, commit_all, fragment_line, the_next_day, uuid_at, write_stream
from tests.support.processes import run_cli

D = "2026-05-22"


def _dreamed(ws, agent_dir):
    """Four fragments dreamed by dreamdeck; the first cited, the rest collected by its GC."""
    path = write_stream(agent_dir, D, [fragment_line(D, n, "pm", f"uses pnpm, note {n}") for n in range(1, 5)])
    commit_all(agent_dir)
    r = run_dream(the_next_day(ws), dreamer=Scripted(lambda inp, s: s.write_shard("pm", draft("Uses pnpm", [cite(D, 1)]))),
                  review="none")
    assert len(r.fragments_dropped) == 3
    return path


def _commit_by_hand(root, message: str) -> None:
    """A commit made outside dreamdeck (no Change-Id), of the day's stream file."""
    rel = f"memory/streams/{D}.jsonl"
    git(root, "update-index", "--no-skip-worktree", "--", rel)  # dreamdeck's files are skip-worktree
    git(root, "add", "-f", "--", rel)
    git(root, "commit", "-qm", message)


def _losses(ws) -> list:
    return [f for f in examine(ws).findings if f.kind == "unrecorded-loss"]


def test_dreamdecks_own_gc_and_a_hard_forget_leave_no_unrecorded_loss(ws, agent_dir):
    path = _dreamed(ws, agent_dir)
    path.write_text(path.read_text() + fragment_line(D, 5, "pm", "a later note") + "\n")
    _commit_by_hand(agent_dir, "an append, committed by hand")

    forget_fragment(the_next_day(ws), D, uuid_at(D, 5), "private", hard=True)

    assert _losses(ws) == []


def test_a_fragment_line_removed_by_hand_is_reported_with_its_id(ws, agent_dir):
    path = _dreamed(ws, agent_dir)
    kept = [line for line in path.read_text().splitlines() if uuid_at(D, 1) not in line]
    path.write_text("".join(line + "\n" for line in kept))

    losses = _losses(ws)
    data = json.loads(run_cli(agent_dir, "doctor", "--json", check=False).stdout)

    assert [f.where for f in losses] == [f"memory/streams/{D}.jsonl"]
    assert f"{D}#{uuid_at(D, 1)}" in losses[0].detail and "no recorded reason" in losses[0].detail
    assert [f["kind"] for f in data["findings"] if f["kind"] == "unrecorded-loss"] == ["unrecorded-loss"]


def test_a_removal_committed_outside_dreamdeck_is_reported(ws, agent_dir):
    path = _dreamed(ws, agent_dir)
    path.write_text("")  # as TypeClaw's GC would drop a dreamed fragment nobody cites under topics/
    _commit_by_hand(agent_dir, "dream: 1 fragments")

    losses = _losses(ws)

    assert len(losses) == 1 and f"{D}#{uuid_at(D, 1)}" in losses[0].detail
    assert "unrecorded-loss" in run_cli(agent_dir, "doctor", check=False).stdout


def test_a_removal_committed_with_a_gerrit_change_id_is_still_outside_dreamdeck(ws, agent_dir):
    """Gerrit puts `Change-Id: I<40 hex>` on every commit of a repository that uses it; dreamdeck's
    own is 16 hex digits. A person's commit must not become the baseline that hides a loss."""
    path = _dreamed(ws, agent_dir)
    path.write_text("")
    _commit_by_hand(agent_dir, "tidy the streams\n\nChange-Id: I8f3a1c0d2b4e6f708192a3b4c5d6e7f801234567")

    losses = _losses(ws)

    assert len(losses) == 1 and f"{D}#{uuid_at(D, 1)}" in losses[0].detail


def test_a_stream_file_dreamdeck_committed_is_judged_by_its_stat_in_gits_index_not_read(ws, agent_dir):
    import os

    from dreamdeck.core.git.blobs import tree_blob_ids
    from dreamdeck.core.git.index_stat import index_entries

    path = _dreamed(ws, agent_dir)
    rel = f"memory/streams/{D}.jsonl"

    entries, index_mtime = index_entries(agent_dir, "memory/streams/")

    assert entries[rel].holds(os.stat(path), index_mtime)  # unchanged since staged: the blob is known
    assert entries[rel].blob == tree_blob_ids(agent_dir, "HEAD", "memory/streams/")[rel]
    path.write_text(path.read_text() + fragment_line(D, 9, "pm", "appended") + "\n")
    assert not entries[rel].holds(os.stat(path), index_mtime)  # written since: read and hashed
