"""A GC note keeps every collected line whole: a fragment line or a reason holding U+2028, U+2029
or U+0085 (raw in JSON, as TypeClaw's `JSON.stringify` and the note writer leave them) is still
one entry, so `dreamdeck collected` lists it and a rollback can put it back."""
from __future__ import annotations

from dreamdeck.core.git.notes import read_gc_entries, read_gc_lines, record_gc_lines
from tests.support.memory import commit_all, fragment_line, uuid_at, write_stream

D = "2026-05-22"


def test_a_collected_line_with_unicode_line_separators_is_one_entry(agent_dir):
    write_stream(agent_dir, D, [fragment_line(D, 1, "tea", "green tea")])
    sha = commit_all(agent_dir)
    line = fragment_line(D, 2, "tea", "first\u2028second\u2029third\x85fourth")
    record_gc_lines(agent_dir, sha, [(D, line)], {f"{D}#{uuid_at(D, 2)}": "noise: said\u2028twice"})

    [entry] = read_gc_entries(agent_dir, sha)
    assert (entry.line, entry.reason, entry.fid) == (line, "noise: said\u2028twice", uuid_at(D, 2))
    assert read_gc_lines(agent_dir, sha) == [(D, line)]


def test_collected_never_sends_a_reasons_terminal_escapes_to_the_terminal(agent_dir):
    from tests.support.processes import run_cli

    write_stream(agent_dir, D, [fragment_line(D, 1, "tea", "green tea")])
    sha = commit_all(agent_dir)
    record_gc_lines(agent_dir, sha, [(D, fragment_line(D, 2, "tea", "oolong"))],
                    {f"{D}#{uuid_at(D, 2)}": "noise: \x1b]0;pwned\x07\x1b[2J"})

    out = run_cli(agent_dir, "collected", today=D).stdout

    assert "\x1b" not in out and "\x07" not in out
    assert "noise: \\x1b]0;pwned\\x07\\x1b[2J" in out
