"""`io.append.Flusher`: appends written before the call returns, fsynced on a thread of its own
soon after (what a long-lived `Memory` records access with: `tests/test_memory_feed.py`)."""
from __future__ import annotations

from dreamdeck.core.io.append import Flusher, append_durably


def test_many_appends_to_one_file_wait_for_one_fsync_each_round_and_lose_no_byte(tmp_path):
    flusher = Flusher()
    path = tmp_path / "log.jsonl"
    for n in range(200):
        append_durably(path, f"line {n}\n".encode(), own_line=True, flusher=flusher)
    assert flusher.pending <= 2  # one file: one descriptor waiting and one being synced at most
    flusher.close()
    assert flusher.pending == 0
    assert path.read_text().splitlines() == [f"line {n}" for n in range(200)]


def test_an_append_after_the_flusher_closed_is_synced_before_it_returns(tmp_path):
    flusher = Flusher()
    flusher.close()
    append_durably(tmp_path / "log", b"late\n", flusher=flusher)
    assert flusher.pending == 0 and (tmp_path / "log").read_bytes() == b"late\n"
