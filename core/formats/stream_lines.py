"""Stream files as lines: each non-empty line of a `memory/streams/*.jsonl` file with its event,
or the reason it is malformed (`parse_stream_bytes`), and the fast scan for where its fragment
lines are (`scan_fragment_lines`). Pure bytes in, lines out (no file access here).
"""
from __future__ import annotations

import json
import re
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate, compress, repeat
from operator import add, not_
from typing import Any

from dreamdeck.core.formats.events import EventError, parse_event_line
from dreamdeck.core.formats.lazy_re import lazy_re

STREAM_FILE = lazy_re(r"^([0-9]{4}-[0-9]{2}-[0-9]{2})\.jsonl\Z")  # JS \d: ASCII only; JS $ = \Z (Python $ allows a final newline)


@dataclass(frozen=True)
class StreamProblem:
    path: str  # relative to the workspace
    lineno: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.lineno}: skipping malformed line ({self.reason})"


@dataclass(frozen=True)
class StreamLine:
    lineno: int  # 1-based, counting every line including blank ones
    offset: int  # byte offset of the line in the file
    raw: bytes  # the line without its newline
    event: dict[str, Any] | None
    error: str | None

    @property
    def kind(self) -> str | None:
        return self.event.get("type") if self.event else None


# --- reading -------------------------------------------------------------------------------
def parse_stream_bytes(data: bytes, start_offset: int = 0) -> list[StreamLine]:
    """Every non-empty line of `data` with its event or the reason it is malformed."""
    out: list[StreamLine] = []
    offset = 0
    lineno = 0
    for raw in data.split(b"\n"):
        lineno += 1
        line_offset = offset
        offset += len(raw) + 1
        if not raw.strip():
            continue
        event, error = _parsed_line(raw)
        out.append(StreamLine(lineno, start_offset + line_offset, raw, event, error))
    return out


def stream_problems(data: bytes) -> list[tuple[int, str]]:
    """(line number, reason) of every malformed line of `data`, as `parse_stream_bytes` reports
    them, without keeping the lines (doctor asks this of a year of streams). A line proven to be
    a plain fragment (`_proven_plain`) is not parsed."""
    out = []
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        if raw.strip() and not (_PLAIN_LINE.fullmatch(raw) and _proven_plain(raw)):
            error = _parsed_line(raw)[1]
            if error is not None:
                out.append((lineno, error))
    return out


def fragment_ids_and_problems(data: bytes) -> tuple[list[str], list[tuple[int, str]]]:
    """(`fragment_line_ids(data)`, `stream_problems(data)`): `fragment_id_lines_and_problems`
    with the ids as a list."""
    ids, problems = fragment_id_lines_and_problems(data)
    return (ids.split("\n") if ids else []), problems


def fragment_id_lines_and_problems(data: bytes) -> tuple[str, list[tuple[int, str]]]:
    """(the ids `fragment_line_ids(data)` finds, one a line — an id holding a newline, which JSON
    can spell and no citation can name, left out —, `stream_problems(data)`). Doctor's first run
    reads a million lines: one regular expression over the whole bytes proves the plain fragment
    lines (`_plain_lines`); only the lines it leaves, and bytes it cannot vouch for, take the
    two functions."""
    found = _plain_lines(data)
    if found is None:
        ids, problems = fragment_line_ids(data), stream_problems(data)
        return "\n".join(fid for fid in ids if "\n" not in fid), problems
    return found


# --- proving lines valid without parsing them -------------------------------------------------
# The append tool writes `{"type":"fragment","id":…,"ts":…,"source":…,"entry":…,"topic":…,"body":…}`,
# then `references`, `who` and `where` (its keys in their order) when it has them.
# Such a line is valid (the strict parser accepts it) when the expression below matches it AND it
# holds no backslash (so no string has an escape, and `[^"]*` is exactly a string's content), no
# control character (JSON refuses them raw; the line's own newline aside), and is UTF-8. Those
# three are proven over the whole bytes at C speed. `ts` is `events._ISO_Z`'s datetime, its date
# alternatives reordered (the common one first: the same dates, fewer attempts). Anything else —
# an escape, another key, another key order, a watermark — is parsed (tests/test_stream_fast_path.py).
_COMMON_DATE = (r"[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
                r"|02-(?:0[1-9]|1[0-9]|2[0-8]))")
_LEAP_DAY = r"(?:[0-9]{2}(?:[2468][048]|[13579][26]|0[48])|(?:[02468][048]|[13579][26])00)-02-29"
# `_TIME` and the optional keys are spelled as alternatives, not as optional groups: the same
# lines, but the regular expression engine tries an alternative far faster than it repeats a
# group zero or one time (a year of lines: 1.8 s of CPU became 1.1 s).
_TIME = r"T(?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:\.[0-9]+Z|Z)|Z)"
_STR = r'"[^"]*"'
_OPTIONAL = (rf'(?:,"references":\[(?:{_STR}(?:,{_STR})*)?\])?(?:,"who":"[^"]+")?'  # the append tool's order
             rf'(?:,"where":\{{"adapter":{_STR},"workspace":{_STR},"chat":{_STR}(?:,"thread":(?:{_STR}|null))?'
             rf'(?:,"workspaceName":{_STR})?(?:,"chatName":{_STR})?(?:,"parentChat":{_STR})?(?:,"parentChatName":{_STR})?\}})?')
_PLAIN = (rf'\{{"type":"fragment","id":"([^"]+)","ts":"(?:{_COMMON_DATE}|{_LEAP_DAY}){_TIME}",'
          rf'"source":{_STR},"entry":{_STR},"topic":{_STR},"body":{_STR}(?:\}}|{_OPTIONAL}\}})')
_PLAIN_LINE = lazy_re(_PLAIN.encode())
_CONTROL = bytes(b for b in range(0x20) if b != 0x0A)
# The same line for a whole file, anchored at line starts, its date taken whole (each distinct one
# checked after: far fewer tries than the calendar alternatives on every line). Where the file
# holds no backslash and no control character, a string is `[^"]*` (one newline per match is
# checked after); elsewhere a string also refuses both, so a line with an escape is left to the
# parser and a string never runs past its line.
_WHOLE_DATE = "([0-9]{4}-[0-9]{2}-[0-9]{2})"
_VALID_DATE = lazy_re(rf"(?:{_COMMON_DATE}|{_LEAP_DAY})".encode())


def dates_in_calendar(dates: Iterable[bytes]) -> bool:
    """Is each `YYYY-MM-DD` a real calendar date (zod's datetime rule)?"""
    return all(map(_VALID_DATE.fullmatch, dates))


def _whole_file_line(string: str) -> re.Pattern[bytes]:
    plain = _PLAIN.replace(f"(?:{_COMMON_DATE}|{_LEAP_DAY})", _WHOLE_DATE)
    plain = plain.replace('"[^"]*"', f'"{string}*"').replace('"[^"]+"', f'"{string}+"').replace('"([^"]+)"', f'"({string}+)"')
    return lazy_re(f"(?m)^{plain}\n".encode())


_CLEAN_FILE_LINES = _whole_file_line('[^"]')
_ANY_FILE_LINES = _whole_file_line('[^"\\\\\\x00-\\x1f]')


def _proven_plain(data: bytes) -> bool:
    """No backslash, no control character but newlines, and UTF-8: what the expression cannot see."""
    if b"\\" in data or len(data.translate(None, _CONTROL)) != len(data):
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _plain_lines(data: bytes) -> tuple[str, list[tuple[int, str]]] | None:
    """`fragment_id_lines_and_problems(data)` from one split on the whole-file line expression,
    or None when the bytes are not UTF-8, a date is not in the calendar, or a match ran over two
    lines. The split leaves (gap, id, date) triples: a gap is the lines between two plain ones
    (usually none), given to the strict functions with its line numbers."""
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return None
    clean = data.find(b"\\") == -1 and len(data.translate(None, _CONTROL)) == len(data)
    pieces = (_CLEAN_FILE_LINES if clean else _ANY_FILE_LINES).split(data)
    ids, gaps = pieces[1::3], pieces[0::3]
    if not dates_in_calendar(set(pieces[2::3])):
        return None
    if not any(gaps):
        return (b"\n".join(ids).decode("utf-8"), []) if len(ids) == data.count(b"\n") else None
    return _with_gaps(data, ids, gaps, clean)


def _with_gaps(data: bytes, ids: list[bytes], gaps: list[bytes], clean: bool) -> tuple[str, list[tuple[int, str]]] | None:
    """The plain lines' ids and the gaps' own, in file order, and the gaps' problems."""
    if clean and len(ids) + sum(gap.count(b"\n") for gap in gaps if gap) != data.count(b"\n"):
        return None  # a string ran over a newline: the lines are not what the matches say
    out: list[str] = []
    problems: list[tuple[int, str]] = []
    lineno = done = 0  # lines before the gap; plain ids taken so far
    for k in compress(range(len(gaps)), gaps):
        if k > done:
            out.append(b"\n".join(ids[done:k]).decode("utf-8"))
        lineno += k - done
        done = k
        out.extend(fid for fid in fragment_line_ids(gaps[k]) if "\n" not in fid)
        problems += [(lineno + n, reason) for n, reason in stream_problems(gaps[k])]
        lineno += gaps[k].count(b"\n")
    if len(ids) > done:
        out.append(b"\n".join(ids[done:]).decode("utf-8"))
    return "\n".join(out), problems


def _parsed_line(raw: bytes) -> tuple[dict[str, Any] | None, str | None]:
    try:
        return parse_event_line(raw.decode("utf-8")), None
    except UnicodeDecodeError:
        return None, "not UTF-8"
    except EventError as exc:
        return None, str(exc)


def count_fragments(data: bytes) -> int:
    """How many valid fragment lines `data` holds (TypeClaw's count for a dream commit's subject)."""
    return sum(1 for ln in parse_stream_bytes(data) if ln.kind == "fragment")


# --- finding fragment lines fast --------------------------------------------------------------
# Indexes only need to know where the fragment lines are and their ids; parsing a year of lines
# for that costs seconds. The scanner below finds the lines that *claim* to be fragments:
# - a line that starts with `{"type":"fragment"` (the append tool writes `type` then `id` first)
#   is taken without parsing, a torn or hand-broken one too: whoever reads the line parses it
#   and reports it malformed. Its id is read between the quotes after `"id":"` when the append
#   tool's layout puts it there, plain (no escape); otherwise the line is parsed for it;
# - a line in any other layout is parsed, and only if it could be one: a JSON line whose type
#   is "fragment" holds the bytes `"fragment"`, or spells a letter of it with a `\u00XX` escape.
# So every fragment `parse_stream_bytes` reads is found, with its offset, length and id; a line
# found beyond those is a malformed one that claims to be a fragment (tests/test_fragment_line_scan.py).
FRAGMENT_PREFIX = b'{"type":"fragment"'
ID_PREFIX = b'{"type":"fragment","id":"'
_MARK = b'"fragment"'  # every claiming line holds it, unless it spells a letter with an escape
_LETTER_ESCAPE = lazy_re(rb"\\u00[67]")  # a-z written as an escape (the only way to spell one)
_PLAIN_ID = lazy_re(rb'\{"type":"fragment","id":"([^"\\\n]+)"')  # at the start of a line
_NEXT_PLAIN_ID = lazy_re(rb'\n\{"type":"fragment","id":"([^"\\\n]+)"')  # a literal prefix: searched in C


@dataclass(frozen=True)
class FragmentLines:
    """The fragment lines of some stream bytes, in file order (parallel arrays)."""

    starts: array  # byte offset of each line (plus the base the bytes were read at)
    ends: array  # offset of its end: its newline (its `\r` included), or the end of the bytes
    ids: Sequence[str | None] | None  # each line's id (None: no readable one); None when not asked for
    scanned: int  # base + the bytes scanned: through the last newline when only complete lines count


def scan_fragment_lines(data: bytes, base: int = 0, *, complete: bool = False,
                        with_ids: bool = True) -> FragmentLines:
    """The lines of `data` (read at offset `base`) that claim to be fragments; with `complete`,
    the bytes after the last newline (a line still being written) are left for later.

    One split on b"\\n" and a prefix test per line, all in C (map / accumulate / compress); the
    few other lines (watermarks, blank lines) are each searched for the mark."""
    parts = data.split(b"\n")
    cut = len(data)
    if complete:
        cut -= len(parts.pop())
    lengths = list(map(len, parts))
    line_starts = list(accumulate(map(add, lengths, repeat(1)), initial=base))
    keep = list(map(bytes.startswith, parts, repeat(FRAGMENT_PREFIX)))
    prefixed = keep.count(True)
    other_ids: dict[int, str | None] = {}  # line number -> id, of the lines in another layout
    for i in compress(range(len(parts)), map(not_, keep)):
        if _could_be_fragment(parts[i]):
            is_fragment, fid = _parsed_id(parts[i])
            if is_fragment:
                keep[i] = True
                other_ids[i] = fid
    starts = array("q", compress(line_starts, keep))
    ends = array("q", compress(map(add, line_starts, lengths), keep))
    ids: Sequence[str | None] | None = None
    if with_ids:
        plain = None if other_ids else _plain_ids(data, cut)
        if plain is not None and len(plain) == prefixed:  # every prefixed line has a plain id
            ids = plain
        else:  # some line needs a closer look: one at a time
            ids = [other_ids[i] if i in other_ids else _prefixed_id(parts[i])
                   for i in compress(range(len(parts)), keep)]
    return FragmentLines(starts, ends, ids, base + cut)


def count_fragment_lines(data: bytes) -> tuple[int, int] | None:
    """(fragment lines, bytes through the last newline) of the complete lines of `data`, counted
    in C without splitting; None when some line needs `scan_fragment_lines` to tell.

    Two counts. Unlike the scan, it does not look for a type spelled with `\\u00XX` escapes: no
    JSON writer escapes an ASCII letter, and ruling one out would cost a third pass over every
    file with a backslash in it. Such a line makes the count short, so whoever builds the day's
    offsets later checks them against the count (`index.stream_days.materialize` does)."""
    cut = data.rfind(b"\n") + 1
    if not cut:
        return 0, 0
    # The longer prefix is the faster count; a line with only the short one is left to the scan.
    prefixed = data.count(b"\n" + ID_PREFIX, 0, cut) + data.startswith(ID_PREFIX)
    if data.count(_MARK, 0, cut) != prefixed:  # each prefixed line holds the mark once at least
        return None
    return prefixed, cut


def fragment_line_ids(data: bytes) -> list[str]:
    """The ids of the fragment lines of `data` in file order (a line with no readable id is left
    out): read by one regex search in C when every fragment line is in the append tool's layout."""
    prefixed = data.count(b"\n" + FRAGMENT_PREFIX) + data.startswith(FRAGMENT_PREFIX)
    if not _maybe_other_layout(data, len(data), prefixed):
        plain = _plain_ids(data, len(data))
        if len(plain) == prefixed:  # every prefixed line has a plain id
            return plain
    return [fid for fid in scan_fragment_lines(data).ids or () if fid is not None]


def _maybe_other_layout(data: bytes, cut: int, prefixed: int) -> bool:
    """Could a line of data[:cut] that does not start with the prefix claim to be a fragment?
    Each prefixed line holds the mark once at least, so a count equal to theirs rules the mark
    out; the escape regex runs only when the bytes hold a backslash (a memchr finds out)."""
    if data.count(_MARK, 0, cut) != prefixed:
        return True
    return data.find(b"\\", 0, cut) != -1 and _LETTER_ESCAPE.search(data, 0, cut) is not None


def _could_be_fragment(raw: bytes) -> bool:
    """Could a line that does not start with the prefix be a JSON object of type "fragment"?"""
    return _MARK in raw or (b"\\" in raw and _LETTER_ESCAPE.search(raw) is not None)


def _plain_ids(data: bytes, cut: int) -> list[str]:
    """The plain ids of the lines of data[:cut] in the append tool's layout, in order. A line whose
    id is not plain (escaped, empty, or without its closing quote) is left out, so the callers
    compare the count with the prefixed lines'."""
    found = _NEXT_PLAIN_ID.findall(data, 0, cut)
    first = _PLAIN_ID.match(data, 0, cut)
    if first:
        found.insert(0, first.group(1))
    # One decode for them all (an id holds no newline); an undecodable byte reads as U+FFFD.
    return b"\n".join(found).decode("utf-8", "replace").split("\n") if found else []


def _prefixed_id(raw: bytes) -> str | None:
    """The id of a line that starts with the prefix: plain where the append tool puts it, else
    as JSON reads it (None for a line that is not JSON)."""
    m = _PLAIN_ID.match(raw)
    return m.group(1).decode("utf-8", "replace") if m else _parsed_id(raw)[1]


def _parsed_id(raw: bytes) -> tuple[bool, str | None]:
    """(a JSON object whose type is "fragment", its id when a non-empty string) of one line."""
    try:
        ev = json.loads(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return False, None
    if not isinstance(ev, dict) or ev.get("type") != "fragment":
        return False, None
    fid = ev.get("id")
    return True, fid if isinstance(fid, str) and fid else None
