"""JavaScript's string, number and date semantics, where TypeClaw's formats depend on them.

TypeClaw is TypeScript. Its parsers use `trim()`, `\\s`, `String(Number(s))`, `Date.UTC` and
`localeCompare`; Python's look-alikes differ on edge cases (typeclaw-spec §9): `str.strip()`
also strips U+001C–U+001F and U+0085 but keeps U+FEFF, `float` prints 2**60 exactly, `date`
refuses 2026-02-31. These are the exact versions, in one place.
"""
from __future__ import annotations

import re
import unicodedata
from decimal import Decimal

from dreamdeck.core.formats.js_text import JS_WHITESPACE, js_trim  # noqa: F401 (one whitespace set, re-exported)

# JS `\s` as a regex class body (use inside [...]); Python's `\s` is a different set.
JS_SPACE = re.escape(JS_WHITESPACE)
# Where JS's `^`/`$` match under the `m` flag, and what `.` never matches.
JS_LINE_BREAKS = "\n\r\u2028\u2029"


def js_canonical_uint(text: str) -> int | None:
    """The value of `text` when JavaScript reads it back identically: `String(Number(s)) === s`
    for a non-negative integer (TypeClaw's `parseNonNegativeInt`), else None.

    Below 2**53 that is "digits without a leading zero". Above, a double prints as its shortest
    round-trip digits padded with zeros: 9007199254740993 becomes ...992 (refused) and
    1152921504606847000 is 2**60 printed (accepted); from 1e21 on it prints in exponent form.
    """
    if not text or not text.isascii() or not text.isdigit():
        return None
    if len(text) <= 15:  # always exact in a double
        return int(text) if text == "0" or text[0] != "0" else None
    value = float(text)
    if value >= 1e21:
        return None
    return int(text) if str(int(Decimal(repr(value)))) == text else None


def js_utc_day(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of `Date.UTC(year, month - 1, day)`: years 0–99 mean 1900–1999,
    and months and days roll over (2026-02-31 is 2026-03-03, 2026-13-01 is 2027-01-01)."""
    if 0 <= year <= 99:
        year += 1900
    year, month0 = divmod(year * 12 + month - 1, 12)
    return _days_from_civil(year, month0 + 1, 1) + day - 1


def _days_from_civil(y: int, m: int, d: int) -> int:
    """Proleptic Gregorian date -> days since 1970-01-01 (any year, negatives included)."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


# ICU's root collation of printable ASCII (what Bun's `localeCompare` uses), measured:
# whitespace, punctuation, symbols, digits, then letters, lower case before upper.
_ICU_ASCII_ORDER = "\t _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz"
_PRIMARY = {c: i for i, c in enumerate(_ICU_ASCII_ORDER)}
_PRIMARY.update({c.upper(): _PRIMARY[c] for c in "abcdefghijklmnopqrstuvwxyz"})
# The combining marks U+0300–U+036F by ICU's accent (second-level) weight, measured; marks that
# weigh the same share a comma-joined group (acute sorts before grave, for one).
_ACCENT_ORDER = (
    "34f 332 313,343 314 301,341 300,340 306 302 30c 30a 342 308 344 30b 303 307 338 327 328 304 "
    "30d,30e,312,315,31a,33d,33e,33f,346,34a,34b,34c,350,351,352,357,35b,35d,35e "
    "316,317,318,319,31c,31d,31e,31f,320,329,32a,32b,32c,32f,333,33a,33b,33c,347,348,349,34d,34e,"
    "353,354,355,356,359,35a,35c,35f,362 336,337 335 305 309 30f 310 311 31b 321 322 323 324 325 "
    "326 32d 32e 330 331 334 339 345 358 360 361 363 368 369 364 36a 365 36b 366 36c 36d 367 36e 36f"
)
_SECONDARY = {chr(int(h, 16)): rank for rank, group in enumerate(_ACCENT_ORDER.split(), 1) for h in group.split(",")}


def locale_compare_key(text: str) -> tuple[list[int], list[int], list[int]]:
    """A sort key ordering strings as `a.localeCompare(b)` does under ICU's root collation:
    base characters first (punctuation is not ignored), then accents, then case (lower first).

    Exact for ASCII and for Latin letters with decomposable accents; any other character sorts
    after those by code point (ICU's order of scripts is not reproduced).
    """
    primary: list[int] = []
    secondary: list[int] = []
    tertiary: list[int] = []
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.combining(ch):  # an accent weighs at the second level only
            secondary.append(_SECONDARY.get(ch, 0x1000 + ord(ch)))
            tertiary.append(0)
            continue
        lower = ch.lower()
        primary.append(_PRIMARY.get(ch, _PRIMARY.get(lower, 0x100 + ord(lower[0]))))
        secondary.append(0)
        tertiary.append(0 if ch == lower else 1)
    return primary, secondary, tertiary
