"""Proving a whole stream day valid in one compiled call (msgspec), for doctor's first run.

`decoded_id_lines(data)` answers `fragment_id_lines_and_problems(data)` for bytes whose every
line is a valid event — the ids of the fragment lines, one a line, and no problem — or None, and
then the caller takes the strict path, which alone words a problem. msgspec decodes every line
against the events' schema (a tagged union on "type", no unknown key, every field typed); what a
JSON schema cannot say is checked after over all the decoded values at once: that each line is
one object (every newline lies between two objects, as many objects as lines), the `ts` shape
(`_ts_in_calendar`), and that no id holds a newline. What msgspec accepts and the strict parser
would not is a bug here: tests/test_stream_decoded.py holds the two to the same answers
(escapes, duplicate keys, lone surrogates, bad UTF-8, a BOM, numbers, extra keys, bad ts). Where
they differ the other way (msgspec refuses a lone surrogate that Python's json takes), the strict
path answers: this module can only ever cost speed.
"""
from __future__ import annotations

from operator import attrgetter
from typing import Annotated, Literal

import msgspec

from dreamdeck.core.formats.stream_lines import dates_in_calendar, fragment_id_lines_and_problems

NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]


class _Where(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    adapter: str
    workspace: str
    chat: str
    thread: str | None | msgspec.UnsetType = msgspec.UNSET
    workspaceName: str | msgspec.UnsetType = msgspec.UNSET  # noqa: N815 — TypeClaw's key
    chatName: str | msgspec.UnsetType = msgspec.UNSET  # noqa: N815
    parentChat: str | msgspec.UnsetType = msgspec.UNSET  # noqa: N815
    parentChatName: str | msgspec.UnsetType = msgspec.UNSET  # noqa: N815


class _Fragment(msgspec.Struct, tag_field="type", tag="fragment", forbid_unknown_fields=True, gc=False):
    id: NonEmpty
    ts: str
    source: str
    entry: str
    topic: str
    body: str
    references: list[str] | msgspec.UnsetType = msgspec.UNSET
    who: NonEmpty | msgspec.UnsetType = msgspec.UNSET
    where: _Where | msgspec.UnsetType = msgspec.UNSET


class _Watermark(msgspec.Struct, tag_field="type", tag="watermark", forbid_unknown_fields=True, gc=False):
    id: NonEmpty
    ts: str
    source: str
    entry: str


class _LegacyProse(msgspec.Struct, tag_field="type", tag="legacy_prose", forbid_unknown_fields=True, gc=False):
    ts: str
    text: str
    origin: Literal["migration"]


_DECODER = msgspec.json.Decoder(_Fragment | _Watermark | _LegacyProse, strict=True)
_TS = attrgetter("ts")
_ID = attrgetter("id")


def decoded_id_lines(data: bytes) -> str | None:
    """The fragment ids of `data`, one a line, when every line of it is a valid event; else None."""
    if not data:
        return ""
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    # Each newline between two objects ("}\n{" — never inside one value): a line is then one
    # object or more, and as many objects as lines makes it exactly one each.
    if data[:1] != b"{" or not data.endswith((b"}", b"}\n")) or data.count(b"}\n{") != lines - 1:
        return None
    try:
        events = _DECODER.decode_lines(data)
    except (msgspec.DecodeError, UnicodeDecodeError):  # bad JSON, a schema miss, bytes not UTF-8
        return None
    except RecursionError:  # a value nested too deep before a line's "type" key (skipped unread)
        return None
    if len(events) != lines or not _ts_in_calendar(list(map(_TS, events))):
        return None
    kinds = list(map(type, events))
    fragments = events if kinds.count(_Fragment) == len(events) else [ev for ev in events if type(ev) is _Fragment]
    if not _one_id_key_each(data, len(fragments) + kinds.count(_Watermark)):
        return None
    ids = "\n".join(map(_ID, fragments))
    return ids if not fragments or ids.count("\n") == len(fragments) - 1 else None  # an id holding a newline: strict


def _one_id_key_each(data: bytes, with_id: int) -> bool:
    """Does each fragment or watermark line name its id once? JSON reads a key given twice as its
    last value, the fragment-line scan as its first: such a line is the strict path's. `"id"`
    spelled plainly is counted (a quote inside a string is escaped, so the bytes are a key or a
    string value "id", which only adds to the count); a key spelled with a `\\u` escape is not,
    so a day holding one of those is left to the strict path too (a memchr rules backslashes out)."""
    return data.count(b'"id"') == with_id and (b"\\" not in data or b"\\u006" not in data)  # "i" is \\u0069, "d" \\u0064


# `events._ISO_Z` for the shape `Date.toISOString` writes (`YYYY-MM-DDTHH:MM:SS.mmmZ`, 24 bytes),
# checked over every ts at once: the digits' places by one translate, the clock's ranges on
# the columns, each distinct date in the calendar. Any other shape is left to the strict path.
_TS_SHAPE = b"0000-00-00T00:00:00.000Z\n"
_WIDTH = len(_TS_SHAPE)
_DIGITS_TO_ZERO = bytes.maketrans(b"0123456789", b"0000000000")
_IS_2 = bytes(int(b == ord("2")) for b in range(256))
_ABOVE_3 = bytes(int(ord("3") < b <= ord("9")) for b in range(256))


def _ts_in_calendar(stamps: list[str]) -> bool:
    if not stamps:
        return True
    joined = ("\n".join(stamps) + "\n")
    if len(joined) != _WIDTH * len(stamps) or not joined.isascii():
        return False
    raw = joined.encode("ascii")
    if raw.translate(_DIGITS_TO_ZERO) != _TS_SHAPE * len(stamps):
        return False
    hour_tens, hour_units = raw[11::_WIDTH], raw[12::_WIDTH]
    if hour_tens.translate(None, b"012") or raw[14::_WIDTH].translate(None, b"012345") \
            or raw[17::_WIDTH].translate(None, b"012345"):
        return False  # an hour over 29, a minute or second over 59
    if int.from_bytes(hour_tens.translate(_IS_2), "little") & int.from_bytes(hour_units.translate(_ABOVE_3), "little"):
        return False  # an hour from 24 to 29
    first = raw[:10]
    same_day = raw.count(b"\n" + first + b"T") == len(stamps) - 1
    return dates_in_calendar({first} if same_day else {s[:10].encode() for s in stamps})


def id_lines_and_problems(data: bytes) -> tuple[str, list[tuple[int, str]]]:
    """`stream_lines.fragment_id_lines_and_problems(data)`: proven by one compiled call when the
    whole day is valid, else by the expression and the strict parser."""
    ids = decoded_id_lines(data)
    return (ids, []) if ids is not None else fragment_id_lines_and_problems(data)
