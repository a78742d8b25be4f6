"""The search index: a projection outside memory/, rebuilt when lost, refreshed by file stamps,
holding active beliefs, the vault, references and the undreamed tail — and nothing else."""
from __future__ import annotations

import os

import pytest

from dreamdeck.core.formats.events import fragment_content_hash
from dreamdeck.core.index.search import SearchIndex, close_all, index_path, open_index
from dreamdeck.core.store.state import DreamingState, save_state
from dreamdeck.core.store.tombstones import Tombstone, record
from tests.support.memory import fragment_line, shard_text, uuid_at, write_shard, write_stream

TODAY = "2026-05-22"


def cite(day: str, n: int) -> str:
    return f"streams/{day}#{uuid_at(day, n)}"


def keys(index: SearchIndex, query: str) -> list[tuple[str, str]]:
    return [(h.kind, h.key) for h in index.search(query)]


@pytest.fixture
def index(ws):
    close_all()
    yield open_index(ws)
    close_all()


def test_the_index_lives_in_the_private_folder_and_writes_nothing_in_memory(ws, index):
    write_shard(ws.root, "deploys", shard_text("Deploys happen on Fridays", []))
    before = sorted(p.relative_to(ws.root) for p in ws.memory.rglob("*"))
    assert keys(index, "deploy") == [("topic", "deploys")]
    assert index_path(ws).parent == ws.lock_dir and index_path(ws).is_file()
    assert sorted(p.relative_to(ws.root) for p in ws.memory.rglob("*")) == before


def test_a_deleted_index_is_rebuilt_even_under_an_open_process(ws, index):
    write_shard(ws.root, "deploys", shard_text("Deploys happen on Fridays", []))
    assert keys(index, "fridays") == [("topic", "deploys")]
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(f"{index_path(ws)}{suffix}"):
            os.unlink(f"{index_path(ws)}{suffix}")
    write_shard(ws.root, "tabs", shard_text("The user prefers tabs", []))
    assert sorted(keys(index, "fridays tabs")) == [("topic", "deploys"), ("topic", "tabs")]
    assert index_path(ws).is_file()


def test_a_corrupt_index_is_thrown_away_and_rebuilt(ws):
    close_all()
    write_shard(ws.root, "deploys", shard_text("Deploys happen on Fridays", []))
    index_path(ws).write_bytes(b"this is not a database" * 100)
    assert keys(open_index(ws), "fridays") == [("topic", "deploys")]
    close_all()


def test_only_files_whose_stamp_changed_are_read_again(ws, index, settled_clock):
    words = ["apples", "pears", "plums", "figs", "limes"]
    for n, word in enumerate(words):
        write_shard(ws.root, f"belief-{n}", shard_text(f"Belief about {word}", []))
    assert index.refresh().files_read == 5
    assert index.refresh().files_read == 0
    write_shard(ws.root, "belief-2", shard_text("Belief number two rewritten about kayaks", []))
    (ws.topics_dir / "belief-4.md").unlink()
    report = index.refresh()
    assert (report.files_read, report.files_removed) == (1, 1)
    assert keys(index, "kayaks") == [("topic", "belief-2")]
    assert keys(index, "plums") == [] and keys(index, "limes") == [] and keys(index, "figs") == [("topic", "belief-3")]


def test_an_edit_in_place_is_seen(ws, index, settled_clock):
    path = write_shard(ws.root, "editor", shard_text("The user edits with vim", []))
    assert keys(index, "vim") == [("topic", "editor")]
    ino = path.stat().st_ino
    with open(path, "r+", encoding="utf-8") as fh:  # same inode, as TypeClaw's write tool and most editors do
        text = fh.read().replace("vim", "hlx")
        fh.seek(0)
        fh.write(text)
    assert path.stat().st_ino == ino
    assert keys(index, "vim") == [] and keys(index, "hlx") == [("topic", "editor")]


def test_another_process_refreshing_the_index_is_taken_into_account(ws, settled_clock):
    close_all()
    write_shard(ws.root, "a", shard_text("Alpha belief", []))
    one, two = SearchIndex(ws), SearchIndex(ws)  # two connections, as two processes
    assert keys(one, "alpha") == [("topic", "a")]
    write_shard(ws.root, "a", shard_text("Alpha belief about gliders", []))
    assert keys(two, "gliders") == [("topic", "a")]
    write_shard(ws.root, "a", shard_text("Alpha belief about yachts", []))
    assert keys(one, "gliders") == [] and keys(one, "yachts") == [("topic", "a")]
    one.close()
    two.close()


def test_chinese_and_korean_two_character_words_are_found(ws, index):
    write_shard(ws.root, "city", shard_text("用户住在北京和上海", []))
    write_shard(ws.root, "lang", shard_text("사용자는 한국어로 답변을 원한다", []))
    assert keys(index, "北京") == [("topic", "city")]
    assert keys(index, "언어") == [] and keys(index, "한국어") == [("topic", "lang")]
    assert keys(index, "답변") == [("topic", "lang")] and keys(index, "上") == [("topic", "city")]


def test_english_words_are_found_by_their_stem(ws, index):
    write_shard(ws.root, "deploys", shard_text("Deploys happen on Fridays after the standup", []))
    assert keys(index, "deploying on friday") == [("topic", "deploys")]


def test_what_the_index_holds(ws, index):
    root = ws.root
    write_stream(root, "2026-05-20", [fragment_line("2026-05-20", 1, "boats", "Dreamed fragment about gliders")])
    write_stream(root, TODAY, [fragment_line(TODAY, 1, "boats", "Undreamed fragment about canoes"),
                               fragment_line(TODAY, 2, "boats", "Undreamed fragment about rafts")])
    save_state(ws.state_path, DreamingState().add_dreamed("2026-05-20", {uuid_at("2026-05-20", 1)}, "x"))
    write_shard(root, "active", shard_text("Active belief about yachts", [cite("2026-05-20", 1)]))
    write_shard(root, "pinned", shard_text("Pinned belief about kayaks", []), folder="vault")
    write_shard(root, "old", shard_text("Archived belief about ferries", []), folder="archive")
    (root / "memory" / "references").mkdir()
    ref = ("---\ntitle: {t}\norigin: curated\ncreated: 2026-05-01T00:00:00.000Z\npinned: false\ndemoted: {d}\n"
           "tags: []\n---\n{b}\n")
    (root / "memory/references/runbook.md").write_text(ref.format(t="Oncall runbook", d="false", b="Page the secondary about dinghies."))
    (root / "memory/references/stale.md").write_text(ref.format(t="Stale runbook", d="true", b="Old advice about dinghies."))
    assert keys(index, "yachts") == [("topic", "active")]
    assert keys(index, "kayaks") == [("vault", "pinned")]
    assert keys(index, "dinghies") == [("reference", "runbook")]
    assert keys(index, "canoes") == [("stream", f"{TODAY}#{uuid_at(TODAY, 1)}")]
    assert keys(index, "ferries") == [] and keys(index, "gliders") == []  # archive; a dreamed fragment


def test_forgotten_fragments_are_not_in_the_tail_by_id_or_by_content(ws, index):
    write_stream(ws.root, TODAY, [fragment_line(TODAY, 1, "boats", "Secret plan about canoes"),
                                  fragment_line(TODAY, 2, "boats", "Secret plan about canoes"),
                                  fragment_line(TODAY, 3, "boats", "Open plan about canoes")])
    assert len(keys(index, "canoes")) == 3
    record(ws, "forget", Tombstone(TODAY, uuid_at(TODAY, 1), fragment_content_hash("boats", "Secret plan about canoes"),
                                   "private", "human:t", "x"))
    assert keys(index, "canoes") == [("stream", f"{TODAY}#{uuid_at(TODAY, 3)}")]


def test_an_undreamed_fragment_a_shard_cites_is_found_through_the_shard_only(ws, index):
    write_stream(ws.root, TODAY, [fragment_line(TODAY, 1, "boats", "User bought a catamaran"),
                                  fragment_line(TODAY, 2, "boats", "User sold the sloop")])
    write_shard(ws.root, "boat", shard_text("The user owns a catamaran", [cite(TODAY, 1)], superseded=[cite(TODAY, 2)]))
    assert keys(index, "catamaran") == [("topic", "boat")]
    assert keys(index, "sloop") == []


def test_a_shard_that_starts_citing_a_tail_fragment_takes_it_out_of_the_tail(ws, index, settled_clock):
    write_stream(ws.root, TODAY, [fragment_line(TODAY, 1, "boats", "User bought a catamaran")])
    write_shard(ws.root, "other", shard_text("The user likes tea", []))
    assert keys(index, "catamaran") == [("stream", f"{TODAY}#{uuid_at(TODAY, 1)}")]
    write_shard(ws.root, "other", shard_text("The user likes tea", []) + "\n")  # a change that cites nothing new
    assert keys(index, "catamaran") == [("stream", f"{TODAY}#{uuid_at(TODAY, 1)}")]
    write_shard(ws.root, "boat", shard_text("The user owns a boat", [cite(TODAY, 1)]))  # the streams did not change
    assert keys(index, "catamaran") == []
    (ws.topics_dir / "boat.md").unlink()
    assert keys(index, "catamaran") == [("stream", f"{TODAY}#{uuid_at(TODAY, 1)}")]
