"""Tombstones hold by identity (issue 10, item 2): a forgotten fragment's id and its content hash
are refused wherever they reappear — the identical line appended by an outside writer to
today's file, the same text under a new id, a stream file replayed from git history, after a
soft or a hard forget. Never shown (`stream`, the Stream screen's row source, stream search,
recall), never given to a dreamer, never citable (the door refuses the citation under any date).

Every forget here goes through the command line, as a person does it, on real files and git.
"""
from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

from dreamdeck.core.door.apply import apply_changeset
from dreamdeck.core.door.changeset import ChangeSet, Commit, FileEdit, Writes
from dreamdeck.core.errors import Refused
from dreamdeck.core.index.stream_search import parse_query, search_days
from dreamdeck.core.index.stream_view import StreamView
from dreamdeck.core.index.undreamed import collect_undreamed
from dreamdeck.core.io.cache import clear_all
from dreamdeck.core.store.state import load_state
from dreamdeck.core.workspace import Workspace
from tests.support.git import git
from tests.support.memory import (
    commit_all,
    fragment_line,
    shard_text,
    uuid_at,
    write_shard,
    write_stream,
)
from tests.support.processes import run_cli

TODAY = "2026-05-22"
OLD = "2026-05-20"
TOPIC, BODY = "infra", "The staging database moves to Frankfurt on Tuesday."
run = partial(run_cli, today=TODAY)


def seed(root: Path) -> tuple[str, str]:
    """Fragment 1 of OLD (cited by a topic, committed) and an unrelated fragment 2: (id, its line)."""
    line = fragment_line(OLD, 1, TOPIC, BODY)
    write_stream(root, OLD, [line, fragment_line(OLD, 2, "misc", "Lunch is at noon.")])
    write_shard(root, "infra", shard_text("Infra", [f"streams/{OLD}#{uuid_at(OLD, 1)}",
                                                    f"streams/{OLD}#{uuid_at(OLD, 2)}"]))
    commit_all(root)
    return uuid_at(OLD, 1), line


def append_today(root: Path, line: str) -> None:
    """An outside writer (TypeClaw's append tool, `echo >>`) appends a line to today's file."""
    write_stream(root, TODAY, [line])


def where_shown(root: Path, fid: str) -> list[str]:
    """Every view that shows the fragment (by its id or its text); [] when it is hidden everywhere."""
    clear_all()  # a fresh process: no projection hides or shows anything
    ws = Workspace.open(root, today=TODAY)
    places = []
    if fid in run(root, "stream").stdout or BODY in run(root, "stream").stdout:
        places.append("stream (today)")
    every = run(root, "stream", "--all", "--json").stdout
    if fid in every or BODY in every:
        places.append("stream --all")
    view = StreamView(ws, min_rows=10_000)
    if any(fid == view.row(i)["id"] or BODY in view.row(i)["body"] for i in range(len(view))):
        places.append("Stream screen rows")
    if any(day.rows for day in search_days(ws, parse_query("Frankfurt"))):
        places.append("stream search")
    if BODY in run(root, "recall", "staging database Frankfurt").stdout:
        places.append("recall")
    undreamed = collect_undreamed(ws, load_state(ws.state_path)[0])
    if any(f.id == fid or f.body == BODY for f in undreamed):
        places.append("undreamed (a dreamer's input)")
    return places


def door_cites(root: Path, citation: str) -> None:
    """A change that adds a citation, through the door (as a dream's or a proposal's would)."""
    ws = Workspace.open(root, today=TODAY)
    text = shard_text("Smuggled", [citation])
    apply_changeset(ws, ChangeSet(Commit("edit", "test", "approved", "edit", "cite it"),
                                  Writes([FileEdit("topics/smuggled.md", None, text)])))


@pytest.mark.parametrize("hard", [False, True], ids=["soft", "hard"])
def test_an_outside_writer_appending_the_forgotten_line_to_today_brings_nothing_back(agent_dir, hard):
    fid, line = seed(agent_dir)
    run(agent_dir, "forget", f"{OLD}#{fid}", "--reason", "wrong", *(["--hard"] if hard else []))
    append_today(agent_dir, line)

    assert where_shown(agent_dir, fid) == []
    with pytest.raises(Refused, match="forgotten"):
        door_cites(agent_dir, f"streams/{TODAY}#{fid}")
    assert not (agent_dir / "memory" / "topics" / "smuggled.md").exists()


@pytest.mark.parametrize("hard", [False, True], ids=["soft", "hard"])
def test_the_same_text_under_a_new_id_is_never_shown_dreamed_or_cited(agent_dir, hard):
    fid, _line = seed(agent_dir)
    run(agent_dir, "forget", f"{OLD}#{fid}", "--reason", "wrong", *(["--hard"] if hard else []))
    append_today(agent_dir, fragment_line(TODAY, 7, TOPIC, BODY + "  \n"))  # trailing blanks: same hash
    new_id = uuid_at(TODAY, 7)

    assert where_shown(agent_dir, new_id) == []
    with pytest.raises(Refused, match="forgotten"):
        door_cites(agent_dir, f"streams/{TODAY}#{new_id}")


def test_a_dream_after_the_reappearance_is_not_shown_it_and_cites_nothing_of_it(agent_dir):
    fid, line = seed(agent_dir)
    run(agent_dir, "forget", f"{OLD}#{fid}", "--reason", "wrong", "--hard")
    append_today(agent_dir, line)
    append_today(agent_dir, fragment_line(TODAY, 7, TOPIC, BODY))
    append_today(agent_dir, fragment_line(TODAY, 8, "misc", "Coffee machine is fixed."))

    run(agent_dir, "dream", "--dreamer", "offline", "--review", "none")

    shards = "".join(p.read_text() for p in (agent_dir / "memory" / "topics").glob("*.md"))
    assert fid not in shards and uuid_at(TODAY, 7) not in shards and BODY not in shards
    assert uuid_at(TODAY, 8) in shards  # the dream did run, on what was not forgotten


def test_a_stream_file_replayed_from_git_history_stays_forgotten(agent_dir):
    fid, _line = seed(agent_dir)
    before = git(agent_dir, "rev-parse", "HEAD").strip()
    run(agent_dir, "forget", f"{OLD}#{fid}", "--reason", "wrong", "--hard")
    # Someone restores the old file from history, and a copy of it under today's name.
    old_bytes = git(agent_dir, "show", f"{before}:memory/streams/{OLD}.jsonl").encode()
    (agent_dir / "memory" / "streams" / f"{OLD}.jsonl").write_bytes(old_bytes)
    (agent_dir / "memory" / "streams" / f"{TODAY}.jsonl").write_bytes(old_bytes)

    assert where_shown(agent_dir, fid) == []
    with pytest.raises(Refused, match="forgotten"):
        door_cites(agent_dir, f"streams/{OLD}#{fid}")


def test_the_stream_view_hides_a_reappearance_while_it_is_open(agent_dir):
    fid, line = seed(agent_dir)
    ws = Workspace.open(agent_dir, today=TODAY)
    view = StreamView(ws)
    run(agent_dir, "forget", f"{OLD}#{fid}", "--reason", "wrong")
    append_today(agent_dir, line)
    append_today(agent_dir, fragment_line(TODAY, 7, TOPIC, BODY))
    view.refresh()
    ids = [view.row(i)["id"] for i in range(len(view))]
    assert ids == [uuid_at(OLD, 2)]


def test_unforget_lifts_the_identity_too(agent_dir):
    fid, line = seed(agent_dir)
    run(agent_dir, "forget", f"{OLD}#{fid}", "--reason", "wrong")
    run(agent_dir, "unforget", f"{OLD}#{fid}")
    append_today(agent_dir, line)
    assert fid in run(agent_dir, "stream").stdout


@pytest.mark.parametrize("topic", ["  infra  ", "infra\n"], ids=["padded", "trailing-newline"])
def test_the_same_content_written_differently_is_still_recognised(agent_dir, topic):
    """TypeClaw's content hash normalizes whitespace; the view's topic prefilter must not miss it."""
    fid, _line = seed(agent_dir)
    run(agent_dir, "forget", f"{OLD}#{fid}", "--reason", "wrong", "--hard")
    append_today(agent_dir, fragment_line(TODAY, 9, topic, "  " + BODY))
    assert where_shown(agent_dir, uuid_at(TODAY, 9)) == []


def test_non_ascii_content_escaped_by_another_writer_is_still_recognised(agent_dir):
    ws = Workspace.open(agent_dir, today=TODAY)
    write_stream(agent_dir, OLD, [fragment_line(OLD, 1, "café", "Meet at the café près de la gare.")])
    commit_all(agent_dir)
    run(agent_dir, "forget", f"{OLD}#{uuid_at(OLD, 1)}", "--reason", "x", "--hard")
    escaped = fragment_line(TODAY, 5, "café", "Meet at the café près de la gare.").encode("ascii", "backslashreplace")
    raw = escaped.decode().replace("\\xe9", "\\u00e9").replace("\\xe8", "\\u00e8")
    append_today(agent_dir, raw)
    clear_all()
    view = StreamView(ws, min_rows=10_000)
    assert [view.row(i)["id"] for i in range(len(view))] == []
