"""core.state: `memory/.dreaming-state.json` v2 (dreaming-state.test.ts, reference §3).

TypeClaw loads a bad file as empty state, silently; dreamdeck loads it as empty too and also
returns the reason, so a corrupt file is reported instead of re-dreaming everything unnoticed.
"""
from __future__ import annotations

import json
import os
import re

import pytest

from dreamdeck.core.store.state import DreamingState, load_state, save_state

TS = "2026-05-16T14:30:02+09:00"


@pytest.fixture
def path(tmp_path):
    return tmp_path / "memory" / ".dreaming-state.json"


def write(path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def valid(**days) -> str:
    return json.dumps({"version": 2, "dreamedThrough": days})


# --- loading -------------------------------------------------------------------------------------------
def test_a_missing_file_is_empty_state_and_no_problem(path):
    state, problem = load_state(path)
    assert state.days == {}
    assert problem is None


@pytest.mark.parametrize(
    "text,why",
    [
        ("{not json", "invalid JSON"),
        ("", "invalid JSON"),
        ("2026-05-16:1-20\n2026-05-17:1-4\n", "invalid JSON"),  # the rejected v1 lines format
        ('{"version": 1, "dreamedThrough": {}}', "version is 1, expected 2"),
        ('{"version": "2", "dreamedThrough": {}}', "version is '2', expected 2"),
        ('{"dreamedThrough": {}}', "version is None"),
        ("[]", "not a JSON object"),
        ('{"version": 2}', "'dreamedThrough' is not an object"),
        ('{"version": 2, "dreamedThrough": []}', "'dreamedThrough' is not an object"),
        ('{"version": 2, "dreamedThrough": {"2026-05-16": []}}', "entry for 2026-05-16 is not an object"),
        ('{"version": 2, "dreamedThrough": {"2026-05-16": {"ts": "x"}}}', "dreamedIds for 2026-05-16"),
        ('{"version": 2, "dreamedThrough": {"2026-05-16": {"dreamedIds": "a", "ts": "x"}}}', "dreamedIds for 2026-05-16"),
        ('{"version": 2, "dreamedThrough": {"2026-05-16": {"dreamedIds": ["a", 7], "ts": "x"}}}', "dreamedIds for 2026-05-16"),
        ('{"version": 2, "dreamedThrough": {"2026-05-16": {"dreamedIds": ["a", null], "ts": "x"}}}', "dreamedIds for 2026-05-16"),
        ('{"version": 2, "dreamedThrough": {"2026-05-16": {"dreamedIds": ["a", ""], "ts": "x"}}}', "dreamedIds for 2026-05-16"),
        ('{"version": 2, "dreamedThrough": {"2026-05-16": {"dreamedIds": ["a"]}}}', "ts for 2026-05-16"),
        ('{"version": 2, "dreamedThrough": {"2026-05-16": {"dreamedIds": ["a"], "ts": 5}}}', "ts for 2026-05-16"),
    ],
)
def test_a_bad_file_loads_as_empty_state_and_reports_why(path, text, why):
    write(path, text)
    state, problem = load_state(path)
    assert state.days == {}
    assert problem is not None
    assert problem.startswith(".dreaming-state.json: ")
    assert why in problem


def test_a_bad_file_problem_says_what_it_costs(path):
    write(path, '{"version": 1}')
    assert "every fragment would be re-dreamed" in load_state(path)[1]


def test_a_file_that_is_not_utf8_is_reported_not_raised(path):
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"version": 2, "dreamedThrough": {"\xff": 1}}')
    state, problem = load_state(path)
    assert state.days == {} and "unreadable" in problem


def test_one_bad_day_empties_the_whole_state(path):
    write(path, valid(**{"2026-05-15": {"dreamedIds": ["a"], "ts": TS}, "2026-05-16": {"dreamedIds": [1], "ts": TS}}))
    assert load_state(path)[0].days == {}


def test_a_valid_file_loads_with_no_problem(path):
    write(path, valid(**{"2026-05-16": {"dreamedIds": ["b", "a"], "ts": TS}}))
    state, problem = load_state(path)
    assert problem is None
    assert state.dreamed_ids("2026-05-16") == {"a", "b"}
    assert state.dreamed_ids("2026-05-17") == set()


def test_an_empty_id_list_is_valid(path):
    write(path, valid(**{"2026-05-16": {"dreamedIds": [], "ts": TS}}))
    state, problem = load_state(path)
    assert problem is None and "2026-05-16" in state.days


def test_loading_keeps_the_files_date_order(path):
    write(path, valid(**{d: {"dreamedIds": ["x"], "ts": TS} for d in ("2026-05-20", "2026-05-01", "2026-05-10")}))
    assert list(load_state(path)[0].days) == ["2026-05-20", "2026-05-01", "2026-05-10"]


# --- saving ----------------------------------------------------------------------------------------------
def test_save_writes_json_stringify_with_two_space_indent_and_a_newline(path):
    state = DreamingState().add_dreamed("2026-05-16", ["019e...b", "019e...a"], TS)
    save_state(path, state)
    assert path.read_text(encoding="utf-8") == (
        "{\n"
        '  "version": 2,\n'
        '  "dreamedThrough": {\n'
        '    "2026-05-16": {\n'
        '      "dreamedIds": [\n'
        '        "019e...a",\n'
        '        "019e...b"\n'
        "      ],\n"
        '      "ts": "2026-05-16T14:30:02+09:00"\n'
        "    }\n"
        "  }\n"
        "}\n"
    )


def test_an_empty_state_saves_as_json_stringify_does(path):
    save_state(path, DreamingState())
    assert path.read_text() == '{\n  "version": 2,\n  "dreamedThrough": {}\n}\n'


def test_an_empty_id_list_saves_as_an_empty_array(path):
    save_state(path, DreamingState({"2026-05-16": {"dreamedIds": [], "ts": TS}}))
    assert '"dreamedIds": [],' in path.read_text()


def test_non_ascii_is_written_raw(path):
    save_state(path, DreamingState().add_dreamed("2026-05-16", ["아이디"], TS))
    assert '"아이디"' in path.read_text(encoding="utf-8")


def test_save_creates_the_folder(path):
    assert not path.parent.exists()
    save_state(path, DreamingState())
    assert path.is_file()


def test_save_then_load_round_trips(path):
    state = DreamingState().add_dreamed("2026-05-16", ["a", "b"], TS).add_dreamed("2026-05-15", ["c"], TS)
    save_state(path, state)
    loaded, problem = load_state(path)
    assert problem is None
    assert loaded.days == state.days
    assert list(loaded.days) == ["2026-05-16", "2026-05-15"]


def test_load_then_save_reproduces_a_typeclaw_file_byte_for_byte(path):
    original = {"version": 2, "dreamedThrough": {
        "2026-05-17": {"dreamedIds": ["019e-a", "019e-b"], "ts": "2026-05-17T01:00:00+09:00"},
        "2026-05-16": {"dreamedIds": ["019e-c"], "ts": TS},
    }}
    text = json.dumps(original, indent=2) + "\n"
    write(path, text)
    save_state(path, load_state(path)[0])
    assert path.read_text() == text


def test_save_is_atomic_and_leaves_no_temp_file(path):
    save_state(path, DreamingState())
    inode = os.stat(path).st_ino
    save_state(path, DreamingState().add_dreamed("2026-05-16", ["a"], TS))
    assert os.stat(path).st_ino != inode  # replaced by rename, never rewritten in place
    assert os.listdir(path.parent) == [".dreaming-state.json"]


# --- updating ---------------------------------------------------------------------------------------------
def test_add_dreamed_does_not_mutate_its_input():
    before = DreamingState({"2026-05-16": {"dreamedIds": ["a"], "ts": "old"}})
    snapshot = json.dumps(before.days)
    after = before.add_dreamed("2026-05-16", ["b"], TS)
    after2 = before.add_dreamed("2026-05-17", ["c"], TS)
    assert json.dumps(before.days) == snapshot
    assert after is not before and after2 is not before


def test_add_dreamed_merges_deduplicates_and_sorts():
    state = DreamingState().add_dreamed("2026-05-16", ["c", "a"], "t1").add_dreamed("2026-05-16", {"b", "a", "c"}, TS)
    assert state.days["2026-05-16"] == {"dreamedIds": ["a", "b", "c"], "ts": TS}


def test_add_dreamed_sorts_like_a_javascript_default_sort_for_ids():
    ids = ["019e2eca-6fc6-7", "019e2eca-6fc5-7", "019E", "f-keep", "10", "9"]
    assert DreamingState().add_dreamed("d", ids, TS).days["d"]["dreamedIds"] == ["019E", "019e2eca-6fc5-7", "019e2eca-6fc6-7", "10", "9", "f-keep"]


def test_add_dreamed_keeps_other_dates():
    state = DreamingState().add_dreamed("2026-05-15", ["x"], "t0").add_dreamed("2026-05-16", ["y"], TS)
    assert state.days["2026-05-15"] == {"dreamedIds": ["x"], "ts": "t0"}


def test_a_new_date_is_appended_at_the_end_and_an_existing_date_keeps_its_place():
    state = DreamingState().add_dreamed("2026-05-20", ["a"], TS).add_dreamed("2026-05-01", ["b"], TS)
    state = state.add_dreamed("2026-05-20", ["c"], TS).add_dreamed("2026-05-10", ["d"], TS)
    assert list(state.days) == ["2026-05-20", "2026-05-01", "2026-05-10"]


def test_remove_dreamed_returns_ids_to_the_undreamed_tail_without_mutating():
    before = DreamingState().add_dreamed("2026-05-16", ["a", "b", "c"], "t0")
    after = before.remove_dreamed("2026-05-16", {"b", "zz"}, TS)
    assert after.days["2026-05-16"] == {"dreamedIds": ["a", "c"], "ts": TS}
    assert before.dreamed_ids("2026-05-16") == {"a", "b", "c"}


def test_remove_dreamed_on_an_unknown_date_changes_nothing():
    state = DreamingState().add_dreamed("2026-05-16", ["a"], TS)
    assert state.remove_dreamed("2026-05-17", {"a"}, TS).days == state.days


# --- atomic writes (core.atomic, which state saves go through) ----------------------------------------
def test_atomic_write_creates_folders_and_writes_exact_bytes(tmp_path):
    from dreamdeck.core.io.atomic import atomic_write_bytes

    target = tmp_path / "a" / "b" / "f.bin"
    atomic_write_bytes(target, b"\x00raw\r\nbytes")
    assert target.read_bytes() == b"\x00raw\r\nbytes"


def test_a_failed_atomic_write_keeps_the_old_bytes_and_leaves_no_temp_file(tmp_path, monkeypatch):
    from dreamdeck.core.io import atomic

    target = tmp_path / "state.json"
    target.write_bytes(b"old")

    def broken_replace(src, dst, **_dir_fds):
        raise OSError("disk full")

    monkeypatch.setattr(atomic.os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        atomic.atomic_write_text(target, "new")
    monkeypatch.undo()
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["state.json"]


def test_remove_file_reports_whether_there_was_a_file(tmp_path):
    from dreamdeck.core.io.atomic import remove_file

    target = tmp_path / "x"
    target.write_text("x")
    assert remove_file(target) is True
    assert not target.exists()
    assert remove_file(target) is False


# --- rendering only what changed --------------------------------------------------------------------------
def stringify(state: DreamingState) -> str:
    """JSON.stringify(state, null, 2) + "\\n", by the standard library's own (slow) encoder."""
    text = json.dumps({"version": 2, "dreamedThrough": dict(state.days)}, indent=2, ensure_ascii=False) + "\n"
    return re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", text)  # as JSON.stringify escapes them


def test_every_state_in_a_chain_of_updates_renders_exactly_as_json_stringify():
    """A state derived from a rendered one re-renders only the days it changed: whatever the
    order of adds, removes, renders and odd ids, the bytes are always the full rendering's."""
    import random

    rng = random.Random(7)
    odd = ['quote"d', "back\\slash", "tab\there", "아이디", "ctl\x01", "\u2028sep", "lone\ud800surrogate"]
    days = [f"2026-05-{d:02d}" for d in range(1, 9)]
    states = [DreamingState()]
    for step in range(400):
        base = rng.choice(states[-5:])
        day = rng.choice(days)
        ids = {rng.choice(odd) if rng.random() < 0.1 else f"019e-{rng.randrange(50):04x}" for _ in range(rng.randrange(1, 6))}
        ts = f"2026-05-16T14:{step % 60:02d}:00+09:00"
        nxt = base.add_dreamed(day, ids, ts) if rng.random() < 0.7 else base.remove_dreamed(day, ids, ts)
        if rng.random() < 0.5:
            base.to_json()  # fill the parent's rendering before or after deriving
        states.append(nxt)
        assert nxt.to_json() == stringify(nxt)
        assert base.to_json() == stringify(base)  # deriving never changes the parent's bytes


def test_a_saved_state_is_what_the_next_load_returns_until_someone_else_writes_the_file(path):
    state = DreamingState().add_dreamed("2026-05-16", ["a", "b"], TS)
    save_state(path, state)
    # What was just written is not trusted from memory until the file settles (core.io.cache),
    # but it is not parsed either: the index of the file dreamdeck wrote vouches for its bytes.
    again = load_state(path)[0]
    assert again.days.parsed() == set() and again == state
    # TypeClaw writes the file in place with a plain writeFile: the next load reads its bytes.
    theirs = DreamingState().add_dreamed("2026-05-16", ["a", "b", "c"], TS)
    with open(path, "r+", encoding="utf-8") as fh:
        fh.write(theirs.to_json())
    loaded, problem = load_state(path)
    assert problem is None and loaded.dreamed_ids("2026-05-16") == {"a", "b", "c"}


# --- a fresh process and the index of the file dreamdeck last wrote -------------------------------------
def fresh_load(path):
    """load_state as a new process does it: no in-process cache."""
    from dreamdeck.core.io.cache import clear_all

    clear_all()
    return load_state(path)


def year(days: int = 30, per_day: int = 50) -> DreamingState:
    state = DreamingState()
    for d in range(days):
        day = f"2026-04-{d + 1:02d}"
        state = state.add_dreamed(day, {f"019e{d:04x}-{n:04x}" for n in range(per_day)}, TS)
    return state


@pytest.mark.perf_contract(reason="a fresh process parses only the days of .dreaming-state.json it asks for")
def test_a_fresh_process_parses_only_the_days_it_asks_for_from_a_file_dreamdeck_wrote(path):
    from dreamdeck.core.store.state import LazyDays

    state = year()
    save_state(path, state)
    loaded, problem = fresh_load(path)
    assert problem is None and isinstance(loaded.days, LazyDays)
    assert loaded.days.parsed() == set()
    assert b"".join(loaded.json_parts()) == path.read_bytes()  # written back without parsing
    assert loaded.ids_digest("2026-04-03") == state.ids_digest("2026-04-03")
    assert loaded.days.parsed() == set()
    assert loaded.dreamed_ids("2026-04-07") == state.dreamed_ids("2026-04-07")
    assert loaded.days.parsed() == {"2026-04-07"}
    nxt = loaded.add_dreamed("2026-04-07", {"new-id"}, "2026-05-16T15:00:00+09:00").add_dreamed("2026-05-01", {"x"}, TS)
    save_state(path, nxt)
    assert path.read_text(encoding="utf-8") == stringify(nxt)  # byte for byte JSON.stringify
    assert loaded.days.parsed() == {"2026-04-07"}  # deriving and saving parsed nothing more
    again, _ = fresh_load(path)
    assert again.days == nxt.days and list(again.days) == list(nxt.days)  # every day, parsed on demand


def test_a_file_someone_else_rewrote_even_to_the_same_size_is_parsed_whole(path):
    from dreamdeck.core.store.state import LazyDays

    save_state(path, year())
    text = path.read_text(encoding="utf-8")
    theirs = text.replace("019e0004-0007", "019e0004-0fff")  # same size, other bytes
    assert len(theirs) == len(text) and theirs != text
    with open(path, "r+", encoding="utf-8") as fh:  # TypeClaw's writeFile: in place
        fh.write(theirs)
    loaded, problem = fresh_load(path)
    assert problem is None and not isinstance(loaded.days, LazyDays)
    assert "019e0004-0fff" in loaded.dreamed_ids("2026-04-05") and "019e0004-0007" not in loaded.dreamed_ids("2026-04-05")


@pytest.mark.parametrize("damage", ["garbage", "wrong-shape", "shifted", "missing"])
def test_a_damaged_or_lying_index_is_ignored_and_the_file_parsed(path, damage):
    from dreamdeck.core.store.state import LazyDays
    from dreamdeck.core.store.state_index import index_path

    state = year(days=5, per_day=3)
    save_state(path, state)
    index = index_path(path)
    if damage == "garbage":
        index.write_text("{")
    elif damage == "wrong-shape":
        index.write_text(json.dumps({"version": 1, "size": "x", "crc": 1, "days": []}))
    elif damage == "shifted":  # right size and CRC, but the days' places are off by one byte
        data = json.loads(index.read_text())
        data["days"] = [[d, a + 1, b + 1, h] for d, a, b, h in data["days"]]
        index.write_text(json.dumps(data))
    else:
        index.unlink()
    loaded, problem = fresh_load(path)
    assert problem is None and not isinstance(loaded.days, LazyDays)
    assert loaded.days == state.days
