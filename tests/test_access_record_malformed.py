"""`dreamdeck access` passes over a line of the access record whose fields have the wrong types,
as it passes over one that is not JSON, and lists the others.

Found by the attacker round (session 10): a line with `"ts": null` (or a number for the query, a
list for the detail) printed a TypeError traceback and "this is a bug in dreamdeck".
"""
from __future__ import annotations

import json

import pytest

from tests.support.outside import D, run_cli, seeded_agent

GOOD = {"ts": "2026-05-22T10:00:00+00:00", "day": D, "op": "recall", "query": "green tea", "items": ["topic:tea"],
        "detail": {"budget": "balanced"}}


@pytest.mark.parametrize("field,value", [("ts", None), ("op", 7), ("query", ["x"]), ("detail", [1]), ("ts", 5)])
def test_a_record_line_with_a_wrong_typed_field_is_passed_over(agent_dir, field, value):
    root = seeded_agent(agent_dir)
    record = root / "memory" / "meta" / "access.jsonl"
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps(GOOD) + "\n" + json.dumps({**GOOD, field: value, "query": "bad line"}
                                                           if field != "query" else {**GOOD, field: value}) + "\n")

    proc = run_cli(root, "access")

    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "green tea" in proc.stdout and "bad line" not in proc.stdout
