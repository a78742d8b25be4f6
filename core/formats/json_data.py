"""JSON read from a file a person or another program may have written: one way to parse it.

`json.loads` meets a deeply nested value (`[[[[…` a hundred thousand times, a fuzzer's or a
broken writer's) with a RecursionError, which no caller catches as bad data: every verb that read
the file ended in a traceback. `load_json` turns it into the JSONDecodeError every reader already
answers as a damaged file (skipped, or one line naming it).

`dump_json_record` is the one way dreamdeck writes a record under memory/meta/ (a reflection, a
receipt): two writers of the same record (an approval and the door finishing it after a kill)
give the same bytes.
"""
from __future__ import annotations

import json
from typing import Any

__all__ = ["dump_json_record", "load_json"]


def load_json(data: str | bytes | bytearray) -> Any:
    """`json.loads(data)`; a value nested too deeply is a JSONDecodeError, like any bad JSON."""
    try:
        return json.loads(data)
    except RecursionError:
        doc = data if isinstance(data, str) else bytes(data[:200]).decode("utf-8", "replace")
        raise json.JSONDecodeError("nested too deeply", doc, 0) from None


def dump_json_record(data: Any) -> str:
    """A record's text: two-space indents, non-ASCII as written, one final newline."""
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
