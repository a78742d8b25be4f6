"""Forget (Moltbot §8.3) with tombstones that hold: never re-dreamed, re-ingested or replayed."""
from __future__ import annotations

import json

import pytest

from dreamdeck.core.door.apply import apply_changeset
from dreamdeck.core.door.changeset import ChangeSet, Commit, FileEdit, Writes
from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.errors import Refused
from dreamdeck.core.formats.shards import strip_citations
from dreamdeck.core.index.undreamed import collect_undreamed
from dreamdeck.core.ops.forget import (
    forget_fragment,
    forget_topic,
    list_tombstones,
    unforget,
    unforget_topic,
    visible,
)
from dreamdeck.core.ops.rollback import preview_rollback, rollback
from dreamdeck.core.ops.vault import pin_fragment, pin_topic
from dreamdeck.core.store.state import load_state
from dreamdeck.core.store.streams import AppendRefused, append_fragment, read_stream_lines
from tests.support.dreamers import finish_accounting
from tests.support.memory import fragment_line, the_next_day, uuid_at, write_stream

D = "2026-05-22"


class Scripted:
    name = "scripted"

    def __init__(self, fn):
        self.fn = fn
        self.seen: set[str] = set()

    def dream(self, inp, scratch):
        self.seen |= {f.id for f in inp.fragments}
        self.fn(inp, scratch)
        finish_accounting(inp, scratch, "scripted dream")
        return scratch.outcome


def fid(n: int) -> str:
    return uuid_at(D, n)


def cite(n: int) -> str:
    return f"streams/{D}#{fid(n)}"


def shard(belief: str, cites: list[int], superseded: list[int] = ()) -> str:
    text = f"{belief}\n\nfragments:\n" + "".join(f"- {cite(n)}\n" for n in cites)
    if superseded:
        text += "\nsuperseded:\n" + "".join(f"- {cite(n)}\n" for n in superseded)
    return text


def body(n: int) -> str:
    return f"Fact number {n}."


def add(ws, *ns: int) -> None:
    write_stream(ws.root, D, [fragment_line(D, n, "facts", body(n)) for n in ns])


def dream(ws, writes: dict[str, str], review: str = "none") -> Scripted:
    def fn(inp, scratch):
        for slug, text in writes.items():
            scratch.write_shard(slug, text)

    dreamer = Scripted(fn)
    receipt = run_dream(ws, dreamer=dreamer, review=review)
    assert receipt.status != "failed", receipt.message
    dreamer.commit = receipt.commit
    return dreamer


def stream_text(ws) -> str:
    return (ws.memory / "streams" / f"{D}.jsonl").read_text()


def stream_ids(ws) -> set[str]:
    return {ln.event["id"] for ln in read_stream_lines(ws.memory / "streams" / f"{D}.jsonl") if ln.kind == "fragment"}


def undreamed(ws) -> set[str]:
    return {f.id for f in collect_undreamed(ws, load_state(ws.state_path)[0])}


def topic(ws, slug: str) -> str | None:
    path = ws.topics_dir / f"{slug}.md"
    return path.read_text() if path.exists() else None


def test_forget_topic_moves_it_to_archive_where_its_citations_still_protect_evidence(ws):
    add(ws, 1, 2)
    dream(ws, {"a": shard("Alpha.", [1]), "b": shard("Beta.", [2])})
    b_bytes = (ws.topics_dir / "b.md").read_bytes()
    with pytest.raises(Refused, match="reason"):
        forget_topic(ws, "b", reason=" ")

    forget_topic(ws, "b", reason="no longer true")

    assert topic(ws, "b") is None and (ws.archive_dir / "b.md").read_bytes() == b_bytes
    assert "| ARCHIVE | memory/topics/b.md |" in (ws.meta_dir / "audit.log").read_text()
    add(ws, 3)
    dream(ws, {"a": shard("Alpha.", [1, 3])})  # topics change, so day D is collected
    assert fid(2) in stream_ids(ws)

    unforget_topic(ws, "b")
    assert (ws.topics_dir / "b.md").read_bytes() == b_bytes and not (ws.archive_dir / "b.md").exists()


def test_forget_topic_refuses_a_pinned_topic(ws):
    add(ws, 1)
    dream(ws, {"a": shard("Alpha.", [1])})
    pin_topic(ws, "a")
    with pytest.raises(Refused, match="unpin"):
        forget_topic(ws, "a", reason="x")
    with pytest.raises(Refused, match="no topic"):
        forget_topic(ws, "zzz", reason="x")


def test_forget_topic_hard_deletes_it_and_with_fragments_tombstones_and_purges_them(ws):
    add(ws, 1, 2, 3)
    dream(ws, {"a": shard("Alpha.", [1]), "b": shard("Beta.", [2]), "c": shard("Gamma.", [3])})

    forget_topic(ws, "b", reason="wrong", hard=True)
    assert topic(ws, "b") is None and not (ws.archive_dir / "b.md").exists()
    assert fid(2) in stream_ids(ws) and visible(ws, D, fid(2))  # evidence follows TypeClaw's GC later

    result = forget_topic(the_next_day(ws), "c", reason="private", hard=True, fragments=True)
    assert result.tombstoned == [(D, fid(3))] and result.purged
    assert body(3) not in stream_text(ws) and not visible(ws, D, fid(3))


def test_forget_fragment_tombstones_it_removes_its_citations_and_it_never_returns(ws):
    add(ws, 1, 2)
    dream(ws, {"facts": shard("Facts hold.", [1, 2], superseded=[])})
    add(ws, 5)  # never dreamed

    result = forget_fragment(ws, D, fid(1), reason="user asked", actor="human:tui")
    forget_fragment(ws, D, fid(5), reason="noise")

    text = topic(ws, "facts")
    assert cite(1) not in text and cite(2) in text and "cites: 1" in text
    assert result.edited == ["topics/facts.md"]
    assert result.message == f"forgotten streams/{D}#{fid(1)}; citation removed from 1 shard"  # one shard: no "(s)"
    [record] = [json.loads(ln) for ln in (ws.meta_dir / "tombstones.jsonl").read_text().splitlines()][:1]
    assert (record["op"], record["id"], record["reason"], record["actor"], record["topic"]) == (
        "forget", fid(1), "user asked", "human:tui", "facts")
    assert record["hash"] and not record["hard"]
    assert [(t.date, t.id) for t in list_tombstones(ws)] == [(D, fid(1)), (D, fid(5))]
    assert not visible(ws, D, fid(1)) and visible(ws, D, fid(2))
    assert fid(1) in stream_ids(ws)  # soft: the bytes stay

    with pytest.raises(AppendRefused, match="forgotten"):
        append_fragment(ws, "facts", body(1))
    add(ws, 6)
    dreamer = dream(ws, {"facts": shard("Facts hold.", [2, 6])})
    assert dreamer.seen == {fid(6)}  # neither forgotten fragment is shown to a dream
    assert fid(1) in stream_ids(ws)  # and the GC that ran keeps the soft-forgotten bytes

    # An old proposal citing it again is refused at the door (invariant 9).
    current = topic(ws, "facts")
    with pytest.raises(Refused, match="forgotten"):
        apply_changeset(ws, ChangeSet(
            Commit("approve", "human:cli", "approved", "review", "stale proposal"),
            Writes([FileEdit("topics/facts.md", current, current + f"- {cite(1)}\n")]),
        ))


def test_forget_fragment_keeps_the_prose_of_a_shard_left_without_citations(ws):
    assert strip_citations(shard("Only.", [1], superseded=[2]), {(D, fid(2))}) == shard("Only.", [1])
    assert strip_citations(f"- {cite(1)}\n", {(D, fid(1))}) is None
    add(ws, 1, 2)
    dream(ws, {"a": shard("Alpha stands alone.", [1]), "b": shard("Beta.", [2])})

    result = forget_fragment(ws, D, fid(1), reason="wrong")

    assert result.orphaned == ["topics/a.md"] and result.warnings
    assert "Alpha stands alone." in topic(ws, "a") and "cites: 0" in topic(ws, "a")
    with pytest.raises(Refused, match="already forgotten"):
        forget_fragment(ws, D, fid(1), reason="again")


def test_forget_fragment_refuses_what_the_vault_cites(ws):
    add(ws, 1)
    pin_fragment(ws, D, fid(1))
    with pytest.raises(Refused, match="vault"):
        forget_fragment(ws, D, fid(1), reason="x")
    with pytest.raises(Refused, match="no fragment"):
        forget_fragment(ws, D, fid(9), reason="x")


def test_hard_forget_removes_the_bytes_from_the_stream_and_is_audited(ws):
    add(ws, 1, 2)
    dream(ws, {"a": shard("Alpha.", [1, 2])})
    forget_fragment(ws, D, fid(2), reason="secret-ish")  # soft first, then upgraded

    result = forget_fragment(the_next_day(ws), D, fid(2), reason="remove it for good", hard=True)

    assert result.purged and body(2) not in stream_text(ws) and fid(2) not in stream_text(ws)
    assert [t.hard for t in list_tombstones(ws)] == [True]
    log = (ws.meta_dir / "audit.log").read_text()
    assert f"| FORGET | memory/streams/{D}.jsonl | human:cli | approved | {D}#{fid(2)} hard-deleted" in log
    with pytest.raises(Refused, match="hard-deleted"):
        unforget(ws, D, fid(2))
    with pytest.raises(AppendRefused):
        append_fragment(ws, "facts", body(2))


def test_unforget_restores_visibility_and_releases_the_fragment_to_the_tail(ws):
    add(ws, 1, 2)
    dream(ws, {"a": shard("Alpha.", [1, 2])})
    forget_fragment(ws, D, fid(1), reason="oops")
    assert fid(1) not in undreamed(ws)

    unforget(ws, D, fid(1))

    assert visible(ws, D, fid(1)) and not list_tombstones(ws)
    assert fid(1) in undreamed(ws)  # the next dream reconsiders it
    assert cite(1) not in topic(ws, "a")  # the citation is the dream's to make again
    dreamer = dream(ws, {"a": shard("Alpha.", [1, 2])})
    assert fid(1) in dreamer.seen and cite(1) in topic(ws, "a")
    with pytest.raises(Refused, match="not forgotten"):
        unforget(ws, D, fid(1))


def test_a_rollback_that_would_restore_a_forgotten_fragment_does_not(ws):
    add(ws, 1, 3)
    first = dream(the_next_day(ws), {"a": shard("Alpha.", [1])}).commit  # 3 is collected by this dream's GC
    assert fid(3) not in stream_ids(ws)
    forget_fragment(ws, D, fid(3), reason="never again")  # found in the GC note, tombstoned by hash
    add(ws, 2)
    second = dream(ws, {"a": shard("Alpha.", [1, 2])}).commit
    forget_fragment(ws, D, fid(1), reason="wrong")

    plan = preview_rollback(ws, second)
    rollback(ws, second)  # REV^ cited 1: the restored text must not
    assert cite(1) not in topic(ws, "a")
    assert (D, fid(1)) in plan.filtered

    plan = preview_rollback(ws, first)
    assert (D, fid(3)) in plan.filtered and (D, fid(3)) not in plan.restored
    rollback(ws, first)  # would restore 3's line: it stays gone
    assert fid(3) not in stream_ids(ws) and fid(3) not in undreamed(ws)
    assert fid(1) not in undreamed(ws)
