"""JSON read from a file a person or another program may have written: one way to parse it.

`json.loads` meets a deeply nested value (`[[[[…` a hundred thousand times, a fuzzer's or a
broken writer's) with a RecursionError, which no caller catches as bad data: every verb that read
the file ended in a traceback. `load_json` turns it into the JSONDecodeError every reader already
answers as a damaged file (skipped, or one line naming it).
"""
from __future__ import annotations

import json
from typing import Any

__all__ = ["load_json"]


def load_json(data: str | bytes | bytearray) -> Any:
    """`json.loads(data)`; a value nested too deeply is a JSONDecodeError, like any bad JSON."""
    try:
        return json.loads(data)
    except RecursionError:
        doc = data if isinstance(data, str) else bytes(data[:200]).decode("utf-8", "replace")
        raise json.JSONDecodeError("nested too deeply", doc, 0) from None
