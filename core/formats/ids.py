"""UUIDv7 event ids, and the `ts` TypeClaw derives from them."""
from __future__ import annotations

import os
import re
import threading
import time
from datetime import UTC, datetime

from dreamdeck.core.formats.lazy_re import lazy_re

_UUID = lazy_re(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
_lock = threading.Lock()
_last = [0, 0]  # (ms, counter): ids minted in the same millisecond still sort in order


def new_event_id(now_ms: int | None = None) -> str:
    """A canonical UUIDv7: 48 bits of Unix ms, version 7, a 12-bit counter, variant, random."""
    if now_ms is not None:
        # An explicit time (demo data, imports) must stay that time; order within it is random.
        return _format((now_ms << 80) | (0x7 << 76) | (int.from_bytes(os.urandom(2), "big") & 0xFFF) << 64
                       | (0b10 << 62) | (int.from_bytes(os.urandom(8), "big") & ((1 << 62) - 1)))
    with _lock:
        ms = int(time.time() * 1000)
        if ms <= _last[0]:
            ms = _last[0]
            _last[1] += 1
            if _last[1] > 0xFFF:  # counter spent: borrow the next millisecond
                ms += 1
                _last[1] = 0
        else:
            _last[1] = 0
        _last[0] = ms
        counter = _last[1]
    rand = int.from_bytes(os.urandom(8), "big") & ((1 << 62) - 1)
    return _format((ms << 80) | (0x7 << 76) | (counter << 64) | (0b10 << 62) | rand)


def _format(value: int) -> str:
    h = f"{value:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def timestamp_from_id(event_id: str) -> str:
    """`new Date(ms).toISOString()` of the id's first 48 bits; ValueError for a non-UUID."""
    if not _UUID.match(event_id):
        raise ValueError(f"not a UUID: {event_id!r}")
    ms = int(event_id.replace("-", "")[:12], 16)
    return iso_from_ms(ms)


def iso_from_ms(ms: int) -> str:
    dt = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def is_uuid(value: str) -> bool:
    return bool(_UUID.match(value))
