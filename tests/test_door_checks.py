"""The citation-superset check both the door and the dream run use (`door.checks.lost_citations`)."""
from __future__ import annotations

from dreamdeck.core.door.checks import lost_citations
from tests.support.memory import shard_text, uuid_at

D = "2026-05-20"


def cite(n: int) -> str:
    return f"streams/{D}#{uuid_at(D, n)}"


def key(n: int) -> tuple[str, str]:
    return (D, uuid_at(D, n))


A = shard_text("Belief a", [cite(1), cite(2)])


def test_a_citation_the_changed_files_drop_is_lost_unless_another_text_still_holds_it():
    changes = [(A, shard_text("Belief a", [cite(1)])), (None, shard_text("Belief b", [cite(3)]))]
    assert lost_citations(changes, []) == [key(2)]
    assert lost_citations(changes, [shard_text("Belief v", [cite(2)])]) == []


def test_a_citation_that_moves_between_changed_files_is_not_lost():
    changes = [(A, None), (None, shard_text("Belief b", [cite(1), cite(2)]))]
    assert lost_citations(changes, []) == []


def test_an_explicit_forget_is_not_a_loss():
    assert lost_citations([(A, None)], [], allow_drop={key(1)}) == [key(2)]
    assert lost_citations([(A, None)], [], allow_drop={key(1), key(2)}) == []


def test_untouched_texts_are_read_only_while_a_citation_is_missing():
    read: list[str] = []

    def untouched():
        for name, text in (("x", shard_text("Belief x", [cite(2)])), ("y", "never needed"), ("z", "")):
            read.append(name)
            yield text

    assert lost_citations([(A, shard_text("Belief a", [cite(1)]))], untouched()) == []
    assert read == ["x"]  # the loss was covered by the first text: the others were never read

    read.clear()
    assert lost_citations([(A, A)], untouched()) == []
    assert read == []  # nothing was missing: nothing was read
