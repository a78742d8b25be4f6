"""The offline dreamer's projection file in the private folder, attacked (issue 10, item 5): a
link planted at its name (or at its -wal/-shm) is never followed, so no write reaches the file
it names; a file grown huge is not read; rows of the wrong types are skipped. Each only ever
costs speed: the dream writes the bytes it writes without the projection."""
from __future__ import annotations

import os
import sqlite3

import pytest

from dreamdeck.core.dreaming import offline_projection
from dreamdeck.core.io.cache import clear_all
from tests.test_offline_projection import SHARDS, dream, fresh_dream


@pytest.fixture
def without_projection():
    clear_all()
    return dream(SHARDS, None)


def _outside_db(path) -> bytes:
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("CREATE TABLE meta(k TEXT PRIMARY KEY, v TEXT NOT NULL)")
        conn.execute("INSERT INTO meta VALUES ('version', 'someone else''s')")
        conn.execute("CREATE TABLE shards(slug TEXT)")
        conn.execute("INSERT INTO shards VALUES ('precious')")
    conn.close()
    return path.read_bytes()


@pytest.mark.parametrize("suffix", ["", "-wal"])
def test_a_link_at_the_projections_name_is_never_followed(tmp_path, without_projection, suffix):
    cache = tmp_path / "cache"
    cache.mkdir()
    outside = tmp_path / "outside.sqlite3"
    before = _outside_db(outside) if not suffix else b"not ours\n"
    if suffix:
        outside.write_bytes(before)
    link = f"{offline_projection.projection_path(cache)}{suffix}"
    os.symlink(outside, link)

    first = fresh_dream(SHARDS, cache)
    second = fresh_dream(SHARDS, cache)

    assert first == second == without_projection
    assert outside.read_bytes() == before
    assert not os.path.islink(link)


def test_a_projection_grown_huge_is_not_read(tmp_path, without_projection):
    cache = tmp_path / "cache"
    cache.mkdir()
    fresh_dream(SHARDS, cache)
    path = offline_projection.projection_path(cache)
    assert offline_projection.load(cache)
    os.truncate(path, offline_projection.MAX_BYTES + 1)  # sparse: nothing is written to disk
    clear_all()

    assert offline_projection.load(cache) == {}
    assert not path.exists() or path.stat().st_size <= offline_projection.MAX_BYTES
    assert fresh_dream(SHARDS, cache) == without_projection


def test_rows_of_the_wrong_types_are_skipped(tmp_path, without_projection):
    cache = tmp_path / "cache"
    cache.mkdir()
    fresh_dream(SHARDS, cache)
    conn = sqlite3.connect(offline_projection.projection_path(cache))
    with conn:
        conn.execute("UPDATE shards SET heading = 7, terms = x'00ff', claim = 3.5")
    conn.close()

    assert fresh_dream(SHARDS, cache) == without_projection
