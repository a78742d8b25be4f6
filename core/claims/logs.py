"""Log lines: keys whose values observe a moment or an event, never a setting's value.

An agent's notes repeat lines whose value changes by nature: "cost today: $7.29", "PR merged:
<link>", a jobs table's "last run" cell. Each is an observation of its day, not a setting that
changed, so a new value never contradicts the last one:
- `is_log_key(key)`: a key naming a day or the last occurrence ("cost today", "last run",
  "今日成本", "上次运行", "오늘"), or ending in what happened ("PR merged", "tickets answered",
  "合并了 PR"), but not in a state a setting holds ("preferred editor", "max allowed size") nor
  in a change verb, which announces a new value ("the release train has moved: …");
- `table_cells(text)`, `logs_each_row(header)`: a Markdown table row's cells, and whether a
  table's header names such a moment in a value column ("| job | last run | result |").
"""
from __future__ import annotations

import re

from dreamdeck.core.claims.tokens import CHANGE_VERBS, STATE_VERBS, is_past

__all__ = ["STATE_PARTICIPLES", "ZH_PAST", "is_log_key", "logs_each_row", "table_cells"]

# A Chinese report of what was done: a verb with 了 ("回复了", not 为了/除了/了解), or 已 before a
# verb ("已验证", not the state "已被封禁").
ZH_PAST = re.compile(r"[\u4e00-\u9fff](?<![为除])了(?!解)|已(?:经)?(?!被)[\u4e00-\u9fff]")

# A key naming a day or the latest occurrence ("cost today", "last run", "今日成本", "上次运行"),
# or ending in what happened ("PR merged", "合并了 PR"), is a log line: each value an observation.
_MOMENT_WORDS = frozenset("today tonight yesterday last".split())
_MOMENT_WIDE = re.compile(r"今日|今天|昨天|昨日|今晚|当日|当天|本次|上次|最近一次|오늘|어제|마지막|최근")
# Participles that name a state a setting holds, not an event: "preferred editor", "allowed hosts".
STATE_PARTICIPLES = frozenset(f"""
allowed required supported preferred blocked locked pinned expected limited scheduled reserved
assigned approved selected trusted banned muted configured {STATE_VERBS.replace("|", " ")}
{CHANGE_VERBS.replace("|", " ")}
""".split())  # and a change verb announces a new value: "the release train has moved: …"


def is_log_key(key: str) -> bool:
    """A key whose values are observations of a moment or an event, never a setting's value."""
    words = re.findall(r"[a-z]+", key.lower())
    moments = _MOMENT_WORDS.intersection(words) - ({"last"} if "name" in words else set())  # "last name"
    if moments or _MOMENT_WIDE.search(key) or ZH_PAST.search(key):
        return True
    return bool(words) and is_past(words[-1]) and words[-1] not in STATE_PARTICIPLES


def table_cells(text: str) -> list[str] | None:
    """The cells of a body that is one Markdown table row ("| reindex | 03:41 | ok |"), else None."""
    line = text.strip()
    if not line.startswith("|") or "\n" in line:
        return None
    return [c.strip() for c in line.strip("|").split("|")]


def logs_each_row(header: list[str]) -> bool:
    """A table whose header names a moment or an event in a value column ("| job | last run |
    result |"): each row is an observation of its first cell, never a setting's new value."""
    return any(is_log_key(cell) for cell in header[1:])
