"""Terminal-safe text: what a memory file holds is shown, never obeyed, on every path to a terminal.

A fragment, a shard, a slug or a file name can hold ESC sequences (retitle the window, clear the
screen), C1 controls (U+009B is CSI on its own) or bidirectional overrides (U+202E reverses what
follows). The CLI's lines, its error lines on stderr and its JSON show them as escapes.
"""
from __future__ import annotations

import json
import os

from dreamdeck.core.formats.terminal_text import terminal_json, terminal_text
from tests.support.memory import fragment_line, write_stream
from tests.support.processes import run_cli

D = "2026-05-22"
HOSTILE = "see \x1b]0;pwned\x07 then \x1b[2J cleared \x9b31m red, \u202etxt.exe\u202c and \u2066x\u2069\u2028done"
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\u202c", "\u2066", "\u2069", "\u2028")


def assert_nothing_raw(text: str) -> None:
    assert not [c for c in RAW if c in text], repr(text)


def test_terminal_text_shows_controls_bidi_overrides_and_separators_as_escapes():
    shown = terminal_text(HOSTILE)
    assert_nothing_raw(shown)
    assert shown == ("see \\x1b]0;pwned\\x07 then \\x1b[2J cleared \\x9b31m red, \\u202etxt.exe\\u202c and "
                     "\\u2066x\\u2069\\u2028done")


def test_terminal_text_keeps_layout_scripts_emoji_and_shows_a_lone_surrogate():
    ordinary = "line one\n\tindented 数据库 Сергей 👨\u200d👩\u200d👧 café"
    assert terminal_text(ordinary) == ordinary
    assert terminal_text("cut \ud83d") == "cut \\ud83d"


def test_terminal_json_is_the_same_json_with_nothing_a_terminal_obeys():
    value = {"body": HOSTILE, "topic": "a\x9bb", "who": "\u202eeve", "cut": "x\ud83d"}
    text = terminal_json(json.dumps(value, ensure_ascii=False))
    assert_nothing_raw(text)
    assert "\ud83d" not in text
    assert json.loads(text) == value


def test_stream_shows_a_hostile_fragment_escaped_in_text_and_in_json(agent_dir):
    write_stream(agent_dir, D, [fragment_line(D, 1, "deploy\x1b[31m", HOSTILE, who="\u202eeve")])
    plain = run_cli(agent_dir, "stream", "--date", D, today=D)
    assert_nothing_raw(plain.stdout)
    assert "\\x1b]0;pwned\\x07" in plain.stdout and "\\u202etxt.exe" in plain.stdout
    as_json = run_cli(agent_dir, "stream", "--date", D, "--json", today=D)
    assert_nothing_raw(as_json.stdout)
    assert json.loads(as_json.stdout)["body"] == HOSTILE


def test_a_refusal_naming_a_hostile_file_shows_its_name_escaped(agent_dir, tmp_path):
    topics = agent_dir / "memory" / "topics"
    topics.mkdir(parents=True)
    (tmp_path / "elsewhere.md").write_text("# elsewhere\n")
    os.symlink(tmp_path / "elsewhere.md", topics / "ev\x1b]0;pwned\x07il.md")
    write_stream(agent_dir, D, [fragment_line(D, 1, "deploy", "Ships on Tuesdays.")])
    proc = run_cli(agent_dir, "dream", "--dreamer", "offline", today=D, check=False)
    assert proc.returncode not in (0, 70), proc.stderr
    assert_nothing_raw(proc.stderr)
    assert "memory/topics/ev\\x1b]0;pwned\\x07il.md is a symbolic link" in proc.stderr


def test_a_usage_error_naming_a_hostile_option_shows_it_escaped(agent_dir):
    proc = run_cli(agent_dir, "topics", "--\x1b]0;pwned\x07", today=D, check=False)
    assert proc.returncode == 2
    assert_nothing_raw(proc.stderr)
    assert "\\x1b]0;pwned\\x07" in proc.stderr


def test_the_warning_naming_a_linked_shard_with_a_hostile_name_shows_it_escaped(agent_dir, tmp_path):
    topics = agent_dir / "memory" / "topics"
    topics.mkdir(parents=True)
    (tmp_path / "elsewhere.md").write_text("# elsewhere\n")
    os.symlink(tmp_path / "elsewhere.md", topics / "evil\x1b]0;pwned\x07\u202edm.md")
    proc = run_cli(agent_dir, "topics", today=D, check=False)
    assert_nothing_raw(proc.stderr)
    assert "evil\\x1b]0;pwned\\x07\\u202edm.md" in proc.stderr
