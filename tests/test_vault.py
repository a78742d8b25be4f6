"""The vault: pinned shards only a human changes, whose citations protect their evidence."""
from __future__ import annotations

import pytest

from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.errors import Refused
from dreamdeck.core.git.runner import run_git
from dreamdeck.core.ops.reflections import approve
from dreamdeck.core.ops.rollback import rollback
from dreamdeck.core.ops.vault import list_vault, pin_fragment, pin_topic, pinned_slugs, unpin
from dreamdeck.core.store.streams import read_stream_lines
from tests.support.dreamers import finish_accounting
from tests.support.memory import fragment_line, the_next_day, uuid_at, write_stream

D = "2026-05-22"


class Scripted:
    name = "scripted"

    def __init__(self, fn):
        self.fn = fn

    def dream(self, inp, scratch):
        self.fn(inp, scratch)
        finish_accounting(inp, scratch, "scripted dream")
        return scratch.outcome


def cite(n: int) -> str:
    return f"streams/{D}#{uuid_at(D, n)}"


def shard(belief: str, cites: list[int]) -> str:
    return f"{belief}\n\nfragments:\n" + "".join(f"- {cite(n)}\n" for n in cites)


def add(ws, *ns: int) -> None:
    write_stream(ws.root, D, [fragment_line(D, n, f"topic {n}", f"Fact number {n} holds. More detail.") for n in ns])


def dream(ws, writes: dict[str, str], review: str = "none"):
    def fn(inp, scratch):
        for slug, text in writes.items():
            scratch.write_shard(slug, text)

    return run_dream(ws, dreamer=Scripted(fn), review=review)


def stream_ids(ws) -> set[str]:
    return {ln.event["id"] for ln in read_stream_lines(ws.memory / "streams" / f"{D}.jsonl") if ln.kind == "fragment"}


def test_pin_copies_the_topic_bytes_and_a_dream_touching_it_is_held_for_review(ws):
    add(ws, 1)
    dream(ws, {"pnpm": shard("Uses pnpm.", [1])})
    topic_bytes = (ws.topics_dir / "pnpm.md").read_bytes()

    result = pin_topic(ws, "pnpm")

    assert (ws.vault_dir / "pnpm.md").read_bytes() == topic_bytes
    assert (ws.topics_dir / "pnpm.md").read_bytes() == topic_bytes  # TypeClaw still sees it
    assert pinned_slugs(ws) == {"pnpm"}
    assert run_git(ws.root, "log", "-1", "--format=%s") == "memory: pin pnpm"
    assert "| PIN | memory/vault/pnpm.md | human:cli | approved |" in (ws.meta_dir / "audit.log").read_text()
    assert result.sha and pin_topic(ws, "pnpm").noop

    add(ws, 2)  # a purely mechanical change (one more citation) is still held: the topic is pinned
    receipt = dream(ws, {"pnpm": shard("Uses pnpm.", [1, 2])}, review="judgement")

    assert receipt.pending == ["topics/pnpm.md"] and not receipt.auto_applied
    assert (ws.topics_dir / "pnpm.md").read_bytes() == topic_bytes
    assert (ws.vault_dir / "pnpm.md").read_bytes() == topic_bytes
    [entry] = list_vault(ws)
    assert (entry.slug, entry.cites, entry.topic, entry.kind) == ("pnpm", 1, "same", "topic")
    assert entry.pinned_at

    approve(ws, receipt.reflection)  # the human takes the dream: the topic moves on, the vault does not
    assert (ws.vault_dir / "pnpm.md").read_bytes() == topic_bytes
    assert list_vault(ws)[0].topic_differs
    with pytest.raises(Refused, match="already pinned"):
        pin_topic(ws, "pnpm")
    pin_topic(ws, "pnpm", refresh=True)
    assert (ws.vault_dir / "pnpm.md").read_bytes() == (ws.topics_dir / "pnpm.md").read_bytes()


def test_pin_refuses_an_unknown_topic_or_fragment(ws):
    with pytest.raises(Refused, match="no topic"):
        pin_topic(ws, "nope")
    with pytest.raises(Refused, match="not a valid|must match|path"):
        pin_topic(ws, "../x")
    with pytest.raises(Refused, match="no fragment"):
        pin_fragment(ws, D, uuid_at(D, 9))
    with pytest.raises(Refused, match="not pinned"):
        unpin(ws, "nope")


def test_vault_citations_protect_fragments_from_gc(ws):
    add(ws, 1, 2, 3)
    pinned = pin_fragment(ws, D, uuid_at(D, 2))
    text = (ws.vault_dir / f"{pinned.slug}.md").read_text()
    assert pinned.slug == f"pin-{D}-{uuid_at(D, 2)[:8]}"
    assert "Fact number 2 holds.\n\nfragments:\n- " + cite(2) in text and "heading: Fact number 2 holds." in text

    dream(the_next_day(ws), {"a": shard("Alpha.", [1])})  # 2 and 3 are dreamed and uncited in topics (D over and quiet)

    assert uuid_at(D, 2) in stream_ids(ws)  # the vault cites it
    assert uuid_at(D, 3) not in stream_ids(ws)  # collected
    [entry] = list_vault(ws)
    assert entry.kind == "fragment" and entry.citations == [f"{D}#{uuid_at(D, 2)}"]


def test_unpin_removes_the_vault_copy_when_its_citations_live_on_in_the_topic(ws):
    add(ws, 1)
    dream(ws, {"pnpm": shard("Uses pnpm.", [1])})
    pin_topic(ws, "pnpm")

    result = unpin(ws, "pnpm")

    assert result.moved_to is None and not (ws.vault_dir / "pnpm.md").exists()
    assert (ws.topics_dir / "pnpm.md").exists() and pinned_slugs(ws) == frozenset()
    assert "| UNPIN | memory/vault/pnpm.md |" in (ws.meta_dir / "audit.log").read_text()


def test_unpin_of_a_pinned_fragment_moves_it_to_topics_so_its_citation_survives(ws):
    add(ws, 1, 2)
    slug = pin_fragment(ws, D, uuid_at(D, 2)).slug
    vault_text = (ws.vault_dir / f"{slug}.md").read_text()

    result = unpin(ws, slug)

    assert result.moved_to == f"topics/{slug}.md"
    assert (ws.topics_dir / f"{slug}.md").read_text() == vault_text
    dream(ws, {"a": shard("Alpha.", [1])})
    assert uuid_at(D, 2) in stream_ids(ws)


def test_unpin_moves_the_vault_copy_to_archive_when_the_topic_no_longer_holds_its_citations(ws):
    add(ws, 1)
    dream(ws, {"pnpm": shard("Uses pnpm.", [1])})
    add(ws, 2)
    rev = dream(ws, {"pnpm": shard("Uses pnpm.", [1, 2])}).commit
    pin_topic(ws, "pnpm")
    rollback(ws, rev)  # the topic loses citation 2; the vault still holds it
    assert cite(2) not in (ws.topics_dir / "pnpm.md").read_text()

    result = unpin(ws, "pnpm")

    assert result.moved_to == "archive/pnpm.md"
    assert cite(2) in (ws.archive_dir / "pnpm.md").read_text()
