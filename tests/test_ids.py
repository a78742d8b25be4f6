"""core.ids: UUIDv7 event ids and the `ts` TypeClaw derives from them (stream-events.test.ts)."""
from __future__ import annotations

import re
import uuid

import pytest

from dreamdeck.core.formats.ids import is_uuid, iso_from_ms, new_event_id, timestamp_from_id

CANONICAL = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
FAR_FUTURE_MS = 4_102_444_800_000  # 2100-01-01T00:00:00.000Z: ahead of any id minted from the clock


@pytest.fixture(autouse=True)
def _restore_the_monotonic_clock():
    """Minting at 2100 moves the process-wide monotonic floor; put it back for other tests."""
    from dreamdeck.core.formats import ids as ids_module

    saved = list(ids_module._last)
    yield
    ids_module._last[:] = saved


def test_new_event_id_is_a_canonical_36_character_uuid():
    eid = new_event_id()
    assert len(eid) == 36
    assert CANONICAL.match(eid)


def test_new_event_id_carries_version_7_and_the_rfc_variant():
    parsed = uuid.UUID(new_event_id())
    assert parsed.version == 7
    assert parsed.variant == uuid.RFC_4122


def test_ids_minted_in_a_burst_sort_in_mint_order_as_strings():
    ids = [new_event_id() for _ in range(2000)]
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)


def hold_the_clock_at(ms: int, counter: int = 0) -> None:
    """Make the clock look stuck at `ms` (the process-wide floor is ahead of the real time)."""
    from dreamdeck.core.formats import ids as ids_module

    ids_module._last[:] = [ms, counter]


def test_ids_minted_in_the_same_millisecond_still_sort_in_order():
    hold_the_clock_at(FAR_FUTURE_MS)
    ids = [new_event_id() for _ in range(50)]
    assert ids == sorted(ids)
    assert {timestamp_from_id(i) for i in ids} == {iso_from_ms(FAR_FUTURE_MS)}


def test_an_exhausted_millisecond_counter_borrows_the_next_millisecond():
    hold_the_clock_at(FAR_FUTURE_MS, counter=0xFFE)
    ids = [new_event_id() for _ in range(3)]
    assert ids == sorted(ids)
    assert [timestamp_from_id(i) for i in ids] == [iso_from_ms(FAR_FUTURE_MS)] + [iso_from_ms(FAR_FUTURE_MS + 1)] * 2


def test_the_first_48_bits_are_the_unix_milliseconds():
    ms = FAR_FUTURE_MS + 20_000
    eid = new_event_id(now_ms=ms)
    assert int(eid.replace("-", "")[:12], 16) == ms


def test_an_explicit_time_stays_that_time_even_in_the_past():
    new_event_id()  # the clock-driven floor is now ahead of 2026-05-16
    ms = 1_778_901_794_117  # 2026-05-16T03:23:14.117Z
    eid = new_event_id(now_ms=ms)
    assert timestamp_from_id(eid) == "2026-05-16T03:23:14.117Z"
    assert uuid.UUID(eid).version == 7 and uuid.UUID(eid).variant == uuid.RFC_4122


def test_timestamp_from_id_round_trips_the_mint_time():
    ms = FAR_FUTURE_MS + 30_123
    assert timestamp_from_id(new_event_id(now_ms=ms)) == "2100-01-01T00:00:30.123Z"


def test_timestamp_from_id_reads_a_typeclaw_id():
    assert timestamp_from_id("019e2eca-6fc5-71ef-add9-67a0955a4b35") == "2026-05-16T03:17:59.365Z"


@pytest.mark.parametrize("bad", ["f-keep", "", "019e2eca6fc571efadd967a0955a4b35", "019e2eca-6fc5-71ef-add9-67a0955a4b3", "zzzzzzzz-6fc5-71ef-add9-67a0955a4b35"])
def test_timestamp_from_id_raises_on_non_uuid_input(bad):
    with pytest.raises(ValueError):
        timestamp_from_id(bad)


def test_iso_from_ms_is_javascript_to_iso_string():
    assert iso_from_ms(0) == "1970-01-01T00:00:00.000Z"
    assert iso_from_ms(1_779_422_594_007) == "2026-05-22T04:03:14.007Z"
    assert iso_from_ms(1_779_422_594_999) == "2026-05-22T04:03:14.999Z"


def test_is_uuid_accepts_uuids_and_rejects_free_ids():
    assert is_uuid(new_event_id())
    assert not is_uuid("f-keep")
