"""The golden cases of TypeClaw v0.45.1, as data: each is an input and what TypeClaw's own
function returned for it (produced by running TypeClaw's code, see tests/data/typeclaw/README.md)."""
from __future__ import annotations

import base64
import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).resolve().parent.parent / "data" / "typeclaw"


def cases(suite: str, skip: dict[str, str] | None = None) -> list[Any]:
    """pytest params of one golden file, named by case; `skip` marks cases that cannot hold, with why."""
    skip = skip or {}
    out = []
    for case in json.loads((DATA / f"{suite}.json").read_text(encoding="utf-8")):
        marks = [pytest.mark.skip(reason=skip[case["name"]])] if case["name"] in skip else []
        out.append(pytest.param(case, id=case["name"], marks=marks))
    unknown = set(skip) - {p.id for p in out}
    assert not unknown, f"skip list names no case: {unknown}"
    return out


def case_named(suite: str, name: str) -> dict[str, Any]:
    return next(c for c in json.loads((DATA / f"{suite}.json").read_text(encoding="utf-8")) if c["name"] == name)


def file_bytes(spec: Any) -> bytes:
    """A file as the harness wrote it: text as UTF-8, or `{"b64": ...}` for raw bytes."""
    if isinstance(spec, dict):
        return base64.b64decode(spec["b64"])
    return spec.encode("utf-8")


def input_bytes(case: dict[str, Any]) -> bytes:
    return base64.b64decode(case["input_b64"]) if "input_b64" in case else case["input"].encode("utf-8")


def input_text(case: dict[str, Any]) -> str:
    """The input as TypeClaw's `readFile(path, 'utf8')` sees it: BOM kept, bad bytes as U+FFFD."""
    return input_bytes(case).decode("utf-8", "replace")


@contextmanager
def local_zone(tz: str) -> Iterator[None]:
    old = os.environ.get("TZ")
    os.environ["TZ"] = tz
    time.tzset()
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = old
        time.tzset()


def today_of(case: dict[str, Any]) -> str:
    """The case's local date (TypeClaw's `formatLocalDate()`), by our own local-date function."""
    if "today" in case:
        return case["today"]
    from dreamdeck.core.workspace import local_datetime_iso

    with local_zone(case.get("tz", "UTC")):
        return local_datetime_iso(datetime.fromisoformat(case["now"].replace("Z", "+00:00")))[:10]
