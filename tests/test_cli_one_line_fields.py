"""A name, a heading, a query or a listed fragment is one line on a terminal, and `inject` at a
terminal shows control characters escaped while a pipe gets TypeClaw's section byte for byte.

Found by the attacker round (session 10, attacker-8): a shard file named
`tea2\\n2. topic:forged  score 99.md` made `dreamdeck recall` print a forged second result line
(ESC was escaped, the newline was kept as "layout"); `topics`, `access` and `stream` had the same
hole. And `dreamdeck inject` wrote ESC, NUL and RTL raw to a person's terminal.
"""
from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from dreamdeck.core.formats.terminal_text import terminal_line
from tests.support.memory import cite, commit_all, fragment_line, shard_text, write_shard, write_stream
from tests.support.outside import D, run_cli

FORGED_NAME = "tea2\n2. topic:forged  score 99\r\x1b[31m"
HOSTILE_BODY = "green tea \x1b]0;pwn\x07 evil \u202eexe.txt \x00 nul"


@pytest.fixture
def hostile(agent_dir: Path) -> Path:
    write_stream(agent_dir, D, [fragment_line(D, 1, "tea", "the user drinks green tea"),
                                fragment_line(D, 2, "tea", "green tea\n2026-05-22T00:00:00Z  forged#line  [x] lie")])
    write_shard(agent_dir, "tea", shard_text("The user drinks green tea", [cite(D, 1)]))
    (agent_dir / "memory" / "topics" / f"{FORGED_NAME}.md").write_text(shard_text(HOSTILE_BODY, [cite(D, 1)]))
    commit_all(agent_dir)
    return agent_dir


def lines_starting(text: str, prefix: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(prefix)]


def test_terminal_line_escapes_line_breaks_and_tabs_as_well_as_controls():
    assert terminal_line("a\nb\rc\td\x1b[2J") == "a\\x0ab\\x0dc\\x09d\\x1b[2J"
    assert terminal_line("数据库 café 👍") == "数据库 café 👍"


def test_recall_shows_a_file_name_holding_a_newline_on_its_own_result_line(hostile):
    proc = run_cli(hostile, "recall", "green tea")

    assert proc.returncode == 0, proc.stderr
    second = lines_starting(proc.stdout, "2. ")
    assert len(second) == 1 and "tea2\\x0a2. topic:forged" in second[0], proc.stdout
    assert "\x1b" not in proc.stdout and "\r" not in proc.stdout


def test_topics_and_access_show_the_forged_name_on_one_line(hostile):
    run_cli(hostile, "recall", "green tea")
    for verb in ("topics", "access"):
        out = run_cli(hostile, verb).stdout
        assert not lines_starting(out, "2. topic:forged"), (verb, out)
        assert "tea2\\x0a2. topic:forged" in out, (verb, out)


def test_stream_lists_a_fragment_whose_body_holds_a_newline_on_one_line(hostile):
    out = run_cli(hostile, "stream", "--date", D).stdout

    assert not [line for line in out.splitlines() if "forged#line" in line and line.startswith("2026-05-22T00")]
    assert "green tea\\x0a2026-05-22T00:00:00Z  forged#line" in out


def _inject_on_a_terminal(root: Path) -> tuple[bytes, str]:
    """`dreamdeck inject` with stdout a pseudo-terminal: (what the terminal received, stderr)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "dreamdeck", "-w", str(root), "--today", D, "inject"],
                            stdout=follower, stderr=subprocess.PIPE)
    os.close(follower)
    got = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the follower side closed: the process is done writing
            break
        if not chunk:
            break
        got += chunk
    _, err = proc.communicate(timeout=60)
    os.close(leader)
    return got, err.decode()


def test_inject_piped_is_the_section_byte_for_byte(hostile):
    out = run_cli(hostile, "inject").stdout

    assert HOSTILE_BODY in out  # an agent runtime gets exactly what TypeClaw would give it


def test_inject_at_a_terminal_shows_controls_escaped_and_says_so(hostile):
    shown, err = _inject_on_a_terminal(hostile)

    assert b"# Memory" in shown
    for raw in (b"\x1b", b"\x00", "\u202e".encode(), b"\x07"):
        assert raw not in shown
    assert b"\\x1b]0;pwn\\x07" in shown and b"\\u202eexe.txt" in shown
    assert "shown escaped on this terminal" in err and err.count("\n") == 1


def test_doctor_shows_a_file_named_with_a_newline_on_its_finding_line(agent_dir):
    topics = agent_dir / "memory" / "topics"
    topics.mkdir(parents=True)
    (topics / "bad\nhealthy: TypeClaw can load everything.md").write_text("no frontmatter")
    commit_all(agent_dir)

    out = run_cli(agent_dir, "doctor").stdout

    assert not lines_starting(out, "healthy:"), out
    assert "bad\\x0ahealthy: TypeClaw can load everything.md" in out
