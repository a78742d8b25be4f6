"""doctor's compiled check of the dreaming state file (`ops.doctor_state`): the same problem as
`store.state.load_state` for a sound file and for each way JSON libraries differ."""
from __future__ import annotations

import pytest

from dreamdeck.core.io.no_links import LinkRefused
from dreamdeck.core.ops import doctor_state
from dreamdeck.core.ops.doctor_state import state_problem
from dreamdeck.core.store.state import load_state

SOUND = b'{\n  "version": 2,\n  "dreamedThrough": {\n    "2026-05-20": {\n      "dreamedIds": [\n        "a",\n        "b"\n      ],\n      "ts": "2026-05-21T03:00:00.000Z"\n    }\n  }\n}\n'


@pytest.mark.parametrize("raw", [
    SOUND,
    b'{"version":2,"dreamedThrough":{}}',
    b'{"version":2,"dreamedThrough":{"d":{"dreamedIds":[],"ts":""}}}',
    SOUND.replace(b'"b"', b'"\\u00e9 \\ud83d\\ude00"'),  # escapes, a surrogate pair
    SOUND.replace(b'"version": 2', b'"version": 3'),
    SOUND.replace(b'"version": 2', b'"version": 2.0'),  # Python's json: 2.0 == 2
    SOUND.replace(b'"version": 2', b'"version": true'),
    SOUND.replace(b'"version": 2,', b'"version": 3, "version": 2,'),  # a key given twice: the last
    SOUND.replace(b'"version": 2,', b'"version": 2, "version": 3,'),
    SOUND.replace(b'"a"', b'""'),
    SOUND.replace(b'"a"', b"1"),
    SOUND.replace(b'"a"', b'"\\ud800"'),  # a lone surrogate: Python's json takes it
    SOUND.replace(b'"a"', b'"\xff"'),  # not UTF-8
    b"\xef\xbb\xbf" + SOUND,  # a BOM
    SOUND.replace(b'"ts"', b'"extra": NaN, "ts"'),  # another key, and a constant JSON has not
    SOUND.replace(b'"ts"', b'"extra": 1, "ts"'),
    SOUND.replace(b'"version"', b'"other": [1, {"x": "\\q"}], "version"'),
    SOUND.replace(b'"ts": "2026-05-21T03:00:00.000Z"', b'"ts": 5'),
    SOUND.replace(b'"dreamedIds"', b'"dreamedIDs"'),
    b'[2]', b"{not json", b"", b"null", SOUND[:-5],
])
def test_the_state_problem_is_the_one_load_state_words(tmp_path, raw):
    path = tmp_path / ".dreaming-state.json"
    path.write_bytes(raw)

    assert state_problem(path) == load_state(path)[1]


def test_a_sound_state_and_no_state_are_answered_without_load_state(tmp_path, monkeypatch):
    path = tmp_path / ".dreaming-state.json"
    path.write_bytes(SOUND)

    def refuse(_path):
        raise AssertionError("load_state was asked")

    monkeypatch.setattr(doctor_state, "load_state", refuse)
    assert state_problem(path) is None
    assert state_problem(tmp_path / "none.json") is None


def test_a_linked_state_file_is_refused_as_load_state_refuses_it(tmp_path):
    real = tmp_path / "real.json"
    real.write_bytes(SOUND)
    (tmp_path / ".dreaming-state.json").symlink_to(real)

    for check in (state_problem, load_state):
        with pytest.raises(LinkRefused):
            check(tmp_path / ".dreaming-state.json")
