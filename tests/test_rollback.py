"""Rollback (Moltbot §12.8): forward commits that undo a memory commit, losing no evidence."""
from __future__ import annotations

import json

import pytest

from dreamdeck.core.door.journal import JOURNAL
from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.errors import Refused
from dreamdeck.core.git.blobs import read_blobs
from dreamdeck.core.git.notes import NOTES_REF
from dreamdeck.core.git.runner import run_git
from dreamdeck.core.index.undreamed import collect_undreamed
from dreamdeck.core.ops.rollback import preview_restore_to, preview_rollback, restore_to, rollback
from dreamdeck.core.store.state import load_state
from dreamdeck.core.store.streams import read_stream_lines
from tests.support.dreamers import finish_accounting
from tests.support.memory import fragment_line, the_next_day, uuid_at, write_stream

D = "2026-05-22"


class Scripted:
    """A dreamer that runs `fn(inp, scratch)` and finishes."""

    name = "scripted"

    def __init__(self, fn):
        self.fn = fn
        self.seen: list[tuple[str, str]] = []

    def dream(self, inp, scratch):
        self.seen += [(f.date, f.id) for f in inp.fragments]
        self.fn(inp, scratch)
        finish_accounting(inp, scratch, "scripted dream")
        return scratch.outcome


def cite(n: int, day: str = D) -> str:
    return f"streams/{day}#{uuid_at(day, n)}"


def shard(belief: str, cites: list[int]) -> str:
    return f"{belief}\n\nfragments:\n" + "".join(f"- {cite(n)}\n" for n in cites)


def add(ws, *ns: int) -> None:
    write_stream(ws.root, D, [fragment_line(D, n, f"topic {n}", f"Fact number {n}.") for n in ns])


def dream(ws, writes: dict[str, str | None], review: str = "none"):
    def fn(inp, scratch):
        for slug, text in writes.items():
            if text is None:
                scratch.delete_shard(slug)
            else:
                scratch.write_shard(slug, text)

    receipt = run_dream(ws, dreamer=Scripted(fn), review=review)
    assert receipt.commit, receipt.message
    return receipt.commit


def topic(ws, slug: str) -> str | None:
    path = ws.topics_dir / f"{slug}.md"
    return path.read_text() if path.exists() else None


def stream_ids(ws) -> set[str]:
    return {ln.event["id"] for ln in read_stream_lines(ws.memory / "streams" / f"{D}.jsonl") if ln.kind == "fragment"}


def dreamed(ws) -> set[str]:
    return load_state(ws.state_path)[0].dreamed_ids(D)


def undreamed(ws) -> set[str]:
    return {f.id for f in collect_undreamed(ws, load_state(ws.state_path)[0])}


def test_rollback_of_latest_dream_restores_shards_byte_identically_and_gc_dropped_fragments(ws):
    add(ws, 1)
    dream(ws, {"b": shard("Beta holds.", [1])})
    add(ws, 2)
    dream(ws, {})  # 2 is dreamed, nothing changes, no GC: it is committed dreamed and uncited
    add(ws, 3, 4)
    rev = dream(the_next_day(ws), {"b": shard("Beta holds firmly.", [1, 3]), "c": shard("Gamma.", [3])})
    ids = stream_ids(ws)
    assert uuid_at(D, 2) not in ids and uuid_at(D, 4) not in ids  # REV's GC: 2 was in git, 4 never was
    before = read_blobs(ws.root, f"{rev}^", ["memory/topics/b.md"])["memory/topics/b.md"]

    plan = preview_rollback(ws, rev)
    assert {f.path: f.action for f in plan.files} == {"topics/b.md": "restore", "topics/c.md": "delete"}
    assert set(plan.restored) == {(D, uuid_at(D, 2)), (D, uuid_at(D, 4))}

    result = rollback(ws, rev)

    assert (ws.topics_dir / "b.md").read_bytes() == before
    assert topic(ws, "c") is None
    assert {uuid_at(D, 2), uuid_at(D, 4)} <= stream_ids(ws)
    # Fragment 3 lost its citations and 2 and 4 came back uncited: all on the undreamed tail.
    assert {uuid_at(D, n) for n in (2, 3, 4)} <= undreamed(ws)
    assert uuid_at(D, 1) in dreamed(ws)
    message = run_git(ws.root, "log", "-1", "--format=%B")
    short = run_git(ws.root, "rev-parse", "--short", rev).strip()
    assert message.startswith(f"memory: rollback {short} (dream: ")
    assert "Approval: approved" in message and "Trigger: rollback" in message
    assert run_git(ws.root, "rev-parse", "HEAD").strip() == result.sha
    assert "| REVERT | memory/topics/b.md |" in (ws.meta_dir / "audit.log").read_text()


def test_rollback_of_a_dream_followed_by_two_more_keeps_their_non_overlapping_changes(ws):
    add(ws, 1, 10)
    dream(ws, {"a": shard("Alpha.", [1]), "c": shard("Gamma.", [10])})
    add(ws, 2)
    rev = dream(ws, {"a": shard("Alpha.", [1, 2])})
    add(ws, 11)
    later = dream(ws, {"a": shard("Alpha, confirmed.", [1, 2]), "c": shard("Gamma.", [10, 11])})
    add(ws, 12)
    dream(ws, {"c": shard("Gamma.", [10, 11, 12])})
    c_before = topic(ws, "c")

    plan = preview_rollback(ws, rev)
    assert [(f.path, f.action, f.overlap) for f in plan.files] == [("topics/a.md", "merge", False)]
    assert [c.sha for c in plan.later_commits] == [later]  # the third dream never touched a
    assert plan.released == [(D, uuid_at(D, 2))]

    rollback(ws, rev)

    a = topic(ws, "a")
    assert "Alpha, confirmed." in a and cite(1) in a and cite(2) not in a
    assert topic(ws, "c") == c_before
    assert uuid_at(D, 2) in undreamed(ws)


def test_strict_refuses_on_overlap_and_default_takes_the_pre_commit_side(ws):
    add(ws, 1)
    dream(ws, {"a": shard("Alpha.", [1])})
    add(ws, 2)
    rev = dream(ws, {"a": shard("Alpha.", [1, 2])})
    add(ws, 3)
    later = dream(ws, {"a": shard("Alpha.", [1, 2, 3])})
    head = run_git(ws.root, "rev-parse", "HEAD").strip()

    with pytest.raises(Refused) as exc:
        rollback(ws, rev, strict=True)
    assert exc.value.conflicts == ["topics/a.md"]
    assert run_git(ws.root, "rev-parse", "HEAD").strip() == head

    plan = preview_rollback(ws, rev)
    assert plan.overlaps == ["topics/a.md"]
    assert plan.later_commits[0].sha == later
    assert plan.later_commits[0].lost == [f"topics/a.md: - {cite(3)}"]
    assert set(plan.released) == {(D, uuid_at(D, 2)), (D, uuid_at(D, 3))}

    rollback(ws, rev)
    a = topic(ws, "a")
    assert cite(1) in a and cite(2) not in a and cite(3) not in a
    assert {uuid_at(D, 2), uuid_at(D, 3)} <= undreamed(ws) & stream_ids(ws)


def test_no_redream_keeps_uncited_fragments_dreamed(ws):
    add(ws, 1)
    dream(ws, {"a": shard("Alpha.", [1])})
    add(ws, 2)
    rev = dream(ws, {"a": shard("Alpha.", [1, 2])})
    rollback(ws, rev, no_redream=True)
    assert uuid_at(D, 2) in dreamed(ws) and cite(2) not in topic(ws, "a")


def test_rollback_of_a_rollback_returns_to_the_state_after_the_original_dream(ws):
    add(ws, 1)
    dream(ws, {"a": shard("Alpha.", [1])})
    add(ws, 2, 3)
    rev = dream(ws, {"a": shard("Alpha.", [1, 2]), "b": shard("Beta.", [3])})
    after = {s: topic(ws, s) for s in ("a", "b")}
    first = rollback(ws, rev)
    assert topic(ws, "b") is None and {uuid_at(D, 2), uuid_at(D, 3)} <= undreamed(ws)

    rollback(ws, first.sha)

    assert {s: topic(ws, s) for s in ("a", "b")} == after
    assert {uuid_at(D, n) for n in (1, 2, 3)} <= dreamed(ws)
    assert not undreamed(ws)


def test_rollback_refuses_a_commit_that_does_not_touch_memory(ws):
    add(ws, 1)
    dream(ws, {"a": shard("Alpha.", [1])})
    init = run_git(ws.root, "rev-list", "--max-parents=0", "HEAD").strip()
    with pytest.raises(Refused, match="does not touch memory"):
        rollback(ws, init)
    with pytest.raises(Refused, match="unknown revision"):
        rollback(ws, "no-such-rev")


def test_rollback_of_a_pin_unpins_and_names_the_pin(ws):
    from dreamdeck.core.ops.vault import pin_topic

    add(ws, 1)
    dream(ws, {"a": shard("Alpha.", [1])})
    pin = pin_topic(ws, "a")
    plan = preview_rollback(ws, pin.sha)
    assert plan.pins_affected == ["vault/a.md"]
    rollback(ws, pin.sha)
    assert not (ws.vault_dir / "a.md").exists() and topic(ws, "a")


def test_restore_to_a_date_brings_back_memory_as_of_that_day(ws, monkeypatch):
    def on(day: str) -> None:
        monkeypatch.setenv("GIT_COMMITTER_DATE", f"{day}T12:00:00+00:00")
        monkeypatch.setenv("GIT_AUTHOR_DATE", f"{day}T12:00:00+00:00")

    on("2026-05-20")
    add(ws, 1)
    dream(ws, {"a": shard("Alpha.", [1])})
    first_a = topic(ws, "a")
    on("2026-05-21")
    add(ws, 2, 3)
    dream(ws, {"a": shard("Alpha, twice.", [1, 2]), "b": shard("Beta.", [3])})
    on("2026-05-22")
    add(ws, 4)
    dream(ws, {"c": shard("Gamma.", [4])})

    with pytest.raises(Refused, match="no memory commit on or before 2026-05-19"):
        restore_to(ws, "2026-05-19")
    plan = preview_restore_to(ws, "2026-05-20")
    assert {f.path: f.action for f in plan.files} == {
        "topics/a.md": "restore", "topics/b.md": "delete", "topics/c.md": "delete",
    }

    restore_to(ws, "2026-05-20")

    assert topic(ws, "a") == first_a and topic(ws, "b") is None and topic(ws, "c") is None
    assert {uuid_at(D, n) for n in (2, 3, 4)} <= undreamed(ws) & stream_ids(ws)
    assert run_git(ws.root, "log", "-1", "--format=%s").startswith("memory: restore to ")


def test_a_gc_note_naming_a_day_that_is_not_a_date_never_blocks_a_rollback(ws):
    """A GC note is data anyone with the repository can write. One entry dated `../../x` made the
    rollback write its shards, then fail appending the line, leaving a journal every later change
    (and `doctor --fix`) replayed and failed on: memory stuck. The entry is skipped, nothing is
    written outside `streams/`, and the rollback finishes."""
    add(ws, 1)
    rev = dream(ws, {"b": shard("Beta holds.", [1])})
    line = fragment_line(D, 9, "planted", "Planted line.")
    note = "".join(f"{entry}\n" for entry in (
        f'{{"date":"../../../outside","line":{json.dumps(line)}}}',
        f'{{"date":2026,"line":{json.dumps(line)}}}',
        f'{{"date":"{D}","line":{{"not":"text"}}}}',
    ))
    run_git(ws.root, "-c", "user.name=x", "-c", "user.email=x@x", "notes", "--ref", NOTES_REF, "add", "-f", "-F", "-", rev,
            stdin=note)

    rollback(ws, rev)

    assert not (ws.memory / JOURNAL).exists()
    assert not (ws.root.parent / "outside.jsonl").exists()
    assert topic(ws, "b") is None


def test_the_door_refuses_a_stream_day_that_is_not_a_date_before_writing_anything(ws):
    from dreamdeck.core.door.apply import apply_changeset
    from dreamdeck.core.door.changeset import ChangeSet, Commit, Evidence, FileEdit, Writes

    cs = ChangeSet(Commit("edit", "test", "approved", "edit", "x"),
                   Writes([FileEdit("topics/x.md", None, shard("X.", []))]),
                   Evidence(restore_lines={"../../outside": [fragment_line(D, 9, "t", "b")]}))
    with pytest.raises(Refused, match="not a date"):
        apply_changeset(ws, cs)
    assert topic(ws, "x") is None and not (ws.memory / JOURNAL).exists()
