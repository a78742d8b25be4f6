"""`io.gc_pause.paused_gc`: the collector is off inside, and back as it was after, even on an error."""
from __future__ import annotations

import gc

import pytest

from dreamdeck.core.io.gc_pause import paused_gc


def test_the_collector_is_paused_inside_and_resumed_after_even_when_the_block_raises():
    assert gc.isenabled()
    with pytest.raises(ValueError), paused_gc():
        assert not gc.isenabled()
        raise ValueError("boom")
    assert gc.isenabled()


def test_a_collector_already_off_stays_off():
    gc.disable()
    try:
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
